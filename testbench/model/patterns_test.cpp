// Recognised patterns (model/patterns.h; docs/models.md "Recognised
// patterns"; issue 41 point 3): GELU in its erf and tanh spellings, SiLU
// and its gating, RMSNorm and the rotary embedding, each as an export
// writes it, become one op; what they are mapped to, and the time a fused
// GELU adds to its GEMM, derived by hand from T3. Near misses (a value of
// the group read outside it, a mean over the wrong axis) are left as the
// file spells them.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "model/mapper.h"
#include "model/onnx_import.h"
#include "testbench/harness/onnx_builder.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/run_npuvp.h"

using namespace npuvp;
using namespace npuvp::model;

namespace {

using Builder = test::OnnxBuilder;

Mapping map_file(const std::string& file, bool recognise = true) {
    MapOptions o;
    o.recognise = recognise;
    return greedy_map(import_onnx(file), test::load_shipped("default"), o);
}

const MappedLayer& layer_of(const Mapping& m, const std::string& node) {
    for (const MappedLayer& l : m.layers)
        if (l.node == node) return l;
    BOOST_FAIL("no layer " << node);
    return m.layers.front();
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// x [1, 128] · W [128, 128] + b: one tile, one PE.
Builder fc_bias() {
    Builder b;
    b.input("x", {1, 128}).weight("w", {128, 128}).weight("b", {128}).output("y", {1, 128});
    b.node("MatMul", "fc", {"x", "w"}, {"xw"});
    return b;
}

// fc + bias, then GELU as torch exports it with erf: h / √2 → Erf → + 1 →
// h · → · ½. `leak`: the Erf's output is also a graph output.
std::string gelu_erf(const std::string& file, bool leak = false) {
    Builder b = fc_bias();
    b.weight("sqrt2", {1}).weight("one", {1}).weight("half", {1});
    b.node("Add", "fc_bias", {"xw", "b"}, {"h"});
    b.node("Div", "gelu_div", {"h", "sqrt2"}, {"d"});
    b.node("Erf", "gelu_erf", {"d"}, {"e"});
    b.node("Add", "gelu_add", {"e", "one"}, {"e1"});
    b.node("Mul", "gelu_mul", {"h", "e1"}, {"g"});
    b.node("Mul", "gelu_half", {"g", "half"}, {"y"});
    if (leak) b.output("e", {1, 128});
    return b.save(file);
}

// fc + bias, then GELU as GPT-2 writes it with tanh.
std::string gelu_tanh(const std::string& file) {
    Builder b = fc_bias();
    b.weight("three", {1}).weight("k", {1}).weight("s", {1}).weight("one", {1}).weight("half", {1});
    b.node("Add", "fc_bias", {"xw", "b"}, {"h"});
    b.node("Pow", "gelu_cube", {"h", "three"}, {"c3"});
    b.node("Mul", "gelu_k", {"c3", "k"}, {"c"});
    b.node("Add", "gelu_sum", {"h", "c"}, {"u"});
    b.node("Mul", "gelu_s", {"u", "s"}, {"us"});
    b.node("Tanh", "gelu_tanh", {"us"}, {"t"});
    b.node("Add", "gelu_one", {"t", "one"}, {"t1"});
    b.node("Mul", "gelu_mul", {"h", "t1"}, {"g"});
    b.node("Mul", "gelu_half", {"g", "half"}, {"y"});
    return b.save(file);
}

// fc + bias alone: the baseline of the GELU's time.
std::string plain(const std::string& file) {
    Builder b = fc_bias();
    b.node("Add", "fc_bias", {"xw", "b"}, {"y"});
    return b.save(file);
}

// A Llama MLP's front: gate and up projections, SiLU(gate) · up.
std::string silu_gating(const std::string& file) {
    Builder b;
    b.input("x", {1, 128}).weight("wg", {128, 256}).weight("wu", {128, 256}).output("y", {1, 256});
    b.node("MatMul", "gate_proj", {"x", "wg"}, {"g"});
    b.node("MatMul", "up_proj", {"x", "wu"}, {"u"});
    b.node("Sigmoid", "silu_sigmoid", {"g"}, {"s"});
    b.node("Mul", "silu", {"g", "s"}, {"a"});
    b.node("Mul", "gating", {"a", "u"}, {"y"});
    return b.save(file);
}

// RMSNorm as a Llama export writes it, over x [4, 256]; `axis` the mean's.
std::string rms_norm(const std::string& file, std::int64_t axis = -1) {
    Builder b;
    b.input("x", {4, 256}).weight("two", {1}).weight("eps", {1}).weight("w", {256}).output("y", {4, 256});
    b.node("Pow", "norm_sq", {"x", "two"}, {"sq"});
    auto* mean = b.node("ReduceMean", "norm_mean", {"sq"}, {"ms"});
    Builder::ints(mean, "axes", {axis});
    Builder::attr(mean, "keepdims", 1);
    b.node("Add", "norm_eps", {"ms", "eps"}, {"mse"});
    b.node("Sqrt", "norm_sqrt", {"mse"}, {"r"});
    b.node("Div", "norm_div", {"x", "r"}, {"n"});
    b.node("Mul", "norm", {"n", "w"}, {"y"});
    return b.save(file);
}

// The rotate-half rotary embedding over x [1, 2, 8, 64]: x·cos +
// Concat(−x₂, x₁)·sin.
std::string rotary(const std::string& file) {
    Builder b;
    b.input("x", {1, 2, 8, 64}).weight("cos", {8, 64}).weight("sin", {8, 64}).output("y", {1, 2, 8, 64});
    b.int64s("lo0", {0}).int64s("lo1", {32}).int64s("hi1", {64}).int64s("ax", {-1});
    b.node("Slice", "rope_x1", {"x", "lo0", "lo1", "ax"}, {"x1"});
    b.node("Slice", "rope_x2", {"x", "lo1", "hi1", "ax"}, {"x2"});
    b.node("Neg", "rope_neg", {"x2"}, {"nx2"});
    Builder::attr(b.node("Concat", "rope_rot", {"nx2", "x1"}, {"rot"}), "axis", -1);
    b.node("Mul", "rope_cos", {"x", "cos"}, {"xc"});
    b.node("Mul", "rope_sin", {"rot", "sin"}, {"rs"});
    b.node("Add", "rope", {"xc", "rs"}, {"y"});
    return b.save(file);
}

double makespan_ns(const std::string& out) {
    const std::size_t at = out.find("\nmakespan ");
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, out);
    return std::strtod(out.c_str() + at + 10, nullptr);
}

}  // namespace

