// The compute cost that knows the dataflow (docs/timing.md T3; issue 18):
// PE_GEMM's `dataflow` model folds K onto the rows / columns a small tile
// leaves idle and bounds a tile by streaming its operands through fetch;
// PE_MATH runs 32-bit elements on half the lanes. Every expected cycle count
// is derived by hand below from default.yaml: 128 × 128 array, fill 128,
// fetch 2048 B/cycle (CALIBRATION: 32 B/cycle × 64 slices), reducer 5 cycles;
// MATH 512 lanes (256 for 32-bit), fill 8, relu 1 cycle per element; 1 GHz.
#include <boost/test/unit_test.hpp>

#include <string>

#include "config/workload_loader.h"
#include "modules/pe/pe_gemm.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;

namespace {

const PeGemmConfig& gemm_config(const TopologyConfig& topo) { return topo.cube.pe_template.gemm; }

}  // namespace

BOOST_AUTO_TEST_CASE(dataflow_is_the_array_pass_for_a_full_tile) {
    const TopologyConfig topo = test::load_shipped("default");
    const PeGemmConfig& c = gemm_config(topo);
    BOOST_REQUIRE(c.cost_model == GemmCostModel::dataflow);  // the shipped default
    // 128^3 bf16: fold 1; array 1·1·128 = 128; fetch (128·128 + 128·128)·2 /
    // 2048 = 32; max 128 + fill 128 = 256, the array pass's 1·1·128 + 128.
    BOOST_CHECK_EQUAL(gemm_cycles(c, 128, 128, 128, 2), 256u);
    // 200 × 64 × 300: m, n above the array, fold 1; passes 2·3 = 6, array
    // 6·64 = 384; fetch (200·64 + 64·300)·2 / 2048 = 31.25 -> 32; 384 + 128.
    BOOST_CHECK_EQUAL(gemm_cycles(c, 200, 64, 300, 2), 512u);
}

BOOST_AUTO_TEST_CASE(a_matrix_vector_product_streams_its_weight) {
    const TopologyConfig topo = test::load_shipped("default");
    const PeGemmConfig& c = gemm_config(topo);
    // MNIST's fc1, 1 × 800 × 256 bf16: passes 1·2 = 2; m = 1 leaves 127 rows
    // idle: fold 128 (≤ k), array 2·ceil(800/128) = 14; fetch (1·800 +
    // 800·256)·2 / 2048 = 200.8 -> 201: the weight streaming bounds it;
    // 201 + fill 128 + reducer 5 = 334 (array pass: 2·800 + 128 = 1728).
    BOOST_CHECK_EQUAL(gemm_cycles(c, 1, 800, 256, 2), 334u);
    PeGemmConfig pass = c;
    pass.cost_model = GemmCostModel::array_pass;
    BOOST_CHECK_EQUAL(gemm_cycles(pass, 1, 800, 256, 2), 1728u);
    // fc2, 1 × 256 × 16: fold 128·8 = 1024, capped at k = 256; array 1;
    // fetch (256 + 4096)·2 / 2048 = 4.25 -> 5; 5 + 128 + 5 = 138.
    BOOST_CHECK_EQUAL(gemm_cycles(c, 1, 256, 16, 2), 138u);
}

BOOST_AUTO_TEST_CASE(a_small_tile_folds_k_and_may_be_fetch_bound) {
    const TopologyConfig topo = test::load_shipped("default");
    const PeGemmConfig& c = gemm_config(topo);
    // 64 × 128 × 64 fp32: fold 2·2 = 4; array ceil(128/4) = 32; fetch
    // (64·128 + 128·64)·4 / 2048 = 32; 32 + 128 + 5 = 165.
    BOOST_CHECK_EQUAL(gemm_cycles(c, 64, 128, 64, 4), 165u);
    // The same tile in int8: fetch (64·128 + 128·64)·1 / 2048 = 8, so the
    // folded array (32) bounds it: 165 again.
    BOOST_CHECK_EQUAL(gemm_cycles(c, 64, 128, 64, 1), 165u);
    // At a quarter of the fetch rate the fp32 tile is fetch-bound:
    // 65536 / 512 = 128; 128 + 128 + 5 = 261.
    PeGemmConfig slow = c;
    slow.fetch_bytes_per_cycle = 512;
    BOOST_CHECK_EQUAL(gemm_cycles(slow, 64, 128, 64, 4), 261u);
    // k smaller than the fold: 1 × 4 × 16 int8, fold min(1024, 4) = 4;
    // array 1; fetch (4 + 64) / 2048 -> 1; 1 + 128 + 5 = 134.
    BOOST_CHECK_EQUAL(gemm_cycles(c, 1, 4, 16, 1), 134u);
}

