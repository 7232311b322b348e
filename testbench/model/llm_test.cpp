// Language models (issue 41; docs/llm.md): the model file's sizes derived by
// hand from the published shapes, a decode step built as a Network and mapped
// with attention as one GEMM per sequence and KV head that reads its cache,
// the step's time against its memory floor, and bad model files named by
// file, line and key.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

#include "config/config_error.h"
#include "config/workload_loader.h"
#include "model/llm.h"
#include "model/mapper.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "report/layer_table.h"
#include "testbench/harness/generated_doc.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;
using namespace npuvp::model;

namespace {

const std::string kLlm = std::string(NPUVP_SOURCE_DIR) + "/configs/llm/";

std::string load_error(const std::string& text) {
    try {
        load_llm_text(text, "m.yaml");
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

const std::string kTiny =
    "name: t\nnum_hidden_layers: 2\nhidden_size: 256\nnum_attention_heads: 4\n"
    "num_key_value_heads: 2\nintermediate_size: 512\nvocab_size: 1024\n";

const MappedLayer& mapped(const Mapping& m, const std::string& node) {
    for (const MappedLayer& l : m.layers)
        if (l.node == node) return l;
    BOOST_FAIL("no layer for node " << node);
    return m.layers.front();
}

// A step mapped with `options` and run on default.yaml (one a process):
// its mapping, its layers' results and its makespan.
struct StepRun {
    Mapping mapping;
    std::vector<LayerResult> layers;
    std::uint64_t makespan_ps = 0;
    const LayerResult& layer(const std::string& node) const {
        for (const LayerResult& l : layers)
            if (l.node == node) return l;
        BOOST_FAIL("no layer " << node);
        return layers.front();
    }
};

StepRun run_step(const Network& net, const MapOptions& options, const std::string& name) {
    static const TopologyConfig topo = test::load_shipped("default");
    static TraceSink trace;
    static Platform platform(topo, trace);
    static WorkloadConfig w;
    static std::unique_ptr<WorkloadRun> run;  // kept past sc_start, as the kernel holds its processes
    StepRun r;
    r.mapping = greedy_map(net, topo, options);
    w = load_workload_text(r.mapping.workload_yaml, name, topo);
    run = std::make_unique<WorkloadRun>(platform, w);
    sc_core::sc_start();
    BOOST_REQUIRE_MESSAGE(run->finished(), run->diagnosis());
    r.layers = layer_results(r.mapping, *run, topo);
    r.makespan_ps = run->makespan_ps();
    return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(llama_sizes_are_the_published_shapes) {
    // Llama 3.1 8B, per layer: Q 4096·4096 = 16,777,216; K and V 4096·1024
    // each = 8,388,608; O 16,777,216; gate, up, down 3·4096·14336 =
    // 176,160,768; two norms 8,192: 218,112,000. 32 layers 6,979,584,000;
    // embedding and LM head 128256·4096 = 525,336,576 each; final norm 4096:
    // 8,030,261,248 parameters (Meta: "8B"), 16,060,522,496 bytes in bf16.
    // KV cache: 2 (K, V) · 32 layers · 8 heads · 128 · 2 bytes = 131,072 B a token.
    const LlmConfig c8 = load_llm_file(kLlm + "llama-3.1-8b.yaml");
    const LlmSizes s8 = llm_sizes(c8);
    BOOST_CHECK_EQUAL(c8.head_dim, 128);
    BOOST_CHECK_EQUAL(s8.layer_params, 218112000u);
    BOOST_CHECK_EQUAL(s8.params, 8030261248u);
    BOOST_CHECK_EQUAL(s8.weight_bytes, 16060522496u);
    BOOST_CHECK_EQUAL(s8.kv_bytes_per_token, 131072u);
    // A token's matrices: 2 FLOPs per weight of the layers' matrices
    // (218,103,808 a layer, 32 layers) and the LM head (525,336,576).
    BOOST_CHECK_EQUAL(s8.matmul_flops_per_token, 15009316864u);  // 2 · (32 · 218,103,808 + 525,336,576)
    // Llama 3.1 70B: Q 8192² = 67,108,864; K, V 2·8192·1024 = 16,777,216;
    // O 67,108,864; MLP 3·8192·28672 = 704,643,072; norms 16,384:
    // 855,654,400 a layer, 80 layers 68,452,352,000; embedding and head
    // 128256·8192 = 1,050,673,152 each; final norm 8192: 70,553,706,496
    // ("70B"); KV 2 · 80 · 8 · 128 · 2 = 327,680 B a token.
    const LlmSizes s70 = llm_sizes(load_llm_file(kLlm + "llama-3.1-70b.yaml"));
    BOOST_CHECK_EQUAL(s70.params, 70553706496u);
    BOOST_CHECK_EQUAL(s70.kv_bytes_per_token, 327680u);
}

BOOST_AUTO_TEST_CASE(a_decode_steps_attention_is_a_gemm_per_sequence_and_kv_head) {
    // tiny.yaml (4 query heads of 64 over 2 KV heads: groups of g = 2),
    // batch 2, 127 tokens cached: the new token attends over 128. Scores:
    // batch · KV heads = 4 GEMMs of g = 2 rows x head_dim 64 x 128 tokens,
    // each with its own keys; one group has one tile, fewer than the 8 PEs,
    // so the groups go one to a PE (split "groups", 4 PEs). P·V: 4 GEMMs of
    // 2 x 128 x 64. The projections: Q 2 x 256 x 256, K and V 2 x 256 x 128.
    LlmStep step;
    step.batch = 2;
    step.context = 127;
    const LlmConfig c = load_llm_file(kLlm + "tiny.yaml");
    const Network net = llm_step_network(c, step);
    const TopologyConfig topo = test::load_shipped("default");
    const Mapping m = greedy_map(net, topo, MapOptions{});
    const MappedLayer& scores = mapped(m, "layers.0.scores");
    BOOST_CHECK_EQUAL(scores.lowering, "gemm x4 (groups)");
    BOOST_CHECK_EQUAL(scores.m, 2u);
    BOOST_CHECK_EQUAL(scores.k, 64u);
    BOOST_CHECK_EQUAL(scores.n, 128u);
    BOOST_CHECK_EQUAL(scores.split, "groups");
    BOOST_CHECK_EQUAL(scores.pes, 4);
    const MappedLayer& context = mapped(m, "layers.0.context");
    BOOST_CHECK_EQUAL(context.m, 2u);
    BOOST_CHECK_EQUAL(context.k, 128u);
    BOOST_CHECK_EQUAL(context.n, 64u);
    BOOST_CHECK_EQUAL(mapped(m, "layers.1.q_proj").n, 256u);
    BOOST_CHECK_EQUAL(mapped(m, "layers.1.k_proj").n, 128u);
    BOOST_CHECK_EQUAL(mapped(m, "lm_head").n, 1024u);
    // Every layer of the model and the LM head are there, nothing else runs
    // a GEMM: 2 layers x (Q, K, V, scores, P·V, O, gate, up, down) + LM head.
    int gemms = 0;
    for (const MappedLayer& l : m.layers) gemms += l.m != 0 ? 1 : 0;
    BOOST_CHECK_EQUAL(gemms, 2 * 9 + 1);
}

BOOST_AUTO_TEST_CASE(a_decode_step_reads_each_sequences_kv_cache_and_its_weights) {
    // The same step run on default.yaml. Each scores GEMM reads its keys,
    // 64 x 128 bf16 = 16 KiB, from its PE's HBM slice: 4 x 16384 = 65536 B
    // for the layer (its queries come through shared SRAM from Q's layer);
    // P·V reads the values, 65536 B likewise. Q's layer reads its weight,
    // 256 x 256 bf16 = 131072 B. The step can be no faster than its bytes
    // at the cube's HBM bandwidth: llm_step_min_hbm_bytes = the weights of
    // both layers and the LM head, (2 · 590,336 + 262,144) · 2 = 2,885,632
    // B (a layer: Q 65,536, K and V 32,768 each, O 65,536, MLP 3 · 131,072,
    // norms 512), + the KV cache, 2 sequences · 127 tokens · (K, V) 2 · 2
    // layers · 2 heads · 64 · 2 B = 260,096 B: 3,145,728 B; 8 slices x 192
    // GB/s = 1536 GB/s: 2048 ns at least.
    LlmStep step;
    step.batch = 2;
    step.context = 127;
    const LlmConfig c = load_llm_file(kLlm + "tiny.yaml");
    BOOST_CHECK_EQUAL(llm_sizes(c).layer_params, 590336u);
    // The whole model (docs/llm.md "Sizes"): 2 layers, embedding and LM head
    // 1024 · 256 = 262,144 each, final norm 256: 1,705,216; KV 1,024 B a token.
    BOOST_CHECK_EQUAL(llm_sizes(c).params, 1705216u);
    BOOST_CHECK_EQUAL(llm_sizes(c).kv_bytes_per_token, 1024u);
    BOOST_CHECK_EQUAL(llm_step_min_hbm_bytes(c, step), 3145728u);
    const StepRun r = run_step(llm_step_network(c, step), MapOptions{}, "tiny_decode");
    BOOST_CHECK_EQUAL(r.layer("layers.0.scores").hbm_read, 65536u);
    BOOST_CHECK_EQUAL(r.layer("layers.1.context").hbm_read, 65536u);
    BOOST_CHECK_EQUAL(r.layer("layers.0.q_proj").hbm_read, 131072u);
    BOOST_CHECK_GE(r.makespan_ps, 2048000u);
}

BOOST_AUTO_TEST_CASE(bad_model_files_name_file_line_and_key) {
    BOOST_CHECK_EQUAL(load_error(kTiny), "");
    struct Case {
        std::string text, expect;
    };
    const std::vector<Case> cases = {
        {"name: t\n", "m.yaml:1:1: num_hidden_layers: missing required key 'num_hidden_layers'"},
        {"hidden_size: 8\n", "missing required key 'num_hidden_layers'"},
        {kTiny + "num_layers: 3\n", "m.yaml:8:1: num_layers: unknown key"},
        {kTiny + "head_dim: -1\n", "m.yaml:8:11: head_dim: must be"},
        {"name: t\nnum_hidden_layers: 2\nhidden_size: 256\nnum_attention_heads: 4\nnum_key_value_heads: 3\n"
         "intermediate_size: 512\nvocab_size: 1024\n",
         "m.yaml:5:22: num_key_value_heads: 3 key / value heads do not divide 4 attention heads"},
        {"name: t\nnum_hidden_layers: 2\nhidden_size: 250\nnum_attention_heads: 4\nintermediate_size: 512\n"
         "vocab_size: 1024\n",
         "m.yaml:3:14: hidden_size: hidden_size 250 is not a multiple of 4 heads: give head_dim"},
        {kTiny + "vocab_size_x: 1\n", "unknown key"},
        {kTiny + "dtype: { weights: fp4 }\n", "m.yaml:8:19: dtype.weights: "},
        {kTiny + "hidden_act: relu\n", "m.yaml:8:13: hidden_act: "},
        {kTiny + "tie_word_embeddings: maybe\n", "m.yaml:8:22: tie_word_embeddings: expected true or false"},
        {"- a\n", "m.yaml"},
    };
    for (const Case& c : cases) {
        const std::string error = load_error(c.text);
        BOOST_CHECK_MESSAGE(error.find(c.expect) != std::string::npos,
                            "for\n" << c.text << "got: " << error << "\nexpected: " << c.expect);
    }
    // config.json's other fields are accepted (and change nothing), and it
    // has no name: the file's is taken.
    BOOST_CHECK_EQUAL(load_llm_text(kTiny.substr(kTiny.find('\n') + 1), "dir/config.json").name, "config");
    BOOST_CHECK_EQUAL(load_error(kTiny + "model_type: llama\nrms_norm_eps: 1e-05\ntorch_dtype: bfloat16\n"
                                         "architectures: [LlamaForCausalLM]\nrope_scaling: { factor: 8.0 }\n"),
                      "");
}

BOOST_AUTO_TEST_CASE(a_step_that_cannot_be_built_says_why) {
    const LlmConfig c = load_llm_file(kLlm + "tiny.yaml");  // max_position_embeddings 4096
    LlmStep step;
    step.context = 4096;  // + the new token: 4097
    try {
        llm_step_network(c, step);
        BOOST_FAIL("built");
    } catch (const ModelError& e) {
        BOOST_CHECK(std::string(e.what()).find("beyond max_position_embeddings 4096 by 1") != std::string::npos);
    }
    LlmConfig fp8 = c;
    fp8.weights = LlmDtype::fp8_e4m3;
    step.context = 16;
    try {
        llm_step_network(fp8, step);
        BOOST_FAIL("built");
    } catch (const ModelError& e) {
        BOOST_CHECK(std::string(e.what()).find("one element size for weights, activations and the KV cache") !=
                    std::string::npos);
    }
    // Its sizes are still known: weights at one byte.
    BOOST_CHECK_EQUAL(llm_sizes(fp8).weight_bytes, llm_sizes(c).params);
}

BOOST_AUTO_TEST_CASE(an_fp8_step_moves_one_byte_elements_through_int8_gemms) {
    // tiny.yaml in FP8 e4m3 throughout (weights, activations, KV cache), 2
    // sequences at context 127, as a_decode_step_reads_... above: every
    // tensor 1 byte, the GEMMs int8 in and out, so each scores GEMM reads
    // its keys as 64 x 128 x 1 B: 32,768 B for the layer's 4 (half of bf16's
    // 65,536); Q's weight 256 x 256 x 1 = 65,536 B; the memory floor half
    // of bf16's, 3,145,728 / 2 = 1,572,864 B.
    LlmConfig c = load_llm_file(kLlm + "tiny.yaml");
    c.weights = c.activations = c.kv_cache = LlmDtype::fp8_e4m3;
    LlmStep step;
    step.batch = 2;
    step.context = 127;
    BOOST_CHECK_EQUAL(llm_step_min_hbm_bytes(c, step), 1572864u);
    const Network net = llm_step_network(c, step);
    BOOST_CHECK_EQUAL(net.tensors.at("layers.0.q_proj.weight").elem_bytes, 1);
    MapOptions options;
    options.elem_bytes = 1;
    const StepRun r = run_step(net, options, "tiny_fp8");
    BOOST_CHECK(r.mapping.workload_yaml.find("dtype: { in: int8, out: int8 }") != std::string::npos);
    BOOST_CHECK(r.mapping.workload_yaml.find("bf16") == std::string::npos);
    BOOST_CHECK_EQUAL(r.layer("layers.0.scores").hbm_read, 32768u);
    BOOST_CHECK_EQUAL(r.layer("layers.0.q_proj").hbm_read, 65536u);
}

BOOST_AUTO_TEST_CASE(llm_md_keys_are_the_field_table) {
    npuvp::test::check_generated_doc("docs/llm.md", "llm_schema_markdown()", llm_schema_markdown());
}

BOOST_AUTO_TEST_CASE(a_mixed_step_decodes_and_prefills_a_chunk_in_one_pass) {
    // tiny.yaml (4 heads of 64 over 2 KV heads, g = 2): 3 sequences decoding
    // at context 40 and a chunk of 16 tokens of 2 prompts after 32 cached.
    // Rows 3 + 2 x 16 = 35 through the projections and the MLP; attention
    // in two parts: the decoding sequences' 3 x 2 groups of 2 query rows over
    // 41 keys, the chunk's 2 x 2 groups of 2 x 16 = 32 query rows over
    // 32 + 16 = 48 keys; their outputs concatenated (35 x 256); the LM head
    // on 3 + 2 last tokens. Its memory floor adds the cached tokens: 3 x 40
    // + 2 x 32 = 184 tokens x 1,024 B to the weights (2,885,632 B).
    const LlmConfig c = load_llm_file(kLlm + "tiny.yaml");
    LlmStep step;
    step.phase = LlmPhase::mixed;
    step.batch = 3;
    step.context = 40;
    step.chunk = 16;
    step.chunk_prompts = 2;
    step.chunk_past = 32;
    const Network net = llm_step_network(c, step);
    const auto shape = [&](const std::string& t) { return net.tensors.at(t).shape; };
    BOOST_CHECK((shape("layers.0.q_proj.out") == std::vector<std::int64_t>{35, 256}));
    BOOST_CHECK((shape("layers.0.scores.out") == std::vector<std::int64_t>{6, 2, 41}));
    BOOST_CHECK((shape("layers.0.scores_chunk.out") == std::vector<std::int64_t>{4, 32, 48}));
    BOOST_CHECK((shape("layers.1.merge_parts") == std::vector<std::int64_t>{35, 256}));
    BOOST_CHECK((shape("lm_head.out") == std::vector<std::int64_t>{5, 1024}));
    BOOST_CHECK_EQUAL(llm_step_min_hbm_bytes(c, step), 2885632u + 184u * 1024u);
    // The chunk alone (no sequence decoding): no concatenation.
    step.batch = 0;
    const Network alone = llm_step_network(c, step);
    BOOST_CHECK(alone.tensors.count("layers.0.merge_parts") == 0);
    BOOST_CHECK((alone.tensors.at("lm_head.out").shape == std::vector<std::int64_t>{2, 1024}));
    // It maps and loads on default.yaml.
    const TopologyConfig topo = test::load_shipped("default");
    const Mapping m = greedy_map(net, topo, MapOptions{});
    BOOST_CHECK_NO_THROW(load_workload_text(m.workload_yaml, "tiny_mixed", topo));
    // A chunk past max_position_embeddings (4096) is refused.
    step.chunk_past = 4090;
    BOOST_CHECK_THROW(llm_step_network(c, step), ModelError);
}

BOOST_AUTO_TEST_CASE(a_steps_silu_gating_is_fused_into_the_gate_projection) {
    // The MLP's Sigmoid(gate) · gate is recognised as one SiLU (docs/models.md
    // "Recognised patterns"): gate_proj then writes SiLU(gate) · up as its
    // epilogues (exp, then the gating mul, waiting for up_proj) and no MATH
    // layer is left between the projections. A layer of tiny.yaml's decode
    // step is then 2 norms, the 9 GEMMs and its softmax: 12 layers, 24 with
    // the final norm and LM head 26. Spelled out, gate is read twice: the
    // Sigmoid and its product are 2 MATH layers a decoder layer more (the
    // gating product, reading up_proj's output once, fuses into up_proj): 30.
    LlmStep step;
    step.batch = 2;
    step.context = 127;
    const Network net = llm_step_network(load_llm_file(kLlm + "tiny.yaml"), step);
    const TopologyConfig topo = test::load_shipped("default");
    const Mapping m = greedy_map(net, topo, MapOptions{});
    const MappedLayer& gate = mapped(m, "layers.0.gate_proj");
    BOOST_CHECK(gate.patterns == std::vector<std::string>{"SiLU"});
    BOOST_CHECK(gate.fused == (std::vector<std::string>{"layers.0.silu_sigmoid", "layers.0.silu_mul", "layers.0.gate_mul"}));
    BOOST_CHECK(std::find(gate.after.begin(), gate.after.end(), mapped(m, "layers.0.up_proj").id) != gate.after.end());
    BOOST_CHECK_EQUAL(m.layers.size(), 26u);
    MapOptions spelled;
    spelled.recognise = false;
    BOOST_CHECK_EQUAL(greedy_map(net, topo, spelled).layers.size(), 30u);
}