BOOST_AUTO_TEST_CASE(gelu_with_erf_after_a_gemm_is_one_gelu_epilogue) {
    // h is read twice (by the Div and by the product), so node by node only
    // the bias fuses and the five GELU nodes are five MATH layers; as one
    // Gelu, h is read once and the whole chain is the GEMM's epilogues.
    const Mapping m = map_file(gelu_erf("patterns_gelu_erf.onnx"));
    BOOST_REQUIRE_EQUAL(m.layers.size(), 1u);
    const MappedLayer& l = m.layers[0];
    BOOST_CHECK(l.fused == (std::vector<std::string>{"fc_bias", "gelu_div", "gelu_erf", "gelu_add", "gelu_mul", "gelu_half"}));
    BOOST_CHECK(l.patterns == std::vector<std::string>{"GELU (erf)"});
    BOOST_CHECK(has(m.workload_yaml, "- { op: bias_add, scope: per_output_tile }\n          - { op: gelu, scope: per_output_tile }\n"));
    BOOST_CHECK(has(m.workload_yaml, "recognised: GELU (erf)"));

    const Mapping spelled = map_file("patterns_gelu_erf.onnx", false);
    BOOST_CHECK_EQUAL(spelled.layers.size(), 6u);
    BOOST_CHECK(layer_of(spelled, "fc").fused == std::vector<std::string>{"fc_bias"});
    BOOST_CHECK(layer_of(spelled, "fc").patterns.empty());
}

