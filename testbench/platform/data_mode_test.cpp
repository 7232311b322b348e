// Data mode with the builtin engines (docs/workload.md "Operand data"): the
// same GEMM + bias + ReLU as testbench/rtl/rtl_data_test.cpp on default.yaml
// (builtin PE_GEMM and PE_MATH) gives the same bytes, computed in the test
// with int64 loops; `random` data is the documented std::mt19937_64
// mapping; a workload without data creates no store.
#include <boost/test/unit_test.hpp>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "config/config_error.h"
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
    const std::vector<std::uint8_t> got = run.data()->region(test::hbm_region(0x100000, 4 * g.M * g.N));
    const std::vector<std::uint8_t> want = g.expected_c_bytes();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i) wrong += got[i] != want[i];
    BOOST_CHECK_MESSAGE(wrong == 0, wrong << " of " << want.size() << " bytes of C differ from the reference");
    // The operands stayed where the data entries put them.
    BOOST_CHECK(run.data()->region(test::hbm_region(0, g.M * g.K)) == g.a_bytes());
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

BOOST_AUTO_TEST_CASE(an_empty_data_list_turns_data_mode_on) {
    // docs/workload.md: a `data` or `dump` list turns data mode on, even an
    // empty one; the loader validates such a workload as data mode (the
    // epilogue's operand is accepted), so the run must be one: stores exist,
    // the PE runs per stage (data mode copies bytes at each stage's end),
    // and C = A·B + bias over all-zero memory is 0. `data:` left empty
    // (null) is no list: data mode stays off.
    const TopologyConfig topo = test::load_shipped("default");
    const std::string body = R"(
name: e
kernels:
  k:
    - composite:
        id: fc
        gemm: { m: 32, k: 32, n: 32 }
        tile: { m: 16, k: 16, n: 16 }
        dtype: { in: int8, out: int32 }
        epilogues:
          - { op: bias_add, scope: per_output_tile, operand: 0x800000 }
        src: { pa: 0x0 }
        dst: { pa: 0x100000 }
launch:
  - { kernel: k, cube: sip0.cube0, pes: [0] }
)";
    // The operand is read in data mode only: without a list it is an error.
    BOOST_CHECK_EXCEPTION(load_workload_text(body + "data:\n", "e.yaml", topo), ConfigError,
                          [](const ConfigError& e) { return std::string(e.what()).find("data mode only") != std::string::npos; });
    const WorkloadConfig wl = load_workload_text(body + "data: []\n", "e.yaml", topo);
    BOOST_REQUIRE(wl.data.empty() && wl.dumps.empty());
    BOOST_REQUIRE(wl.data_mode());
    TraceSink trace;
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    sc_core::sc_start();
    BOOST_REQUIRE_MESSAGE(run.finished(), run.diagnosis());
    BOOST_REQUIRE(run.data() != nullptr);
    BOOST_CHECK(platform.pe(0, 0, 0).tcm().data() != nullptr);
    BOOST_CHECK_EQUAL(platform.decoupler().decoupled_pes(), 0u);
    const std::vector<std::uint8_t> c = run.data()->region(test::hbm_region(0x100000, 4 * 32 * 32));
    BOOST_CHECK(std::all_of(c.begin(), c.end(), [](std::uint8_t b) { return b == 0; }));
}

