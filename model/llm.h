// Decoder-only language models (issue 41; docs/llm.md): the model file, the
// sizes a deployment is planned with, and one step of inference — a decode
// step of a batch at a context length, or a prefill of a prompt — built as a
// Network that the mapper (model/mapper.h) lowers onto the machine like an
// imported ONNX graph, so the step runs on the event-level model.
//
// The model file names its fields as the Hugging Face `config.json` does
// (num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads,
// intermediate_size, vocab_size, ...), plus the dtypes; every key is checked
// with file:line:column errors (config/schema.h).
#pragma once

#include <cstdint>
#include <string>

#include "model/onnx_import.h"
#include "modules/common/config.h"

namespace npuvp::model {

enum class LlmDtype { bf16, fp8_e4m3, int8 };
const char* to_string(LlmDtype dtype);
int dtype_bytes(LlmDtype dtype);

enum class LlmNorm { rms, layer };
enum class LlmActivation { silu, gelu };

struct LlmConfig {
    std::string file;  // where it was read (errors, reports)
    std::string name;
    int layers = 0;             // num_hidden_layers
    int hidden = 0;             // hidden_size
    int heads = 0;              // num_attention_heads
    int kv_heads = 0;           // num_key_value_heads (grouped-query attention); = heads when absent
    int head_dim = 0;           // head_dim; hidden / heads when absent
    int intermediate = 0;       // intermediate_size
    int vocab = 0;              // vocab_size
    int max_positions = 0;      // max_position_embeddings
    double rope_theta = 0.0;    // rope_theta (rotary embedding: costs the same whatever its base)
    LlmNorm norm = LlmNorm::rms;
    LlmActivation activation = LlmActivation::silu;  // hidden_act; silu = a gated MLP (gate, up, down)
    bool tie_embeddings = false;  // tie_word_embeddings: the LM head is the embedding table
    LlmDtype weights = LlmDtype::bf16, activations = LlmDtype::bf16, kv_cache = LlmDtype::bf16;
};

// Reads a model file; a ConfigError names the file, line, column and key.
LlmConfig load_llm_file(const std::string& path);
LlmConfig load_llm_text(const std::string& text, const std::string& source_name);
// The model file's keys as docs/llm.md's table.
std::string llm_schema_markdown();

// What a deployment is planned with (docs/llm.md "Sizes"), each derived from
// the shapes: parameters by part, their bytes at the weight dtype, the KV
// cache's bytes per token (keys and values of every layer), and the FLOPs of
// one token (2 per multiply-add) without and with attention over a context.
struct LlmSizes {
    std::uint64_t layer_params = 0;      // one decoder layer: projections, MLP, norms
    std::uint64_t embedding_params = 0;  // vocab × hidden
    std::uint64_t head_params = 0;       // the LM head (0 when tied)
    std::uint64_t params = 0;            // everything
    std::uint64_t weight_bytes = 0;
    std::uint64_t kv_bytes_per_token = 0;
    std::uint64_t matmul_flops_per_token = 0;  // the layers' projections and the LM head
    // Attention's Q·Kᵀ and P·V for one token over `context` tokens.
    std::uint64_t attention_flops(std::uint64_t context, int layers, int heads, int head_dim) const;
};
LlmSizes llm_sizes(const LlmConfig& c);

// mixed: a decode step of `batch` sequences (0 or more) and, in the same
// step, a chunk of `chunk` tokens of each of `chunk_prompts` prompts whose
// first `chunk_past` tokens are already cached (chunked prefill, docs/llm.md
// "Serving").
enum class LlmPhase { decode, prefill, mixed };
const char* to_string(LlmPhase phase);

struct LlmStep {
    LlmPhase phase = LlmPhase::decode;
    std::uint64_t batch = 1;    // sequences (mixed: the decoding ones)
    // decode and mixed: tokens already in each decoding sequence's KV cache
    // (the new token attends over context + 1); prefill: the prompt's length.
    std::uint64_t context = 128;
    std::uint64_t chunk_prompts = 0, chunk = 0, chunk_past = 0;  // mixed: the prefill chunk
    int layers = 0;             // decoder layers to build; 0 = all of them
    // Cards the weights are split over (tensor parallelism, docs/llm.md
    // "Several cards"): the network is one card's shard — heads, KV heads,
    // the MLP's intermediate and the vocabulary divided by it — with an
    // AllReduce of the hidden state after o_proj and after down_proj.
    int tensor_parallel = 1;
};

// The HBM of `cubes` cubes of `topo` (the cubes a step is mapped over,
// --map-cubes), in bytes; beyond 64 bits an Overflow.
std::uint64_t hbm_bytes(const TopologyConfig& topo, int cubes);

// One step as a Network (docs/llm.md "A step on the machine"), or with
// LlmStep::tensor_parallel > 1 one card's shard of it; its tensors are bf16 (2 bytes: the mapper's element, docs/models.md).
// Throws ModelError for a step that cannot be built (a non-bf16 dtype, a
// context beyond max_position_embeddings, sizes beyond 64 bits).
Network llm_step_network(const LlmConfig& c, const LlmStep& step);

// The bytes one step reads from HBM at least: every weight it uses once,
// and every sequence's KV cache (decode: context tokens; prefill: none
// before the step).
std::uint64_t llm_step_min_hbm_bytes(const LlmConfig& c, const LlmStep& step);

}  // namespace npuvp::model
