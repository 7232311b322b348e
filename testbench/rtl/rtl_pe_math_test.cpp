// impl: rtl.pe_math in the whole platform (docs/rtl.md "rtl.pe_math"): the
// RTL vector unit beside the RTL GEMM array (rtl_gemm_math.yaml), both
// sharing accel_slot; the shipped GEMM workload gives the same makespan and
// trace with the RTL unit and with the C++ model configured like it; bad
// input is a clear error; --vcd-rtl records both blocks.
//
// rtl_gemm_math.yaml is rtl_gemm.yaml with PE_MATH = the 16-lane RTL unit
// (lanes = lanes_32bit = 16, fill_cycles 3, every op cost 1 in op_cost).
// Per MATH stage of E elements (the unit's timing, rtl/npuvp_math_unit.sv):
//   RTL:     cycles = ceil(E / 16) + 3
//   builtin: cycles = ceil(E · 1 / 16) + 3                           (T3)
// so the two agree on every stage of the ops the unit runs.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/workload_loader.h"
#include "platform/platform.h"
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
const std::string to_builtin = " --set cube.pe_template.components.pe_math.impl=builtin.pe_math";

std::string on_topology() { return "--topology " + test::shipped_topology("rtl_gemm_math") + " "; }

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

const char* const kOneMath = R"(
name: rtl_one_math
kernels:
  k:
    - math: { id: m1, op: OP, elements: 100 }
    - wait: all
launch:
  - { kernel: k, pes: [0] }
)";

std::string one_math(const std::string& op) {
    std::string text = kOneMath;
    text.replace(text.find("OP"), 2, op);
    return text;
}

}  // namespace

BOOST_AUTO_TEST_CASE(both_rtl_engines_share_accel_slot) {
    // The compute-bound chain of rtl_pe_gemm_test's
    // gemm_and_math_never_overlap_with_the_rtl_engine, now with both
    // engines RTL: int8, 64x64x128 in 64x16x64 tiles, 8 tokens.
    //   GEMM 64x16x64 on the 8 x 8 array: 63·16 + 16 + 8 + 8 = 1040 cycles;
    //   MATH over 64·64 = 4096 elements on 16 lanes: 4096/16 + 3 = 259 cycles;
    //     8 add + 2 x (bias_add + relu) + 1 cast = 13 stages.
    // One slot: no GEMM interval meets a MATH interval.
    const TopologyConfig topo = test::load_shipped("rtl_gemm_math");
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
    Pe& pe = *platform.sips()[0].cubes[0].pes[0];
    BOOST_REQUIRE(pe.gemm().rtl() != nullptr);
    BOOST_REQUIRE(pe.math().rtl() != nullptr);
    BOOST_CHECK_EQUAL(pe.rtl_blocks().size(), 2u);

    const auto intervals = test::engine_intervals(test::parse_trace(text.str()));
    const auto gemms = test::with_stage(intervals, "GEMM", gemm0);
    const auto maths = test::with_stage(intervals, "MATH", math0);
    BOOST_REQUIRE_EQUAL(gemms.size(), 8u);
    BOOST_REQUIRE_EQUAL(maths.size(), 13u);
    for (const auto& g : gemms) {
        BOOST_CHECK_EQUAL(g.end_ps - g.start_ps, 1040000u);
        for (const auto& m : maths)
            BOOST_CHECK_MESSAGE(!g.overlaps(m), "GEMM tile " << g.tile << " [" << g.start_ps << ", "
                                                             << g.end_ps << ") meets MATH tile "
                                                             << m.tile << " [" << m.start_ps << ", "
                                                             << m.end_ps << ")");
    }
    for (const auto& m : maths) BOOST_CHECK_EQUAL(m.end_ps - m.start_ps, 259000u);
    BOOST_CHECK_EQUAL(pe.math().rtl()->rtl_cycles(), 13u * 259u);
    BOOST_CHECK_EQUAL(pe.gemm().rtl()->rtl_cycles(), 8u * 1040u);
    BOOST_CHECK_EQUAL(pe.math().worker().busy().value(), 13u * 259000u);
}

BOOST_AUTO_TEST_CASE(shipped_gemm_workload_agrees_with_the_cpp_math_model) {
    // gemm_bias_relu: 16 output tiles of 128x128 bf16, bias_add and relu on
    // each: 32 MATH stages of 16 384 elements, 16 384/16 + 3 = 1027 cycles
    // on both models; the GEMM stages are the RTL array's in both runs. Same
    // makespan, the same trace events at the same times.
    const std::string wl = test::shipped_workload("gemm_bias_relu");
    const test::RunResult rtl =
        test::run_npuvp(on_topology() + "--workload " + wl + " --trace math_rtl.jsonl");
    const test::RunResult cpp = test::run_npuvp(on_topology() + "--workload " + wl + to_builtin +
                                                " --trace math_builtin.jsonl");
    BOOST_REQUIRE_MESSAGE(rtl.code == 0, rtl.out);
    BOOST_REQUIRE_MESSAGE(cpp.code == 0, cpp.out);
    BOOST_CHECK_EQUAL(makespan_ps(rtl.out), makespan_ps(cpp.out));
    const auto maths = test::with_stage(
        test::engine_intervals(test::parse_trace(test::slurp("math_rtl.jsonl"))), "MATH", math0);
    BOOST_REQUIRE_EQUAL(maths.size(), 32u);
    for (const auto& m : maths) BOOST_CHECK_EQUAL(m.end_ps - m.start_ps, 1027000u);
    // The same events at the same times: the traces hold the same lines.
    // Their order within a time step may differ: the RTL worker is a thread
    // and takes its token from math_inbox a delta cycle after the builtin's
    // method would, so the inbox's `inbox_fill` line can sit a few lines
    // later within the same picosecond.
    const auto sorted_lines = [](const std::string& text) {
        std::vector<std::string> lines;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        std::sort(lines.begin(), lines.end());
        return lines;
    };
    const auto rtl_lines = sorted_lines(test::slurp("math_rtl.jsonl"));
    BOOST_CHECK_GT(rtl_lines.size(), 1000u);
    BOOST_CHECK(rtl_lines == sorted_lines(test::slurp("math_builtin.jsonl")));
}

