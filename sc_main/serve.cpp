#include "sc_main/serve.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config_error.h"
#include "config/schema.h"
#include "config/topology_loader.h"
#include "config/yaml_document.h"
#include "model/llm.h"
#include "model/serving.h"
#include "modules/common/checked.h"
#include "platform/impl_registry.h"
#include "report/atomic_file.h"
#include "report/run_view.h"
#include "sc_main/self_exec.h"

namespace npuvp {

namespace {

// One distinct step, run in detail.
struct StepRun {
    double ns = 0.0, energy_pj = 0.0;
    std::vector<std::pair<std::string, double>> bound;  // what, ns
};

struct Options {
    std::string scenario, topology, csv, steps_csv, summary;
    std::vector<std::string> sets;
    bool exact = false;
    bool max_throughput = false;
    std::string launch;  // --launch host|device|compiled: the scenario's `launch`, overridden
};

[[noreturn]] void bad(const std::string& message) {
    throw ConfigError(SourceLoc{"command line", 0, 0, ""}, "serve: " + message);
}

const char* kUsage =
    "usage: npuvp serve SCENARIO.yaml [--topology FILE] [--set KEY=VALUE]... [--exact]\n"
    "                   [--launch host|device|compiled] [--csv FILE] [--steps-csv FILE] [--summary FILE]\n"
    "\n"
    "Serves a language model to the scenario's requests (docs/llm.md \"Serving\"): each\n"
    "distinct step runs once in detail (npuvp --llm) and is reused for every step like it;\n"
    "prints request and token throughput, TTFT, TPOT, ITL and end-to-end latency (mean,\n"
    "P50, P90, P99), what bound each phase, the KV cache's occupancy and the energy.\n"
    "\n"
    "--topology FILE   the machine (default configs/topologies/default.yaml)\n"
    "--set KEY=VALUE   a topology override, as for npuvp (repeatable)\n"
    "--exact           no reuse across contexts: every decode step's context runs in detail\n"
    "--launch host|device|compiled\n"
    "                  how each step's layers are launched, over the scenario's `launch`\n"
    "                  (docs/models.md \"Launches\")\n"
    "--max-throughput  find the concurrency that gives the most output tokens/s within the\n"
    "                  KV cache and max_batch (powers of two up to the limit, and the limit),\n"
    "                  and say what limited it\n"
    "--csv FILE        one row per request (arrival, admission, first token, finish, latencies)\n"
    "--steps-csv FILE  one row per step (phase, batch, tokens, a mixed step's chunk, start,\n"
    "                  end, KV blocks held): the KV cache's occupancy over time\n"
    "--summary FILE    the answers as JSON\n";

Options parse(int argc, char* argv[]) {
    Options o;
    o.topology = std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/default.yaml";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) bad(a + " needs a value");
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            std::cout << kUsage;
            std::exit(0);
        } else if (a == "--topology") o.topology = value();
        else if (a == "--set") o.sets.push_back(value());
        else if (a == "--exact") o.exact = true;
        else if (a == "--launch") {
            o.launch = value();
            if (o.launch != "host" && o.launch != "device" && o.launch != "compiled")
                bad("--launch: expected host, device or compiled, got '" + o.launch + "'");
        }
        else if (a == "--max-throughput") o.max_throughput = true;
        else if (a == "--csv") o.csv = value();
        else if (a == "--steps-csv") o.steps_csv = value();
        else if (a == "--summary") o.summary = value();
        else if (!a.empty() && a[0] != '-' && o.scenario.empty()) o.scenario = a;
        else bad("unknown argument '" + a + "' (npuvp serve --help)");
    }
    if (o.scenario.empty()) bad("give a scenario file (npuvp serve --help)");
    return o;
}

// Runs each distinct step once (a child `npuvp --llm` with --summary) and
// remembers it.
class Steps {
public:
    Steps(const Options& o, const model::ServeScenario& s, const model::LlmConfig& llm, const std::string& dir)
        : m_o(o), m_s(s), m_llm(llm), m_dir(dir) {}

