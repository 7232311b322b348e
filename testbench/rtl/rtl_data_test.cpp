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

    DataRegion c{DataSpace::hbm, 0x100000, 4 * g.M * g.N};
    const std::vector<std::uint8_t> got = run.data()->region(c);
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
