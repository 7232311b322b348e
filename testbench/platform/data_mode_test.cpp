// Data mode with the builtin engines (docs/workload.md "Operand data"): the
// same GEMM + bias + ReLU as testbench/rtl/rtl_data_test.cpp on default.yaml
// (builtin PE_GEMM and PE_MATH) gives the same bytes, computed in the test
// with int64 loops; `random` data is the documented std::mt19937_64
// mapping; a workload without data creates no store.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "config/workload_loader.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "testbench/harness/gemm_data.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;

namespace {

// docs/workload.md "Operand data", written again here: std::mt19937_64
// seeded with `seed`; each element draws x until x < 2^64 - (2^64 mod span),
// span = max - min + 1, and is min + x mod span, little-endian.
std::vector<std::uint8_t> documented_random(std::uint64_t seed, int bytes_per, long long min, long long max,
                                            std::size_t count) {
    std::mt19937_64 gen(seed);
    const unsigned __int128 two64 = static_cast<unsigned __int128>(1) << 64;
    const std::uint64_t span = static_cast<std::uint64_t>(max - min + 1);
    const unsigned __int128 bound = two64 - two64 % span;
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t x = gen();
        while (x >= bound) x = gen();
        const long long v = min + static_cast<long long>(x % span);
        for (int b = 0; b < bytes_per; ++b) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * b)));
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(builtin_engines_compute_the_reference_bytes) {
    // As rtl_data_test's gemm_bias_relu_through_both_rtl_engines_...: 24x40x20
    // in 16x16x16 tiles, 3 K-steps, edge tiles in every dimension.
    const test::GemmData g = test::random_gemm(2207, 24, 40, 20, 16, 16, 16);
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl =
        load_workload_text(test::gemm_bias_relu_workload(g, "builtin_data"), "builtin_data.yaml", topo);
    TraceSink trace;
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    sc_core::sc_start();
    BOOST_REQUIRE_MESSAGE(run.finished(), run.diagnosis());
    const std::vector<std::uint8_t> got = run.data()->region({DataSpace::hbm, 0x100000, 4 * g.M * g.N});
    const std::vector<std::uint8_t> want = g.expected_c_bytes();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i) wrong += got[i] != want[i];
    BOOST_CHECK_MESSAGE(wrong == 0, wrong << " of " << want.size() << " bytes of C differ from the reference");
    // The operands stayed where the data entries put them.
    BOOST_CHECK(run.data()->region({DataSpace::hbm, 0, g.M * g.K}) == g.a_bytes());
}

BOOST_AUTO_TEST_CASE(random_data_is_the_documented_generator) {
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl = load_workload_text(R"(
name: r
kernels:
  k:
    - dma_read: { id: ld, bytes: 64 }
launch:
  - { kernel: k, cube: sip0.cube0, pes: [0] }
data:
  - { hbm: 0, dtype: int8, shape: [1000], from: { random: { seed: 42, min: -3, max: 9 } } }
  - { hbm: 4096, dtype: int32, shape: [10, 10], from: { random: { seed: 1 } } }
  - { sram: 0x1000000000000, dtype: int32, shape: [7], from: { random: { seed: 3, min: -2147483648, max: 2147483647 } } }
)",
                                                 "r.yaml", topo);
    BOOST_REQUIRE_EQUAL(wl.data.size(), 3u);
    BOOST_CHECK(wl.data[0].bytes == documented_random(42, 1, -3, 9, 1000));
    BOOST_CHECK(wl.data[1].bytes == documented_random(1, 4, std::numeric_limits<std::int32_t>::min(),
                                                      std::numeric_limits<std::int32_t>::max(), 100));
    BOOST_CHECK(wl.data[2].bytes == documented_random(3, 4, std::numeric_limits<std::int32_t>::min(),
                                                      std::numeric_limits<std::int32_t>::max(), 7));
    // Every value inside [min, max], and not all the same.
    bool differ = false;
    for (std::uint8_t b : wl.data[0].bytes) {
        const auto v = static_cast<std::int8_t>(b);
        BOOST_CHECK(v >= -3 && v <= 9);
        differ = differ || b != wl.data[0].bytes[0];
    }
    BOOST_CHECK(differ);
    BOOST_CHECK_EQUAL(wl.data[2].at.space == DataSpace::sram, true);
}

BOOST_AUTO_TEST_CASE(a_run_without_data_has_no_stores) {
    // Data mode is off unless the workload has `data` or `dump`: no store,
    // no data plane (the stages test a null pointer and nothing else).
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl =
        load_workload_file(std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/gemm_int8_small.yaml", topo);
    BOOST_REQUIRE(!wl.data_mode());
    TraceSink trace;
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    sc_core::sc_start();
    BOOST_REQUIRE(run.finished());
    BOOST_CHECK(run.data() == nullptr);
    BOOST_CHECK(platform.pe(0, 0, 0).tcm().data() == nullptr);
    BOOST_CHECK(platform.cube(0, 0).hbm[0]->data() == nullptr);
}