BOOST_AUTO_TEST_CASE(simple_commands_take_the_dataflow_cost) {
    // On pe0: PE_CPU issues each command 2 ns after the last, the scheduler
    // dispatches 1 ns after its arrival (testbench/pe/pipeline_test.cpp):
    //   fc1 (gemm 1 × 800 × 256 bf16) dispatched 3 ns, 334 cycles -> 337 ns;
    //   v (math relu, 16384 fp32) issued at 4; both run in the main context,
    //   one command at a time in order (SPEC §6): dispatched when fc1 is done
    //   plus the 1 ns overhead, 338; ceil(16384 / 256) + 8 = 72 cycles ->
    //   410 ns (in bf16 it would be 16384 / 512 + 8 = 40).
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);
    const WorkloadConfig wl = load_workload_text(R"(
name: mv
kernels:
  k:
    - gemm: { id: fc1, m: 1, k: 800, n: 256 }
    - math: { id: v, op: relu, elements: 16384, dtype: fp32 }
launch:
  - { kernel: k, pes: [0] }
)", "test.yaml", topo);
    WorkloadRun run(platform, wl);
    sc_core::sc_start();
    BOOST_REQUIRE(run.finished());
    std::uint64_t fc1 = 0, v = 0;
    for (const CommandResult& c : run.commands()) {
        if (c.command->id == "fc1") fc1 = c.finished_ps;
        if (c.command->id == "v") v = c.finished_ps;
    }
    BOOST_CHECK_EQUAL(fc1, 337000u);
    BOOST_CHECK_EQUAL(v, 410000u);
}

BOOST_AUTO_TEST_CASE(absurd_sizes_are_an_overflow_not_a_wrapped_count) {
    // 2^30 cubed: (2^30 · 2^30 + 2^30 · 2^30) · 2 bytes overflows 64 bits, as
    // do the array's 2^23 · 2^23 · 2^30 cycles: the count is an Overflow
    // naming what was computed (checked arithmetic, issue 21), never a
    // wrapped (short) or saturated count. Just inside: 2^20 cubed fits.
    const TopologyConfig topo = test::load_shipped("default");
    const std::uint64_t big = 1ull << 30;
    auto names_the_count = [](const Overflow& e) {
        return std::string(e.what()).find("a GEMM stage's cycle count overflows 64 bits") != std::string::npos;
    };
    BOOST_CHECK_EXCEPTION(gemm_cycles(gemm_config(topo), big, big, big, 2), Overflow, names_the_count);
    PeGemmConfig pass = gemm_config(topo);
    pass.cost_model = GemmCostModel::array_pass;
    BOOST_CHECK_EXCEPTION(gemm_cycles(pass, big, big, big, 2), Overflow, names_the_count);
    // array_pass: ceil(2^20 / rows) · ceil(2^20 / cols) · 2^20 + fill, by hand.
    const std::uint64_t mid = 1ull << 20;
    const std::uint64_t rows = static_cast<std::uint64_t>(pass.rows), cols = static_cast<std::uint64_t>(pass.cols);
    BOOST_CHECK_EQUAL(gemm_cycles(pass, mid, mid, mid, 2),
                      ((mid + rows - 1) / rows) * ((mid + cols - 1) / cols) * mid +
                          static_cast<std::uint64_t>(pass.fill_cycles));
}

BOOST_AUTO_TEST_CASE(a_stage_time_beyond_64_bits_at_run_time_names_the_pe_and_command) {
    // The loader refuses a gemm whose stage time leaves 64-bit ps (naming
    // file, line and key: bad_input_test); a run that meets one anyway (here
    // the platform is built on a 1 MHz PE_GEMM after the workload was
    // checked against the shipped 1 GHz) stops with a diagnosis naming the
    // engine's PE and the command, never a wrapped time. m = 2^32, k = 2^29,
    // n = 2 (M·K·N = 2^62, the limit): fold = 128 / 2 = 64 columns; fetch =
    // (2^61 + 2^30) · 2 / 2048 = 2^51 + 2^20 cycles bound it; at 1 MHz that
    // is (2^51 + 2^20 + 133) · 1e6 ps ≈ 2.3e21 > 2^64 ≈ 1.8e19.
    TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl = load_workload_text(R"(
name: huge
kernels:
  k:
    - gemm: { id: g, m: 4294967296, k: 536870912, n: 2 }
launch:
  - { kernel: k, pes: [0] }
)", "test.yaml", topo);
    topo.cube.pe_template.gemm.freq_ghz = 0.001;
    TraceSink trace;
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    sc_core::sc_start();
    BOOST_CHECK(!run.finished());
    BOOST_REQUIRE(platform.status().failed());
    const std::string& error = platform.status().error();
    BOOST_TEST_MESSAGE(error);
    BOOST_CHECK(error.rfind("sip0.cube0.pe0.pe_gemm: command g: a GEMM stage's time is out of range", 0) == 0);
}
