// The adapter pieces that need no Verilated model (rtl/rtl_adapter.h): beat
// orders in any loop order and with skipped coordinates, pacing patterns
// (fixed and seeded), and lane packing into each port type Verilator
// chooses. Expected sequences are written out by hand below.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include <systemc>

#include "rtl/rtl_adapter.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;

namespace {

std::vector<std::pair<std::uint64_t, std::uint64_t>> walk(rtl::BeatOrder& order) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> beats;
    for (; !order.end(); order.next()) beats.emplace_back(order.at(0), order.at(1));
    return beats;
}

}  // namespace

BOOST_AUTO_TEST_CASE(beat_order_follows_the_configured_loops) {
    using Beats = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
    // Dimension 0 of extent 2, dimension 1 of extent 3.
    // Loops {0, 1}: dimension 0 outermost: (0,0) (0,1) (0,2) (1,0) (1,1) (1,2).
    rtl::BeatOrder row_major{0, 1};
    row_major.start({2, 3});
    BOOST_CHECK(walk(row_major) == (Beats{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
    // Loops {1, 0}: dimension 1 outermost: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2).
    rtl::BeatOrder column_major{1, 0};
    column_major.start({2, 3});
    BOOST_CHECK(walk(column_major) == (Beats{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}}));
    // A present predicate skips what the stream does not carry: here
    // coordinates whose sum is odd, as the GEMM's C skips rows past m.
    rtl::BeatOrder even{0, 1};
    even.set_present([](const rtl::BeatOrder& o) { return (o.at(0) + o.at(1)) % 2 == 0; });
    even.start({2, 3});
    BOOST_CHECK(walk(even) == (Beats{{0, 0}, {0, 2}, {1, 1}}));
    // An extent of 0: no beats; start() again: from the first beat.
    row_major.start({0, 3});
    BOOST_CHECK(row_major.end());
    row_major.start({1, 1});
    BOOST_CHECK(walk(row_major) == (Beats{{0, 0}}));
    // A loop list that does not name each dimension once is refused.
    BOOST_CHECK_THROW(rtl::BeatOrder({0, 0}), std::invalid_argument);
    BOOST_CHECK_THROW(rtl::BeatOrder({0, 2}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(pacing_is_fixed_or_seeded_and_reproducible) {
    rtl::Pacing none = rtl::Pacing::none();
    rtl::Pacing third = rtl::Pacing::every(3);
    std::vector<bool> held;
    for (std::uint64_t edge = 1; edge <= 6; ++edge) {
        BOOST_CHECK(!none.holds(edge));
        held.push_back(third.holds(edge));
    }
    // every(3): edges 3 and 6.
    BOOST_CHECK(held == (std::vector<bool>{false, false, true, false, false, true}));
    // random(700, seed): the same seed, the same edges; about 70 % held.
    rtl::Pacing a = rtl::Pacing::random(700, 42), b = rtl::Pacing::random(700, 42),
                c = rtl::Pacing::random(700, 43);
    int held_a = 0, same_ab = 0, same_ac = 0;
    for (std::uint64_t edge = 1; edge <= 10000; ++edge) {
        const bool ha = a.holds(edge), hb = b.holds(edge), hc = c.holds(edge);
        held_a += ha;
        same_ab += ha == hb;
        same_ac += ha == hc;
    }
    BOOST_CHECK_EQUAL(same_ab, 10000);
    BOOST_CHECK_LT(same_ac, 10000);
    BOOST_CHECK(held_a > 6700 && held_a < 7300);
    BOOST_CHECK_THROW(rtl::Pacing::every(1), std::invalid_argument);
    BOOST_CHECK_THROW(rtl::Pacing::random(1000, 1), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(lanes_pack_into_every_port_type) {
    // 4 int8 lanes in a 32-bit port: lane l in bits 8l..8l+7.
    rtl::LanePacker<std::uint32_t, 4, 8> p32;
    p32.clear();
    p32.set(0, 0x11);
    p32.set(1, static_cast<std::uint8_t>(-2));  // 0xfe
    p32.set(3, 0x80);
    BOOST_CHECK_EQUAL(p32.value(), 0x8000fe11u);
    BOOST_CHECK_EQUAL(rtl::lane_bits<8>(p32.value(), 1), 0xfeu);
    // 2 int32 lanes in a 64-bit port.
    rtl::LanePacker<std::uint64_t, 2, 32> p64;
    p64.clear();
    p64.set(0, 0xdeadbeef);
    p64.set(1, 0x01234567);
    BOOST_CHECK_EQUAL(p64.value(), 0x01234567deadbeefull);
    BOOST_CHECK_EQUAL(rtl::lane_bits<32>(p64.value(), 1), 0x01234567u);
    // 5 int32 lanes in a 160-bit sc_bv: lane 4 in the fifth word.
    rtl::LanePacker<sc_dt::sc_bv<160>, 5, 32> pbv;
    pbv.clear();
    for (int l = 0; l < 5; ++l) pbv.set(l, 0x10000000u * (l + 1) + l);
    for (int l = 0; l < 5; ++l)
        BOOST_CHECK_EQUAL(rtl::lane_bits<32>(pbv.value(), l), 0x10000000u * (l + 1) + l);
    // 16-bit lanes straddle nothing: lane 3 of a 64-bit port is bits 48..63.
    rtl::LanePacker<std::uint64_t, 4, 16> p16;
    p16.clear();
    p16.set(3, 0xabcd);
    BOOST_CHECK_EQUAL(p16.value(), 0xabcd000000000000ull);
    // clear() starts the next beat from zeros.
    p16.clear();
    BOOST_CHECK_EQUAL(p16.value(), 0u);
}
