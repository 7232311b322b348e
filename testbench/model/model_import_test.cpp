// ONNX import and the greedy mapper (docs/models.md; issue 19): one- and
// two-layer models built here with the ONNX protobuf classes, their mapping
// (split, tile, fused epilogues) and token counts and bytes derived by hand
// from the mapping rule and T6; `npuvp map` writes what `npuvp --model` runs;
// every bad input names the file, the node and its op; and every model of
// Debian's libonnx-testdata whose ops are all supported maps and runs.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "config/workload_loader.h"
#include "model/mapper.h"
#include "model/onnx_import.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "report/layer_table.h"
#include "report/report_writer.h"
#include "testbench/harness/onnx_builder.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/run_npuvp.h"
#include "testbench/harness/xml_check.h"

using namespace npuvp;
using namespace npuvp::model;

namespace {

// A model built in the test: float tensors, opset 17.
using Builder = test::OnnxBuilder;

// X [1, 800] · W [800, 256] + b, ReLU: MNIST's fc1.
std::string fc_relu(const std::string& file) {
    Builder b;
    b.input("x", {1, 800}).weight("w", {800, 256}).weight("b", {256}).output("y", {1, 256});
    b.node("MatMul", "fc", {"x", "w"}, {"xw"});
    b.node("Add", "fc_bias", {"xw", "b"}, {"xwb"});
    b.node("Relu", "relu", {"xwb"}, {"y"});
    return b.save(file);
}

// X [1, 16, 32, 32], a 3x3 conv to 32 channels (pads 1), ReLU.
std::string conv_relu(const std::string& file) {
    Builder b;
    b.input("x", {1, 16, 32, 32}).weight("w", {32, 16, 3, 3}).output("y", {1, 32, 32, 32});
    auto* conv = b.node("Conv", "conv", {"x", "w"}, {"c"});
    Builder::ints(conv, "kernel_shape", {3, 3});
    Builder::ints(conv, "pads", {1, 1, 1, 1});
    b.node("Relu", "relu", {"c"}, {"y"});
    return b.save(file);
}

// fc1 (MatMul + ReLU) then fc2 (MatMul), MNIST's shapes.
std::string two_fc(const std::string& file) {
    Builder b;
    b.input("x", {1, 800}).weight("w1", {800, 256}).weight("w2", {256, 16}).output("y", {1, 16});
    b.node("MatMul", "fc1", {"x", "w1"}, {"h0"});
    b.node("Relu", "relu1", {"h0"}, {"h"});
    b.node("MatMul", "fc2", {"h", "w2"}, {"y"});
    return b.save(file);
}

// x [1, 128] · w1 [128, width] -> h, h · w2 [width, width] -> y: at the
// default width of 128, two one-tile layers.
std::string two_tiles(const std::string& file, std::int64_t width = 128) {
    Builder b;
    b.input("x", {1, 128}).weight("w1", {128, width}).weight("w2", {width, width}).output("y", {1, width});
    b.node("MatMul", "fc1", {"x", "w1"}, {"h"});
    b.node("MatMul", "fc2", {"h", "w2"}, {"y"});
    return b.save(file);
}

// x [1, 4096] · W [4096, 256]: a long K, few outputs.
std::string long_k(const std::string& file) {
    Builder b;
    b.input("x", {1, 4096}).weight("w", {4096, 256}).weight("b", {256}).output("y", {1, 256});
    b.node("MatMul", "fc", {"x", "w"}, {"xw"});
    b.node("Add", "fc_bias", {"xw", "b"}, {"y"});
    return b.save(file);
}

// One run of a mapped model on a shipped topology: tiles and DMA bytes.
struct MappedRun {
    TopologyConfig topo;
    TraceSink trace;
    std::unique_ptr<Platform> platform_ptr;
    Platform& platform;
    Mapping mapping;
    WorkloadConfig w;
    std::unique_ptr<WorkloadRun> run;