BOOST_AUTO_TEST_CASE(virtual_source_b_panel_add_mul_and_int8_output) {
    // 20x24x12 in 8x16x8 tiles (edges in every dimension: M 8+8+4, K 16+8,
    // N 8+4) with a B column panel, A and B read through PE_MMU (src is
    // virtual), epilogues add X, mul Y (M×N int32 operands in TCM), relu,
    // and int8 output. Expected, with int64 loops:
    //   C[i][j] = clamp8(max(0, clamp32(clamp32(sum_p A·B + X[i][j]) · Y[i][j])))
    test::GemmData g = test::random_gemm(99, 20, 24, 12, 8, 16, 8);
    std::mt19937 rng(100);
    std::vector<std::int32_t> x(g.M * g.N), y(g.M * g.N);
    for (auto& v : x) v = static_cast<std::int32_t>(rng() % 6001) - 3000;
    for (auto& v : y) v = static_cast<std::int32_t>(rng() % 7) - 3;
    const auto int32_bytes = [](const std::vector<std::int32_t>& v) {
        std::vector<std::uint8_t> out;
        for (std::int32_t e : v)
            for (int b = 0; b < 4; ++b) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(e) >> (8 * b)));
        return out;
    };
    test::write_bytes("va_a.bin", g.a_bytes());
    test::write_bytes("va_b.bin", g.b_bytes());
    test::write_bytes("va_x.bin", int32_bytes(x));
    test::write_bytes("va_y.bin", int32_bytes(y));
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl = load_workload_text(R"(
name: va
kernels:
  k:
    - composite:
        id: fc
        gemm: { m: 20, k: 24, n: 12 }
        tile: { m: 8, k: 16, n: 8 }
        dtype: { in: int8, out: int8 }
        reuse: b_panel
        epilogues:
          - { op: add, operand: 0x900000 }
          - { op: mul, operand: 0x910000 }
          - { op: relu }
        src: { va: 0x40000000 }
        dst: { pa: 0x100000 }
        wait: true
launch:
  - { kernel: k, cube: sip0.cube0, pes: [0] }
mmu:
  - { cube: sip0.cube0, pes: [0], va: 0x40000000, pa: 0x0, bytes: 0x10000 }
data:
  - { hbm: 0, bytes: 480, from: { file: va_a.bin } }
  - { hbm: 480, bytes: 288, from: { file: va_b.bin } }
  - { tcm: 0x900000, pe: 0, dtype: int32, shape: [20, 12], from: { file: va_x.bin } }
  - { tcm: 0x910000, pe: 0, dtype: int32, shape: [20, 12], from: { file: va_y.bin } }
)",
                                                 "va.yaml", topo);
    TraceSink trace;
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    sc_core::sc_start();
    BOOST_REQUIRE_MESSAGE(run.finished(), run.diagnosis());
    std::vector<std::uint8_t> want(g.M * g.N);
    for (std::uint64_t i = 0; i < g.M; ++i)
        for (std::uint64_t j = 0; j < g.N; ++j) {
            std::int64_t s = 0;
            for (std::uint64_t p = 0; p < g.K; ++p) s += std::int64_t{g.a[i * g.K + p]} * g.b[p * g.N + j];
            s = std::clamp<std::int64_t>(s + x[i * g.N + j], INT32_MIN, INT32_MAX);
            s = std::clamp<std::int64_t>(s * y[i * g.N + j], INT32_MIN, INT32_MAX);
            s = std::clamp<std::int64_t>(std::max<std::int64_t>(s, 0), -128, 127);
            // C tile (mi, ni) at mi·tm·N + ni·tn·tm', row-major inside.
            const std::uint64_t mi = i / g.tm, ni = j / g.tn;
            const std::uint64_t rows = std::min(g.tm, g.M - mi * g.tm), cols = std::min(g.tn, g.N - ni * g.tn);
            want[mi * g.tm * g.N + ni * g.tn * rows + (i % g.tm) * cols + j % g.tn] =
                static_cast<std::uint8_t>(static_cast<std::int8_t>(s));
        }
    const std::vector<std::uint8_t> got = run.data()->region(test::hbm_region(0x100000, g.M * g.N));
    std::size_t wrong = 0, clamped = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        wrong += got[i] != want[i];
        clamped += want[i] == 127;
    }
    BOOST_CHECK_MESSAGE(wrong == 0, wrong << " of " << want.size() << " bytes of C differ from the reference");
    BOOST_CHECK_GT(clamped, 0u);  // the int8 clamp is exercised
}