    const StepRun& get(const model::LlmStep& st) {
        const auto key = std::make_tuple(static_cast<int>(st.phase), st.batch, st.context, st.chunk_prompts, st.chunk,
                                         st.chunk_past);
        const auto known = m_runs.find(key);
        if (known != m_runs.end()) return known->second;
        const std::string stem = m_dir + "/" + std::to_string(m_runs.size());
        std::vector<std::string> args = {"--topology", m_o.topology};
        for (const std::string& s : m_o.sets) args.insert(args.end(), {"--set", s});
        args.insert(args.end(), {"--llm", m_s.model, "--phase", model::to_string(st.phase), "--context", std::to_string(st.context),
                                 m_s.tensor_parallel ? "--tensor-parallel" : "--map-cubes", std::to_string(m_s.cards),
                                 "--summary", stem + ".json"});
        // A mixed step's decoding part may be empty (the chunk alone).
        if (st.batch > 0) args.insert(args.end(), {"--batch", std::to_string(st.batch)});
        if (st.phase == model::LlmPhase::mixed)
            args.insert(args.end(), {"--chunk", std::to_string(st.chunk), "--chunk-prompts", std::to_string(st.chunk_prompts),
                                     "--chunk-past", std::to_string(st.chunk_past)});
        if (m_s.tensor_parallel) args.insert(args.end(), {"--all-reduce", m_s.all_reduce_tree ? "tree" : "ring"});
        if (m_s.launch != "host") args.insert(args.end(), {"--launch", m_s.launch});
        const ChildExit exit = run_self(args, stem + ".log");
        if (!exit.started || exit.signal || exit.code != 0)
            throw std::runtime_error("serve: the " + std::string(model::to_string(st.phase)) + " step of batch " +
                                     std::to_string(st.batch) + " at " + std::to_string(st.context) + " tokens" +
                                     (st.phase == model::LlmPhase::mixed
                                          ? " with a chunk of " + std::to_string(st.chunk) + " x " + std::to_string(st.chunk_prompts)
                                          : std::string()) +
                                     " ended with " + exit.describe() + ": " + last_line(stem + ".log"));
        std::ifstream in(stem + ".json");
        nlohmann::json j;
        in >> j;
        StepRun run;
        run.ns = j.at("makespan_ns").get<double>();
        run.energy_pj = j.at("energy").at("total_pj").get<double>();
        for (const auto& part : j.at("bound")) run.bound.emplace_back(part.at("what").get<std::string>(), part.at("ns").get<double>());
        return m_runs.emplace(key, run).first->second;
    }
    std::size_t distinct() const { return m_runs.size(); }

private:
    static std::string last_line(const std::string& path) {
        std::ifstream in(path);
        std::string line, last;
        while (std::getline(in, line))
            if (!line.empty()) last = line;
        return last.empty() ? "(no output)" : last;
    }
    const Options& m_o;
    const model::ServeScenario& m_s;
    const model::LlmConfig& m_llm;
    std::string m_dir;
    std::map<std::tuple<int, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>, StepRun> m_runs;
};

// A latency line in ms, or in s when its mean is 10 s or more.
std::string dist_text(const model::Distribution& d) {
    const bool s = d.mean >= 1e10;
    auto t = [&](double ns) { return s ? obs::fixed(ns / 1e9, 3) + " s" : obs::fixed(ns / 1e6, 3) + " ms"; };
    return "mean " + t(d.mean) + "  P50 " + t(d.p50) + "  P90 " + t(d.p90) + "  P99 " + t(d.p99);
}

nlohmann::json dist_json(const model::Distribution& d) {
    return {{"mean_ms", d.mean / 1e6}, {"p50_ms", d.p50 / 1e6}, {"p90_ms", d.p90 / 1e6}, {"p99_ms", d.p99 / 1e6}, {"count", d.count}};
}

}  // namespace

