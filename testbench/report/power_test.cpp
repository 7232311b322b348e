// Power over time (report/energy.h, report/vcd_finish.h; docs/outputs.md
// "Power over time"): the peak over a window of a power profile, and the
// power signal a VCD gains. The profiles are written by hand; every expected
// figure is worked out in the comments. A run's profile, from its commands
// and the energy table, is derived by hand in
// model_import_test.a_commands_energy_is_spread_over_its_span.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "report/energy.h"
#include "report/vcd_finish.h"

using namespace npuvp;

namespace {

// 10 W, then 30 W from 100 ps to 300 ps, then 10 W to the end at 1000 ps.
// Energy: 100 · 10 + 200 · 30 + 700 · 10 = 14000 pJ.
const std::vector<Energy::Step> profile = {{0, 10.0}, {100, 30.0}, {300, 10.0}, {1000, 0.0}};

}  // namespace

BOOST_AUTO_TEST_CASE(the_peak_is_the_window_with_the_most_energy_the_earliest_on_a_tie) {
    // 100 ps: any window inside [100, 300] holds 30 W; the earliest starts at 100.
    PeakPower p = peak_power(profile, 1000, 100);
    BOOST_CHECK_CLOSE(p.w, 30.0, 1e-9);
    BOOST_CHECK_EQUAL(p.from_ps, 100u);
    BOOST_CHECK_EQUAL(p.window_ps, 100u);
    // 250 ps: at most 200 ps of 30 W and 50 of 10 W = 6500 pJ, 26 W; the
    // window [50, 300] is the earliest such (its end meets the step down at
    // 300), [100, 350] the latest.
    p = peak_power(profile, 1000, 250);
    BOOST_CHECK_CLOSE(p.w, 26.0, 1e-9);
    BOOST_CHECK_EQUAL(p.from_ps, 50u);
    // 400 ps: all of the 30 W and 200 ps of 10 W = 8000 pJ, 20 W, from 0.
    p = peak_power(profile, 1000, 400);
    BOOST_CHECK_CLOSE(p.w, 20.0, 1e-9);
    BOOST_CHECK_EQUAL(p.from_ps, 0u);
    // 900 ps: every start from 0 to 100 holds the 30 W and 700 ps of 10 W
    // (from 0: 100 before it and 600 after; from 100: 700 after) = 13000 pJ,
    // 14.444 W; the earliest, 0.
    p = peak_power(profile, 1000, 900);
    BOOST_CHECK_CLOSE(p.w, 13000.0 / 900.0, 1e-9);
    BOOST_CHECK_EQUAL(p.from_ps, 0u);
    // A window as long as the run or longer is the run: 14000 pJ / 1000 ps.
    for (const std::uint64_t w : {std::uint64_t{1000}, std::uint64_t{5000}}) {
        p = peak_power(profile, 1000, w);
        BOOST_CHECK_CLOSE(p.w, 14.0, 1e-9);
        BOOST_CHECK_EQUAL(p.from_ps, 0u);
        BOOST_CHECK_EQUAL(p.window_ps, 1000u);
    }
    // Nothing ran: no power.
    p = peak_power({}, 0, 100);
    BOOST_CHECK_EQUAL(p.w, 0.0);
}

BOOST_AUTO_TEST_CASE(a_vcd_gains_the_power_as_a_real_signal_at_each_step) {
    // A VCD as SystemC writes it (beside the VCD, vcd_kernel_path()): a
    // dated header, one scope, the initial values, changes at 0, 500 and
    // 2000 ps.
    const std::string path = "power_test.vcd";
    {
        std::ofstream f(vcd_kernel_path(path), std::ios::binary);
        f << "$date\n     Dec 05, 2026  06:00:00\n$end\n\n$timescale\n     1 ps\n$end\n\n"
             "$scope module SystemC $end\n$var wire    1  aaaaa  busy  $end\n$upscope $end\n\n"
             "$enddefinitions  $end\n\n$dumpvars\n0aaaaa\n$end\n\n#0\n1aaaaa\n\n#500\n0aaaaa\n\n#2000\n1aaaaa\n";
    }
    Energy e;
    e.power = {{0, 1.5}, {100, 2.25}, {500, 1.5}, {3000, 0.0}};
    finish_vcd(path, &e);
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    // The date is gone; the power is declared before the first scope; its
    // value at 0 is with the initial values; the step at 100 gets a time of
    // its own between #0 and #500; the one at 500 joins #500; the last, at
    // 3000, comes after every other change.
    const std::string expected =
        "$date\n     (npuvp: no wall-clock date, so identical runs give identical files)\n$end\n\n"
        "$timescale\n     1 ps\n$end\n\n"
        "$scope module npuvp $end\n$var real 64 !pw power_w $end\n$upscope $end\n"
        "$scope module SystemC $end\n$var wire    1  aaaaa  busy  $end\n$upscope $end\n\n"
        "$enddefinitions  $end\n\n$dumpvars\nr1.500000 !pw\n0aaaaa\n$end\n\n#0\n1aaaaa\n\n"
        "#100\nr2.250000 !pw\n#500\nr1.500000 !pw\n0aaaaa\n\n#2000\n1aaaaa\n#3000\nr0.000000 !pw\n";
    BOOST_CHECK_EQUAL(text.str(), expected);
    // Without a run's energy (a failed run), only the date changes.
    BOOST_CHECK(!std::ifstream(vcd_kernel_path(path)));  // the kernel's file is gone
    {
        std::ofstream f(vcd_kernel_path(path), std::ios::binary);
        f << "$date\n     today\n$end\n$scope module SystemC $end\n$upscope $end\n$dumpvars\n$end\n#0\n";
    }
    finish_vcd(path, nullptr);
    std::ifstream again(path, std::ios::binary);
    std::ostringstream plain;
    plain << again.rdbuf();
    BOOST_CHECK_EQUAL(plain.str(),
                      "$date\n     (npuvp: no wall-clock date, so identical runs give identical files)\n$end\n"
                      "$scope module SystemC $end\n$upscope $end\n$dumpvars\n$end\n#0\n");
}