BOOST_AUTO_TEST_CASE(onnx_initializers_are_data) {
    // An ONNX model made here with two initializers: W (INT8, 2x3, raw
    // bytes) and b (INT32, 3, one value per int32_data entry); a data entry
    // takes each one's values, little-endian. A wrong element type, count or
    // name is a load error naming the file and the key.
    onnx::ModelProto m;
    m.set_ir_version(8);
    onnx::GraphProto& g = *m.mutable_graph();
    g.set_name("weights");
    onnx::TensorProto& w = *g.add_initializer();
    w.set_name("W");
    w.set_data_type(onnx::TensorProto::INT8);
    w.add_dims(2);
    w.add_dims(3);
    const std::string w_bytes{'\x01', '\xff', '\x7f', '\x80', '\x00', '\x05'};
    w.set_raw_data(w_bytes);
    onnx::TensorProto& b = *g.add_initializer();
    b.set_name("b");
    b.set_data_type(onnx::TensorProto::INT32);
    b.add_dims(3);
    for (const std::int32_t v : {-2, 70000, 3}) b.add_int32_data(v);
    {
        std::ofstream out("weights.onnx", std::ios::binary | std::ios::trunc);
        m.SerializeToOstream(&out);
    }
    const TopologyConfig topo = test::load_shipped("default");
    const std::string head = "name: o\nkernels:\n  k:\n    - dma_read: { id: ld, bytes: 64 }\n"
                             "launch:\n  - { kernel: k, cube: sip0.cube0, pes: [0] }\ndata:\n";
    const WorkloadConfig wl = load_workload_text(
        head + "  - { hbm: 0, dtype: int8, shape: [2, 3], from: { onnx: { model: weights.onnx, initializer: W } } }\n"
               "  - { tcm: 0x900000, pe: 0, dtype: int32, shape: [3], from: { onnx: { model: weights.onnx, initializer: b } } }\n",
        "o.yaml", topo);
    BOOST_REQUIRE_EQUAL(wl.data.size(), 2u);
    BOOST_CHECK(wl.data[0].bytes == std::vector<std::uint8_t>({0x01, 0xff, 0x7f, 0x80, 0x00, 0x05}));
    // -2, 70000 = 0x11170, 3
    BOOST_CHECK(wl.data[1].bytes == std::vector<std::uint8_t>({0xfe, 0xff, 0xff, 0xff, 0x70, 0x11, 0x01, 0x00,
                                                               0x03, 0x00, 0x00, 0x00}));
    const auto error_of = [&](const std::string& entry) -> std::string {
        try {
            load_workload_text(head + entry, "o.yaml", topo);
        } catch (const ConfigError& e) {
            return e.what();
        }
        return "";
    };
    const std::string wrong_type =
        error_of("  - { hbm: 0, dtype: int32, shape: [6], from: { onnx: { model: weights.onnx, initializer: W } } }\n");
    BOOST_CHECK_MESSAGE(wrong_type.find("o.yaml:8:") != std::string::npos &&
                            wrong_type.find("data[0].from.onnx.initializer") != std::string::npos &&
                            wrong_type.find("initializer 'W' is not INT32") != std::string::npos,
                        wrong_type);
    const std::string wrong_count =
        error_of("  - { hbm: 0, dtype: int8, shape: [7], from: { onnx: { model: weights.onnx, initializer: W } } }\n");
    BOOST_CHECK_MESSAGE(wrong_count.find("has 6 elements, the entry declares 7") != std::string::npos, wrong_count);
    const std::string no_name =
        error_of("  - { hbm: 0, dtype: int8, shape: [6], from: { onnx: { model: weights.onnx, initializer: V } } }\n");
    BOOST_CHECK_MESSAGE(no_name.find("no initializer 'V' (initializers: W, b)") != std::string::npos, no_name);
}
