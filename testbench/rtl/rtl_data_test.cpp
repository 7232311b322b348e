// Data mode through both RTL engines (issue 22 points 3 and 4; docs/rtl.md
// "Data mode", "Zero skipping"; docs/workload.md "Operand data").
//
// A GEMM + bias + ReLU composite runs on real operands on
// rtl_gemm_math.yaml, where PE_GEMM is the 8 x 8 RTL array and PE_MATH the
// 16-lane RTL vector unit: A and B travel from files into HBM, through
// DMA_READ into TCM, into the RTL array; its int32 sums, the bias (from
// TCM) and the ReLU go through the RTL vector unit; STORE and DMA_WRITE take
// the result back to HBM. The bytes in HBM after the run are compared with
// C computed in the test with int64 loops (testbench/harness/gemm_data.h).
//
// Zero skipping: the same shapes on two data sets give GEMM stages and
// makespans that differ by what the RTL skipped, counted by hand below.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/workload_loader.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "testbench/harness/gemm_data.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/run_npuvp.h"
#include "testbench/harness/trace_reader.h"
#include "testbench/harness/vcd_reader.h"

using namespace npuvp;

namespace {

const std::string gemm0 = "sip0.cube0.pe0.pe_gemm";
const std::string math0 = "sip0.cube0.pe0.pe_math";

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

}  // namespace

BOOST_AUTO_TEST_CASE(gemm_bias_relu_through_both_rtl_engines_matches_an_int64_reference) {
    // 24x40x20 in 16x16x16 tiles: edge tiles in M (16 + 8), K (16 + 16 + 8)
    // and N (16 + 4), so 2 x 2 output tiles x 3 K-steps = 12 GEMM stages
    // (the K-steps add up in the register file) and 4 x 2 MATH stages
    // (bias_add, relu per output tile). The loader keeps an A row panel
    // (docs/timing.md "Operand reuse"): the A tiles of the second N pass
    // come from the panel in TCM, not from HBM.
    const test::GemmData g = test::random_gemm(2207, 24, 40, 20, 16, 16, 16);
    const TopologyConfig topo = test::load_shipped("rtl_gemm_math");
    const WorkloadConfig wl = load_workload_text(test::gemm_bias_relu_workload(g, "rtl_data"), "rtl_data.yaml", topo);
    BOOST_REQUIRE(wl.data_mode());
    TraceSink trace;
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    BOOST_REQUIRE(run.data() != nullptr);
    sc_core::sc_start();
    BOOST_REQUIRE_MESSAGE(run.finished(), run.diagnosis());
    Pe& pe = platform.pe(0, 0, 0);
    BOOST_REQUIRE(pe.gemm().rtl() != nullptr && pe.math().rtl() != nullptr);
    BOOST_CHECK_EQUAL(pe.gemm().rtl()->rtl_cycles() > 0, true);
    BOOST_CHECK_EQUAL(pe.math().rtl()->rtl_cycles() > 0, true);

    const std::vector<std::uint8_t> got = run.data()->region(test::hbm_region(0x100000, 4 * g.M * g.N));
    const std::vector<std::uint8_t> want = g.expected_c_bytes();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i) wrong += got[i] != want[i];
    BOOST_CHECK_MESSAGE(wrong == 0, wrong << " of " << want.size() << " bytes of C differ from the reference");
    // The reference is not what zeros on the operand streams would give
    // (C = relu(bias)): the check sees the data.
    test::GemmData zeros = g;
    zeros.a.assign(g.a.size(), 0);
    BOOST_CHECK(want != zeros.expected_c_bytes());
    // The dump entry writes the same bytes.
    run.data()->write_dumps(wl);
    BOOST_CHECK(test::read_bytes("rtl_data_c.bin") == want);
}