int run_serve(int argc, char* argv[]) {
    const Options o = parse(argc, argv);
    model::ServeScenario s = model::load_serve_scenario(o.scenario);
    if (!o.launch.empty()) {
        if (o.launch == "compiled" && s.cards > 1)
            throw ConfigError(s.cards_loc, "--launch compiled runs a step on one card (the scenario has cards: " +
                                               std::to_string(s.cards) + ")");
        s.launch = o.launch;
    }
    const model::LlmConfig llm = model::load_llm_file(s.model);
    if (s.input_tokens + s.output_tokens > static_cast<std::uint64_t>(llm.max_positions))
        throw ConfigError(s.requests_loc, "input_tokens + output_tokens = " + std::to_string(s.input_tokens + s.output_tokens) +
                                              ": beyond the model's max_position_embeddings " + std::to_string(llm.max_positions));
    std::vector<Override> overrides;
    for (const std::string& text : o.sets) overrides.push_back(parse_override(text));
    const TopologyConfig topo = load_topology_file(o.topology, overrides, builtin_registry());
    const int cubes = topo.system.sips * topo.system.cubes_per_sip;
    if (s.cards > cubes)
        throw ConfigError(s.cards_loc, std::to_string(s.cards) + " cards: the topology has " + std::to_string(cubes) + (cubes == 1 ? " cube" : " cubes"));

    // The KV cache: the HBM of the cards beside the weights, in blocks.
    const model::LlmSizes sizes = model::llm_sizes(llm);
    constexpr const char* what = "the KV cache's capacity";
    const std::uint64_t hbm = model::hbm_bytes(topo, s.cards);
    if (sizes.weight_bytes >= hbm)
        throw model::ModelError(llm.file, "", "",
                                "its weights (" + obs::fixed(static_cast<double>(sizes.weight_bytes) / 1e9, 2) + " GB) leave no room for a KV cache in the HBM of " +
                                    std::to_string(s.cards) + (s.cards == 1 ? " card" : " cards") + " (" +
                                    obs::fixed(static_cast<double>(hbm) / 1e9, 2) + " GB)");
    model::ServingPolicy policy;
    policy.batching = s.continuous ? model::Batching::continuous : model::Batching::static_batches;
    policy.max_batch = s.max_batch;
    policy.kv_block_tokens = s.kv_block_tokens;
    policy.kv_capacity_blocks = (hbm - sizes.weight_bytes) / checked_mul(sizes.kv_bytes_per_token, s.kv_block_tokens, what);
    policy.concurrency = s.concurrency;
    policy.prefill_chunk = s.prefill_chunk;
    const std::vector<model::ServingRequest> requests =
        s.concurrency ? model::fixed_requests(s.count, s.input_tokens, s.output_tokens)
                      : model::poisson_requests(s.count, s.input_tokens, s.output_tokens, s.rate_per_s, s.seed);
    const std::uint64_t request_blocks = model::kv_blocks(model::ServingRequest{0, 0.0, s.input_tokens, s.output_tokens}, s.kv_block_tokens);
    if (request_blocks > policy.kv_capacity_blocks)
        throw ConfigError(s.requests_loc, "a request needs " + std::to_string(request_blocks) + " KV blocks of " +
                                              std::to_string(s.kv_block_tokens) + " tokens; the HBM beside the weights holds " +
                                              std::to_string(policy.kv_capacity_blocks));

    std::optional<ScratchDir> scratch;
    try {
        scratch.emplace("npuvp-serve");
    } catch (const std::runtime_error& e) {
        bad(e.what());
    }
    Steps steps(o, s, llm, scratch->path());
    const std::uint64_t bucket = o.exact ? 1 : s.context_bucket;
    // A bucket runs at its top, but never beyond the longest context a
    // decode step of the scenario has (its last token attends over input +
    // output - 1 cached tokens and itself).
    const std::uint64_t longest = std::min<std::uint64_t>(static_cast<std::uint64_t>(llm.max_positions) - 1,
                                                          s.input_tokens + s.output_tokens - 1);
    // The detailed run that stands for a step.
    // (A mixed step's decoding part is bucketed as a decode step's.)
    auto run_of = [&](model::LlmStep st) -> const StepRun& {
        if (st.phase != model::LlmPhase::prefill && st.batch > 0)
            st.context = std::min(longest, ceil_div(st.context, bucket) * bucket);
        if (st.phase == model::LlmPhase::mixed && st.batch == 0) st.context = 0;
        return steps.get(st);
    };
    auto shape = [](model::LlmPhase phase, std::uint64_t batch, std::uint64_t tokens) {
        model::LlmStep st;
        st.phase = phase;
        st.batch = batch;
        st.context = tokens;
        return st;
    };
    auto step_ns = [&](model::LlmPhase phase, std::uint64_t batch, std::uint64_t tokens) {
        return run_of(shape(phase, batch, tokens)).ns;
    };
    auto mixed_ns = [&](const model::LlmStep& st) { return run_of(st).ns; };
    if (o.max_throughput) {
        // Fixed concurrency c for c = 1, 2, 4, ... below the limit and the
        // limit itself: the requests the KV cache holds at once, or
        // max_batch if fewer; max(count, c) requests each.
        const std::uint64_t kv_limit = policy.kv_capacity_blocks / request_blocks;
        const std::uint64_t limit = std::min(kv_limit, s.max_batch);
        std::vector<std::uint64_t> tried;
        for (std::uint64_t c = 1; c < limit; c *= 2) tried.push_back(c);
        tried.push_back(limit);
        std::cout << "max-throughput " << s.name << ": " << llm.name << " on " << topo.name << ", " << s.input_tokens << " in / "
                  << s.output_tokens << " out; the KV cache holds " << kv_limit << " requests at once, max_batch "
                  << s.max_batch << "\n";
        std::cout << "concurrency  output tokens/s  TPOT mean ms  TTFT mean ms\n";
        std::uint64_t best = 0;
        double best_rate = -1.0;
        for (const std::uint64_t c : tried) {
            model::ServingPolicy p = policy;
            p.concurrency = c;
            const model::ServingMetrics m = model::serving_metrics(
                model::serve(model::fixed_requests(std::max(s.count, c), s.input_tokens, s.output_tokens), p, step_ns, mixed_ns));
            std::cout << std::string(11 - std::min<std::size_t>(11, std::to_string(c).size()), ' ') << c
                      << "  " << std::string(15 - std::min<std::size_t>(15, obs::fixed(m.output_tokens_per_s, 1).size()), ' ')
                      << obs::fixed(m.output_tokens_per_s, 1) << "  "
                      << std::string(12 - std::min<std::size_t>(12, obs::fixed(m.tpot_ns.mean / 1e6, 3).size()), ' ')
                      << obs::fixed(m.tpot_ns.mean / 1e6, 3) << "  "
                      << std::string(12 - std::min<std::size_t>(12, obs::fixed(m.ttft_ns.mean / 1e6, 3).size()), ' ')
                      << obs::fixed(m.ttft_ns.mean / 1e6, 3) << "\n";
            if (m.output_tokens_per_s > best_rate) best_rate = m.output_tokens_per_s, best = c;
        }
        std::cout << "best     concurrency " << best << ": " << obs::fixed(best_rate, 1) << " output tokens/s; limited by ";
        if (best == limit)
            std::cout << (kv_limit <= s.max_batch ? "the KV cache (" + std::to_string(kv_limit) + " requests of " +
                                                        std::to_string(request_blocks) + " blocks fill " +
                                                        std::to_string(kv_limit * request_blocks) + " of " +
                                                        std::to_string(policy.kv_capacity_blocks) + ")"
                                                  : "max_batch (" + std::to_string(s.max_batch) + ")");
        else
            std::cout << "the steps: beyond it a step's time grew faster than its batch";
        std::cout << "\n         (" << steps.distinct() << " distinct steps run in detail)\n";
        return 0;
    }
    model::ServingResult result;
    try {
        result = model::serve(requests, policy, step_ns, mixed_ns);
    } catch (const std::invalid_argument& e) {
        throw ConfigError(s.requests_loc, e.what());
    }
    const model::ServingMetrics m = model::serving_metrics(result);

    // Per phase: the time, and what bound it, from each step's detailed run.
    std::map<std::string, double> phase_ns;
    std::map<std::string, std::map<std::string, double>> bound;
    double energy_pj = 0.0, kv_block_ns = 0.0;
    std::size_t prefills = 0, mixes = 0;
    for (const model::ServingStep& st : result.steps) {
        prefills += st.phase == model::LlmPhase::prefill ? 1 : 0;
        mixes += st.phase == model::LlmPhase::mixed ? 1 : 0;
        model::LlmStep shaped = shape(st.phase, st.batch, st.tokens);
        shaped.chunk_prompts = st.chunk_prompts;
        shaped.chunk = st.chunk;
        shaped.chunk_past = st.chunk_past;
        const StepRun& run = run_of(shaped);
        const std::string name = model::to_string(st.phase);
        phase_ns[name] += run.ns;
        for (const auto& [part, ns] : run.bound) bound[name][part] += ns;
        energy_pj += run.energy_pj;
        kv_block_ns += static_cast<double>(st.kv_blocks) * (st.end_ns - st.start_ns);
    }
    std::uint64_t out_tokens = 0;
    for (const model::ServedRequest& r : result.requests) out_tokens += r.request.output;

    std::ostream& out = std::cout;
    out << "serve    " << s.name << ": " << llm.name << " on " << topo.name << " (" << s.cards << (s.cards == 1 ? " card" : " cards")
        << (s.cards == 1 ? "" : s.tensor_parallel ? std::string(", tensor parallel, ") + (s.all_reduce_tree ? "tree" : "ring") + " all-reduces"
                                                  : ", pipelined")
        << (s.launch == "device"     ? ", layers launched through the device queue"
            : s.launch == "compiled" ? ", each step one compiled kernel a PE"
                                     : "")
        << "), " << s.count << " requests of " << s.input_tokens << " in / " << s.output_tokens << " out, "
        << (s.concurrency ? "concurrency " + std::to_string(s.concurrency) : "Poisson arrivals at " + obs::fixed(s.rate_per_s, 3) + "/s (seed " + std::to_string(s.seed) + ")")
        << ", " << (s.continuous ? "continuous" : "static") << " batching (at most " << s.max_batch << ")\n";
    out << "steps    " << prefills << " prefill, " << (mixes ? std::to_string(mixes) + " mixed (decode and a prefill chunk), " : "")
        << result.steps.size() - prefills - mixes << " decode; " << steps.distinct()
        << " distinct steps run in detail" << (o.exact ? " (--exact)" : " (decode contexts in buckets of " + std::to_string(bucket) + " tokens)") << "\n";
    out << "requests " << result.requests.size() << " in " << obs::fixed(result.makespan_ns / 1e9, 3) << " s: "
        << obs::fixed(m.request_throughput, 3) << " requests/s, " << obs::fixed(m.output_tokens_per_s, 1) << " output tokens/s, "
        << obs::fixed(m.total_tokens_per_s, 1) << " total tokens/s\n";
    out << "TTFT     " << dist_text(m.ttft_ns) << "\n";
    out << "TPOT     " << dist_text(m.tpot_ns) << "\n";
    out << "ITL      " << dist_text(m.itl_ns) << "\n";
    out << "E2E      " << dist_text(m.e2e_ns) << "\n";
    for (const auto& [phase, parts_map] : bound) {
        std::vector<std::pair<std::string, double>> parts(parts_map.begin(), parts_map.end());
        std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        double all = 0.0;
        for (const auto& p : parts) all += p.second;
        out << "bound    " << phase << " (" << obs::fixed(100.0 * phase_ns[phase] / std::max(result.makespan_ns, 1.0), 1) << " % of the time): ";
        for (std::size_t i = 0; i < parts.size() && i < 3; ++i)
            out << (i ? ", " : "") << parts[i].first << " " << obs::fixed(100.0 * parts[i].second / std::max(all, 1.0), 0) << "%";
        out << "\n";
    }
    out << "KV cache peak " << result.peak_kv_blocks << " of " << policy.kv_capacity_blocks << " blocks of " << s.kv_block_tokens
        << " tokens (" << obs::fixed(100.0 * static_cast<double>(result.peak_kv_blocks) / static_cast<double>(std::max<std::uint64_t>(policy.kv_capacity_blocks, 1)), 1)
        << " %), " << obs::fixed(kv_block_ns / std::max(result.makespan_ns, 1.0), 1) << " blocks on average over the time\n";
    // Occupancy over time: the share of the cache held at a quarter, half
    // and three quarters of the run (the step running then), and its peak's
    // first time (--steps-csv: every step).
    const auto held_at = [&](double t_ns) -> std::uint64_t {
        for (const model::ServingStep& st : result.steps)
            if (st.start_ns <= t_ns && t_ns < st.end_ns) return st.kv_blocks;
        return 0;
    };
    const auto share = [&](std::uint64_t blocks) {
        return std::to_string(blocks) + " blocks (" +
               obs::fixed(100.0 * static_cast<double>(blocks) / static_cast<double>(std::max<std::uint64_t>(policy.kv_capacity_blocks, 1)), 1) + " %)";
    };
    double peak_at = 0.0;
    for (const model::ServingStep& st : result.steps)
        if (st.kv_blocks == result.peak_kv_blocks) {
            peak_at = st.start_ns;
            break;
        }
    out << "         over time: " << share(held_at(result.makespan_ns / 4)) << " at a quarter of the run, "
        << share(held_at(result.makespan_ns / 2)) << " at half, " << share(held_at(result.makespan_ns * 3 / 4))
        << " at three quarters; the peak first at " << obs::fixed(peak_at / 1e9, 3) << " s\n";
    const double uj = energy_pj / 1e6 / static_cast<double>(std::max<std::uint64_t>(out_tokens, 1));
    out << "energy   " << (uj >= 1000.0 ? obs::fixed(uj / 1000.0, 3) + " mJ" : obs::fixed(uj, 3) + " µJ") << " per output token, "
        << obs::fixed(energy_pj / std::max(result.makespan_ns * 1000.0, 1.0), 2) << " W on average\n";

    if (!o.csv.empty()) {
        AtomicOutput csv("--csv", o.csv);
        csv.stream() << "id,input_tokens,output_tokens,arrival_ms,admitted_ms,first_token_ms,finished_ms,ttft_ms,tpot_ms,e2e_ms\n";
        for (const model::ServedRequest& r : result.requests) {
            const double tpot = r.request.output > 1 ? (r.finished_ns - r.first_token_ns) / static_cast<double>(r.request.output - 1) : 0.0;
            csv.stream() << r.request.id << "," << r.request.input << "," << r.request.output << "," << obs::fixed(r.request.arrival_ns / 1e6, 6)
                         << "," << obs::fixed(r.admitted_ns / 1e6, 6) << "," << obs::fixed(r.first_token_ns / 1e6, 6) << ","
                         << obs::fixed(r.finished_ns / 1e6, 6) << "," << obs::fixed((r.first_token_ns - r.request.arrival_ns) / 1e6, 6) << ","
                         << obs::fixed(tpot / 1e6, 6) << "," << obs::fixed((r.finished_ns - r.request.arrival_ns) / 1e6, 6) << "\n";
        }
        csv.commit();
        out << "csv      " << o.csv << "\n";
    }
    if (!o.steps_csv.empty()) {
        AtomicOutput csv("--steps-csv", o.steps_csv);
        csv.stream() << "step,phase,batch,tokens,chunk_prompts,chunk_tokens,chunk_past,start_ms,end_ms,kv_blocks,kv_percent\n";
        for (std::size_t i = 0; i < result.steps.size(); ++i) {
            const model::ServingStep& st = result.steps[i];
            csv.stream() << i << "," << model::to_string(st.phase) << "," << st.batch << "," << st.tokens << ","
                         << st.chunk_prompts << "," << st.chunk << "," << st.chunk_past << "," << obs::fixed(st.start_ns / 1e6, 6) << "," << obs::fixed(st.end_ns / 1e6, 6) << ","
                         << st.kv_blocks << ","
                         << obs::fixed(100.0 * static_cast<double>(st.kv_blocks) /
                                           static_cast<double>(std::max<std::uint64_t>(policy.kv_capacity_blocks, 1)), 3)
                         << "\n";
        }
        csv.commit();
        out << "steps    " << o.steps_csv << "\n";
    }
    if (!o.summary.empty()) {
        nlohmann::json j = {{"scenario", s.name},
                            {"model", llm.name},
                            {"requests", result.requests.size()},
                            {"duration_s", result.makespan_ns / 1e9},
                            {"request_throughput", m.request_throughput},
                            {"output_tokens_per_s", m.output_tokens_per_s},
                            {"total_tokens_per_s", m.total_tokens_per_s},
                            {"ttft", dist_json(m.ttft_ns)},
                            {"tpot", dist_json(m.tpot_ns)},
                            {"itl", dist_json(m.itl_ns)},
                            {"e2e", dist_json(m.e2e_ns)},
                            {"prefill_steps", prefills},
                            {"decode_steps", result.steps.size() - prefills},
                            {"distinct_steps", steps.distinct()},
                            {"kv_peak_blocks", result.peak_kv_blocks},
                            {"kv_capacity_blocks", policy.kv_capacity_blocks},
                            {"energy_uj_per_output_token", energy_pj / 1e6 / static_cast<double>(std::max<std::uint64_t>(out_tokens, 1))}};
        AtomicOutput file("--summary", o.summary);
        file.stream() << j.dump(2) << "\n";
        file.commit();
        out << "summary  " << o.summary << "\n";
    }
    return 0;
}

}  // namespace npuvp