BOOST_AUTO_TEST_CASE(bad_rtl_math_input_is_a_clear_error) {
    // rtl.pe_math on rtl_gemm.yaml, whose pe_math has 512 lanes: exit 2 at
    // the file's `lanes: 512` line.
    const std::string file = test::shipped_topology("rtl_gemm");
    const std::string text = test::slurp(file);
    const std::size_t lanes_at = text.find("lanes: 512", text.find("      pe_math:"));
    BOOST_REQUIRE(lanes_at != std::string::npos);
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + lanes_at, '\n'));
    const test::RunResult lanes = test::run_npuvp(
        "--topology " + file + " --set cube.pe_template.components.pe_math.impl=rtl.pe_math");
    BOOST_CHECK_EQUAL(lanes.code, 2);
    BOOST_CHECK_MESSAGE(lanes.out.find(file + ":" + std::to_string(line) + ":") != std::string::npos,
                        lanes.out);
    BOOST_CHECK(lanes.out.find("cube.pe_template.components.pe_math.attrs.lanes: rtl.pe_math is "
                               "the 16-lane RTL vector unit") != std::string::npos);
    BOOST_CHECK(lanes.out.find("lanes must be 16 (got 512)") != std::string::npos);

    // An op the unit does not run: exit 1 naming the engine and the command.
    write_file("rtl_math_exp.yaml", one_math("exp"));
    const test::RunResult exp = test::run_npuvp(on_topology() + "--workload rtl_math_exp.yaml");
    BOOST_CHECK_EQUAL(exp.code, 1);
    BOOST_CHECK_MESSAGE(exp.out.find(math0 + ": command m1: MATH exp over 100 elements: "
                                             "rtl.pe_math runs only add, bias_add, mul, relu, "
                                             "cast") != std::string::npos,
                        exp.out);

    // The watchdog: relu over 100 elements takes 7 + 3 = 10 cycles; a limit
    // of 5 stops the run with exit 1 naming the engine, command and cycles.
    write_file("rtl_math_relu.yaml", one_math("relu"));
    const test::RunResult dog = test::run_npuvp(
        on_topology() +
        "--workload rtl_math_relu.yaml --set cube.pe_template.components.pe_math.attrs.watchdog_cycles=5");
    BOOST_CHECK_EQUAL(dog.code, 1);
    BOOST_CHECK_MESSAGE(dog.out.find(math0 + ": command m1: MATH relu over 100 elements: the RTL "
                                             "did not raise done within 5 cycles "
                                             "(attrs.watchdog_cycles 5); the RTL was reset") !=
                            std::string::npos,
                        dog.out);
    const test::RunResult ok = test::run_npuvp(on_topology() + "--workload rtl_math_relu.yaml");
    BOOST_CHECK_MESSAGE(ok.code == 0, ok.out);
}

BOOST_AUTO_TEST_CASE(vcd_rtl_records_both_rtl_engines) {
    // relu over 100 elements: ceil(100/16) + 3 = 10 cycles of the unit's
    // clock, 10 rising edges 1000 ps apart after the initial dump; done
    // rises with the 10th. The GEMM array's clock, in the same file, never
    // moves. (The falling edge that ends the last cycle is the run's last
    // time step, which Verilator's SystemC VCD writer does not dump when the
    // run ends there; hence rising edges only.)
    write_file("rtl_math_vcd.yaml", one_math("relu"));
    const test::RunResult r =
        test::run_npuvp(on_topology() + "--workload rtl_math_vcd.yaml --vcd-rtl rtl_math.vcd");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string vcd = test::slurp("rtl_math.vcd");
    const std::string unit = "sip0.cube0.pe0.pe_math.rtl.unit.npuvp_math_unit.";
    std::vector<std::uint64_t> rises;
    for (const auto& [t, v] : test::vcd_scalar_changes(vcd, unit + "clk"))
        if (v == '1') rises.push_back(t);
    BOOST_REQUIRE_EQUAL(rises.size(), 10u);
    for (std::size_t i = 1; i < rises.size(); ++i) BOOST_CHECK_EQUAL(rises[i] - rises[i - 1], 1000u);
    const auto done = test::vcd_scalar_changes(vcd, unit + "done");
    BOOST_REQUIRE_GE(done.size(), 2u);
    BOOST_CHECK_EQUAL(done[1].first, rises.back());
    BOOST_CHECK_EQUAL(done[1].second, '1');
    BOOST_CHECK_EQUAL(
        test::vcd_scalar_changes(vcd, "sip0.cube0.pe0.pe_gemm.rtl.array.npuvp_gemm_array.clk").size(),
        1u);
}
