// Unsigned 64-bit arithmetic that saturates at 2^64 - 1 instead of wrapping:
// for counts (cycles, bytes) computed from sizes a workload gives, where a
// wrapped value would look small and pass as plausible. A saturated value
// stays recognisable (issue 21 turns it into an error naming the key).
#pragma once

#include <cstdint>

namespace npuvp {

inline constexpr std::uint64_t kSaturated = ~std::uint64_t{0};

inline std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
    std::uint64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? kSaturated : r;
}

inline std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
    std::uint64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}

// ceil(a / b), b > 0; never overflows.
inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

}  // namespace npuvp
