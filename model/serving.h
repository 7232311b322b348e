// Serving a language model (issue 41 points 4 and 6; docs/llm.md
// "Serving"): requests arrive, are admitted into a running batch as the KV
// cache allows, are prefilled, then decoded a token a step until they have
// their output, and leave. The loop is plain C++ and deterministic; what a
// step costs comes from a StepTime (npuvp serve runs each distinct step on
// the event-level model, model/llm.h, and reuses it).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/config_error.h"
#include "model/llm.h"

namespace npuvp::model {

struct ServingRequest {
    std::uint64_t id = 0;
    double arrival_ns = 0.0;
    std::uint64_t input = 0, output = 0;  // prompt tokens, tokens to generate (>= 1)
};

enum class Batching { continuous, static_batches };

struct ServingPolicy {
    Batching batching = Batching::continuous;
    std::uint64_t max_batch = 64;
    std::uint64_t kv_block_tokens = 16;     // the cache is handed out in blocks of this many tokens
    std::uint64_t kv_capacity_blocks = 0;   // blocks the HBM holds beside the weights
    // 0: requests arrive at their arrival_ns (open loop). N: fixed
    // concurrency (closed loop): the first N arrive at 0, each later one
    // when one leaves; arrival_ns is then what serve() sets.
    std::uint64_t concurrency = 0;
    // Chunked prefill (continuous batching; docs/llm.md "Serving"): at most
    // this many prompt tokens a step, taken from the admitted prompts in
    // order beside the running batch's decode tokens (a mixed step). 0: a
    // step prefills the admitted prompts whole.
    std::uint64_t prefill_chunk = 0;
};

// The time of one step in ns: a prefill of `batch` prompts of `tokens`
// tokens, or a decode step of `batch` sequences with `tokens` already cached.
using StepTime = std::function<double(LlmPhase phase, std::uint64_t batch, std::uint64_t tokens)>;
// The time of a mixed step (LlmStep's phase mixed: batch decoding at
// context, chunk_prompts prompts' chunk tokens after chunk_past cached).
using MixedStepTime = std::function<double(const LlmStep& step)>;

struct ServedRequest {
    ServingRequest request;
    double admitted_ns = 0.0, first_token_ns = 0.0, finished_ns = 0.0;
    std::vector<double> token_ns;  // when each output token was made (the first by the prefill)
};

struct ServingStep {
    LlmPhase phase = LlmPhase::decode;
    std::uint64_t batch = 0, tokens = 0;  // as StepTime was asked (mixed: the decoding part)
    std::uint64_t chunk_prompts = 0, chunk = 0, chunk_past = 0;  // mixed: the prefill chunk
    double start_ns = 0.0, end_ns = 0.0;
    std::uint64_t kv_blocks = 0;          // held while it ran
};

struct ServingResult {
    std::vector<ServedRequest> requests;  // in id order
    std::vector<ServingStep> steps;
    double makespan_ns = 0.0;             // the last request's finish
    std::uint64_t peak_kv_blocks = 0;
};

// The KV blocks a request holds from its admission: its input and output
// tokens in blocks of `block_tokens`.
std::uint64_t kv_blocks(const ServingRequest& r, std::uint64_t block_tokens);

// Runs the loop (docs/llm.md "Serving"). Throws std::invalid_argument for a
// request that can never be admitted (its blocks exceed the capacity, or it
// asks for no output).
ServingResult serve(std::vector<ServingRequest> requests, const ServingPolicy& policy, const StepTime& step,
                    const MixedStepTime& mixed = {});

// Mean and the nearest-rank percentiles of `values` (empty: all 0).
struct Distribution {
    double mean = 0.0, p50 = 0.0, p90 = 0.0, p99 = 0.0;
    std::size_t count = 0;
};
Distribution distribution(std::vector<double> values);

// The serving benchmarks' answers.
struct ServingMetrics {
    double request_throughput = 0.0;  // requests / s
    double output_tokens_per_s = 0.0, total_tokens_per_s = 0.0;
    Distribution ttft_ns, tpot_ns, itl_ns, e2e_ns;
};
ServingMetrics serving_metrics(const ServingResult& r);

// `count` requests alike, all at 0 (for fixed concurrency, where serve()
// sets the arrivals), or at Poisson arrivals of `rate_per_s` from `seed` (a
// fixed generator: the same seed, the same arrivals on every machine).
std::vector<ServingRequest> fixed_requests(std::uint64_t count, std::uint64_t input, std::uint64_t output);
std::vector<ServingRequest> poisson_requests(std::uint64_t count, std::uint64_t input, std::uint64_t output,
                                             double rate_per_s, std::uint64_t seed);

// A serving scenario (npuvp serve, sc_main/serve.*; docs/llm.md "Serving").
struct ServeScenario {
    std::string file;  // where it was read
    std::string name;
    std::string model;  // the model file, absolute
    std::uint64_t count = 0, input_tokens = 0, output_tokens = 0;
    std::uint64_t concurrency = 0;  // fixed concurrency, or 0
    double rate_per_s = 0.0;        // Poisson arrivals, or 0
    std::uint64_t seed = 1;
    bool continuous = true;
    std::uint64_t max_batch = 64, kv_block_tokens = 16;
    std::uint64_t context_bucket = 256;  // decode steps reused within buckets of this many tokens
    std::uint64_t prefill_chunk = 0;     // chunked prefill: prompt tokens a step (0: whole prompts)
    int cards = 1;                       // cubes the step is mapped over
    bool tensor_parallel = false;        // parallel: tensor (--tensor-parallel cards), else pipeline (--map-cubes cards)
    bool all_reduce_tree = false;        // all_reduce: tree (else ring)
    std::string launch = "host";         // launch: host, device or compiled (--launch)
    SourceLoc requests_loc;              // where `requests` is (errors about them)
    SourceLoc cards_loc;                 // where `cards` is (or the file, when it is left out)
};

// Reads a scenario file; a ConfigError names the file, line, column and key.
ServeScenario load_serve_scenario(const std::string& path);
// The scenario file's keys as docs/llm.md's table.
std::string serve_schema_markdown();

}  // namespace npuvp::model