BOOST_AUTO_TEST_CASE(gelu_with_tanh_is_one_gelu_epilogue) {
    const Mapping m = map_file(gelu_tanh("patterns_gelu_tanh.onnx"));
    BOOST_REQUIRE_EQUAL(m.layers.size(), 1u);
    BOOST_CHECK_EQUAL(m.layers[0].fused.size(), 9u);  // the bias and the 8 GELU nodes
    BOOST_CHECK(m.layers[0].patterns == std::vector<std::string>{"GELU (tanh)"});
    BOOST_CHECK(has(m.workload_yaml, "- { op: gelu, scope: per_output_tile }"));
    // GPT-2 small's block (the shipped model) has it after c_fc.
    const Mapping gpt2 = map_file(std::string(NPUVP_SOURCE_DIR) + "/configs/models/gpt2_small_block.onnx");
    BOOST_CHECK(layer_of(gpt2, "c_fc").patterns == std::vector<std::string>{"GELU (tanh)"});
    const Mapping bert = map_file(std::string(NPUVP_SOURCE_DIR) + "/configs/models/bert_base_layer.onnx");
    BOOST_CHECK(layer_of(bert, "ffn_in").patterns == std::vector<std::string>{"GELU (erf)"});
}

BOOST_AUTO_TEST_CASE(a_gelu_whose_inner_value_is_read_outside_stays_spelled_out) {
    // The Erf's output is a graph output: it must reach memory, so the
    // group is not closed and nothing is recognised.
    const Mapping m = map_file(gelu_erf("patterns_gelu_leak.onnx", true));
    BOOST_CHECK_EQUAL(m.layers.size(), 6u);
    for (const MappedLayer& l : m.layers) BOOST_CHECK(l.patterns.empty());
}

BOOST_AUTO_TEST_CASE(a_fused_gelu_adds_its_epilogue_time_to_the_gemm) {
    // One token of 1 x 128 x 128 on one PE: DMA_READ, FETCH, GEMM, the
    // epilogues on PE_MATH, STORE, DMA_WRITE in turn, nothing beside it. The
    // GELU is one more epilogue on 128 bf16 elements (T3, default.yaml: 512
    // lanes, 8 fill cycles, gelu 8 cycles an element, 1 GHz):
    // ceil(128 · 8 / 512) + 8 = 10 cycles = 10 ns after the bias. Both
    // spellings cost that, and nothing else moves.
    const double base = makespan_ns(test::run_npuvp("--model " + plain("patterns_plain.onnx")).out);
    const test::RunResult erf = test::run_npuvp("--model " + gelu_erf("patterns_time_erf.onnx"));
    const test::RunResult tanh = test::run_npuvp("--model " + gelu_tanh("patterns_time_tanh.onnx"));
    BOOST_REQUIRE_MESSAGE(erf.code == 0, erf.out);
    BOOST_CHECK_CLOSE(makespan_ns(erf.out) - base, 10.0, 1e-6);
    BOOST_CHECK_CLOSE(makespan_ns(tanh.out) - base, 10.0, 1e-6);
    BOOST_TEST(has(erf.out, "7 nodes -> 1 layers (6 nodes fused into them, 0 views / constants folded) by "
                            "builtin.greedy_mapper; recognised 1 GELU (erf)"),
               erf.out);
    // Spelled out, the five GELU nodes are five more layers, each its own
    // host launch and round trip through memory: the run is longer.
    const test::RunResult spelled = test::run_npuvp("--model patterns_time_erf.onnx --no-patterns");
    BOOST_TEST(has(spelled.out, "7 nodes -> 6 layers"), spelled.out);
    BOOST_TEST(has(spelled.out, "patterns not recognised (--no-patterns)"), spelled.out);
    BOOST_CHECK_GT(makespan_ns(spelled.out), makespan_ns(erf.out) + 5 * 1000.0);
}

