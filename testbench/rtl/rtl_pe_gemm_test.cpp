// impl: rtl.pe_gemm in the whole platform (docs/rtl.md): the shipped GEMM
// workload gives the same makespan with the RTL and with the C++ model
// configured like it; where the two differ (edge tiles, k < ROWS) they
// differ by the derived bound; accel_slot still keeps GEMM and MATH apart;
// --vcd-rtl lines up with --vcd; bad input is a clear error.
//
// rtl_gemm.yaml is default.yaml with an 8 x 8 GEMM at 1 GHz (1 ns a cycle)
// and fill_cycles 16 for the C++ model. Per GEMM stage m×k×n, with B =
// ceil(m/8)·ceil(n/8) blocks in row-major order, rows_b the result rows of
// block b (8, or what is left of m):
//   RTL:     cycles = sum over the first B-1 blocks of max(k, rows_b) + k + rows_last + 8
//   builtin: cycles = B·k + 16                                     (SPEC T3)
// so they agree when 8 divides m and k >= 8, and otherwise differ by
//   delta = sum over the first B-1 blocks of max(0, rows_b - k) - (8 - rows_last).
// The documented bound on the makespans is the sum of |delta| over the
// run's GEMM stages, in ns.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "config/workload_loader.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/run_npuvp.h"
#include "testbench/harness/trace_reader.h"
#include "testbench/harness/vcd_reader.h"

using namespace npuvp;
using test::EngineInterval;

