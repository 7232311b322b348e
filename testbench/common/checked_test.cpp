// Checked arithmetic (issue 21 point 1; modules/common/checked.h,
// docs/limits.md "Checked arithmetic"): every time, byte, cycle and rate
// conversion the platform makes from user input either gives the exact value
// or throws an Overflow naming what was computed. The boundaries below are
// worked out by hand: 2^64 - 1 = 18446744073709551615; the largest double
// below 2^64 is 2^64 - 2^11 = 18446744073709549568.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "modules/common/checked.h"
#include "modules/pe/compute_worker.h"
#include "modules/pe/pe_math.h"
#include "testbench/harness/report_guard.h"
#include "tlm_sockets/hop.h"

using namespace npuvp;

namespace {

constexpr std::uint64_t kMax = ~std::uint64_t{0};

// An Overflow whose message contains every one of `parts`.
auto says(std::initializer_list<const char*> parts) {
    std::vector<std::string> want(parts.begin(), parts.end());
    return [want](const Overflow& e) {
        const std::string what = e.what();
        for (const std::string& p : want)
            if (what.find(p) == std::string::npos) {
                BOOST_TEST_MESSAGE("'" << what << "' lacks '" << p << "'");
                return false;
            }
        return true;
    };
}

}  // namespace

BOOST_AUTO_TEST_CASE(add_and_mul_are_exact_up_to_2_64_and_name_what_overflowed) {
    BOOST_CHECK_EQUAL(checked_add(kMax - 1, 1, "x"), kMax);
    BOOST_CHECK_EXCEPTION(checked_add(kMax, 1, "a hop's byte count"), Overflow,
                          says({"a hop's byte count overflows 64 bits", "18446744073709551615 + 1"}));
    // 2^32 · (2^32 - 1) = 2^64 - 2^32 fits; 2^32 · 2^32 = 2^64 does not.
    BOOST_CHECK_EQUAL(checked_mul(1ull << 32, (1ull << 32) - 1, "x"), kMax - ((1ull << 32) - 1));
    BOOST_CHECK_EXCEPTION(checked_mul(1ull << 32, 1ull << 32, "tile count"), Overflow,
                          says({"tile count overflows 64 bits", "4294967296 × 4294967296"}));
    // Saturating forms, for comparisons against a bound only.
    BOOST_CHECK_EQUAL(sat_add(kMax, 1), kSaturated);
    BOOST_CHECK_EQUAL(sat_mul(1ull << 32, 1ull << 32), kSaturated);
    BOOST_CHECK_EQUAL(ceil_div(kMax, 1), kMax);
    BOOST_CHECK_EQUAL(ceil_div(7, 2), 4u);
}

BOOST_AUTO_TEST_CASE(no_float_converts_to_an_integer_out_of_range) {
    // In range: exact (the largest double below 2^64 is 2^64 - 2048).
    BOOST_CHECK_EQUAL(checked_u64(18446744073709549568.0, "t", "ps"), 18446744073709549568ull);
    BOOST_CHECK_EQUAL(checked_u64(0.0, "t", "ps"), 0u);
    // Out of range: the conversion would be undefined behaviour.
    for (const double bad : {18446744073709551616.0, 1e300, -1.0, std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN()})
        BOOST_CHECK_EXCEPTION(checked_u64(bad, "a GEMM stage's time", "ps"), Overflow,
                              says({"a GEMM stage's time is out of range", "ps"}));
}

