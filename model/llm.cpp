#include "model/llm.h"

#include <cstdint>
#include <filesystem>
#include <utility>
#include <vector>

#include "config/config_error.h"
#include "config/schema.h"
#include "config/yaml_document.h"
#include "modules/common/checked.h"

namespace npuvp::model {

const char* to_string(LlmPhase phase) {
    switch (phase) {
    case LlmPhase::decode: return "decode";
    case LlmPhase::prefill: return "prefill";
    case LlmPhase::mixed: return "mixed";
    }
    return "?";
}

const char* to_string(LlmDtype dtype) {
    switch (dtype) {
    case LlmDtype::bf16: return "bf16";
    case LlmDtype::fp8_e4m3: return "fp8_e4m3";
    case LlmDtype::int8: return "int8";
    }
    return "?";
}

int dtype_bytes(LlmDtype dtype) { return dtype == LlmDtype::bf16 ? 2 : 1; }

namespace {

using schema::Table;
using F = schema::Fields<LlmConfig>;

struct Dtypes {
    LlmDtype weights = LlmDtype::bf16, activations = LlmDtype::bf16, kv_cache = LlmDtype::bf16;
};

const std::vector<std::pair<std::string, LlmDtype>> kDtypes = {
    {"bf16", LlmDtype::bf16}, {"fp8_e4m3", LlmDtype::fp8_e4m3}, {"int8", LlmDtype::int8}};

const Table<Dtypes>& dtype_table() {
    using D = schema::Fields<Dtypes>;
    static const Table<Dtypes> table{{
        D::choice("weights", &Dtypes::weights, "bf16", kDtypes, "the weights' element type"),
        D::choice("activations", &Dtypes::activations, "bf16", kDtypes, "the activations' element type"),
        D::choice("kv_cache", &Dtypes::kv_cache, "bf16", kDtypes, "the KV cache's element type"),
    }};
    return table;
}

// The file's one table; `dtype` is read into a Dtypes beside it (below).
struct File {
    LlmConfig c;
    Dtypes dtypes;
    // 0 = absent: derived (num_key_value_heads = heads, head_dim = hidden / heads).
    int kv_heads = 0, head_dim = 0;
};

// A config.json field the timing does not depend on: accepted, any value.
schema::Field<File> ignored(const std::string& key, const std::string& why = "") {
    return schema::Fields<File>::leaf(
        key, {"", "any", "", "", "", "ignored: changes nothing in the timing" + (why.empty() ? "" : " " + why)},
        [key](const MapReader& r, File&) { r.reader().note(r.child(key).loc); }, nullptr);
}

const Table<File>& llm_table() {
    using G = schema::Fields<File>;
    static const Table<File> table{
        {
            G::leaf("name", {"", "string", "", "the file's name", "", "the model's name in reports (config.json has none)"},
                    [](const MapReader& r, File& f) {
                        const Item item = r.child("name");
                        r.reader().note(item.loc);
                        if (item.present) f.c.name = r.reader().to_string(item);
                    },
                    nullptr),
            G::required_integer("num_hidden_layers", [](auto& f) -> auto& { return f.c.layers; }, 1, "elements", "decoder layers"),
            G::required_integer("hidden_size", [](auto& f) -> auto& { return f.c.hidden; }, 1, "elements", "the model's width"),
            G::required_integer("num_attention_heads", [](auto& f) -> auto& { return f.c.heads; }, 1, "elements", "query heads"),
            G::integer("num_key_value_heads", &File::kv_heads, 0, 0, "elements",
                       "key / value heads (grouped-query attention); 0 or absent = `num_attention_heads`; must divide it"),
            G::integer("head_dim", &File::head_dim, 0, 0, "elements", "0 or absent = `hidden_size / num_attention_heads` (then it must divide)"),
            G::required_integer("intermediate_size", [](auto& f) -> auto& { return f.c.intermediate; }, 1, "elements", "the MLP's width"),
            G::required_integer("vocab_size", [](auto& f) -> auto& { return f.c.vocab; }, 1, "elements", "tokens"),
            G::integer("max_position_embeddings", [](auto& f) -> auto& { return f.c.max_positions; }, 131072, 1, "elements",
                       "the longest context a step may have"),
            G::number("rope_theta", [](auto& f) -> auto& { return f.c.rope_theta; }, 10000.0, Bound::positive, "base",
                      "the rotary embedding's base (a rotary embedding costs the same whatever its base)"),
            G::choice("norm", [](auto& f) -> auto& { return f.c.norm; }, "rms",
                      std::vector<std::pair<std::string, LlmNorm>>{{"rms", LlmNorm::rms}, {"layer", LlmNorm::layer}},
                      "`rms` (RMSNorm, Llama) or `layer` (LayerNorm); not a config.json field"),
            G::choice("hidden_act", [](auto& f) -> auto& { return f.c.activation; }, "silu",
                      std::vector<std::pair<std::string, LlmActivation>>{{"silu", LlmActivation::silu},
                                                                         {"gelu", LlmActivation::gelu}},
                      "`silu`: a gated MLP (gate, up, down projections); `gelu`: up and down only"),
            G::leaf("tie_word_embeddings", {"", "bool", "", "false", "", "the LM head is the embedding table (no weights of its own)"},
                    [](const MapReader& r, File& f) {
                        const Item item = r.child("tie_word_embeddings");
                        r.reader().note(item.loc);
                        if (item.present) f.c.tie_embeddings = r.reader().to_bool(item);
                    },
                    nullptr),
            G::section("dtype", &File::dtypes, dtype_table(), false, false, "element types"),
            // config.json's other fields, so that one can be used as it is:
            // read, and said to change nothing.
            ignored("model_type"), ignored("architectures"), ignored("torch_dtype", "(`dtype` sets the element types)"),
            ignored("rms_norm_eps"), ignored("rope_scaling", "(a long-context scaling of the rotary base: costs nothing more)"),
            ignored("bos_token_id"), ignored("eos_token_id"), ignored("attention_bias"), ignored("mlp_bias"),
            ignored("attention_dropout"), ignored("initializer_range"), ignored("pretraining_tp"), ignored("use_cache"),
            ignored("transformers_version"),
        },
        [](const MapReader& r, const File& f) {
            const int kv = f.kv_heads == 0 ? f.c.heads : f.kv_heads;
            if (f.c.heads % kv != 0)
                throw ConfigError(r.child(f.kv_heads == 0 ? "num_attention_heads" : "num_key_value_heads").loc,
                                  std::to_string(kv) + " key / value heads do not divide " + std::to_string(f.c.heads) +
                                      " attention heads (each key / value head serves a whole group of them)");
            if (f.head_dim == 0 && f.c.hidden % f.c.heads != 0)
                throw ConfigError(r.child("hidden_size").loc,
                                  "hidden_size " + std::to_string(f.c.hidden) + " is not a multiple of " +
                                      std::to_string(f.c.heads) + " heads: give head_dim");
        }};
    return table;
}

LlmConfig finish(File f, const std::string& source) {
    f.c.file = source;
    if (f.c.name.empty()) f.c.name = std::filesystem::path(source).stem().string();
    f.c.kv_heads = f.kv_heads == 0 ? f.c.heads : f.kv_heads;
    f.c.head_dim = f.head_dim == 0 ? f.c.hidden / f.c.heads : f.head_dim;
    f.c.weights = f.dtypes.weights;
    f.c.activations = f.dtypes.activations;
    f.c.kv_cache = f.dtypes.kv_cache;
    return f.c;
}

constexpr const char* kWhat = "a language model's size";

std::uint64_t u(int v) { return static_cast<std::uint64_t>(v); }
std::uint64_t mul(std::uint64_t a, std::uint64_t b) { return checked_mul(a, b, kWhat); }
std::uint64_t add(std::uint64_t a, std::uint64_t b) { return checked_add(a, b, kWhat); }

}  // namespace

LlmConfig load_llm_text(const std::string& text, const std::string& source_name) {
    YamlReader yaml(source_name, YamlReader::Rules{false, true, false});
    const Table<File>& table = llm_table();
    const YAML::Node document = parse_map_document(text, source_name, "model keys (" + join(table.keys()) + ")");
    File f;
    schema::read_map(yaml, yaml.root(document), table, f);
    return finish(std::move(f), source_name);
}

LlmConfig load_llm_file(const std::string& path) { return load_llm_text(read_input_file(path), path); }

std::string llm_schema_markdown() {
    schema::Docs docs{{"", {}}};
    schema::document(llm_table(), "", docs, 0);
    return schema::markdown(docs);
}

// Per layer: Q (hidden × heads·head_dim), K and V (hidden × kv_heads·head_dim
// each), O (heads·head_dim × hidden); the MLP's gate, up and down
// (hidden × intermediate each; no gate for gelu); two norms' scales (hidden
// each). Then the embedding, the final norm and the LM head (vocab × hidden,
// none when tied).
LlmSizes llm_sizes(const LlmConfig& c) {
    LlmSizes s;
    const std::uint64_t h = u(c.hidden), q = mul(u(c.heads), u(c.head_dim)), kv = mul(u(c.kv_heads), u(c.head_dim));
    const std::uint64_t mlp = mul(c.activation == LlmActivation::silu ? 3 : 2, mul(h, u(c.intermediate)));
    s.layer_params = add(add(mul(h, q), mul(2, mul(h, kv))), add(add(mul(q, h), mlp), mul(2, h)));
    s.embedding_params = mul(u(c.vocab), h);
    s.head_params = c.tie_embeddings ? 0 : s.embedding_params;
    s.params = add(add(mul(u(c.layers), s.layer_params), add(s.embedding_params, s.head_params)), h);
    s.weight_bytes = mul(s.params, u(dtype_bytes(c.weights)));
    s.kv_bytes_per_token = mul(mul(2, u(c.layers)), mul(kv, u(dtype_bytes(c.kv_cache))));
    // 2 FLOPs per weight a token multiplies: every layer's matrices and the
    // LM head (the embedding is a lookup; norms are not matrices).
    const std::uint64_t layer_matrices = s.layer_params - mul(2, h);
    s.matmul_flops_per_token = mul(2, add(mul(u(c.layers), layer_matrices), s.embedding_params));
    return s;
}

std::uint64_t LlmSizes::attention_flops(std::uint64_t context, int layers, int heads, int head_dim) const {
    // Q·Kᵀ and P·V: 2 · head_dim multiply-adds per head and context token, each 2 FLOPs.
    return mul(mul(4, u(layers)), mul(mul(u(heads), u(head_dim)), context));
}

namespace {

// Builds a Network node by node: tensors with their shapes, constants
// (weights, the KV cache) marked.
class Builder {
public:
    Builder(Network& net, int elem_bytes) : m_net(net), m_elem(elem_bytes) {}
    std::string tensor(const std::string& name, std::vector<std::int64_t> shape, bool constant = false) {
        TensorInfo& t = m_net.tensors[name];
        t.shape = std::move(shape);
        t.elem_bytes = m_elem;
        t.constant = constant;
        return name;
    }
    void node(const std::string& name, const std::string& op, std::vector<std::string> inputs,
              const std::string& output) {
        Node n;
        n.name = name;
        n.op = op;
        n.inputs = std::move(inputs);
        n.outputs = {output};
        m_net.nodes.push_back(std::move(n));
    }

private:
    Network& m_net;
    int m_elem;
};

std::int64_t i(std::uint64_t v) {
    if (v > static_cast<std::uint64_t>(INT64_MAX)) throw Overflow(std::string(kWhat) + " beyond 63 bits");
    return static_cast<std::int64_t>(v);
}

}  // namespace

Network llm_step_network(const LlmConfig& c, const LlmStep& step) {
    const bool mixed = step.phase == LlmPhase::mixed;
    const bool decode = step.phase == LlmPhase::decode || mixed;  // a decode part
    const std::string what = mixed ? "a mixed step" : decode ? "a decode step" : "a prefill";
    // One element size for every tensor: the mapper moves bf16 or 8-bit
    // elements (docs/models.md); INT8 and FP8 e4m3 both run as int8.
    const int elem = dtype_bytes(c.weights);
    if (dtype_bytes(c.activations) != elem || dtype_bytes(c.kv_cache) != elem)
        throw ModelError(c.file, "", "",
                         what + " runs one element size for weights, activations and the KV cache (bf16, or 8-bit: "
                                "INT8 or FP8 e4m3; docs/llm.md \"Dtypes\"); this model's dtypes are weights " +
                             std::string(to_string(c.weights)) + ", activations " + to_string(c.activations) +
                             ", kv_cache " + to_string(c.kv_cache) + " (its sizes are known: docs/llm.md \"Sizes\")");
    if (step.batch == 0 && !mixed) throw ModelError(c.file, "", "", what + " of batch 0");
    if (step.context == 0 && !decode) throw ModelError(c.file, "", "", "a prefill of 0 tokens");
    if (mixed && (step.chunk_prompts == 0 || step.chunk == 0))
        throw ModelError(c.file, "", "", "a mixed step without a prefill chunk (a decode step is --phase decode)");
    const std::uint64_t attended = decode ? add(step.context, 1) : step.context;
    // The chunk's tokens attend over the prompt's cached ones and themselves.
    const std::uint64_t chunk_attended = mixed ? add(step.chunk_past, step.chunk) : 0;
    for (const std::uint64_t over : {step.batch > 0 || !mixed ? attended : 0, chunk_attended})
        if (over > u(c.max_positions))
            throw ModelError(c.file, "", "",
                             what + " over " + std::to_string(over) + " tokens: beyond max_position_embeddings " +
                                 std::to_string(c.max_positions) + " by " + std::to_string(over - u(c.max_positions)));
    if (step.layers < 0 || step.layers > c.layers)
        throw ModelError(c.file, "", "",
                         std::to_string(step.layers) + " layers asked for: the model has " + std::to_string(c.layers));
    const int layers = step.layers == 0 ? c.layers : step.layers;
    const int tp = step.tensor_parallel;
    if (tp < 1) throw ModelError(c.file, "", "", "tensor parallelism over " + std::to_string(tp) + " cards");
    // Megatron's split: each card a whole number of heads, KV heads and MLP
    // columns; the vocabulary rounds up (the last card's rows are padding).
    for (const auto& [key, value] : {std::pair<const char*, int>{"num_attention_heads", c.heads},
                                     {"num_key_value_heads", c.kv_heads},
                                     {"intermediate_size", c.intermediate}})
        if (value % tp != 0)
            throw ModelError(c.file, "", "",
                             "tensor parallelism over " + std::to_string(tp) + " cards: " + key + " (" +
                                 std::to_string(value) + ") does not divide by " + std::to_string(tp) +
                                 " (each card takes a whole number of them)");

    Network net;
    net.file = c.file;
    net.name = c.name + "_" + to_string(step.phase) + (tp > 1 ? "_tp" + std::to_string(tp) : "");
    Builder b(net, elem);
    // Rows: one token per sequence (decode) or the prompt's (prefill); a
    // mixed step's decoding sequences', then its chunk's.
    const std::uint64_t chunk_rows = mixed ? mul(step.chunk_prompts, step.chunk) : 0;
    const std::int64_t B = i(step.batch),
                       rows = i(mixed ? add(step.batch, chunk_rows) : decode ? step.batch : mul(step.batch, step.context));
    // One card's shard (tp = 1: the whole model).
    const std::int64_t H = c.hidden, hd = c.head_dim, nh = c.heads / tp, nkv = c.kv_heads / tp, g = nh / nkv,
                       I = c.intermediate / tp, V = static_cast<std::int64_t>(ceil_div(u(c.vocab), u(tp)));
    const std::int64_t ctx = i(attended);
    // Attention per (sequence, KV head): its g query heads' rows against
    // that head's cached keys and values.
    const std::int64_t groups = i(mul(step.batch, u(nkv)));
    const std::int64_t q_rows = decode ? g : i(mul(u(g), step.context));
    std::string x = b.tensor("x", {rows, H});
    net.inputs.push_back(x);
    auto norm = [&](const std::string& name, const std::string& in) {
        const std::string out = b.tensor(name + ".out", {rows, H});
        b.node(name, "LayerNormalization", {in, b.tensor(name + ".weight", {H}, true)}, out);
        return out;
    };
    auto matmul = [&](const std::string& name, const std::string& in, std::int64_t k, std::int64_t n) {
        const std::string out = b.tensor(name + ".out", {rows, n});
        b.node(name, "MatMul", {in, b.tensor(name + ".weight", {k, n}, true)}, out);
        return out;
    };
    // The partial sums of a row-parallel projection, added over the cards
    // (the mapper lowers it as transfers between them, docs/models.md).
    auto all_reduce = [&](const std::string& name, const std::string& in) {
        if (tp == 1) return in;
        const std::string out = b.tensor(name + ".out", {rows, H});
        b.node(name, "AllReduce", {in}, out);
        return out;
    };
    auto eltwise = [&](const std::string& name, const std::string& op, std::vector<std::string> in, std::int64_t n) {
        const std::string out = b.tensor(name + ".out", {rows, n});
        b.node(name, op, std::move(in), out);
        return out;
    };
    for (int l = 0; l < layers; ++l) {
        const std::string p = "layers." + std::to_string(l) + ".";
        const std::string xn = norm(p + "input_norm", x);
        const std::string q = matmul(p + "q_proj", xn, H, nh * hd);
        matmul(p + "k_proj", xn, H, nkv * hd);  // written into the KV cache
        matmul(p + "v_proj", xn, H, nkv * hd);
        // Rotary embedding on the queries (the keys' is part of the cache's write).
        const std::string qr = eltwise(p + "rotary_q", "Mul", {q, b.tensor(p + "rotary.cos", {nh * hd}, true)}, nh * hd);
        // Attention of n_groups (sequences · KV heads), each of n_rows query
        // rows over `keys` cached keys and values;
        // `tag` names its nodes (the decode part and a mixed step's chunk).
        auto attention = [&](const std::string& tag, std::int64_t n_groups, std::int64_t n_rows, std::int64_t keys,
                             std::int64_t out_rows) {
            const std::string qh = b.tensor(p + "q_heads" + tag, {n_groups, n_rows, hd});
            b.node(p + "q_heads" + tag, "Reshape", {qr}, qh);
            const std::string scores = b.tensor(p + "scores" + tag + ".out", {n_groups, n_rows, keys});
            b.node(p + "scores" + tag, "MatMul", {qh, b.tensor(p + "k_cache" + tag, {n_groups, hd, keys}, true)}, scores);
            const std::string probs = b.tensor(p + "softmax" + tag + ".out", {n_groups, n_rows, keys});
            b.node(p + "softmax" + tag, "Softmax", {scores}, probs);
            const std::string context = b.tensor(p + "context" + tag + ".out", {n_groups, n_rows, hd});
            b.node(p + "context" + tag, "MatMul", {probs, b.tensor(p + "v_cache" + tag, {n_groups, keys, hd}, true)}, context);
            const std::string merged = b.tensor(p + "merge_heads" + tag, {out_rows, nh * hd});
            b.node(p + "merge_heads" + tag, "Reshape", {context}, merged);
            return merged;
        };
        std::string merged;
        if (!mixed) {
            merged = attention("", groups, q_rows, ctx, rows);
        } else {
            // The chunk: each prompt's g query heads a KV head over its
            // cached tokens and the chunk's; beside the decoding sequences'
            // rows, the two parts' outputs are put together (a copy).
            const std::string chunk =
                attention("_chunk", i(mul(step.chunk_prompts, u(nkv))), i(mul(u(g), step.chunk)), i(chunk_attended), i(chunk_rows));
            if (step.batch == 0) {
                merged = chunk;
            } else {
                const std::string dec = attention("", groups, q_rows, ctx, B);
                merged = b.tensor(p + "merge_parts", {rows, nh * hd});
                b.node(p + "merge_parts", "Concat", {dec, chunk}, merged);
            }
        }
        const std::string o = all_reduce(p + "attn_all_reduce", matmul(p + "o_proj", merged, nh * hd, H));
        const std::string x1 = eltwise(p + "residual_attn", "Add", {x, o}, H);
        const std::string xn2 = norm(p + "post_attention_norm", x1);
        std::string h;
        if (c.activation == LlmActivation::silu) {
            const std::string gate = matmul(p + "gate_proj", xn2, H, I);
            const std::string up = matmul(p + "up_proj", xn2, H, I);
            const std::string sig = eltwise(p + "silu_sigmoid", "Sigmoid", {gate}, I);
            const std::string silu = eltwise(p + "silu_mul", "Mul", {gate, sig}, I);
            h = eltwise(p + "gate_mul", "Mul", {silu, up}, I);
        } else {
            h = eltwise(p + "gelu", "Gelu", {matmul(p + "up_proj", xn2, H, I)}, I);
        }
        const std::string down = all_reduce(p + "mlp_all_reduce", matmul(p + "down_proj", h, I, H));
        x = eltwise(p + "residual_mlp", "Add", {x1, down}, H);
    }
    std::string last = norm("final_norm", x);
    // The LM head runs on each sequence's last token only: a decoding
    // sequence's one, a prompt's last (a chunk's last, whether or not it
    // ends its prompt: the same cost).
    const std::int64_t heads_rows = mixed ? i(add(step.batch, step.chunk_prompts)) : B;
    if (!decode || mixed) {
        const std::string picked = b.tensor("last_token.out", {heads_rows, H});
        b.node("last_token", "Gather", {last, b.tensor("last_token.index", {heads_rows}, true)}, picked);
        last = picked;
    }
    // Split by vocabulary over the cards: each card its logits' columns
    // (the host picks the token from the cards' top candidates).
    const std::string logits = b.tensor("lm_head.out", {heads_rows, V});
    b.node("lm_head", "MatMul", {last, b.tensor("lm_head.weight", {H, V}, true)}, logits);
    net.outputs.push_back(logits);
    return net;
}

std::uint64_t hbm_bytes(const TopologyConfig& topo, int cubes) {
    constexpr const char* what = "the HBM of the cubes a step is mapped over";
    return checked_mul(checked_mul(topo.cube.memory_map.hbm_slice_bytes,
                                   static_cast<std::uint64_t>(topo.cube.memory_map.hbm_slices_per_cube), what),
                       static_cast<std::uint64_t>(cubes), what);
}

std::uint64_t llm_step_min_hbm_bytes(const LlmConfig& c, const LlmStep& step) {
    const LlmSizes s = llm_sizes(c);
    const int layers = step.layers == 0 ? c.layers : step.layers;
    // The layers built and the LM head (the embedding is a lookup of a few rows).
    const std::uint64_t weights = mul(add(mul(u(layers), s.layer_params), s.embedding_params), u(dtype_bytes(c.weights)));
    if (step.phase == LlmPhase::prefill) return weights;
    const std::uint64_t kv_per_token = mul(mul(2, u(layers)), mul(mul(u(c.kv_heads), u(c.head_dim)), u(dtype_bytes(c.kv_cache))));
    // The decoding sequences' caches, and a chunk's prompts' cached tokens.
    const std::uint64_t cached = add(mul(step.batch, step.context),
                                     step.phase == LlmPhase::mixed ? mul(step.chunk_prompts, step.chunk_past) : 0);
    return add(weights, mul(cached, kv_per_token));
}

}  // namespace npuvp::model