namespace {

const std::string gemm0 = "sip0.cube0.pe0.pe_gemm";
const std::string math0 = "sip0.cube0.pe0.pe_math";
const std::string to_builtin = " --set cube.pe_template.components.pe_gemm.impl=builtin.pe_gemm";

std::string on_rtl_topology() {
    return "--topology " + test::shipped_topology("rtl_gemm") + " ";
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// "makespan 2101233.001 ns" on stdout, in ps.
std::uint64_t makespan_ps(const std::string& out) {
    const std::size_t at = out.find("\nmakespan ");
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, "no makespan in:\n" << out);
    std::istringstream in(out.substr(at + 10));
    std::string ns;
    in >> ns;
    const std::size_t dot = ns.find('.');
    return std::stoull(ns.substr(0, dot)) * 1000 + std::stoull(ns.substr(dot + 1));
}

std::vector<EngineInterval> gemm_intervals(const std::string& trace_file) {
    return test::with_stage(test::engine_intervals(test::parse_trace(test::slurp(trace_file))),
                            "GEMM", gemm0);
}

// Runs one workload on rtl_gemm.yaml with the RTL and with the C++ model;
// both must finish.
struct Pair {
    test::RunResult rtl, builtin;
    std::vector<EngineInterval> rtl_gemms, builtin_gemms;
};

Pair run_both(const std::string& workload, const std::string& name) {
    Pair p;
    p.rtl = test::run_npuvp(on_rtl_topology() + "--workload " + workload + " --trace " + name +
                            "_rtl.jsonl");
    p.builtin = test::run_npuvp(on_rtl_topology() + "--workload " + workload + to_builtin +
                                " --trace " + name + "_builtin.jsonl");
    BOOST_REQUIRE_MESSAGE(p.rtl.code == 0, p.rtl.out);
    BOOST_REQUIRE_MESSAGE(p.builtin.code == 0, p.builtin.out);
    p.rtl_gemms = gemm_intervals(name + "_rtl.jsonl");
    p.builtin_gemms = gemm_intervals(name + "_builtin.jsonl");
    return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(shipped_gemm_workload_agrees_with_the_cpp_model) {
    // gemm_bias_relu: 512^3 in 128^3 tiles, 64 tokens of 128x128x128.
    // RTL: 16·16 = 256 blocks of 8 rows, k = 128 >= 8:
    //   255·128 + 128 + 8 + 8 = 32 784 cycles = 32 784 ns;
    // builtin: 16·16·128 + 16 = 32 784. delta = 0 on every stage: the bound
    // is 0 ns, the makespans are equal, and since nothing else differs the
    // two runs are the same event for event.
    const Pair p = run_both(test::shipped_workload("gemm_bias_relu"), "rtl_shipped");
    BOOST_CHECK_EQUAL(makespan_ps(p.rtl.out), makespan_ps(p.builtin.out));
    BOOST_REQUIRE_EQUAL(p.rtl_gemms.size(), 64u);
    for (const EngineInterval& g : p.rtl_gemms) BOOST_CHECK_EQUAL(g.end_ps - g.start_ps, 32784000u);
    BOOST_CHECK(test::slurp("rtl_shipped_rtl.jsonl") == test::slurp("rtl_shipped_builtin.jsonl"));
    // The summary names the RTL array.
    BOOST_CHECK(p.rtl.out.find("GEMM 8x8 @ 1 GHz") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(serial_gemms_differ_by_the_sum_of_their_deltas) {
    // Three GEMMs in PE0's main context, one after another (in order, one at
    // a time, SPEC §6), nothing else running: every other time is the same
    // in both runs, so the makespans differ by exactly the sum of deltas.
    //   13x7x11: blocks of 8, 8, 5, 5 rows; RTL max(7,8)+max(7,8)+max(7,5) + 7 + 5 + 8 = 43,
    //            builtin 4·7 + 16 = 44, delta -1;
    //   9x1x9:   blocks 8, 8, 1, 1; RTL 8 + 8 + 1 + 1 + 1 + 8 = 27, builtin 4·1 + 16 = 20, delta +7;
    //   20x64x24: 9 blocks, the last row of blocks 4 rows, k >= 8:
    //            RTL 9·64 + 4 + 8 = 588, builtin 9·64 + 16 = 592, delta -4.
    // Sum +2 ns; bound (sum of |delta|) 12 ns.
    write_file("rtl_serial.yaml", R"(
name: rtl_serial
kernels:
  k:
    - gemm: { id: g1, m: 13, k: 7, n: 11 }
    - gemm: { id: g2, m: 9, k: 1, n: 9 }
    - gemm: { id: g3, m: 20, k: 64, n: 24 }
    - wait: all
launch:
  - { kernel: k, pes: [0] }
)");
    const Pair p = run_both("rtl_serial.yaml", "rtl_serial");
    BOOST_REQUIRE_EQUAL(p.rtl_gemms.size(), 3u);
    BOOST_REQUIRE_EQUAL(p.builtin_gemms.size(), 3u);
    const std::uint64_t rtl_ns[] = {43, 27, 588}, builtin_ns[] = {44, 20, 592};
    for (int i = 0; i < 3; ++i) {
        BOOST_CHECK_EQUAL(p.rtl_gemms[i].end_ps - p.rtl_gemms[i].start_ps, rtl_ns[i] * 1000);
        BOOST_CHECK_EQUAL(p.builtin_gemms[i].end_ps - p.builtin_gemms[i].start_ps,
                          builtin_ns[i] * 1000);
    }
    BOOST_CHECK_EQUAL(makespan_ps(p.rtl.out), makespan_ps(p.builtin.out) + 2000);
}

BOOST_AUTO_TEST_CASE(a_gemm_command_pays_command_cycles_on_the_rtl_too) {
    // Issue 40 point 1: pe_gemm command_cycles 50 is the command's fixed
    // cost whichever engine computes it (docs/timing.md T3), paid after the
    // RTL's cycles while it holds the slot. 13x7x11 (as above): RTL 43 + 50
    // = 93 ns, builtin 44 + 50 = 94 ns; the GEMM intervals are those.
    write_file("rtl_command.yaml", R"(
name: rtl_command
kernels:
  k:
    - gemm: { id: g1, m: 13, k: 7, n: 11 }
launch:
  - { kernel: k, pes: [0] }
)");
    const std::string cost = " --set cube.pe_template.components.pe_gemm.attrs.command_cycles=50";
    const test::RunResult rtl =
        test::run_npuvp(on_rtl_topology() + "--workload rtl_command.yaml --trace rtl_command_rtl.jsonl" + cost);
    const test::RunResult builtin = test::run_npuvp(on_rtl_topology() +
                                                    "--workload rtl_command.yaml --trace rtl_command_builtin.jsonl" +
                                                    cost + to_builtin);
    BOOST_REQUIRE_MESSAGE(rtl.code == 0, rtl.out);
    BOOST_REQUIRE_MESSAGE(builtin.code == 0, builtin.out);
    const auto r = gemm_intervals("rtl_command_rtl.jsonl"), b = gemm_intervals("rtl_command_builtin.jsonl");
    BOOST_REQUIRE_EQUAL(r.size(), 1u);
    BOOST_REQUIRE_EQUAL(b.size(), 1u);
    BOOST_CHECK_EQUAL(r[0].end_ps - r[0].start_ps, 93000u);
    BOOST_CHECK_EQUAL(b[0].end_ps - b[0].start_ps, 94000u);
}

BOOST_AUTO_TEST_CASE(edge_tile_composite_stays_within_the_bound) {
    // 21x8x16 in 13x4x16 tiles: tokens (mi, ki) = (0,0), (0,1) of 13x4x16
    // and (1,0), (1,1) of 8x4x16 (edge tile in m, K in two steps of 4 < 8).
    //   13x4x16: blocks 8, 8, 5, 5: RTL 8 + 8 + 5 + 4 + 5 + 8 = 38, builtin 2·2·4 + 16 = 32, delta +6;
    //   8x4x16:  blocks 8, 8: RTL 8 + 4 + 8 + 8 = 28, builtin 2·4 + 16 = 24, delta +4.
    // Bound: 6 + 6 + 4 + 4 = 20 ns. (DMA-bound here: each token's read takes
    // ~600 ns, so only the last GEMM is on the critical path.)
    write_file("rtl_edges.yaml", R"(
name: rtl_edges
kernels:
  k:
    - composite:
        id: mm
        gemm: { m: 21, k: 8, n: 16 }
        tile: { m: 13, k: 4, n: 16 }
        dtype: { in: int8, out: int8 }
        epilogues:
          - { op: relu, scope: per_output_tile }
        wait: true
launch:
  - { kernel: k, pes: [0] }
)");
    const Pair p = run_both("rtl_edges.yaml", "rtl_edges");
    BOOST_REQUIRE_EQUAL(p.rtl_gemms.size(), 4u);
    BOOST_REQUIRE_EQUAL(p.builtin_gemms.size(), 4u);
    const std::uint64_t rtl_ns[] = {38, 38, 28, 28}, builtin_ns[] = {32, 32, 24, 24};
    for (std::size_t i = 0; i < 4; ++i) {
        BOOST_CHECK_EQUAL(p.rtl_gemms[i].tile, static_cast<std::int64_t>(i));
        BOOST_CHECK_EQUAL(p.rtl_gemms[i].end_ps - p.rtl_gemms[i].start_ps, rtl_ns[i] * 1000);
        BOOST_CHECK_EQUAL(p.builtin_gemms[i].end_ps - p.builtin_gemms[i].start_ps,
                          builtin_ns[i] * 1000);
    }
    const std::int64_t diff = static_cast<std::int64_t>(makespan_ps(p.rtl.out)) -
                              static_cast<std::int64_t>(makespan_ps(p.builtin.out));
    BOOST_CHECK_LE(std::llabs(diff), 20000);
    BOOST_CHECK_NE(diff, 0);  // the RTL's edge tiles do show
}

BOOST_AUTO_TEST_CASE(gemm_and_math_never_overlap_with_the_rtl_engine) {
    // Compute-bound so that the RTL GEMM and MATH compete for accel_slot:
    // int8, 64x64x128 in 64x16x64 tiles: 1 x 2 output tiles x 4 K-steps = 8
    // tokens.
    //   GEMM 64x16x64 on the RTL: 8·8 = 64 blocks of 8 rows, k = 16 >= 8:
    //     63·16 + 16 + 8 + 8 = 1040 cycles = 1040 ns;
    //   MATH over 64·64 = 4096 elements: ceil(4096/512) + 8 = 16 ns each;
    //     8 add + 2 x (bias_add + relu) + 1 cast = 13 stages;
    //   DMA_READ (64·16 + 16·64)·1 = 2048 B: 604 + 10.667 ns < 1040 ns.
    // When GEMM(t) releases the slot its worker takes GEMM(t+1), already
    // waiting in its inbox, in the same delta; MATH(t) asks a delta later and
    // queues, and the slot (request order) passes to it when GEMM(t+1) ends:
    // so MATH stages start exactly when GEMMs end, and GEMMs that queued
    // behind a MATH start exactly when it ends.
    const TopologyConfig topo = test::load_shipped("rtl_gemm");
    const WorkloadConfig wl = load_workload_text(R"(
name: chain
kernels:
  k:
    - composite:
        id: chain
        gemm: { m: 64, k: 64, n: 128 }
        tile: { m: 64, k: 16, n: 64 }
        dtype: { in: int8, out: int8 }
        epilogues:
          - { op: add, scope: per_k_tile }
          - { op: bias_add, scope: per_output_tile }
          - { op: relu, scope: per_output_tile }
          - { op: cast, scope: once }
        wait: true
launch:
  - { kernel: k, pes: [0] }
)",
                                                 "chain.yaml", topo);
    std::ostringstream text;
    TraceSink trace(&text);
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    sc_core::sc_start();
    BOOST_REQUIRE(run.finished());
    BOOST_REQUIRE(platform.sips()[0].cubes[0].pes[0]->gemm().rtl() != nullptr);

    const auto intervals = test::engine_intervals(test::parse_trace(text.str()));
    const auto gemms = test::with_stage(intervals, "GEMM", gemm0);
    const auto maths = test::with_stage(intervals, "MATH", math0);
    BOOST_REQUIRE_EQUAL(gemms.size(), 8u);
    BOOST_REQUIRE_EQUAL(maths.size(), 13u);
    int math_after_gemm = 0, gemm_after_math = 0;
    for (const auto& g : gemms) {
        BOOST_CHECK_EQUAL(g.end_ps - g.start_ps, 1040000u);
        for (const auto& m : maths) {
            BOOST_CHECK_MESSAGE(!g.overlaps(m), "GEMM tile " << g.tile << " [" << g.start_ps
                                                             << ", " << g.end_ps
                                                             << ") meets MATH tile " << m.tile
                                                             << " [" << m.start_ps << ", "
                                                             << m.end_ps << ")");
            math_after_gemm += m.start_ps == g.end_ps;
            gemm_after_math += g.start_ps == m.end_ps;
        }
    }
    for (const auto& m : maths) BOOST_CHECK_EQUAL(m.end_ps - m.start_ps, 16000u);
    BOOST_CHECK_GT(math_after_gemm, 0);
    BOOST_CHECK_GT(gemm_after_math, 0);
    // Busy accounting as the builtin's: the RTL's cycles, 8 x 1040.
    BOOST_CHECK_EQUAL(platform.sips()[0].cubes[0].pes[0]->gemm().worker().busy().value(),
                      8u * 1040000u);
    BOOST_CHECK_EQUAL(platform.sips()[0].cubes[0].pes[0]->gemm().rtl()->rtl_cycles(), 8u * 1040u);
}

BOOST_AUTO_TEST_CASE(vcd_rtl_lines_up_with_the_platform_vcd) {
    // 16x16x16 on pe0: 2·2 = 4 blocks of 8 rows, k = 16 >= 8:
    // 4·16 + 8 + 8 = 80 cycles of 1000 ps, each low 500 ps then high 500 ps.
    write_file("rtl_small.yaml", R"(
name: rtl_small
kernels:
  k:
    - composite:
        id: mm
        gemm: { m: 16, k: 16, n: 16 }
        tile: { m: 16, k: 16, n: 16 }
        dtype: { in: int8, out: int8 }
        wait: true
launch:
  - { kernel: k, pes: [0] }
)");
    const std::string args = on_rtl_topology() + "--workload rtl_small.yaml --trace rtl_small.jsonl";
    const test::RunResult r =
        test::run_npuvp(args + " --vcd rtl_small_platform.vcd --vcd-rtl rtl_small_rtl.vcd");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_CHECK(r.out.find("vcd-rtl  rtl_small_rtl.vcd") != std::string::npos);
    const auto gemms = gemm_intervals("rtl_small.jsonl");
    BOOST_REQUIRE_EQUAL(gemms.size(), 1u);
    const std::uint64_t start = gemms[0].start_ps, end = gemms[0].end_ps;
    BOOST_CHECK_EQUAL(end - start, 80000u);

    const std::string rtl = test::slurp("rtl_small_rtl.vcd");
    BOOST_CHECK(rtl.find("$timescale 1ps $end") != std::string::npos);
    const std::string array = "sip0.cube0.pe0.pe_gemm.rtl.array.npuvp_gemm_array.";
    auto clk = test::vcd_scalar_changes(rtl, array + "clk");
    BOOST_REQUIRE(!clk.empty());
    BOOST_CHECK_EQUAL(clk.front().first, 0u);  // the initial dump
    clk.erase(clk.begin());
    BOOST_REQUIRE_EQUAL(clk.size(), 160u);  // 80 rising and 80 falling edges
    for (std::size_t i = 0; i < clk.size(); ++i) {
        // Cycle c (from 0) rises at start + 1000·c + 500 and falls at start + 1000·(c + 1).
        const std::uint64_t c = i / 2;
        const bool rise = i % 2 == 0;
        BOOST_CHECK_EQUAL(clk[i].second, rise ? '1' : '0');
        BOOST_CHECK_EQUAL(clk[i].first, start + 1000 * c + (rise ? 500 : 1000));
    }
    BOOST_CHECK_EQUAL(clk.back().first, end);
    // The command is offered when the engine starts; done comes with the last cycle.
    const auto cmd_valid = test::vcd_scalar_changes(rtl, array + "cmd_valid");
    BOOST_REQUIRE_GE(cmd_valid.size(), 2u);
    BOOST_CHECK_EQUAL(cmd_valid[1].first, start);
    const auto done = test::vcd_scalar_changes(rtl, array + "done");
    BOOST_REQUIRE_GE(done.size(), 2u);
    BOOST_CHECK_EQUAL(done[1].first, end - 500);
    // Only pe0 works: pe1's clock never moves.
    BOOST_CHECK_EQUAL(
        test::vcd_scalar_changes(rtl, "sip0.cube0.pe1.pe_gemm.rtl.array.npuvp_gemm_array.clk")
            .size(),
        1u);
    // The platform's shadow signal marks the same interval on the same time base.
    const std::string platform = test::slurp("rtl_small_platform.vcd");
    const auto busy = test::vcd_scalar_changes(platform, "SystemC." + gemm0 + ".busy");
    BOOST_REQUIRE_EQUAL(busy.size(), 3u);
    BOOST_CHECK_EQUAL(busy[1].first, start);
    BOOST_CHECK_EQUAL(busy[2].first, end);
    // GTKWave's converter reads it (gtkwave package, tools/bootstrap.sh).
    BOOST_CHECK_EQUAL(std::system("vcd2fst rtl_small_rtl.vcd rtl_small_rtl.fst > rtl_small_fst.log 2>&1"),
                      0);
}

BOOST_AUTO_TEST_CASE(waveforms_are_deterministic_and_impl_blind) {
    // The shipped gemm_int8_small (docs/rtl.md's waveform example): same run
    // twice, the same RTL VCD byte for byte. With the C++ model instead
    // (its 32x32x32 stages take 4·4·32 + 16 = 528 cycles there, as on the
    // RTL: 8 divides 32 and k = 32 >= 8), the platform's VCD is the same
    // byte for byte: the RTL engine's shadow signals behave as the builtin's.
    const std::string args =
        on_rtl_topology() + "--workload " + test::shipped_workload("gemm_int8_small") + " ";
    BOOST_REQUIRE_EQUAL(test::run_npuvp(args + "--vcd rtl_det_a.vcd --vcd-rtl rtl_det_a_rtl.vcd").code, 0);
    BOOST_REQUIRE_EQUAL(test::run_npuvp(args + "--vcd rtl_det_b.vcd --vcd-rtl rtl_det_b_rtl.vcd").code, 0);
    BOOST_REQUIRE_EQUAL(test::run_npuvp(args + to_builtin + " --vcd rtl_det_c.vcd").code, 0);
    const std::string rtl_a = test::slurp("rtl_det_a_rtl.vcd");
    BOOST_CHECK(!rtl_a.empty());
    BOOST_CHECK(rtl_a == test::slurp("rtl_det_b_rtl.vcd"));
    // 8 stages of 528 cycles: 2·8·528 clock edges after the initial dump.
    BOOST_CHECK_EQUAL(
        test::vcd_scalar_changes(rtl_a, "sip0.cube0.pe0.pe_gemm.rtl.array.npuvp_gemm_array.clk")
            .size(),
        1u + 2 * 8 * 528);
    const std::string platform_a = test::slurp("rtl_det_a.vcd");
    BOOST_CHECK(platform_a == test::slurp("rtl_det_b.vcd"));
    BOOST_CHECK(platform_a == test::slurp("rtl_det_c.vcd"));
}

BOOST_AUTO_TEST_CASE(bad_rtl_input_is_a_clear_error) {
    // rtl.pe_gemm on default.yaml, whose pe_gemm is 128 x 128: exit 2 at the
    // file's `rows` line of the pe_gemm block.
    const std::string file = test::shipped_topology("default");
    const std::string text = test::slurp(file);
    const std::size_t block = text.find("      pe_gemm:");
    const std::size_t rows_at = text.find("rows: 128", block);
    BOOST_REQUIRE(block != std::string::npos && rows_at != std::string::npos);
    const int rows_line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + rows_at, '\n'));
    const test::RunResult size = test::run_npuvp(
        "--set cube.pe_template.components.pe_gemm.impl=rtl.pe_gemm");
    BOOST_CHECK_EQUAL(size.code, 2);
    BOOST_CHECK_MESSAGE(size.out.find(file + ":" + std::to_string(rows_line) + ":") !=
                            std::string::npos,
                        size.out);
    BOOST_CHECK(size.out.find("cube.pe_template.components.pe_gemm.attrs.rows: rtl.pe_gemm is "
                              "the 8 x 8 RTL array") != std::string::npos);
    BOOST_CHECK(size.out.find("rows must be 8 (got 128)") != std::string::npos);

    // --vcd-rtl without an RTL block, or not a .vcd: exit 2.
    write_file("rtl_bad_gemm.yaml", R"(
name: rtl_bad_gemm
kernels:
  k:
    - gemm: { id: g, m: 8, k: 8, n: 8 }
launch:
  - { kernel: k, pes: [0] }
)");
    const test::RunResult none = test::run_npuvp("--workload rtl_bad_gemm.yaml --vcd-rtl none.vcd");
    BOOST_CHECK_EQUAL(none.code, 2);
    BOOST_CHECK(none.out.find("--vcd-rtl none.vcd: the topology has no RTL block") !=
                std::string::npos);
    const test::RunResult name = test::run_npuvp(on_rtl_topology() + "--vcd-rtl waves.txt");
    BOOST_CHECK_EQUAL(name.code, 2);
    BOOST_CHECK(name.out.find("--vcd-rtl: the file name must end in .vcd") != std::string::npos);

    // A tile wider than the RTL's 16-bit dimension ports: the run stops with
    // exit 1, naming the block.
    write_file("rtl_wide.yaml", R"(
name: rtl_wide
kernels:
  k:
    - gemm: { id: wide, m: 70000, k: 1, n: 1 }
launch:
  - { kernel: k, pes: [0] }
)");
    const test::RunResult wide = test::run_npuvp(on_rtl_topology() + "--workload rtl_wide.yaml");
    BOOST_CHECK_EQUAL(wide.code, 1);
    BOOST_CHECK_MESSAGE(wide.out.find(gemm0 + ": command wide: GEMM tile 70000x1x1 does not fit the RTL's "
                                               "dimension ports (at most 65535)") !=
                            std::string::npos,
                        wide.out);
}

BOOST_AUTO_TEST_CASE(watchdog_abort_is_a_run_failure_naming_pe_command_and_cycles) {
    // g1, 13x7x11, needs 43 RTL cycles (serial_gemms_differ_by_the_sum_of_their_deltas);
    // with attrs.watchdog_cycles = 30 the watchdog fires after 30 cycles and
    // the run stops with exit 1, naming the PE's engine, the command, the
    // tile and the cycles.
    write_file("rtl_watchdog.yaml", R"(
name: rtl_watchdog
kernels:
  k:
    - gemm: { id: g1, m: 13, k: 7, n: 11 }
    - wait: all
launch:
  - { kernel: k, pes: [0] }
)");
    const test::RunResult r = test::run_npuvp(
        on_rtl_topology() +
        "--workload rtl_watchdog.yaml --set cube.pe_template.components.pe_gemm.attrs.watchdog_cycles=30");
    BOOST_CHECK_EQUAL(r.code, 1);
    BOOST_CHECK_MESSAGE(r.out.find(gemm0 + ": command g1: GEMM tile 13x7x11: the RTL did not raise "
                                           "done within 30 cycles (attrs.watchdog_cycles 30); the "
                                           "RTL was reset") != std::string::npos,
                        r.out);
    // The same workload with the automatic limit (8·43 + 64) finishes.
    const test::RunResult ok = test::run_npuvp(on_rtl_topology() + "--workload rtl_watchdog.yaml");
    BOOST_CHECK_MESSAGE(ok.code == 0, ok.out);
    // The attr is the rtl.* impls': with builtin.pe_gemm it is an unknown key (exit 2).
    const test::RunResult builtin = test::run_npuvp(
        on_rtl_topology() + "--workload rtl_watchdog.yaml" + to_builtin +
        " --set cube.pe_template.components.pe_gemm.attrs.watchdog_cycles=30");
    BOOST_CHECK_EQUAL(builtin.code, 2);
    BOOST_CHECK_MESSAGE(builtin.out.find("watchdog_cycles") != std::string::npos, builtin.out);
}
