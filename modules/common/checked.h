// Checked arithmetic for every time (ps), byte, cycle and rate computation
// (issue 21; docs/limits.md "Checked arithmetic"): the one helper the
// platform uses where a value computed from user input could leave 64 bits
// or a float could land outside the integer it is converted to. An overflow
// throws `Overflow`, whose message names what was computed (`what`: a key, a
// command's stage, a sum) and the operands. Who catches it adds the rest:
//   - a loader or the platform's elaboration, the file, line and key;
//   - a stage worker at run time, the PE and the command
//     (MethodStageWorker::serve_round(), docs/timing.md), and the run fails
//     with exit 1 and that diagnosis.
// The hot path pays one branch per operation: the throw is out of line.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace npuvp {

// An arithmetic result that does not fit: never wrapped, never saturated.
class Overflow : public std::overflow_error {
public:
    using std::overflow_error::overflow_error;
};

namespace checked_detail {
[[noreturn, gnu::cold, gnu::noinline]] void overflow(const char* what, const char* op, std::uint64_t a,
                                                     std::uint64_t b);
[[noreturn, gnu::cold, gnu::noinline]] void out_of_range(const char* what, double value, const char* unit);
}  // namespace checked_detail

inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, const char* what) {
    std::uint64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) [[unlikely]]
        checked_detail::overflow(what, "+", a, b);
    return r;
}

inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const char* what) {
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) [[unlikely]]
        checked_detail::overflow(what, "×", a, b);
    return r;
}

// Saturating forms, for a value that is only compared against a bound (a
// loader's "does it fit"): one beyond 64 bits becomes 2^64 - 1 and fails
// every such comparison, which then names the key. Never for a value that
// is used further: that is checked_add / checked_mul.
inline constexpr std::uint64_t kSaturated = ~std::uint64_t{0};
inline std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
    std::uint64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? kSaturated : r;
}
inline std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
    std::uint64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}

// For a hot path that checks several sums with one branch: a + b, setting
// `over` if it overflowed; then `if (over) [[unlikely]] throw_overflow(...)`.
inline std::uint64_t add_flagged(std::uint64_t a, std::uint64_t b, bool& over) {
    std::uint64_t r = 0;
    over |= __builtin_add_overflow(a, b, &r);
    return r;
}
[[noreturn, gnu::cold, gnu::noinline]] void throw_overflow(const std::string& what);

// ceil(a / b), b > 0; never overflows.
inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

// A non-negative double as a whole number (already rounded as the caller
// wants): NaN, a negative value or one at or beyond 2^64 is an Overflow
// (the conversion would be undefined behaviour). `unit` names the unit in the
// message ("ps", "cycles", "bytes/s").
inline std::uint64_t checked_u64(double v, const char* what, const char* unit) {
    // 2^64 as a double is exact; every double below it converts.
    if (!(v >= 0.0 && v < 18446744073709551616.0)) [[unlikely]]
        checked_detail::out_of_range(what, v, unit);
    return static_cast<std::uint64_t>(v);
}

}  // namespace npuvp
