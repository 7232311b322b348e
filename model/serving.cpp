#include "model/serving.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>
#include <random>
#include <stdexcept>

#include "config/schema.h"
#include "config/yaml_document.h"
#include "modules/common/checked.h"

namespace npuvp::model {

namespace {

struct Running {
    std::size_t index;       // into the result's requests
    std::uint64_t done = 0;  // output tokens made
    std::uint64_t blocks = 0;
    bool finished = false;   // static batching keeps a finished sequence's slot until the batch ends
};

}  // namespace

std::uint64_t kv_blocks(const ServingRequest& r, std::uint64_t block_tokens) {
    return ceil_div(checked_add(r.input, r.output, "a request's tokens"), block_tokens);
}

// docs/llm.md "Serving": each iteration either prefills the requests just
// admitted (continuous batching admits at every step boundary, static
// batching only into an empty batch; first come, first served, and a
// request that does not fit the free KV blocks holds back those behind
// it), or runs one decode step of the running batch (one token each, at the
// longest context among them); a request leaves with its last token and
// frees its blocks. With a prefill chunk (continuous batching), admitted
// requests queue for their prompts instead, and each step while any does is
// a mixed one: the running batch's decode tokens and at most prefill_chunk
// prompt tokens, taken from the queue in order (each prompt's piece attends
// over what it has cached); a prompt's last piece makes its first token,
// and it joins the running batch.
ServingResult serve(std::vector<ServingRequest> requests, const ServingPolicy& policy, const StepTime& step,
                    const MixedStepTime& mixed) {
    if (policy.max_batch == 0 || policy.kv_block_tokens == 0)
        throw std::invalid_argument("serving: max_batch and kv_block_tokens must be at least 1");
    const bool chunked = policy.prefill_chunk != 0;
    if (chunked && policy.batching != Batching::continuous)
        throw std::invalid_argument("serving: a prefill chunk needs continuous batching");
    if (chunked && !mixed) throw std::invalid_argument("serving: a prefill chunk needs the time of a mixed step");
    std::stable_sort(requests.begin(), requests.end(), [&](const ServingRequest& a, const ServingRequest& b) {
        return policy.concurrency == 0 ? a.arrival_ns < b.arrival_ns : false;
    });
    ServingResult out;
    for (const ServingRequest& r : requests) {
        if (r.output == 0) throw std::invalid_argument("serving: request " + std::to_string(r.id) + " asks for no output token");
        const std::uint64_t need = kv_blocks(r, policy.kv_block_tokens);
        if (need > policy.kv_capacity_blocks)
            throw std::invalid_argument("serving: request " + std::to_string(r.id) + " needs " + std::to_string(need) +
                                        " KV blocks of " + std::to_string(policy.kv_block_tokens) + " tokens (" +
                                        std::to_string(r.input) + " in, " + std::to_string(r.output) +
                                        " out); the HBM beside the weights holds " +
                                        std::to_string(policy.kv_capacity_blocks));
        out.requests.push_back(ServedRequest{r, 0.0, 0.0, 0.0, {}});
    }
    const std::size_t n = out.requests.size();
    double t = 0.0;
    std::size_t next = 0, finished = 0;
    std::deque<std::size_t> waiting;
    std::vector<Running> running;
    std::deque<Running> prefilling;  // chunked: admitted, their prompts in progress (Running::done = prompt tokens done)
    std::uint64_t used = 0;
    auto arrive = [&](double at) {
        out.requests[next].request.arrival_ns = at;
        waiting.push_back(next++);
    };
    if (policy.concurrency != 0)
        while (next < n && next < policy.concurrency) arrive(0.0);
    auto finish = [&](Running& r) {
        r.finished = true;
        out.requests[r.index].finished_ns = t;
        used -= r.blocks;
        ++finished;
        if (policy.concurrency != 0 && next < n) arrive(t);
    };
    // The running batch's sequences decoding, and the longest context among them.
    auto decoding = [&](std::uint64_t& context) {
        std::uint64_t active = 0;
        context = 0;
        for (const Running& r : running)
            if (!r.finished) {
                ++active;
                context = std::max(context, out.requests[r.index].request.input + r.done);
            }
        return active;
    };
    // A token for each decoding sequence at t; finished ones leave.
    auto decode_tokens = [&] {
        for (Running& r : running) {
            if (r.finished) continue;
            ServedRequest& s = out.requests[r.index];
            s.token_ns.push_back(t);
            if (++r.done == s.request.output) finish(r);
        }
        if (policy.batching == Batching::continuous ||
            std::all_of(running.begin(), running.end(), [](const Running& r) { return r.finished; }))
            running.erase(std::remove_if(running.begin(), running.end(), [](const Running& r) { return r.finished; }),
                          running.end());
    };
    // A prompt done at t: its first token; it decodes from the next step.
    auto first_token = [&](Running& r) {
        ServedRequest& s = out.requests[r.index];
        s.first_token_ns = t;
        s.token_ns.push_back(t);
        r.done = 1;
        if (r.done == s.request.output) finish(r);
        if (!r.finished || policy.batching == Batching::static_batches) running.push_back(r);
    };
    while (finished < n) {
        if (policy.concurrency == 0)
            while (next < n && out.requests[next].request.arrival_ns <= t) arrive(out.requests[next].request.arrival_ns);
        // Admission (a static batch forms only when the last one is done).
        std::vector<Running> admitted;
        const bool batch_open = policy.batching == Batching::continuous || running.empty();
        while (batch_open && !waiting.empty() && running.size() + prefilling.size() + admitted.size() < policy.max_batch) {
            const std::size_t i = waiting.front();
            const std::uint64_t need = kv_blocks(out.requests[i].request, policy.kv_block_tokens);
            if (used + need > policy.kv_capacity_blocks) break;
            used += need;
            waiting.pop_front();
            out.requests[i].admitted_ns = t;
            admitted.push_back(Running{i, 0, need, false});
        }
        out.peak_kv_blocks = std::max(out.peak_kv_blocks, used);
        if (chunked) {
            prefilling.insert(prefilling.end(), admitted.begin(), admitted.end());
            admitted.clear();
        }
        if (!admitted.empty()) {
            // Prompts padded to the longest.
            std::uint64_t tokens = 0;
            for (const Running& r : admitted) tokens = std::max(tokens, out.requests[r.index].request.input);
            const double dt = step(LlmPhase::prefill, admitted.size(), tokens);
            out.steps.push_back(ServingStep{LlmPhase::prefill, admitted.size(), tokens, 0, 0, 0, t, t + dt, used});
            t += dt;
            for (Running& r : admitted) first_token(r);
            continue;
        }
        if (!prefilling.empty()) {
            // A mixed step: the queue's pieces, padded to the longest piece
            // and to the most any of them has cached.
            LlmStep mix;
            mix.phase = LlmPhase::mixed;
            std::uint64_t budget = policy.prefill_chunk;
            std::vector<std::pair<std::size_t, std::uint64_t>> pieces;  // (queue position, tokens)
            for (std::size_t k = 0; k < prefilling.size() && budget != 0; ++k) {
                const std::uint64_t left = out.requests[prefilling[k].index].request.input - prefilling[k].done;
                const std::uint64_t take = std::min(left, budget);
                pieces.emplace_back(k, take);
                budget -= take;
                mix.chunk = std::max(mix.chunk, take);
                mix.chunk_past = std::max(mix.chunk_past, prefilling[k].done);
            }
            mix.chunk_prompts = pieces.size();
            mix.batch = decoding(mix.context);
            const double dt = mixed(mix);
            out.steps.push_back(ServingStep{LlmPhase::mixed, mix.batch, mix.context, mix.chunk_prompts, mix.chunk,
                                            mix.chunk_past, t, t + dt, used});
            t += dt;
            decode_tokens();
            std::size_t done = 0;  // the queue's first ones whose prompts are complete
            for (const auto& [k, take] : pieces) {
                Running& r = prefilling[k];
                r.done += take;
                if (r.done == out.requests[r.index].request.input) ++done;
            }
            for (std::size_t k = 0; k < done; ++k) {
                Running r = prefilling.front();
                prefilling.pop_front();
                first_token(r);
            }
            continue;
        }
        std::uint64_t context = 0;
        const std::uint64_t active = decoding(context);
        if (active != 0) {
            // A static batch keeps its finished sequences' slots: it decodes at its size.
            const std::uint64_t batch = policy.batching == Batching::continuous ? active : running.size();
            const double dt = step(LlmPhase::decode, batch, context);
            out.steps.push_back(ServingStep{LlmPhase::decode, batch, context, 0, 0, 0, t, t + dt, used});
            t += dt;
            decode_tokens();
            continue;
        }
        running.clear();
        // Nothing runs: the next arrival (a closed loop always has one waiting).
        if (waiting.empty() && next < n) t = std::max(t, out.requests[next].request.arrival_ns);
        else if (!waiting.empty() && running.empty() && used == 0)
            throw std::logic_error("serving: a waiting request cannot be admitted into an empty batch");
    }
    for (const ServedRequest& s : out.requests) out.makespan_ns = std::max(out.makespan_ns, s.finished_ns);
    std::sort(out.requests.begin(), out.requests.end(),
              [](const ServedRequest& a, const ServedRequest& b) { return a.request.id < b.request.id; });
    return out;
}

Distribution distribution(std::vector<double> v) {
    Distribution d;
    d.count = v.size();
    if (v.empty()) return d;
    std::sort(v.begin(), v.end());
    double sum = 0.0;
    for (const double x : v) sum += x;
    d.mean = sum / static_cast<double>(v.size());
    // Nearest rank: the smallest value with at least p % of them at or below it.
    auto rank = [&](double p) {
        const std::size_t k = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
        return v[std::max<std::size_t>(k, 1) - 1];
    };
    d.p50 = rank(50);
    d.p90 = rank(90);
    d.p99 = rank(99);
    return d;
}

ServingMetrics serving_metrics(const ServingResult& r) {
    ServingMetrics m;
    std::vector<double> ttft, tpot, itl, e2e;
    double out_tokens = 0.0, all_tokens = 0.0;
    for (const ServedRequest& s : r.requests) {
        ttft.push_back(s.first_token_ns - s.request.arrival_ns);
        e2e.push_back(s.finished_ns - s.request.arrival_ns);
        if (s.request.output > 1)
            tpot.push_back((s.finished_ns - s.first_token_ns) / static_cast<double>(s.request.output - 1));
        for (std::size_t i = 1; i < s.token_ns.size(); ++i) itl.push_back(s.token_ns[i] - s.token_ns[i - 1]);
        out_tokens += static_cast<double>(s.request.output);
        all_tokens += static_cast<double>(s.request.input + s.request.output);
    }
    if (r.makespan_ns > 0) {
        const double s = r.makespan_ns / 1e9;
        m.request_throughput = static_cast<double>(r.requests.size()) / s;
        m.output_tokens_per_s = out_tokens / s;
        m.total_tokens_per_s = all_tokens / s;
    }
    m.ttft_ns = distribution(std::move(ttft));
    m.tpot_ns = distribution(std::move(tpot));
    m.itl_ns = distribution(std::move(itl));
    m.e2e_ns = distribution(std::move(e2e));
    return m;
}

std::vector<ServingRequest> fixed_requests(std::uint64_t count, std::uint64_t input, std::uint64_t output) {
    std::vector<ServingRequest> out;
    for (std::uint64_t i = 0; i < count; ++i) out.push_back(ServingRequest{i, 0.0, input, output});
    return out;
}

std::vector<ServingRequest> poisson_requests(std::uint64_t count, std::uint64_t input, std::uint64_t output,
                                             double rate_per_s, std::uint64_t seed) {
    // mt19937_64's output is fixed by the standard; the uniform and the
    // exponential are formed here, not by <random>'s distributions (whose
    // algorithms are the library's).
    std::mt19937_64 engine(seed);
    std::vector<ServingRequest> out;
    double t = 0.0;
    for (std::uint64_t i = 0; i < count; ++i) {
        const double u = (static_cast<double>(engine() >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
        t += -std::log(u) / rate_per_s * 1e9;
        out.push_back(ServingRequest{i, t, input, output});
    }
    return out;
}

namespace {

using schema::Table;

struct Requests {
    std::uint64_t count = 0, input = 0, output = 0, concurrency = 0, seed = 1;
    double rate = 0.0;
};

struct File {
    ServeScenario s;
    Requests requests;
    SourceLoc requests_loc, model_loc;
};

const Table<Requests>& requests_table() {
    using R = schema::Fields<Requests>;
    static const Table<Requests> table{
        {
            R::required_integer("count", &Requests::count, 1, "elements", "requests in the scenario"),
            R::required_integer("input_tokens", &Requests::input, 1, "elements", "each request's prompt"),
            R::required_integer("output_tokens", &Requests::output, 1, "elements", "tokens each request generates"),
            R::integer("concurrency", &Requests::concurrency, 0, 0, "elements",
                       "fixed concurrency: this many at once, the next arriving as one leaves (closed loop); 0 = arrivals at `rate_per_s`"),
            R::number("rate_per_s", &Requests::rate, 0.0, Bound::non_negative, "",
                      "Poisson arrivals at this mean rate (open loop); give it or `concurrency`, not both"),
            R::integer("seed", &Requests::seed, 1, 0, "", "the arrivals' generator (the same seed, the same arrivals on any machine)"),
        },
        [](const MapReader& r, const Requests& q) {
            if ((q.concurrency == 0) == (q.rate <= 0.0))
                throw ConfigError(r.item().loc, "give one of concurrency (a closed loop) and rate_per_s (Poisson arrivals)");
        }};
    return table;
}

const Table<File>& scenario_table() {
    using F = schema::Fields<File>;
    static const Table<File> table{{
        F::leaf("name", {"", "string", "", "**required**", "", "the scenario's name in reports"},
                [](const MapReader& r, File& f) { f.s.name = r.reader().to_string(r.required("name")); }, nullptr),
        F::leaf("model", {"", "string", "", "**required**", "", "the model file (docs/llm.md), relative to the scenario's folder"},
                [](const MapReader& r, File& f) {
                    const Item item = r.required("model");
                    f.model_loc = item.loc;
                    f.s.model = r.reader().to_string(item);
                },
                nullptr),
        F::leaf("requests", {"", "map", "", "**required**", "", "the requests: `count`, `input_tokens`, `output_tokens`, and `concurrency` or `rate_per_s` (below)"},
                [](const MapReader& r, File& f) {
                    const Item item = r.required("requests");
                    f.requests_loc = item.loc;
                    schema::read_map(r.reader(), item, requests_table(), f.requests);
                },
                nullptr),
        F::choice("batching", [](auto& f) -> auto& { return f.s.continuous; }, "continuous",
                  std::vector<std::pair<std::string, bool>>{{"continuous", true}, {"static", false}},
                  "`continuous`: requests join and leave the running batch at step boundaries; `static`: a batch forms when the last one is done and runs until its longest request is"),
        F::integer("max_batch", [](auto& f) -> auto& { return f.s.max_batch; }, 64, 1, "elements", "sequences in the running batch at most"),
        F::integer("kv_block_tokens", [](auto& f) -> auto& { return f.s.kv_block_tokens; }, 16, 1, "elements",
                   "the KV cache is handed out in blocks of this many tokens; a request is admitted when the blocks of its input and output are free"),
        F::integer("context_bucket", [](auto& f) -> auto& { return f.s.context_bucket; }, 256, 1, "elements",
                   "decode steps whose context rounds up to the same multiple of this run once in detail and are reused (`--exact`: 1)"),
        F::integer("cards", [](auto& f) -> auto& { return f.s.cards; }, 1, 1, "elements",
                   "cards (cubes; a card of rngd_server.yaml is one) the step runs on, as `parallel` says"),
        F::integer("prefill_chunk", [](auto& f) -> auto& { return f.s.prefill_chunk; }, 0, 0, "elements",
                   "chunked prefill (continuous batching): at most this many prompt tokens a step, beside the running batch's decode tokens (a mixed step); 0 = each admitted prompt prefilled whole in one step"),
        F::choice("parallel", [](auto& f) -> auto& { return f.s.tensor_parallel; }, "pipeline",
                  std::vector<std::pair<std::string, bool>>{{"pipeline", false}, {"tensor", true}},
                  "over several `cards`: `pipeline` = the layers in stages, a card each (`--map-cubes`); `tensor` = every layer split over the cards with all-reduces between them (`--tensor-parallel`)"),
        F::choice("all_reduce", [](auto& f) -> auto& { return f.s.all_reduce_tree; }, "ring",
                  std::vector<std::pair<std::string, bool>>{{"ring", false}, {"tree", true}},
                  "with `parallel: tensor`: how the all-reduces run (`--all-reduce`; docs/models.md \"Tensor parallelism\")"),
        F::choice("launch", [](auto& f) -> auto& { return f.s.launch; }, "host",
                  std::vector<std::pair<std::string, std::string>>{
                      {"host", "host"}, {"device", "device"}, {"compiled", "compiled"}},
                  "how each step's layers are launched (`--launch`; docs/models.md \"Launches\"): `host`, each when its inputs' responses are back at the host; `device`, all at once, each cube's M_CPU holding a layer until its inputs are written; `compiled`, one kernel per PE a step, the PEs meeting at IPCQ barriers (docs/models.md \"Compiled kernels\"; one card)"),
    }};
    return table;
}

}  // namespace

ServeScenario load_serve_scenario(const std::string& path) {
    YamlReader yaml(path, YamlReader::Rules{false, true, false});
    const Table<File>& table = scenario_table();
    const YAML::Node document = parse_map_document(read_input_file(path), path, "scenario keys (" + join(table.keys()) + ")");
    File f;
    schema::read_map(yaml, yaml.root(document), table, f);
    f.s.file = path;
    const std::filesystem::path model(f.s.model);
    f.s.model = (model.is_absolute() ? model : std::filesystem::path(path).parent_path() / model).lexically_normal().string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(f.s.model, ec))
        throw ConfigError(f.model_loc, "no model file '" + f.s.model + "'");
    f.s.count = f.requests.count;
    f.s.input_tokens = f.requests.input;
    f.s.output_tokens = f.requests.output;
    f.s.concurrency = f.requests.concurrency;
    f.s.rate_per_s = f.requests.rate;
    f.s.seed = f.requests.seed;
    f.s.requests_loc = f.requests_loc;
    const MapReader top(yaml, yaml.root(document), table.keys());
    f.s.cards_loc = top.has("cards") ? top.child("cards").loc : top.item().loc;
    if (f.s.launch == "compiled" && f.s.cards > 1)
        throw ConfigError(top.child("launch").loc, "launch: compiled runs a step on one card (cards: " +
                                                       std::to_string(f.s.cards) +
                                                       "): its PEs synchronise through IPCQ, which does not cross cards");
    if (f.s.prefill_chunk != 0 && !f.s.continuous)
        throw ConfigError(top.child("prefill_chunk").loc,
                          "prefill_chunk applies to continuous batching (batching: static prefills whole batches)");
    return f.s;
}

std::string serve_schema_markdown() {
    schema::Docs docs{{"", {}}};
    schema::document(scenario_table(), "", docs, 0);
    docs.push_back({"requests", {}});
    schema::document(requests_table(), "", docs, 1);
    return schema::markdown(docs);
}

}  // namespace npuvp::model