    explicit MappedRun(const std::string& file, const std::string& topology = "default", int cubes = 1,
                       const std::function<void(TopologyConfig&)>& change = {}, MapOptions options = {})
        : topo(changed(test::load_shipped(topology), change)),
          platform_ptr(std::make_unique<Platform>(topo, trace)),
          platform(*platform_ptr) {
        options.cubes = cubes;
        mapping = greedy_map(import_onnx(file), topo, options);
        w = load_workload_text(mapping.workload_yaml, file, topo);
        run = std::make_unique<WorkloadRun>(platform, w);
        sc_core::sc_start();
        BOOST_REQUIRE_MESSAGE(run->finished(), run->diagnosis());
    }
    static TopologyConfig changed(TopologyConfig t, const std::function<void(TopologyConfig&)>& change) {
        if (change) change(t);
        return t;
    }
    const LayerResult& layer(const std::string& id) {
        if (results.empty()) results = layer_results(mapping, *run, topo);
        for (const LayerResult& l : results)
            if (l.id == id) return l;
        BOOST_FAIL("no layer " << id);
        return results.front();
    }
    // By value: commands() builds its vector afresh.
    CommandResult command(const std::string& id) const {
        for (const CommandResult& c : run->commands())
            if (c.command->id == id) return c;
        BOOST_FAIL("no command " << id);
        return run->commands().front();
    }
    // Command `id` of PE `pe` (its node id prefix, e.g. sip0.cube0.pe1).
    CommandResult command(const std::string& pe, const std::string& id) const {
        for (const CommandResult& c : run->commands())
            if (c.pe == pe && c.command->id == id) return c;
        BOOST_FAIL("no command " << id << " on " << pe);
        return run->commands().front();
    }
    std::vector<LayerResult> results;
    std::uint64_t traffic(const std::string& kind, const std::string& name) const {
        for (const auto& t : measure_traffic(*run, platform, run->makespan_ps()))
            if (t.kind == kind && t.name.find(name) != std::string::npos) return t.bytes;
        return 0;
    }
    std::uint64_t dma_bytes(const std::string& dir) const {
        std::uint64_t total = 0;
        for (const auto& t : measure_traffic(*run, platform, run->makespan_ps()))
            if (t.kind == "dma" && t.name.find(dir) != std::string::npos) total += t.bytes;
        return total;
    }
};

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The model `b` built, saved as `file`, imported and mapped on default.yaml.
Mapping map_on_default(const Builder& b, const std::string& file) {
    return greedy_map(import_onnx(b.save(file)), test::load_shipped("default"), MapOptions{});
}

// The layer whose head is ONNX node `node` (a test failure when none is).
const MappedLayer& layer_of(const Mapping& m, const std::string& node) {
    for (const MappedLayer& l : m.layers)
        if (l.node == node) return l;
    BOOST_FAIL("no layer " << node);
    return m.layers.front();
}

std::string import_error(const std::string& file, std::int64_t batch = 0) {
    try {
        ImportOptions o;
        o.batch = batch;
        import_onnx(file, o);
    } catch (const ModelError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(matmul_bias_relu_is_one_fused_gemm_split_by_n) {
    // M = 1 has one tile row, N = 256 two tile columns: fewer than the 8 PEs
    // either way, so the rule splits the larger, N (a K split would save only
    // 762 ns of HBM time, under one layer's 2000): 2 PEs of 1 x 800 x 128,
    // the bias and the ReLU fused as per_output_tile epilogues. The K-step:
    // a token may take 8 MiB / 8 = 1 MiB of reserved TCM, 1048576 / ((1 +
    // 128) · 2) = 4064 -> 3968 deep, more than K: tile 1 x 800 x 128, one
    // token per PE. No operand is read twice (one tile row and column), so
    // DMA_READ carries A (1 · 800 · 2 = 1600 B) + B (800 · 128 · 2 = 204800
    // B) per PE: 412800 B; DMA_WRITE one 1 x 128 bf16 output tile per PE: 512 B.
    MappedRun r(fc_relu("model_fc_relu.onnx"));
    BOOST_REQUIRE_EQUAL(r.mapping.layers.size(), 1u);
    const MappedLayer& l = r.mapping.layers[0];
    BOOST_CHECK_EQUAL(l.node, "fc");
    BOOST_CHECK_EQUAL(l.pes, 2);
    BOOST_CHECK_EQUAL(l.split, "N");
    BOOST_CHECK(l.fused == (std::vector<std::string>{"fc_bias", "relu"}));
    BOOST_CHECK_EQUAL(l.flops, 2u * 800u * 256u);
    const std::string& y = r.mapping.workload_yaml;
    BOOST_CHECK(y.find("gemm: { m: 1, k: 800, n: 128 }") != std::string::npos);
    BOOST_CHECK(y.find("tile: { m: 1, k: 800, n: 128 }") != std::string::npos);
    BOOST_CHECK(y.find("{ op: bias_add, scope: per_output_tile }") != std::string::npos);
    BOOST_CHECK(y.find("{ op: relu, scope: per_output_tile }") != std::string::npos);
    BOOST_CHECK(y.find("target_pe: [0, 1]") != std::string::npos);
    BOOST_CHECK_EQUAL(r.platform.work_counts().tiles, 2u);
    BOOST_CHECK_EQUAL(r.dma_bytes("read"), 412800u);
    BOOST_CHECK_EQUAL(r.dma_bytes("write"), 512u);
}

BOOST_AUTO_TEST_CASE(conv3x3_relu_lowers_by_im2col_split_by_m) {
    // im2col: M = 1 · 32 · 32 = 1024 output pixels, K = 16 · 3 · 3 = 144, N =
    // 32 channels. 8 tile rows for 8 PEs: split M, 128 rows each; the K-step
    // may be 1048576 / ((128 + 32) · 2) = 3276 -> 3200 deep, more than K:
    // tile 128 x 144 x 32, one token per PE, 8 in all.
    // Per PE A 128 · 144 · 2 = 36864 B + B 144 · 32 · 2 = 9216 B: 8 · 46080 =
    // 368640 B read; 128 · 32 · 2 = 8192 B written per PE: 65536 B.
    MappedRun r(conv_relu("model_conv_relu.onnx"));
    BOOST_REQUIRE_EQUAL(r.mapping.layers.size(), 1u);
    const MappedLayer& l = r.mapping.layers[0];
    BOOST_CHECK_EQUAL(l.pes, 8);
    BOOST_CHECK_EQUAL(l.split, "M");
    BOOST_CHECK_EQUAL(l.m, 1024u);
    BOOST_CHECK_EQUAL(l.k, 144u);
    BOOST_CHECK_EQUAL(l.n, 32u);
    BOOST_CHECK(r.mapping.workload_yaml.find("tile: { m: 128, k: 144, n: 32 }") != std::string::npos);
    BOOST_CHECK(r.mapping.workload_yaml.find("target_pe: all") != std::string::npos);
    BOOST_CHECK_EQUAL(r.platform.work_counts().tiles, 8u);
    BOOST_CHECK_EQUAL(r.dma_bytes("read"), 368640u);
    BOOST_CHECK_EQUAL(r.dma_bytes("write"), 65536u);
}

BOOST_AUTO_TEST_CASE(two_layers_run_in_dependency_order) {
    // fc1 (MatMul + ReLU) then fc2 (MatMul): two layers, the second launched
    // after the first (its host request names it in `after`), so it starts
    // only when every PE of fc1 has finished.
    MappedRun r(two_fc("model_two_layers.onnx"));
    BOOST_REQUIRE_EQUAL(r.mapping.layers.size(), 2u);
    BOOST_CHECK(r.mapping.layers[1].after == std::vector<std::string>{"l0_fc1"});
    std::uint64_t fc1_end = 0, fc2_start = ~std::uint64_t{0};
    for (const CommandResult& c : r.run->commands()) {
        if (c.command->id == "fc1") fc1_end = std::max(fc1_end, c.finished_ps);
        if (c.command->id == "fc2") fc2_start = std::min(fc2_start, c.started_ps);
    }
    BOOST_CHECK_GT(fc1_end, 0u);
    BOOST_CHECK_GT(fc2_start, fc1_end);
}

BOOST_AUTO_TEST_CASE(layers_pipelined_over_two_cubes_read_their_input_over_ucie) {
    // two_sip.yaml, --map-cubes 2. FLOPs: fc1 2 · 800 · 256 = 409600, fc2
    // 2 · 256 · 16 = 8192, total 417792; a layer goes to the stage its FLOP
    // midpoint falls in: fc1's 204800 · 2 / 417792 -> stage 0 (sip0.cube0),
    // fc2's (409600 + 4096) · 2 / 417792 -> stage 1 (sip0.cube1). fc2 runs on
    // one PE (one tile each way), so one cross-cube read: its input h, 1 · 256
    // bf16 = 512 B, from pe0's slice of cube 0 (pa 0), crossing
    // sip0.cube0.ucie -> sip0.cube1.ucie; fc2 starts after that read.
    MappedRun r(two_fc("model_two_cubes.onnx"), "two_sip", 2);
    BOOST_REQUIRE_EQUAL(r.mapping.layers.size(), 2u);
    BOOST_CHECK_EQUAL(r.mapping.layers[0].cube, "sip0.cube0");
    BOOST_CHECK_EQUAL(r.mapping.layers[1].cube, "sip0.cube1");
    BOOST_REQUIRE_EQUAL(r.mapping.transfers.size(), 1u);
    BOOST_CHECK_EQUAL(r.mapping.transfers[0].producer, "l0_fc1");
    BOOST_CHECK(r.mapping.workload_yaml.find("dma_read: { id: xin, bytes: 512, addr: { pa: 0 } }") != std::string::npos);
    BOOST_CHECK_EQUAL(r.traffic("link", "sip0.cube0.ucie -> sip0.cube1.ucie"), 512u);
    const std::uint64_t read_end = r.command("xin").finished_ps;
    BOOST_CHECK_GT(read_end, 0u);
    BOOST_CHECK_GT(r.command("fc2").started_ps, read_end);
}

BOOST_AUTO_TEST_CASE(a_cross_cube_read_larger_than_the_tcm_goes_in_pieces) {
    // The run above with 200 B of allocatable TCM (size = reserved + 200):
    // the 512 B read of h cannot be one dma_read (the loader refuses a DMA
    // larger than the allocatable TCM), so the mapper writes pieces of at
    // most 200 B at consecutive addresses: [0, 200), [200, 400), [400, 512).
    // The link still carries the 512 B, and fc2 starts after the last piece.
    MappedRun r(two_fc("model_two_cubes_pieces.onnx"), "two_sip", 2, [](TopologyConfig& t) {
        t.cube.pe_template.tcm.size_bytes = t.cube.pe_template.tcm.reserved_bytes + 200;
    });
    BOOST_REQUIRE_EQUAL(r.mapping.transfers.size(), 1u);
    const std::string& y = r.mapping.workload_yaml;
    BOOST_CHECK(y.find("dma_read: { id: xin0, bytes: 200, addr: { pa: 0 } }") != std::string::npos);
    BOOST_CHECK(y.find("dma_read: { id: xin1, bytes: 200, addr: { pa: 200 } }") != std::string::npos);
    BOOST_CHECK(y.find("dma_read: { id: xin2, bytes: 112, addr: { pa: 400 } }") != std::string::npos);
    BOOST_CHECK_EQUAL(count_of(y, "id: xin"), 3u);
    BOOST_CHECK_EQUAL(r.traffic("link", "sip0.cube0.ucie -> sip0.cube1.ucie"), 512u);
    std::uint64_t read_end = 0;
    for (const char* piece : {"xin0", "xin1", "xin2"}) read_end = std::max(read_end, r.command(piece).finished_ps);
    BOOST_CHECK_GT(r.command("fc2").started_ps, read_end);
}

BOOST_AUTO_TEST_CASE(a_staged_exchange_larger_than_the_tcm_goes_in_pieces) {
    // The staged exchange below (2 KiB of SRAM: pe0 copies bytes [256, 512)
    // of h from pe1's slice, 6 GiB) with 100 B of allocatable TCM: reads of
    // 100, 100 and 56 B from 6 GiB + 0, 100, 200, then, after them, writes of
    // the same sizes into pe0's own slice at offsets 0, 100, 200. HBM sees
    // the same 256 B each way as in one piece.
    MappedRun r(two_fc("model_exchange_pieces.onnx"), "default", 1, [](TopologyConfig& t) {
        t.cube.shared_sram.size_bytes = 2048;
        t.cube.pe_template.tcm.size_bytes = t.cube.pe_template.tcm.reserved_bytes + 100;
    });
    const std::string& y = r.mapping.workload_yaml;
    BOOST_CHECK(y.find("dma_read: { id: xin0, bytes: 100, addr: { pa: 6442450944 } }") != std::string::npos);
    BOOST_CHECK(y.find("dma_read: { id: xin2, bytes: 56, addr: { pa: 6442451144 } }") != std::string::npos);
    BOOST_CHECK(y.find("dma_write: { id: xout0, bytes: 100, addr: { own: 0 } }") != std::string::npos);
    BOOST_CHECK(y.find("dma_write: { id: xout2, bytes: 56, addr: { own: 200 } }") != std::string::npos);
    BOOST_CHECK_EQUAL(r.layer("l1_fc2").hbm_read, 256u + 512u + 8192u);
    BOOST_CHECK_EQUAL(r.layer("l1_fc2").hbm_write, 256u + 32u);
    BOOST_CHECK_GT(r.command("xout0").started_ps, r.command("xin2").finished_ps);
    BOOST_CHECK_GT(r.command("fc2").started_ps, r.command("xout2").finished_ps);
}

BOOST_AUTO_TEST_CASE(map_writes_what_model_runs) {
    // `npuvp map` writes the workload `npuvp --model` runs: both runs print
    // the same schedule and makespan (only the input names differ).
    const std::string model = std::filesystem::absolute(conv_relu("model_map_cli.onnx")).string();
    const test::RunResult mapped = test::run_npuvp("map " + model + " --out model_map_cli.yaml");
    BOOST_REQUIRE_MESSAGE(mapped.code == 0, mapped.out);
    const test::RunResult a = test::run_npuvp("--workload model_map_cli.yaml --summary model_map_a.json");
    const test::RunResult b = test::run_npuvp("--model " + model + " --summary model_map_b.json");
    BOOST_REQUIRE_MESSAGE(a.code == 0, a.out);
    BOOST_REQUIRE_MESSAGE(b.code == 0, b.out);
    const auto makespan = [](const std::string& out) { return out.substr(out.find("makespan"), out.find('\n', out.find("makespan")) - out.find("makespan")); };
    BOOST_CHECK_EQUAL(makespan(a.out), makespan(b.out));
    // From "schedule" to the context table (or its one-line form, "contexts").
    const auto schedule = [](const std::string& out) { return out.substr(out.find("schedule"), out.find("\ncontext") - out.find("schedule")); };
    BOOST_CHECK_EQUAL(schedule(a.out), schedule(b.out));
}

BOOST_AUTO_TEST_CASE(mobilenet_and_decoder_ops_lower_as_documented) {
    // Issue 39 point 9 (docs/models.md "Operators"): a 1x1 conv, Clip (ReLU6,
    // its bounds constants) and HardSwish fused as its relu and mul
    // epilogues; Neg fused too; a ReduceMax a MATH reduce over its input; an
    // Expand a DMA copy; Max of two activations a MATH add; Pad a copy.
    Builder b;
    b.input("x", {1, 16, 8, 8}).weight("w", {32, 16, 1, 1}).weight("lo", {}).weight("hi", {});
    b.weight("shape", {4}).output("y", {1, 32, 8, 8}).output("p", {1, 32, 10, 10});
    auto* conv = b.node("Conv", "conv", {"x", "w"}, {"c"});
    Builder::ints(conv, "kernel_shape", {1, 1});
    b.node("Clip", "relu6", {"c", "lo", "hi"}, {"c6"});
    b.node("HardSwish", "hswish", {"c6"}, {"h"});
    b.node("Neg", "neg", {"h"}, {"n"});
    b.node("ReduceMax", "rmax", {"n"}, {"r"});  // keepdims: [1, 1, 1, 1]
    b.node("Max", "max", {"n", "n2"}, {"y"});
    b.node("Relu", "relu", {"n"}, {"n2"});
    b.node("Pad", "pad", {"n", "pads"}, {"p"});
    auto* pads = b.g->add_initializer();
    pads->set_name("pads");
    pads->set_data_type(onnx::TensorProto::INT64);
    pads->add_dims(8);
    for (std::int64_t v : {0, 0, 1, 1, 0, 0, 1, 1}) pads->add_int64_data(v);
    (void)b.g->mutable_output();
    auto* rout = b.g->add_output();
    Builder::shape(rout, "r", {1, 1, 1, 1});
    const Mapping m = map_on_default(b, "model_mobilenet_ops.onnx");
    auto layer = [&](const std::string& node) -> const MappedLayer& { return layer_of(m, node); };
    BOOST_CHECK_EQUAL(layer("conv").lowering, "gemm");
    BOOST_CHECK(layer("conv").fused == (std::vector<std::string>{"relu6", "hswish", "neg"}));
    BOOST_CHECK_EQUAL(layer("rmax").lowering, "math reduce");
    BOOST_CHECK_EQUAL(layer("max").lowering, "math add");
    BOOST_CHECK_EQUAL(layer("pad").lowering, "dma copy");
    const std::string& y = m.workload_yaml;
    BOOST_CHECK(y.find("- { op: relu, scope: per_output_tile }\n          - { op: mul, scope: per_output_tile }\n"
                       "          - { op: relu, scope: per_output_tile }") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(resize_conv_transpose_and_topk_lower_as_documented) {
    // Issue 39 point 9 (docs/models.md "Operators"), each size derived from
    // the rule by hand:
    // - ConvTranspose 2x2 stride 2, 64 -> 32 channels on 16x16 (a U-Net
    //   up-convolution): output 32x32; each output pixel takes ceil(2/2)^2 = 1
    //   tap per input channel, so M = 32·32 = 1024, K = 64·1 = 64, N = 32; its
    //   MACs, 1024·64·32 = 2,097,152, are the layer's true count
    //   (16·16 input pixels · 64 · 32 · 2·2 kernel taps).
    // - ConvTranspose 3x3 stride 2, pads 1, output_padding 1, 8 -> 4 channels
    //   on 8x8: output 16x16; ceil(3/2)^2 = 4 taps, so M = 256, K = 8·4 = 32,
    //   N = 4.
    // - Resize linear, 2x on H and W of [1, 8, 16, 16]: 8·32·32 = 8,192 output
    //   elements, each from 2·2 = 4 neighbours: a MATH mul of 32,768 elements.
    // - Resize nearest, the same: a DMA copy of the output, 8,192 · 2 bytes.
    // - TopK k = 5 over [1, 1000]: three passes over 1,000 elements, a MATH
    //   reduce of 3,000.
    Builder b;
    b.input("x", {1, 64, 16, 16}).weight("w", {64, 32, 2, 2}).output("up", {1, 32, 32, 32});
    auto* up = b.node("ConvTranspose", "up", {"x", "w"}, {"up"});
    Builder::ints(up, "kernel_shape", {2, 2});
    Builder::ints(up, "strides", {2, 2});
    b.input("x2", {1, 8, 8, 8}).weight("w2", {8, 4, 3, 3}).output("up2", {1, 4, 16, 16});
    auto* up2 = b.node("ConvTranspose", "up2", {"x2", "w2"}, {"up2"});
    Builder::ints(up2, "kernel_shape", {3, 3});
    Builder::ints(up2, "strides", {2, 2});
    Builder::ints(up2, "pads", {1, 1, 1, 1});
    Builder::ints(up2, "output_padding", {1, 1});
    auto* scales = b.g->add_initializer();
    scales->set_name("scales");
    scales->set_data_type(onnx::TensorProto::FLOAT);
    scales->add_dims(4);
    for (float v : {1.0f, 1.0f, 2.0f, 2.0f}) scales->add_float_data(v);
    b.input("f", {1, 8, 16, 16}).output("lin", {1, 8, 32, 32}).output("near", {1, 8, 32, 32});
    auto* lin = b.node("Resize", "lin", {"f", "", "scales"}, {"lin"});
    auto* mode = lin->add_attribute();
    mode->set_name("mode");
    mode->set_type(onnx::AttributeProto::STRING);
    mode->set_s("linear");
    b.node("Resize", "near", {"f", "", "scales"}, {"near"});
    auto* k = b.g->add_initializer();
    k->set_name("k");
    k->set_data_type(onnx::TensorProto::INT64);
    k->add_dims(1);
    k->add_int64_data(5);
    b.input("logits", {1, 1000}).output("top", {1, 5});  // the indices (int64) are not a graph output
    b.node("TopK", "topk", {"logits", "k"}, {"top", "idx"});
    const Mapping m = map_on_default(b, "model_resize_ops.onnx");
    auto layer = [&](const std::string& node) -> const MappedLayer& { return layer_of(m, node); };
    BOOST_CHECK_EQUAL(layer("up").lowering, "gemm");
    BOOST_CHECK_EQUAL(layer("up").m, 1024u);
    BOOST_CHECK_EQUAL(layer("up").k, 64u);
    BOOST_CHECK_EQUAL(layer("up").n, 32u);
    BOOST_CHECK_EQUAL(layer("up").flops, 2u * 2'097'152u);
    BOOST_CHECK_EQUAL(layer("up2").m, 256u);
    BOOST_CHECK_EQUAL(layer("up2").k, 32u);
    BOOST_CHECK_EQUAL(layer("up2").n, 4u);
    BOOST_CHECK_EQUAL(layer("lin").lowering, "math mul (resize linear, 4 taps)");
    BOOST_CHECK_EQUAL(layer("lin").flops, 32'768u);
    BOOST_CHECK_EQUAL(layer("near").lowering, "dma copy");
    BOOST_CHECK_EQUAL(layer("near").in_bytes, 8'192u * 2u);
    BOOST_CHECK_EQUAL(layer("topk").lowering, "math reduce (top-k, 3 passes)");
    BOOST_CHECK_EQUAL(layer("topk").flops, 3'000u);
}

BOOST_AUTO_TEST_CASE(a_bad_conv_transpose_is_refused_before_shape_inference) {
    // ConvTranspose gets the checks Conv has (fuzz_model's findings were a
    // Conv's ranks and a zero stride): W's rank must be X's, strides at
    // least 1, output_padding at least 0; and its group must divide both
    // channel counts.
    {
        Builder b;
        b.input("x", {1, 8, 4, 4}).weight("w", {8, 4, 2}).output("y", {1, 4, 8, 8});
        Builder::ints(b.node("ConvTranspose", "up", {"x", "w"}, {"y"}), "strides", {2, 2});
        const std::string e = import_error(b.save("model_bad_convt_rank.onnx"));
        BOOST_CHECK_MESSAGE(e.find("node 'up' (ConvTranspose): weight W has 3 dimensions, input X 4") != std::string::npos, e);
    }
    {
        Builder b;
        b.input("x", {1, 8, 4, 4}).weight("w", {8, 4, 2, 2}).output("y", {1, 4, 8, 8});
        Builder::ints(b.node("ConvTranspose", "up", {"x", "w"}, {"y"}), "strides", {0, 2});
        const std::string e = import_error(b.save("model_bad_convt_stride.onnx"));
        BOOST_CHECK_MESSAGE(e.find("attribute 'strides' [0, 2]: each value must be in [1, 2^31]") != std::string::npos, e);
    }
    {
        Builder b;
        b.input("x", {1, 6, 4, 4}).weight("w", {6, 1, 2, 2}).output("y", {1, 4, 8, 8});
        auto* n = b.node("ConvTranspose", "up", {"x", "w"}, {"y"});
        Builder::ints(n, "strides", {2, 2});
        auto* g = n->add_attribute();
        g->set_name("group");
        g->set_type(onnx::AttributeProto::INT);
        g->set_i(4);
        std::string e;
        try {
            (void)map_on_default(b, "model_bad_convt_group.onnx");
        } catch (const ModelError& x) {
            e = x.what();
        }
        BOOST_CHECK_MESSAGE(e.find("node 'up' (ConvTranspose)") != std::string::npos && e.find("group 4") != std::string::npos, e);
    }
}

BOOST_AUTO_TEST_CASE(a_shape_input_of_millions_of_values_is_refused_before_shape_inference) {
    // fuzz_model's third finding: an Expand whose shape input was a graph
    // input of 2^40 values made libonnx's shape inference build a shape of
    // 2^40 unknown dimensions (2.6 GB when it ran out of memory); its values
    // as data make a dimension object each. A shape, axes, sizes, pads or
    // split input holds at most ImportLimits::node_edges = 4096 values,
    // whether they are data or only its shape is known: 4097 is refused
    // naming the node and the input, 4096 is read.
    for (const std::size_t n : {std::size_t{4097}, std::size_t{4096}}) {
        Builder b;
        b.input("x", {1, 4}).int64s("shape", std::vector<std::int64_t>(n, 1)).output("y", {1, 4});
        b.node("Expand", "grow", {"x", "shape"}, {"y"});
        const std::string e = import_error(b.save("model_big_shape_input.onnx"));
        if (n == 4097)
            BOOST_CHECK_MESSAGE(e.find("node 'grow' (Expand): input 1 ('shape') holds 4097 values: a shape, axes, sizes, "
                                       "pads or split input holds at most 4096") != std::string::npos,
                                e);
        else
            BOOST_CHECK_MESSAGE(e.find("holds") == std::string::npos, e);
    }
    Builder b;
    b.input("x", {1}).input("shape", {std::int64_t{1} << 40}).output("y", {1});
    b.node("Expand", "grow", {"x", "shape"}, {"y"});
    const std::string e = import_error(b.save("model_big_shape_graph_input.onnx"));
    BOOST_CHECK_MESSAGE(e.find("node 'grow' (Expand): input 1 ('shape') holds 1099511627776 values") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(bad_models_name_file_node_and_op) {
    // An unsupported op.
    {
        Builder b;
        b.input("x", {1, 4}).output("y", {1, 4});
        b.node("Hardmax", "hm", {"x"}, {"y"});
        const std::string e = import_error(b.save("model_bad_op.onnx"));
        BOOST_CHECK_MESSAGE(e.find("model_bad_op.onnx: node 'hm' (Hardmax): unsupported operator") != std::string::npos, e);
    }
    // A cycle: a -> b -> a.
    {
        Builder b;
        b.input("x", {1, 4}).output("y", {1, 4});
        b.node("Add", "a", {"x", "q"}, {"p"});
        b.node("Relu", "r", {"p"}, {"q"});
        b.node("Relu", "out", {"p"}, {"y"});
        const std::string e = import_error(b.save("model_cycle.onnx"));
        BOOST_CHECK_MESSAGE(e.find("cycle") != std::string::npos && e.find("node 'a' (Add)") != std::string::npos, e);
    }
    // A symbolic batch: an error naming it, unless --batch gives it.
    {
        Builder b;
        b.input("x", {800}, "N").weight("w", {800, 16}).output("y", {16}, "N");
        b.node("MatMul", "fc", {"x", "w"}, {"y"});
        const std::string file = b.save("model_batch.onnx");
        const std::string e = import_error(file);
        BOOST_CHECK_MESSAGE(e.find("graph input 'x' has a dynamic dimension 0 ('N'): give the batch size with --batch N") != std::string::npos, e);
        BOOST_CHECK_EQUAL(import_error(file, 4), "");
    }
    // Not ONNX, truncated, missing.
    {
        std::ofstream("model_not_onnx.onnx") << "name: a YAML file\n";
        BOOST_CHECK(import_error("model_not_onnx.onnx").find("model_not_onnx.onnx: not an ONNX model") != std::string::npos);
        const std::string whole = fc_relu("model_whole.onnx");
        const std::string bytes = slurp(whole);
        std::ofstream("model_truncated.onnx", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
        BOOST_CHECK(import_error("model_truncated.onnx").find("not an ONNX model") != std::string::npos);
        BOOST_CHECK(import_error("model_missing.onnx").find("model_missing.onnx: no such file") != std::string::npos);
    }
    // Through the CLI: exit code 2 and the message.
    const test::RunResult r = test::run_npuvp("--model model_bad_op.onnx");
    BOOST_CHECK_EQUAL(r.code, 2);
    BOOST_CHECK(r.out.find("node 'hm' (Hardmax): unsupported operator") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_graph_at_the_node_limit_maps) {
    // ImportLimits::nodes (docs/models.md "Limits"): a chain of 10 000 ReLUs
    // is accepted, mapped (10 000 layers, each after the one before) and its
    // workload loads; one node more is refused before shape inference. The
    // mapper's ancestor matrix is 10 000² bits (12.5 MB), and nothing it does
    // is quadratic in time but that matrix's rows.
    auto chain = [](int n, const std::string& file) {
        Builder b;
        b.input("x", {1, 4}).output("c" + std::to_string(n - 1), {1, 4});
        for (int i = 0; i < n; ++i)
            b.node("Relu", "r" + std::to_string(i), {i == 0 ? "x" : "c" + std::to_string(i - 1)}, {"c" + std::to_string(i)});
        return b.save(file);
    };
    const TopologyConfig topo = test::load_shipped("default");
    const Mapping m = greedy_map(import_onnx(chain(ImportLimits::nodes, "model_limit_chain.onnx")), topo, MapOptions{});
    BOOST_REQUIRE_EQUAL(m.layers.size(), static_cast<std::size_t>(ImportLimits::nodes));
    BOOST_CHECK(m.layers.back().after == (std::vector<std::string>{m.layers[m.layers.size() - 2].id}));
    (void)load_workload_text(m.workload_yaml, "model_limit_chain.onnx", topo);
    const std::string e = import_error(chain(ImportLimits::nodes + 1, "model_over_limit_chain.onnx"));
    BOOST_CHECK_MESSAGE(e.find("model_over_limit_chain.onnx: the graph has 10001 nodes, more than the limit of 10000") !=
                            std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(every_supported_libonnx_testdata_model_maps_and_runs) {
    // Debian's libonnx-testdata: each node test's model. One whose ops are
    // all supported must import, map and run (exit 0); one that is not
    // supported, or has no static shapes, must be refused with exit 2 and a
    // message naming the file (never a crash). The counts are printed.
    const std::filesystem::path root = "/usr/share/libonnx-testdata/data/node";
    if (!std::filesystem::is_directory(root)) {
        BOOST_TEST_MESSAGE("libonnx-testdata is not installed (tools/bootstrap.sh installs it): skipped");
        return;
    }
    std::vector<std::string> files;
    for (const auto& dir : std::filesystem::directory_iterator(root))
        if (std::filesystem::exists(dir.path() / "model.onnx")) files.push_back((dir.path() / "model.onnx").string());
    std::sort(files.begin(), files.end());
    const TopologyConfig topo = test::load_shipped("default");
    std::size_t ran = 0, refused = 0;
    for (const std::string& file : files) {
        bool supported = true;
        try {
            const Mapping m = greedy_map(import_onnx(file), topo, MapOptions{});
            load_workload_text(m.workload_yaml, file, topo);
        } catch (const ModelError&) {
            supported = false;
        } catch (const std::exception& e) {
            supported = false;
            BOOST_CHECK_MESSAGE(std::string(e.what()).find(file) != std::string::npos,
                                file << ": an error that does not name the file: " << e.what());
        }
        if (!supported) {
            ++refused;
            continue;
        }
        const test::RunResult r = test::run_npuvp("--model " + file);
        BOOST_CHECK_MESSAGE(r.code == 0, file << " maps but does not run: " << r.out.substr(0, 400));
        ++ran;
    }
    BOOST_TEST_MESSAGE(ran << " of " << files.size() << " libonnx-testdata node models ran, " << refused << " refused");
    BOOST_CHECK_GT(ran, 50u);
}

BOOST_AUTO_TEST_CASE(each_layer_is_reported_with_its_bound) {
    // The fc + bias + ReLU model: one layer on 2 PEs, 2 · 800 · 256 = 409600
    // FLOPs, the HBM bytes of matmul_bias_relu_... above (412800 read, 512
    // written). Each PE's DMA: one read of 1600 + 204800 = 206400 B, start-up
    // 604 ns (setup 500, attaches 1 + 1, HBM 100, TCM write 2) + 206400 /
    // 192 = 1075 ns at the HBM port (192 < the engine's 256 GB/s); one write
    // of 256 B, start-up 604 (TCM read 2, setup 500, 1 + 1, HBM 100) + 256 /
    // 192 = 1.334 ns; nothing else uses its slice: no waiting. Start-up
    // 1208 ns of 2284.334 = 53 %. The GEMM (dataflow: fetch ceil((800 +
    // 102400) · 2 / 2048) = 101 cycles + 128 fill + 5) and its epilogues are
    // far less: the layer is DMA-bound, by start-up, and alone it is the
    // whole critical path. Its TFLOPS is its FLOPs over its span.
    const std::string model = std::filesystem::absolute(fc_relu("model_layers.onnx")).string();
    const test::RunResult r = test::run_npuvp("--model " + model + " --summary model_layers.json");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_CHECK(r.out.find("layers (share = span / makespan") != std::string::npos);
    BOOST_CHECK(r.out.find("critical path through layers: 1 of 1 layers: l0_fc") != std::string::npos);
    const std::string json = slurp("model_layers.json");
    for (const char* field : {"\"id\": \"l0_fc\"", "\"node\": \"fc\"", "\"op\": \"MatMul\"", "\"pes\": 2",
                              "\"split\": \"N\"", "\"flops\": 409600", "\"hbm_read_bytes\": 412800",
                              "\"hbm_write_bytes\": 512", "\"critical\": true", "\"bound\": \"DMA start-up 53%\"",
                              "\"dma_startup_ns\": 1208.000", "\"dma_transfer_ns\": 1076.334", "\"dma_wait_ns\": 0.000",
                              "\"transfer_hop\": \"sip0.cube0.hbm_ctrl.pe"})
        BOOST_CHECK_MESSAGE(json.find(field) != std::string::npos, "summary lacks " << field);
    // The report carries the same row (JSON) and a Layers table (Markdown).
    const test::RunResult rep = test::run_npuvp("--model " + model + " --report model_layers.report.json");
    BOOST_REQUIRE_MESSAGE(rep.code == 0, rep.out);
    const std::string report = slurp("model_layers.report.json");
    BOOST_CHECK(report.find("\"layers\": [") != std::string::npos);
    BOOST_CHECK(report.find("\"flops\": 409600, \"hbm_read_bytes\": 412800") != std::string::npos);
    const test::RunResult md = test::run_npuvp("--model " + model + " --report model_layers.report.md");
    BOOST_REQUIRE_MESSAGE(md.code == 0, md.out);
    const std::string text = slurp("model_layers.report.md");
    BOOST_CHECK(text.find("## Layers") != std::string::npos);
    BOOST_CHECK(text.find("| l0_fc | fc | MatMul / gemm | 2 | N |") != std::string::npos);
    // And the timeline has a "layers" process with the layer's slice.
    const test::RunResult tl = test::run_npuvp("--model " + model + " --timeline model_layers.timeline.json");
    BOOST_REQUIRE_MESSAGE(tl.code == 0, tl.out);
    const std::string timeline = slurp("model_layers.timeline.json");
    BOOST_CHECK(timeline.find("\"args\":{\"name\":\"layers\"}") != std::string::npos);
    BOOST_CHECK(timeline.find("\"cat\":\"layer\",\"name\":\"l0_fc\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_mapped_models_makespan_follows_the_timing_contract) {
    // Two 1 x 128 x 128 layers, each on one PE (one tile row and column:
    // split "-"), fc2 after fc1, both on pe0 (so fc2 reads h where fc1 wrote
    // it). Each layer, by hand from default.yaml (T1, T2, T3 dataflow):
    //   host launch: IO_CPU 5 + io_link 500 + M_CPU 5 = 510; M_CPU -> pe0
    //     2 (two 1 ns attaches) = 512; PE_CPU 2 + PE_SCHEDULER 1 = 515.
    //   DMA_READ A 256 B + B 32768 B = 33024 B: setup 500 + attach 1 + 1 +
    //     HBM 100 + TCM write 2 = 604, + 33024 / 192 = 172: 515 -> 1291.
    //   FETCH 33024 / 2048 = 16.125 + fetch-store 1 + TCM read 2 = 19.125:
    //     -> 1310.125.
    //   GEMM fold = 128 (m = 1), array 1, fetch ceil(33024 / 2048) = 17:
    //     17 + fill 128 + reducer 5 = 150 cycles at 1 GHz: -> 1460.125.
    //   STORE 256 / 2048 = 0.125 + 3 = 3.125: -> 1463.25.
    //   DMA_WRITE TCM read 2 + setup 500 + 2 + HBM 100 = 604, + 256 / 192 =
    //     1.334 (rounded up to the ps): -> 2068.584.
    //   response: pe0 -> M_CPU 2, M_CPU 5, io_link 500, IO_CPU 5: 2580.584.
    // fc2's launch leaves the host when fc1's completes: 2 · 2580.584.
    MappedRun r(two_tiles("model_two_tiles.onnx"));
    BOOST_REQUIRE_EQUAL(r.mapping.layers.size(), 2u);
    BOOST_CHECK_EQUAL(r.mapping.layers[0].split, "-");
    BOOST_CHECK_EQUAL(r.mapping.layers[1].reads_from, "own slice");
    constexpr std::uint64_t kLayer = 2580584;
    BOOST_CHECK_EQUAL(r.command("fc1").started_ps, 515000u);
    BOOST_CHECK_EQUAL(r.command("fc1").finished_ps, 2068584u);
    BOOST_CHECK_EQUAL(r.command("fc2").started_ps, kLayer + 515000u);
    BOOST_CHECK_EQUAL(r.command("fc2").finished_ps, kLayer + 2068584u);
    BOOST_CHECK_EQUAL(r.run->makespan_ps(), 2 * kLayer);
}

BOOST_AUTO_TEST_CASE(a_long_k_is_split_by_k_and_summed_through_shared_sram) {
    // M = 1, K = 4096, N = 256: 1 tile row, 2 tile columns, 32 K-steps. The
    // best of M and N uses 2 PEs, K 8 (>= 2 · 2); per PE B shrinks from
    // 4096 · 256 · 2 / 2 to / 8 bytes, saving (1048576 - 262144) / 192 =
    // 4096 ns of HBM time > 2000 (one more layer's cost): split by K. Share
    // ceil(32 / 8) · 128 = 512: 8 PEs of 1 x 512 x 256 with fp32 output
    // (1 · 256 · 4 = 1024 B partial each). The partials, 8192 B, go to shared
    // SRAM (its base, 2^48, in default.yaml). The sum layer: 256 outputs,
    // at least 1024 per PE -> one PE; one strided read of its share of every
    // partial (8 chunks of 1024 B, 1024 B apart), 7 · 256 fp32 adds, the
    // fused bias on 256 outputs, 512 B of bf16 written to its own slice.
    // HBM per GEMM PE: A 1 · 512 · 2 = 1024 B, B 512 · 256 · 2 = 262144 B;
    // its A panel (1 KiB) is kept across the 2 column tiles, so A is read
    // once: 263168 B, 8 PEs 2105344 B.
    MappedRun r(long_k("model_long_k.onnx"));
    BOOST_REQUIRE_EQUAL(r.mapping.layers.size(), 2u);
    const MappedLayer& g = r.mapping.layers[0];
    const MappedLayer& s = r.mapping.layers[1];
    BOOST_CHECK_EQUAL(g.split, "K");
    BOOST_CHECK_EQUAL(g.pes, 8);
    BOOST_CHECK_EQUAL(g.writes_to, "shared SRAM");
    BOOST_CHECK_EQUAL(s.id, "l1_fc_sum");
    BOOST_CHECK_EQUAL(s.pes, 1);
    BOOST_CHECK(s.after == std::vector<std::string>{"l0_fc"});
    BOOST_CHECK(s.fused == std::vector<std::string>{"fc_bias"});
    BOOST_CHECK_EQUAL(s.flops, 7u * 256u);
    const std::string& y = r.mapping.workload_yaml;
    BOOST_CHECK(y.find("gemm: { m: 1, k: 512, n: 256 }") != std::string::npos);
    BOOST_CHECK(y.find("dtype: { out: fp32 }") != std::string::npos);
    BOOST_CHECK(y.find("dst: { pa: 281474976710656 }") != std::string::npos);
    BOOST_CHECK(y.find("dma_read: { id: parts, bytes: 8192, addr: { pa: 281474976710656 }, pattern: strided, "
                       "chunks: 8, stride: 1024 }") != std::string::npos);
    BOOST_CHECK(y.find("math: { id: sum, op: add, elements: 1792, dtype: fp32 }") != std::string::npos);
    BOOST_CHECK(y.find("math: { id: ep0, op: bias_add, elements: 256 }") != std::string::npos);
    BOOST_CHECK_EQUAL(r.layer("l0_fc").hbm_read, 2105344u);
    BOOST_CHECK_EQUAL(r.layer("l0_fc").sram_write, 8192u);
    BOOST_CHECK_EQUAL(r.layer("l1_fc_sum").sram_read, 8192u);
    BOOST_CHECK_EQUAL(r.layer("l1_fc_sum").hbm_write, 512u);
    BOOST_CHECK_EQUAL(r.traffic("memory", "shared_sram"), 16384u);
    BOOST_CHECK_GT(r.command("sum").started_ps, r.layer("l0_fc").end_ps);
}

BOOST_AUTO_TEST_CASE(an_output_read_in_another_split_is_exchanged_through_shared_sram) {
    // fc1 1 x 800 x 256 splits by N over 2 PEs (a K split would save only
    // (204800 - 58514) / 192 = 762 ns < 2000); fc2 1 x 256 x 16 runs on one
    // PE. pe0 needs all of h, half of it written by pe1: h (1 · 256 · 2 =
    // 512 B) goes to shared SRAM, fc1's PEs write 256 B each there, fc2
    // reads A (512 B, once: one column tile) from SRAM and B (256 · 16 · 2 =
    // 8192 B) from its own slice (`src_b: { own: 0 }`).
    MappedRun r(two_fc("model_exchange_sram.onnx"));
    const MappedLayer& fc1 = r.mapping.layers[0];
    const MappedLayer& fc2 = r.mapping.layers[1];
    BOOST_CHECK_EQUAL(fc1.split, "N");
    BOOST_CHECK_EQUAL(fc1.writes_to, "shared SRAM");
    BOOST_CHECK_EQUAL(fc2.reads_from, "shared SRAM");
    BOOST_CHECK_EQUAL(r.mapping.sram_tensors, 1u);
    const std::string& y = r.mapping.workload_yaml;
    BOOST_CHECK(y.find("src: { pa: 281474976710656 }\n        src_b: { own: 0 }") != std::string::npos);
    BOOST_CHECK_EQUAL(r.layer("l0_fc1").sram_write, 512u);
    BOOST_CHECK_EQUAL(r.layer("l1_fc2").sram_read, 512u);
    BOOST_CHECK_EQUAL(r.layer("l1_fc2").hbm_read, 8192u);
    BOOST_CHECK_EQUAL(r.traffic("memory", "shared_sram"), 1024u);
    BOOST_CHECK_EQUAL(r.traffic("memory", "hbm_ctrl.pe0"), 8192u + 32u + 412800u / 2u);  // fc1 on pe0: A 1600 + B 204800 B
}

BOOST_AUTO_TEST_CASE(without_room_in_shared_sram_the_exchange_is_staged_through_hbm) {
    // The model above with a 2 KiB SRAM: h (a 4 KiB block) does not fit, so
    // pe0 first copies the half of h that pe1 wrote: bytes [256, 512) from
    // pe1's slice (6 GiB), 256 B written into its own; fc2 then reads A and
    // B from its own slice (512 + 8192 B) and waits for the copy.
    MappedRun r(two_fc("model_exchange_hbm.onnx"), "default", 1,
                [](TopologyConfig& t) { t.cube.shared_sram.size_bytes = 2048; });
    BOOST_CHECK_EQUAL(r.mapping.sram_tensors, 0u);
    BOOST_REQUIRE_EQUAL(r.mapping.transfers.size(), 1u);
    BOOST_CHECK_EQUAL(r.mapping.transfers[0].id, "e0_l1_fc2_p0");
    BOOST_CHECK(!r.mapping.transfers[0].cross_cube);
    BOOST_CHECK_EQUAL(r.mapping.layers[1].reads_from, "staged");
    BOOST_CHECK(r.mapping.layers[1].after == std::vector<std::string>{"e0_l1_fc2_p0"});
    const std::string& y = r.mapping.workload_yaml;
    BOOST_CHECK(y.find("dma_read: { id: xin, bytes: 256, addr: { pa: 6442450944 } }") != std::string::npos);
    BOOST_CHECK(y.find("dma_write: { id: xout, bytes: 256 }") != std::string::npos);
    BOOST_CHECK_EQUAL(r.layer("l1_fc2").hbm_read, 256u + 512u + 8192u);
    BOOST_CHECK_EQUAL(r.layer("l1_fc2").hbm_write, 256u + 32u);
    BOOST_CHECK_EQUAL(r.traffic("memory", "shared_sram"), 0u);
    BOOST_CHECK_GT(r.command("fc2").started_ps, r.command("xout").finished_ps);
}

BOOST_AUTO_TEST_CASE(src_b_own_reads_the_running_pes_slice) {
    // The form the mapper writes when A comes from shared SRAM: one kernel
    // on pe3 and pe5; each reads A (1 · 128 · 2 = 256 B) from SRAM and B
    // (128 · 128 · 2 = 32768 B) from its own slice, so hbm_ctrl.pe3 and .pe5
    // carry 32768 B each (plus the 256 B result written home), and pe0's
    // slice (pa 0) nothing.
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);
    const WorkloadConfig w = load_workload_text(R"(name: own
kernels:
  k:
    - composite:
        id: g
        gemm: { m: 1, k: 128, n: 128 }
        tile: { m: 1, k: 128, n: 128 }
        src: { pa: 281474976710656 }
        src_b: { own: 0 }
    - wait: all
launch:
  - { kernel: k, cube: sip0.cube0, pes: [3, 5] }
)", "own.yaml", topo);
    WorkloadRun run(platform, w);
    sc_core::sc_start();
    BOOST_REQUIRE(run.finished());
    std::map<std::string, std::uint64_t> bytes;
    for (const auto& t : measure_traffic(run, platform, run.makespan_ps()))
        if (t.kind == "memory") bytes[t.name] = t.bytes;
    BOOST_CHECK_EQUAL(bytes["sip0.cube0.hbm_ctrl.pe3"], 32768u + 256u);
    BOOST_CHECK_EQUAL(bytes["sip0.cube0.hbm_ctrl.pe5"], 32768u + 256u);
    BOOST_CHECK_EQUAL(bytes["sip0.cube0.hbm_ctrl.pe0"], 0u);
    BOOST_CHECK_EQUAL(bytes["sip0.cube0.shared_sram"], 512u);
}

BOOST_AUTO_TEST_CASE(a_device_queue_releases_the_next_layer_at_the_m_cpu) {
    // The two layers above with --launch device (docs/models.md "Launches"):
    // IO_CPU sends both at once and M_CPU holds fc2 until fc1's fan-out
    // completes on the device. fc1 runs as before: its DMA_WRITE ends at
    // 2068.584; pe0's response reaches M_CPU 2 later and its worker handles
    // it in 5: fc1's fan-out completes at 2075.584 and fc2 is released then,
    // its barrier 2 later (the M_CPU -> pe0 leg) = 2077.584. From barrier to
    // DMA_WRITE done fc2 takes what fc1 took (512 -> 2068.584: 1556.584), so
    // it ends at 3634.168; its
    // response to the host, 2 + 5 + 500 + 5 = 512: makespan 4146.168, where
    // the host's round trip between the layers gave 2 · 2580.584 = 5161.168.
    const std::string model = two_tiles("model_device_queue.onnx");
    const test::RunResult r = test::run_npuvp("--model " + model + " --launch device");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(r.out.find("makespan 4146.168 ns") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("launched through the device queue (--launch device)") != std::string::npos, r.out);
    // Its start column is the barrier M_CPU stamped at the release.
    BOOST_TEST(r.out.find("2077.584") != std::string::npos, r.out);
    const test::RunResult host = test::run_npuvp("--model " + model + " --launch host");
    BOOST_TEST(host.out.find("makespan 5161.168 ns") != std::string::npos, host.out);
    // --launch is for mapped runs.
    const test::RunResult bad = test::run_npuvp("--launch device");
    BOOST_TEST(bad.code == 2);
    BOOST_TEST(bad.out.find("--launch applies to --model and --llm runs") != std::string::npos, bad.out);
}

BOOST_AUTO_TEST_CASE(a_compiled_kernel_runs_the_layers_back_to_back) {
    // The two one-tile layers above with --launch compiled (docs/models.md
    // "Compiled kernels"): both are on pe0 only, so pe0's one kernel holds
    // fc1's commands, then fc2's, with no barrier (one PE). fc1 runs as
    // through the host: 515 -> 2068.584, its `wait: all` returns then.
    // PE_CPU issues fc2 2 later (overhead_ns) and PE_SCHEDULER starts it 1
    // after that: 2071.584; it takes what fc1 took (1553.584) and ends at
    // 3625.168. The kernel ends there (kernel_end_ns 0); the response to the
    // host is the 512 of a_device_queue_...: makespan 4137.168, against
    // 4146.168 through the device queue (which releases fc2 at the M_CPU,
    // 2077.584) and 5161.168 through the host.
    // (Without the weight prefetch, the next test's subject.)
    const std::string model = two_tiles("model_compiled.onnx");
    const test::RunResult r = test::run_npuvp("--model " + model + " --launch compiled --no-prefetch");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(r.out.find("makespan 4137.168 ns") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("compiled: one kernel a PE on 1 PE, no barrier (--launch compiled), weights read per token "
                          "(--no-prefetch)") != std::string::npos,
               r.out);
    // The layer table still has both layers, fc2 from 2071.584.
    BOOST_TEST(r.out.find("l1_fc2") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("2071.584") != std::string::npos, r.out);
    // `npuvp map` writes it: one kernel, its ids prefixed by their layer's,
    // one launch.
    const test::RunResult m = test::run_npuvp("map " + model + " --launch compiled --out model_compiled.yaml");
    BOOST_REQUIRE_MESSAGE(m.code == 0, m.out);
    const std::string yaml = slurp("model_compiled.yaml");
    BOOST_CHECK_EQUAL(count_of(yaml, "kernel_launch"), 1u);
    BOOST_CHECK_EQUAL(count_of(yaml, "\n  pe0:\n"), 1u);
    BOOST_CHECK_EQUAL(count_of(yaml, "id: l0_fc1_fc1"), 1u);
    BOOST_CHECK_EQUAL(count_of(yaml, "id: l1_fc2_fc2"), 1u);
    // One cube only: IPCQ does not cross cubes.
    const test::RunResult bad = test::run_npuvp("--model " + model + " --launch compiled --map-cubes 2 --topology " +
                                                std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/two_sip.yaml");
    BOOST_TEST(bad.code == 2);
    BOOST_TEST(bad.out.find("--launch compiled runs a network on one cube") != std::string::npos, bad.out);
    const test::RunResult no_kernel = test::run_npuvp("--model " + model + " --no-prefetch");
    BOOST_TEST(no_kernel.code == 2);
    BOOST_TEST(no_kernel.out.find("--no-prefetch applies to compiled kernels") != std::string::npos, no_kernel.out);
    const test::RunResult other = test::run_npuvp("--model " + model + " --launch sideways");
    BOOST_TEST(other.code == 2);
    BOOST_TEST(other.out.find("--launch: expected host, device or compiled, got 'sideways'") != std::string::npos,
               other.out);
}

BOOST_AUTO_TEST_CASE(a_compiled_kernel_stages_a_layer_that_streams_its_weights) {
    // x [1, 128] · w [128, 4096] on default.yaml: split by N, each of the 8
    // PEs 1 x 128 x 512, four tiles of N (one K-step). The mapper's estimate
    // (docs/models.md "Weight prefetch"): read per token, 4 transfers of
    // 500 ns start-up and 256 + 4 · 32768 B at 192 GB/s, 2 + 0.684 µs, with
    // 4 · 150 ns of GEMM beside them; staged, the A (256 B) and the weights
    // (131072 B) in two transfers before 0.6 µs of GEMM: 1.0 + 0.684 + 0.6 µs
    // — sooner, so it stages. pe0's kernel, launched at 512, by hand:
    //   a  (A into TCM, 256 B) issued 514, started 515: 604 + 1.334 -> 1120.334.
    //   w0 (the weights, 131072 B) issued 516, behind a in the dma context:
    //      started 1 after its end, 1121.334: 604 + 682.667 -> 2408.001.
    //   fc (a_tcm, b_tcm) issued 518, waits for both (RAW on their TCM
    //      ranges): started 2409.001; its tokens have no DMA_READ. Each:
    //      FETCH 33024 B 19.125, GEMM 150, STORE 256 B 3.125, DMA_WRITE
    //      605.334, the feed 1 ns a token. GEMM is the slowest stage, so
    //      GEMMs run back to back from 2428.126 (token 0's FETCH end) to
    //      3028.126, and the DMA_WRITEs back to back from token 0's STORE
    //      end 2581.251: 4 · 605.334 -> 5002.587.
    Builder b;
    b.input("x", {1, 128}).weight("w", {128, 4096}).output("y", {1, 4096});
    b.node("MatMul", "fc", {"x", "w"}, {"y"});
    MapOptions options;
    options.compiled = true;
    MappedRun r(b.save("model_stage_wide.onnx"), "default", 1, {}, options);
    BOOST_REQUIRE_EQUAL(r.mapping.prefetched_layers, 1u);
    BOOST_REQUIRE_EQUAL(r.mapping.prefetch_chunks, 8u);  // one a PE
    const std::string pe0 = "sip0.cube0.pe0";
    BOOST_CHECK_EQUAL(r.command(pe0, "l0_fc_a").finished_ps, 1120334u);
    BOOST_CHECK_EQUAL(r.command(pe0, "l0_fc_w0").started_ps, 1121334u);
    BOOST_CHECK_EQUAL(r.command(pe0, "l0_fc_w0").finished_ps, 2408001u);
    BOOST_CHECK_EQUAL(r.command(pe0, "l0_fc_fc").started_ps, 2409001u);
    BOOST_CHECK_EQUAL(r.command(pe0, "l0_fc_fc").finished_ps, 5002587u);
    // Two transfers on pe0's read channel, where reading per token took four.
    BOOST_CHECK_EQUAL(r.platform.pe(0, 0, 0).dma().channel(DmaDirection::read, 0).grants(), 2u);
    // Its bytes count for the layer: A and the weights, on each PE.
    BOOST_CHECK_EQUAL(r.layer("l0_fc").hbm_read, 8u * (256u + 131072u));
}

BOOST_AUTO_TEST_CASE(a_staged_compiled_run_records_alike_per_stage_and_decoupled) {
    // The layer above, staged, with every output on: its composites' tokens
    // start at FETCH and its loads are the kernel's dma_reads; the
    // decoupled run (the default) writes the trace, timeline and report the
    // reference mode (--per-stage) writes, byte for byte.
    Builder b;
    b.input("x", {1, 128}).weight("w", {128, 4096}).output("y", {1, 4096});
    b.node("MatMul", "fc", {"x", "w"}, {"y"});
    const std::string model = b.save("model_stage_outputs.onnx");
    for (const std::string mode : {"", " --per-stage"}) {
        const std::string stem = mode.empty() ? "model_stage_decoupled" : "model_stage_per_stage";
        const test::RunResult r = test::run_npuvp("--model " + model + " --launch compiled" + mode + " --trace " + stem +
                                                  ".jsonl --timeline " + stem + ".timeline.json --report " + stem +
                                                  ".report.json");
        BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
        BOOST_TEST(r.out.find("the weights of 1 of 1 layers prefetched into TCM (8 prefetches)") != std::string::npos,
                   r.out);
        if (mode.empty()) BOOST_TEST(r.out.find("pipeline 8 of 8 PEs decoupled") != std::string::npos, r.out);
    }
    for (const char* ext : {".jsonl", ".timeline.json", ".report.json"}) {
        const std::string decoupled = slurp(std::string("model_stage_decoupled") + ext);
        BOOST_CHECK_GT(decoupled.size(), 0u);
        BOOST_CHECK_MESSAGE(decoupled == slurp(std::string("model_stage_per_stage") + ext), ext << " differs");
    }
}

// two_tiles 256 wide: each layer one tile of N per PE on two PEs.
std::string two_wide(const std::string& file) { return two_tiles(file, 256); }

BOOST_AUTO_TEST_CASE(a_compiled_kernels_barrier_follows_the_ipcq_timing) {
    // Both layers on pe0 and pe1, fc2 waiting for fc1: one barrier between
    // them (docs/models.md "Compiled kernels"). The layers' own times are
    // the timing contract's as tested above; the barrier's follow from when
    // each PE's fc1 ends (its `wait: all` returns), by hand, on default.yaml:
    // PE_CPU issues a command 2 after the one before (overhead_ns), and
    // PE_SCHEDULER dispatches it 1 later; an IPCQ send of 64 B to the
    // neighbouring PE takes the DMA start-up 500 + 64 B at 256 B/ns 0.25 +
    // the route's latency 4.5 = 504.75 from its dispatch (the 4096 B of
    // decoupler_test's by-hand IPCQ case take 520.5 the same way).
    //   pe1 (arrival): fc1 ends at e1; sync0 issued e1 + 2, dispatched
    //     e1 + 3, its bytes in pe0's ring at a = e1 + 507.75;
    //   pe0: its receive, issued at its own fc1's end + 2, completes at a;
    //     `wait: all` returns at a; the release sync0_to1 is issued a + 2,
    //     dispatched a + 3, in pe1's ring at g = a + 507.75; pe0 issues fc2
    //     2 after the send, a + 4, started a + 5 (no wait for its send);
    //   pe1: sync0_go completes at g; fc2 issued g + 2, started g + 3.
    // So the barrier holds pe1 2 · 507.75 + 3 = 1018.5 ns after its fc1.
    MapOptions options;
    options.compiled = true;
    MappedRun r(two_wide("model_compiled_barrier.onnx"), "default", 1, {}, options);
    BOOST_REQUIRE_EQUAL(r.mapping.compiled.size(), 2u);
    BOOST_CHECK_EQUAL(r.mapping.barriers, 1u);
    const std::string pe0 = "sip0.cube0.pe0", pe1 = "sip0.cube0.pe1";
    const std::uint64_t e0 = r.command(pe0, "l0_fc1_fc1").finished_ps, e1 = r.command(pe1, "l0_fc1_fc1").finished_ps;
    BOOST_REQUIRE_LT(e0, e1);  // pe0 arrives first, as the derivation has it
    const std::uint64_t a = e1 + 507750, g = a + 507750;
    BOOST_CHECK_EQUAL(r.command(pe1, "sync0").started_ps, e1 + 3000);
    BOOST_CHECK_EQUAL(r.command(pe1, "sync0").finished_ps, a);
    BOOST_CHECK_EQUAL(r.command(pe0, "sync0_in0").submitted_ps, e0 + 2000);
    BOOST_CHECK_EQUAL(r.command(pe0, "sync0_in0").finished_ps, a);
    BOOST_CHECK_EQUAL(r.command(pe0, "sync0_to1").started_ps, a + 3000);
    BOOST_CHECK_EQUAL(r.command(pe0, "sync0_to1").finished_ps, g);
    BOOST_CHECK_EQUAL(r.command(pe0, "l1_fc2_fc2").started_ps, a + 5000);
    BOOST_CHECK_EQUAL(r.command(pe1, "sync0_go").finished_ps, g);
    BOOST_CHECK_EQUAL(r.command(pe1, "l1_fc2_fc2").started_ps, g + 3000);
    BOOST_CHECK_EQUAL(g + 3000 - e1, 1018500u);
    // The layer table counts each layer's own commands: fc1 from pe0's
    // start to pe1's end, fc2 from pe0's start; the barrier in neither.
    const LayerResult& l0 = r.layer("l0_fc1");
    const LayerResult& l1 = r.layer("l1_fc2");
    BOOST_CHECK_EQUAL(l0.start_ps, r.command(pe0, "l0_fc1_fc1").started_ps);
    BOOST_CHECK_EQUAL(l0.end_ps, e1);
    BOOST_CHECK_EQUAL(l1.start_ps, a + 5000);
    BOOST_CHECK_EQUAL(l1.end_ps, std::max(r.command(pe0, "l1_fc2_fc2").finished_ps,
                                          r.command(pe1, "l1_fc2_fc2").finished_ps));
    // Its parts come from the kernels' segments: a PE's GEMM busy time in
    // its layer, one tile each (docs/timing.md "GEMM cost", dataflow, bf16:
    // fold 128; fc1 1 x 128 x 128: max(1, ceil(16512 · 2 / 2048) = 17) +
    // fill 128 + reducer 5 = 150 cycles; fc2 1 x 256 x 128: max(2,
    // ceil(33024 · 2 / 2048) = 33) + 128 + 5 = 166, at 1 GHz), and DMA
    // start-ups for the operands it read and wrote.
    BOOST_CHECK_EQUAL(l0.compute_ps, 150000u);
    BOOST_CHECK_EQUAL(l1.compute_ps, 166000u);
    BOOST_CHECK_GT(l0.dma_startup_ps, 0u);
    BOOST_TEST(!l0.bound.empty());
}

BOOST_AUTO_TEST_CASE(a_compiled_kernels_barrier_is_on_the_critical_path_by_name) {
    // The run of a_compiled_kernels_barrier_...: pe1 finishes last. Its
    // path: fc1 on pe1, then its arrival send sync0 (504.75 from dispatch,
    // 3 after fc1's end: 507.75 with its gap), which completed pe0's
    // receive sync0_in0 (via "ipcq": the receive counts only after the
    // send, nothing), then pe0's release sync0_to1 (issued 2 after the
    // receive, dispatched 1 later, 504.75: 507.75), which completed pe1's
    // sync0_go, then fc2 on pe1. The bound line names the two sends:
    // IPCQ send 2 · 507.75 = 1015.5 ns, where pe0 (the first of two equal
    // shares) gave it.
    const std::string model = two_wide("model_compiled_path.onnx");
    const test::RunResult r = test::run_npuvp("--model " + model +
                                              " --launch compiled --no-prefetch --summary model_compiled_path.json --report "
                                              "model_compiled_path.report.json");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string summary = slurp("model_compiled_path.json");
    BOOST_CHECK_MESSAGE(summary.find("{\"what\": \"IPCQ send\", \"where\": \"sip0.cube0.pe0\", \"ns\": 1015.500") !=
                            std::string::npos,
                        summary.substr(0, 800));
    const std::string report = slurp("model_compiled_path.report.json");
    BOOST_CHECK_EQUAL(count_of(report, "\"via\": \"ipcq\""), 2u);
    BOOST_CHECK(report.find("\"id\": \"sync0_to1\", \"kind\": \"ipcq_send\"") != std::string::npos);
    // The PEs exchange IPCQ data, so they share a calendar and run
    // decoupled; per stage (the reference mode) writes the same trace and
    // timeline, byte for byte.
    BOOST_TEST(r.out.find("pipeline 2 of 2 PEs decoupled") != std::string::npos, r.out);
    for (const std::string mode : {"", " --per-stage"}) {
        const std::string stem = mode.empty() ? "model_compiled_decoupled" : "model_compiled_per_stage";
        const test::RunResult m = test::run_npuvp("--model " + model + " --launch compiled" + mode + " --trace " + stem +
                                                  ".jsonl --timeline " + stem + ".timeline.json");
        BOOST_REQUIRE_MESSAGE(m.code == 0, m.out);
    }
    BOOST_CHECK(slurp("model_compiled_decoupled.jsonl") == slurp("model_compiled_per_stage.jsonl"));
    BOOST_CHECK(slurp("model_compiled_decoupled.timeline.json") == slurp("model_compiled_per_stage.timeline.json"));
    BOOST_CHECK_GT(slurp("model_compiled_decoupled.jsonl").size(), 0u);
}

BOOST_AUTO_TEST_CASE(the_run_opens_with_what_bound_it) {
    // The two one-tile layers of a_mapped_models_makespan_...: per layer the
    // critical path is IO_CPU 0 -> 510, M_CPU 510 -> 512, (3 ns launch wait)
    // pe0's fc 515 -> 2068.584, M_CPU 2068.584 -> 2075.584, IO_CPU ->
    // 2580.584. The host steps, 510 + 2 + 7 + 505 = 1024 ns a layer, are the
    // host launch path: 2048 ns of 5161.168 = 40 %. The PE step with its wait,
    // 1556.584 ns, is shared among its kernel run's parts: DMA start-up 604
    // (read) + 604 (write) = 1208 ns, transfer at the HBM port 33024 / 192 =
    // 172 + 256 / 192 = 1.334 ns, compute (the GEMM) 150 ns: start-up gets
    // 1208 · 1556.584 / 1531.334 per layer, 2455.837 ns in all = 48 %.
    const std::string model = std::filesystem::absolute(two_tiles("model_bound.onnx")).string();
    const test::RunResult r = test::run_npuvp("--model " + model + " --summary model_bound.json");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_CHECK_MESSAGE(r.out.find("bound    DMA start-up 48% (sip0.cube0.pe0) of the makespan, then host launch "
                                   "path 40%, HBM transfer 7% (sip0.cube0.hbm_ctrl.pe0.port), compute 6% "
                                   "(sip0.cube0.pe0)") != std::string::npos,
                        r.out.substr(0, 1200));
    // It opens the run: right under the makespan.
    BOOST_CHECK_LT(r.out.find("bound    "), r.out.find("request "));
    const std::string json = slurp("model_bound.json");
    BOOST_CHECK(json.find("\"bound\": [{\"what\": \"DMA start-up\", \"where\": \"sip0.cube0.pe0\", \"ns\": 2455.837") !=
                std::string::npos);
    BOOST_CHECK(json.find("{\"what\": \"host launch path\", \"where\": \"\", \"ns\": 2048.000") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_run_lists_what_it_left_untouched) {
    // host_launch.yaml: one GEMM tile per PE (A, B and C of 128 x 128 bf16,
    // 32768 B each: 98304 B of reserved TCM at most, of 8 MiB), no IPCQ, no
    // shared SRAM access: each is listed under the bound, and in the summary.
    const test::RunResult r = test::run_npuvp("--workload " + std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/host_launch.yaml" +
                                              " --summary model_unused.json");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    for (const char* line : {"unused   engines never busy on any launched PE: IPCQ_SEND",
                             "unused   reserved TCM (pe_tcm reserved_mb): at most 98304 of 8388608 bytes held at once",
                             "unused   shared SRAM untouched: sip0.cube0.shared_sram"})
        BOOST_CHECK_MESSAGE(r.out.find(line) != std::string::npos, "no line: " << line);
    const std::string json = slurp("model_unused.json");
    BOOST_CHECK(json.find("\"unused\": [\"engines never busy on any launched PE: IPCQ_SEND\"") != std::string::npos);
    // Each TCM port's traffic and utilisation: the read port carries FETCH's
    // A + B (65536 B) and DMA_WRITE's C (32768 B), the write port DMA_READ's
    // A + B and STORE's C: 98304 B each, at 8192 GB/s 12 ns, 0.1 % of the
    // 14430.340 ns makespan.
    BOOST_CHECK(r.out.find("tcm    sip0.cube0.pe0.pe_tcm.read_port") != std::string::npos);
    BOOST_CHECK(json.find("{\"kind\": \"tcm\", \"name\": \"sip0.cube0.pe0.pe_tcm.write_port\", \"bytes\": 98304, "
                          "\"busy_ns\": 12.000, \"transfers\": 2, \"utilisation\": 0.0008") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_roofline_places_each_point_under_its_roof) {
    // The two one-tile layers again. Each: 2 · 1 · 128 · 128 = 32768 FLOPs,
    // HBM A 256 + B 32768 + C 256 = 33280 B: 0.9846 FLOP/B; over its span
    // 1553.584 ns, 0.021092 TFLOPS; its roof on one PE min(32.768, 0.9846 ·
    // 192 GB/s) = 0.189046 TFLOPS (memory side): 11.16 % of it. The run:
    // 65536 FLOPs, 66560 B at the HBM ports over 5161.168 ns = 0.012698
    // TFLOPS against the machine's min(262.144, 0.9846 · 1536) = 1.512369.
    const std::string model = std::filesystem::absolute(two_tiles("model_roof.onnx")).string();
    const test::RunResult r =
        test::run_npuvp("--model " + model + " --report model_roof.json --roofline model_roof.svg");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_CHECK(r.out.find("roofline peak 262.144 TFLOPS (GEMM, any dtype), HBM 1536.0 GB/s, ridge 170.7 FLOP/B; "
                           "the run: 0.98 FLOP/B, 0.013 TFLOPS = 0.8% of its roof 1.512 TFLOPS (memory side)") !=
                std::string::npos);
    const std::string json = slurp("model_roof.json");
    BOOST_CHECK(json.find("{\"name\": \"run\", \"kind\": \"run\", \"pes\": 8, \"flops\": 65536, \"hbm_bytes\": 66560, "
                          "\"ns\": 5161.168, \"intensity\": 0.9846, \"tflops\": 0.012698, \"roof_tflops\": 1.512369") !=
                std::string::npos);
    BOOST_CHECK(json.find("{\"name\": \"l0_fc1\", \"kind\": \"layer\", \"pes\": 1, \"flops\": 32768, \"hbm_bytes\": "
                          "33280, \"ns\": 1553.584, \"intensity\": 0.9846, \"tflops\": 0.021092, \"roof_tflops\": "
                          "0.189046, \"of_roof\": 0.1116, \"side\": \"memory\"}") != std::string::npos);
    const std::string svg = slurp("model_roof.svg");
    BOOST_CHECK(svg.find("<title>l1_fc2: 0.98 FLOP/B, 0.021 TFLOPS, 11.2% of its roof 0.189 TFLOPS (memory side)") !=
                std::string::npos);
    BOOST_CHECK(svg.find(">run 1%</text>") != std::string::npos);
    std::map<std::string, int> tags;
    BOOST_CHECK_EQUAL(test::xml_problem(svg, tags), "");
    std::size_t circles = 0;
    for (std::size_t at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) ++circles;
    BOOST_CHECK_EQUAL(circles, 3u);  // two layers and the run
}

BOOST_AUTO_TEST_CASE(the_energy_of_a_run_is_its_counts_times_the_table) {
    // The two one-tile layers on pe0, default.yaml's energy table:
    //   GEMM: 2 · 1 · 128 · 128 = 32768 bf16 MACs · 0.375 pJ = 12288 pJ;
    //   DMA: 2 transfers a layer (the read, the write) · 50 pJ = 200 pJ;
    //   HBM: read 2 · (256 + 32768) B, written 2 · 256 B, 28 pJ/B: 1863680 pJ;
    //   TCM: each port 2 · 33280 B (read: FETCH's A + B and the DMA write's C;
    //     write: the DMA read's A + B and STORE's C) · 0.8 pJ/B: 106496 pJ;
    //   NoC: the read's 33024 B and the write's 256 B over two attach links
    //     each, twice: 133120 B · 1 pJ/B = 133120 pJ;
    //   static over 5161.168 ns: 8 PEs · 2000 mW = 82578688 pJ, 8 slices ·
    //     1000 mW = 41289344 pJ, one cube · 5000 mW = 25805840 pJ.
    // Total 151789656 pJ; average 151789656 pJ / 5161168 ps = 29.41 W.
    const std::string model = std::filesystem::absolute(two_tiles("model_energy.onnx")).string();
    const test::RunResult r = test::run_npuvp("--model " + model + " --summary model_energy.json");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_CHECK(r.out.find("energy   151.790 µJ, average 29.41 W over the makespan") != std::string::npos);
    const std::string json = slurp("model_energy.json");
    for (const char* part : {"\"total_pj\": 151789656.000", "{\"name\": \"GEMM MACs\", \"group\": \"compute\", \"pj\": 12288.000}",
                             "{\"name\": \"DMA descriptors\", \"group\": \"compute\", \"pj\": 200.000}",
                             "{\"name\": \"HBM\", \"group\": \"memory\", \"pj\": 1863680.000}",
                             "{\"name\": \"TCM\", \"group\": \"memory\", \"pj\": 106496.000}",
                             "{\"name\": \"NoC\", \"group\": \"interconnect\", \"pj\": 133120.000}",
                             "{\"name\": \"static: PEs\", \"group\": \"static\", \"pj\": 82578688.000}",
                             "{\"name\": \"static: cubes\", \"group\": \"static\", \"pj\": 25805840.000}"})
        BOOST_CHECK_MESSAGE(json.find(part) != std::string::npos, "summary lacks " << part);
    // Each layer's dynamic energy: its 16384 MACs (6144 pJ) and its 33280 B
    // of HBM (931840 pJ).
    BOOST_CHECK(json.find("\"energy_pj\": 937984.000") != std::string::npos);
    // A table entry changes exactly its part: bf16 MACs at 1 pJ -> 32768 pJ.
    const test::RunResult m = test::run_npuvp("--model " + model + " --set energy.mac_bf16_pj=1 --summary model_energy2.json");
    BOOST_REQUIRE_MESSAGE(m.code == 0, m.out);
    BOOST_CHECK(slurp("model_energy2.json").find("{\"name\": \"GEMM MACs\", \"group\": \"compute\", \"pj\": 32768.000}") !=
                std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_commands_energy_is_spread_over_its_span) {
    // The two one-tile layers above. Each command's own energy: its 16384
    // bf16 MACs (6144 pJ) and 33280 B of HBM (931840 pJ) = 937984 pJ, over
    // its span: fc1 from 515 to 2068.584 ns, fc2 from 2580.584 + 515 =
    // 3095.584 to 4649.168 ns (a_mapped_models_makespan_follows_the_timing_contract),
    // 1553584 ps each: 937984 / 1553584 = 0.603755 W. The rest of the run's
    // 151789656 pJ (energy test above), 149913688 pJ, is the background over
    // 5161168 ps: 29.046465 W; with a command running, 29.650220 W.
    // The peak over 1 µs: a window inside one command's 1.554 µs, the
    // earliest from 515 ns. Over 5 µs (starts 0 .. 161.168 ns hold both
    // commands whole): (149913688 · 5000000 / 5161168 + 2 · 937984) /
    // 5000000 = 29.421659 W, from 0.
    const std::string model = std::filesystem::absolute(two_tiles("model_power.onnx")).string();
    const test::RunResult r = test::run_npuvp("--model " + model +
                                              " --summary model_power.json --timeline model_power.timeline.json"
                                              " --vcd model_power.vcd");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_CHECK_MESSAGE(r.out.find("power    peak 29.65 W over 1 µs from 0.515 µs; most energy: ") != std::string::npos,
                        r.out);
    const std::string json = slurp("model_power.json");
    for (const char* part : {"\"peak_w\": 29.650220, \"peak_window_ns\": 1000.000, \"peak_from_ns\": 515.000",
                             "\"background_w\": 29.046465"})
        BOOST_CHECK_MESSAGE(json.find(part) != std::string::npos, "summary lacks " << part);
    BOOST_CHECK_EQUAL(count_of(json, "\"energy_pj\": 937984.000"), 4u);  // two commands, two layers
    // The timeline's power counter: background, a command, background, ...
    const std::string timeline = slurp("model_power.timeline.json");
    for (const char* sample : {"\"ts\":0.000000,\"args\":{\"W\":29.046465}", "\"ts\":0.515000,\"args\":{\"W\":29.650220}",
                               "\"ts\":2.068584,\"args\":{\"W\":29.046465}", "\"ts\":3.095584,\"args\":{\"W\":29.650220}",
                               "\"ts\":4.649168,\"args\":{\"W\":29.046465}", "\"ts\":5.161168,\"args\":{\"W\":0.000000}"})
        BOOST_CHECK_MESSAGE(timeline.find(std::string("\"name\":\"power (W)\",\"pid\":") ) != std::string::npos &&
                                timeline.find(sample) != std::string::npos,
                            "timeline lacks " << sample);
    // The VCD: each value at its own time.
    const std::string vcd = slurp("model_power.vcd");
    for (const auto& [time, value] : std::vector<std::pair<std::string, std::string>>{
             {"#515000", "r29.650220 !pw"}, {"#2068584", "r29.046465 !pw"}, {"#3095584", "r29.650220 !pw"},
             {"#4649168", "r29.046465 !pw"}, {"#5161168", "r0.000000 !pw"}}) {
        const std::size_t at = vcd.find("\n" + time + "\n");
        BOOST_REQUIRE_MESSAGE(at != std::string::npos, "the VCD has no " << time);
        const std::size_t next = vcd.find("\n#", at + 1);
        BOOST_CHECK_MESSAGE(vcd.substr(at, next - at).find(value) != std::string::npos, "no " << value << " at " << time);
    }
    // A wider window: both commands whole.
    const test::RunResult w = test::run_npuvp("--model " + model + " --power-window 5000 --summary model_power5.json");
    BOOST_REQUIRE_MESSAGE(w.code == 0, w.out);
    BOOST_CHECK(slurp("model_power5.json").find("\"peak_w\": 29.421659, \"peak_window_ns\": 5000.000, \"peak_from_ns\": 0.000") !=
                std::string::npos);
    BOOST_CHECK(w.out.find("power    peak 29.42 W over 5 µs from 0 µs") != std::string::npos);
    // A window longer than the run is the run: the average.
    const test::RunResult l = test::run_npuvp("--model " + model + " --power-window 9000");
    BOOST_CHECK(l.out.find("power    peak 29.41 W over 5.161 µs (the whole run") != std::string::npos);
    const test::RunResult bad = test::run_npuvp("--model " + model + " --power-window 0");
    BOOST_CHECK_EQUAL(bad.code, 2);
    BOOST_CHECK(bad.out.find("--power-window: expected a window in ns above 0") != std::string::npos);
}