BOOST_AUTO_TEST_CASE(zero_skip_makespan_follows_the_data) {
    // rtl_gemm_math.yaml with attrs.zero_skip on the RTL array. One
    // composite 16x32x32 (one tile, int8 in, int32 out, no epilogues): one
    // DMA_READ, FETCH, one GEMM stage, STORE, DMA_WRITE, the same bytes in
    // both runs. The GEMM stage on the 8 x 8 array: 2 row blocks x 4 column
    // blocks, k = 32, every block 8 rows (docs/rtl.md "Zero skipping":
    // cycles = k_first + sum over consecutive blocks of max(k_(b+1), rows_b)
    // + rows_last + COLS):
    //   dense A (every value 1 … 5): nothing skipped, k_b = 32:
    //     32 + 7 x max(32, 8) + 8 + 8 = 272 cycles
    //   A rows 0-7 zero (row block 0), rows 8-15 dense: blocks (0, 1),
    //   (0, 2), (0, 3) skipped, k_b = 32, 1, 1, 1, 32, 32, 32, 32:
    //     32 + [8 + 8 + 8 + 32 + 32 + 32 + 32] + 8 + 8 = 200 cycles
    // At 1 GHz the GEMM stage is 272 ns or 200 ns; nothing else differs,
    // so the makespans differ by 72 ns. Without zero_skip the sparse data
    // take 272 cycles too.
    const std::string head = R"(name: zskip
kernels:
  k:
    - composite:
        id: g
        gemm: { m: 16, k: 32, n: 32 }
        tile: { m: 16, k: 32, n: 32 }
        dtype: { in: int8, out: int32 }
        src: { pa: 0x0 }
        dst: { pa: 0x100000 }
        wait: true
launch:
  - { kernel: k, cube: sip0.cube0, pes: [0] }
data:
  - { hbm: 512, dtype: int8, shape: [32, 32], from: { random: { seed: 7, min: -100, max: 100 } } }
)";
    // A is 16 x 32 int8 at 0 (one tile: row-major); B follows it at 512.
    std::ofstream("zskip_dense.yaml") << head
        << "  - { hbm: 0, dtype: int8, shape: [16, 32], from: { random: { seed: 8, min: 1, max: 5 } } }\n";
    std::ofstream("zskip_sparse.yaml") << head
        << "  - { hbm: 256, dtype: int8, shape: [8, 32], from: { random: { seed: 8, min: 1, max: 5 } } }\n";
    const std::string topo = "--topology " + test::shipped_topology("rtl_gemm_math");
    const std::string skip = " --set cube.pe_template.components.pe_gemm.attrs.zero_skip=true";
    struct Run {
        std::string workload, set, trace;
        std::uint64_t makespan = 0, gemm_ps = 0;
    };
    std::vector<Run> runs{{"zskip_dense.yaml", skip, "zskip_dense.jsonl"},
                          {"zskip_sparse.yaml", skip, "zskip_sparse.jsonl"},
                          {"zskip_sparse.yaml", "", "zskip_sparse_off.jsonl"}};
    for (Run& r : runs) {
        const test::RunResult out = test::run_npuvp(topo + " --workload " + r.workload + r.set + " --trace " + r.trace);
        BOOST_REQUIRE_MESSAGE(out.code == 0, out.out);
        r.makespan = makespan_ps(out.out);
        const auto gemms = test::with_stage(test::engine_intervals(test::parse_trace(test::slurp(r.trace))), "GEMM", gemm0);
        BOOST_REQUIRE_EQUAL(gemms.size(), 1u);
        r.gemm_ps = gemms[0].end_ps - gemms[0].start_ps;
    }
    BOOST_CHECK_EQUAL(runs[0].gemm_ps, 272000u);
    BOOST_CHECK_EQUAL(runs[1].gemm_ps, 200000u);
    BOOST_CHECK_EQUAL(runs[2].gemm_ps, 272000u);
    BOOST_CHECK_EQUAL(runs[0].makespan - runs[1].makespan, 72000u);
    BOOST_CHECK_EQUAL(runs[2].makespan, runs[0].makespan);
}

BOOST_AUTO_TEST_CASE(vcd_rtl_shows_the_operand_values) {
    // The shipped example (configs/workloads/gemm_bias_relu_data.yaml, 64³
    // int8 from seeded random data, bias in TCM) on both RTL engines: the
    // array's A and B ports, its C port and the unit's y port (the bias)
    // carry nonzero values in --vcd-rtl. The same RTL without data mode
    // (gemm_int8_small.yaml) streams zeros: a_data never leaves 0.
    const std::string topo = "--topology " + test::shipped_topology("rtl_gemm_math");
    const std::string array = "sip0.cube0.pe0.pe_gemm.rtl.array.npuvp_gemm_array.";
    const std::string unit = "sip0.cube0.pe0.pe_math.rtl.unit.npuvp_math_unit.";
    const auto nonzero = [](const std::vector<std::pair<std::uint64_t, std::string>>& changes) {
        std::size_t n = 0;
        for (const auto& [t, bits] : changes) n += bits.find('1') != std::string::npos;
        return n;
    };
    test::RunResult r = test::run_npuvp(topo + " --workload " + test::shipped_workload("gemm_bias_relu_data") +
                                        " --vcd-rtl data_rtl.vcd");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    std::string vcd = test::slurp("data_rtl.vcd");
    BOOST_CHECK_GT(nonzero(test::vcd_vector_changes(vcd, array + "a_data")), 0u);
    BOOST_CHECK_GT(nonzero(test::vcd_vector_changes(vcd, array + "b_data")), 0u);
    BOOST_CHECK_GT(nonzero(test::vcd_vector_changes(vcd, array + "c_data")), 0u);
    BOOST_CHECK_GT(nonzero(test::vcd_vector_changes(vcd, unit + "y_data")), 0u);
    r = test::run_npuvp(topo + " --workload " + test::shipped_workload("gemm_int8_small") + " --vcd-rtl zero_rtl.vcd");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    vcd = test::slurp("zero_rtl.vcd");
    BOOST_CHECK_EQUAL(nonzero(test::vcd_vector_changes(vcd, array + "a_data")), 0u);
}