BOOST_AUTO_TEST_CASE(silu_gating_fuses_into_the_gate_projection) {
    // Sigmoid(g) · g is one Silu reading g once: it fuses into gate_proj
    // (an exp pass, the product in the same pass), and so does the gating
    // product with up_proj's output, which gate_proj then waits for.
    const Mapping m = map_file(silu_gating("patterns_silu.onnx"));
    BOOST_REQUIRE_EQUAL(m.layers.size(), 2u);
    const MappedLayer& gate = layer_of(m, "gate_proj");
    BOOST_CHECK(gate.fused == (std::vector<std::string>{"silu_sigmoid", "silu", "gating"}));
    BOOST_CHECK(gate.patterns == std::vector<std::string>{"SiLU"});
    BOOST_CHECK(gate.after == std::vector<std::string>{layer_of(m, "up_proj").id});
    BOOST_CHECK(has(m.workload_yaml, "- { op: exp, scope: per_output_tile }\n          - { op: mul, scope: per_output_tile }\n"));
    // Node by node, g is read twice: the Sigmoid and the product with g are
    // MATH layers (the gating product fuses into up_proj, whose output it
    // reads once): 4 layers.
    BOOST_CHECK_EQUAL(map_file("patterns_silu.onnx", false).layers.size(), 4u);
}

BOOST_AUTO_TEST_CASE(rms_norm_is_one_normalisation_layer) {
    // Six nodes, one pass over x as a LayerNormalization costs: MATH
    // softmax over 4 · 256 = 1024 elements.
    const Mapping m = map_file(rms_norm("patterns_rms.onnx"));
    BOOST_REQUIRE_EQUAL(m.layers.size(), 1u);
    const MappedLayer& l = m.layers[0];
    BOOST_CHECK_EQUAL(l.node, "norm");
    BOOST_CHECK_EQUAL(l.op, "RMSNormalization");
    BOOST_CHECK_EQUAL(l.lowering, "math softmax");
    BOOST_CHECK_EQUAL(l.flops, 1024u);
    BOOST_CHECK(l.fused == (std::vector<std::string>{"norm_sq", "norm_mean", "norm_eps", "norm_sqrt", "norm_div"}));
    BOOST_CHECK(l.patterns == std::vector<std::string>{"RMSNorm"});
    // A mean over the rows (axis 0) is not a row's norm.
    const Mapping other = map_file(rms_norm("patterns_rms_axis0.onnx", 0));
    BOOST_CHECK_EQUAL(other.layers.size(), 6u);
}

BOOST_AUTO_TEST_CASE(rotary_embedding_is_two_multiply_passes) {
    // Seven nodes (two slices and a concatenation that would each be a DMA
    // copy, a negation, two products, a sum): one MATH layer of two mul
    // passes over the 1 · 2 · 8 · 64 = 1024 elements, 2048.
    const Mapping m = map_file(rotary("patterns_rotary.onnx"));
    BOOST_REQUIRE_EQUAL(m.layers.size(), 1u);
    const MappedLayer& l = m.layers[0];
    BOOST_CHECK_EQUAL(l.op, "RotaryEmbedding");
    BOOST_CHECK_EQUAL(l.lowering, "math mul (rotary, 2 passes)");
    BOOST_CHECK_EQUAL(l.flops, 2048u);
    BOOST_CHECK_EQUAL(l.fused.size(), 6u);
    BOOST_CHECK(l.patterns == std::vector<std::string>{"rotary"});
    BOOST_CHECK_EQUAL(map_file("patterns_rotary.onnx", false).layers.size(), 7u);
}