BOOST_AUTO_TEST_CASE(times_and_rates_from_keys_are_checked) {
    // ns -> ps rounds to the nearest ps: 1e9 ns (the limit of every _ns key) is 1e12 ps.
    BOOST_CHECK_EQUAL(ns_to_ps(1e9, "k"), 1000000000000ull);
    BOOST_CHECK_EQUAL(ns_to_ps(0.0004, "k"), 0u);
    BOOST_CHECK_EQUAL(ns_to_ps(0.0006, "k"), 1u);
    BOOST_CHECK_EXCEPTION(ns_to_ps(1e300, "pe_dma.attrs.setup_ns"), Overflow,
                          says({"pe_dma.attrs.setup_ns is out of range"}));
    BOOST_CHECK_EXCEPTION(ns_to_ps(-1.0, "pe_dma.attrs.setup_ns"), Overflow, says({"pe_dma.attrs.setup_ns"}));
    // GB/s -> bytes/s: 1e6 GB/s (the key limit) is 1e15 B/s; 1e300 is not a count.
    BOOST_CHECK_EQUAL(bytes_per_s(1e6), 1000000000000000ull);
    BOOST_CHECK_EXCEPTION(bytes_per_s(1e300), Overflow, says({"a bandwidth is out of range", "bytes/s"}));
    // Cycles -> ps at a clock: 3 cycles at 1.25 GHz = 2400 ps exactly; 1 at
    // 3 GHz = 333.33 -> 334 (rounded up); 2^63 cycles at 1 MHz (1e6 ps each)
    // is far beyond 2^64 ps.
    BOOST_CHECK_EQUAL(cycles_to_ps(3, 1.25), 2400u);
    BOOST_CHECK_EQUAL(cycles_to_ps(1, 3.0), 334u);
    BOOST_CHECK_EXCEPTION(cycles_to_ps(1ull << 63, 0.001, "a GEMM stage's time"), Overflow,
                          says({"a GEMM stage's time is out of range"}));
}

BOOST_AUTO_TEST_CASE(serialisation_beyond_64_bit_ps_is_an_overflow_not_a_truncation) {
    // 2^40 bytes at 1e6 B/s (0.001 GB/s, the slowest legal key) = 2^40 · 1e6
    // ps = 1099511627776000000 ps: exact, through the 128-bit path.
    BOOST_CHECK_EQUAL(serialisation_ps(std::uint64_t{1} << 40, std::uint64_t{1000000}), 1099511627776000000ull);
    // 2^46 bytes (a 64-copy broadcast of 2^40) at 1e6 B/s = 7.0e19 ps > 2^64:
    // an Overflow, where the cast used to keep the low 64 bits.
    BOOST_CHECK_EXCEPTION(serialisation_ps(std::uint64_t{1} << 46, std::uint64_t{1000000}), Overflow,
                          says({"a transfer's serialisation time is out of range"}));
}

BOOST_AUTO_TEST_CASE(a_hop_reservation_past_2_64_ps_is_an_overflow) {
    // T1 on one hop of 1 ns at 1 GB/s: 1000 bytes from t = 0 reserve it to
    // 1000 ns and arrive at 1 ns; from t = 2^64 - 500000 ps the reservation
    // would end 500 000 ps past 2^64.
    Hop hop("h", 1000, 1.0);
    BOOST_CHECK_EQUAL(hop.reserve(0, 1000), 1000u);
    BOOST_CHECK_EQUAL(hop.free_ps(), 1000000u);
    BOOST_CHECK_EXCEPTION(hop.reserve(kMax - 500000, 1000), Overflow, says({"hop h: a T1 reservation", "overflows 64 bits"}));
    // A pure-latency hop: only the arrival can overflow.
    Hop wire("w", 1000, 0.0);
    BOOST_CHECK_EXCEPTION(wire.reserve(kMax - 10, 0), Overflow, says({"hop w: a T1 reservation", "overflows 64 bits"}));
}

BOOST_AUTO_TEST_CASE(math_cycles_are_checked) {
    // ceil(elements · cost / lanes) + fill: 1000 relu at cost 1 on 512 lanes
    // = 2 + 8 fill = 10; 2^32 elements at cost 1e9 on one lane is 4.3e18
    // cycles (fits), on lanes = 0 it is no number at all.
    PeMathConfig c;
    c.lanes = 512;
    c.fill_cycles = 8;
    c.op_cost["relu"] = 1.0;
    c.op_cost["heavy"] = 1e9;
    BOOST_CHECK_EQUAL(math_cycles(c, 1000, "relu"), 10u);
    c.lanes = 1;
    BOOST_CHECK_EQUAL(math_cycles(c, 1ull << 32, "heavy"), 4294967296000000000ull + 8);
    c.lanes = 0;
    BOOST_CHECK_EXCEPTION(math_cycles(c, 1, "heavy"), Overflow, says({"a MATH stage's cycle count is out of range"}));
}
