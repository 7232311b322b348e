// npuvp: the virtual platform's command-line program (docs/cli.md).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

#include <systemc>

#include "report/atomic_file.h"
#include "sc_main/calibrate.h"
#include "sc_main/serve.h"
#include "sc_main/sanitizer_stack.h"
#include "modules/pe/tile_plan.h"
#include "modules/common/checked.h"
#include "config/config_error.h"
#include "report/gtkw_writer.h"
#include "report/bottleneck.h"
#include "report/energy.h"
#include "report/layer_table.h"
#include "platform/platform.h"
#include "platform/probe.h"
#include "report/report_writer.h"
#include "platform/rtl_support.h"
#include "report/run_outputs.h"
#include "report/run_print.h"
#include "report/roofline.h"
#include "report/run_answers.h"
#include "report/vcd_finish.h"
#include "report/run_summary.h"
#include "report/sim_speed.h"
#include "report/svg_writer.h"
#include "report/timeline_writer.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "model/llm.h"
#include "model/mapper.h"
#include "model/onnx_import.h"
#include "platform/workload_run.h"
#include "sc_main/cli.h"
#include "sc_main/compare.h"
#include "sc_main/sweep.h"

namespace npuvp {
namespace {

std::string format_bw(double gbs) {
    if (gbs <= 0.0) return "unlimited";
    std::ostringstream out;
    out << std::fixed << std::setprecision(1) << gbs << " GB/s";
    return out.str();
}

void print_machine(const Platform& platform, std::ostream& out) {
    const TopologyConfig& t = platform.config();
    const PeTemplateConfig& pe = t.cube.pe_template;
    const double tflops = 2.0 * pe.gemm.rows * pe.gemm.cols * pe.gemm.freq_ghz / 1000.0;
    out << "machine  " << t.system.sips << " SIP x " << t.system.cubes_per_sip << " cube x "
        << t.pes_per_cube() << " PE (" << t.cube.pe_layout.rows << "x" << t.cube.pe_layout.cols
        << " mesh), " << platform.nodes().size() << " nodes, " << platform.links().size()
        << " links\n";
    out << "PE       GEMM " << pe.gemm.rows << "x" << pe.gemm.cols << " @ " << pe.gemm.freq_ghz
        << " GHz (" << std::fixed << std::setprecision(1) << tflops
        << " TFLOPS peak), MATH " << pe.math.lanes << " lanes, TCM "
        << (pe.tcm.size_bytes >> 20) << " MiB (" << (pe.tcm.reserved_bytes >> 20)
        << " MiB reserved)\n";
    out << "DMA      " << pe.dma.rd_engines << " read + " << pe.dma.wr_engines
        << " write channels per PE, " << format_bw(pe.dma.bw_gbs) << ", setup "
        << pe.dma.setup_ns << " ns\n";
    out << "memory   HBM slice " << format_bw(t.cube.hbm_ctrl.bw_gbs) << " / "
        << t.cube.hbm_ctrl.latency_ns << " ns per PE; shared SRAM "
        << format_bw(t.cube.shared_sram.bw_gbs) << " / " << t.cube.shared_sram.latency_ns
        << " ns per cube; mesh links " << format_bw(t.cube.noc.link_bw_gbs) << "\n";
}

void print_list(const Platform& platform, std::ostream& out) {
    // Each node's outgoing links in the platform's link order: the link
    // indexes sorted by (from node, index), two words a link. (A scan of
    // every link per node was quadratic, issue 21; a map of per-node vectors
    // took 30 MB on a 16,384-PE machine, issue 38.) Sorted by pointer for
    // lookup only: the output order is the platform's.
    const auto& links = platform.links();
    using Outgoing = std::pair<const RoutedNode*, std::size_t>;
    const std::less<const RoutedNode*> before;
    std::vector<Outgoing> outgoing;
    outgoing.reserve(links.size());
    for (std::size_t i = 0; i < links.size(); ++i) outgoing.emplace_back(links[i]->from, i);
    std::sort(outgoing.begin(), outgoing.end(), [&](const Outgoing& a, const Outgoing& b) {
        return before(a.first, b.first) || (a.first == b.first && a.second < b.second);
    });
    // A machine's links have a handful of latencies and bandwidths: each is
    // formatted once, and the text goes out in large writes.
    std::unordered_map<std::uint64_t, std::string> ns_text;
    std::unordered_map<double, std::string> bw_text;
    std::string text;
    for (const RoutedNode* node : platform.nodes()) {
        text += node->node_id_ref();
        text += "  [";
        text += node->kind();
        text += "]\n";
        auto it = std::lower_bound(outgoing.begin(), outgoing.end(), node,
                                   [&](const Outgoing& e, const RoutedNode* n) { return before(e.first, n); });
        for (; it != outgoing.end() && it->first == node; ++it) {
            const Link& link = *links[it->second];
            const std::uint64_t ps = link.hop->latency_ps();
            auto ns = ns_text.find(ps);
            if (ns == ns_text.end()) ns = ns_text.emplace(ps, obs::ps_as_ns(ps)).first;
            auto bw = bw_text.find(link.hop->bw_gbs());
            if (bw == bw_text.end()) bw = bw_text.emplace(link.hop->bw_gbs(), format_bw(link.hop->bw_gbs())).first;
            text += "    -> ";
            text += link.to->node_id_ref();
            text += "  ";
            text += link.kind;
            text += ", ";
            text += ns->second;
            text += " ns, ";
            text += bw->second;
            text += "\n";
        }
        if (text.size() >= (1u << 16)) {
            out << text;
            text.clear();
        }
    }
    out << text;
}

void print_route(Platform& platform, const std::string& from, const std::string& to,
                 std::ostream& out) {
    const Route& route = platform.route(from, to);
    out << "route " << from << " -> " << to << ": " << route.path.size() - 1 << " links, "
        << route.steps.size() << " hops, latency " << obs::ps_as_ns(route.latency_ps)
        << " ns, narrowest " << format_bw(route.min_bw_gbs) << "\n";
    for (const RouteStep& step : route.steps) {
        const std::string by = step.at < route.path.size()
                                   ? route.path[step.at].node->node_id_ref()
                                   : route.path.front().node->node_id_ref() + " (tail)";
        out << "    " << std::left << std::setw(64) << step.hop->name() << std::right
            << std::setw(10) << obs::ps_as_ns(step.hop->latency_ps()) << " ns  "
            << std::setw(16) << format_bw(step.hop->bw_gbs()) << "  by " << by << "\n";
    }
}

void print_probe(const Probe& probe, std::ostream& out) {
    const double mib = static_cast<double>(probe.bytes()) / (1 << 20);
    out << "\nprobe 1  M_CPU -> PE_CPU control message (n = 0): arrival\n"
        << "probe 2  every PE reads " << mib << " MiB from its own HBM slice, all at once\n"
        << "probe 3  every PE reads " << mib << " MiB from its cube's shared SRAM, all at once\n\n";
    out << std::left << std::setw(20) << "PE" << std::right << std::setw(14) << "control ns"
        << std::setw(14) << "HBM ns" << std::setw(12) << "HBM GB/s" << std::setw(14)
        << "SRAM ns" << std::setw(12) << "SRAM GB/s" << "\n";
    auto gbs = [&](std::uint64_t start, std::uint64_t done) {
        std::ostringstream s;
        s << std::fixed << std::setprecision(1)
          << static_cast<double>(probe.bytes()) * 1000.0 / static_cast<double>(done - start);
        return s.str();
    };
    for (const ProbeResult& r : probe.results()) {
        out << std::left << std::setw(20) << r.pe << std::right << std::setw(14)
            << obs::ps_as_ns(r.control_ps) << std::setw(14)
            << obs::ps_as_ns(r.hbm_done_ps - r.hbm_start_ps) << std::setw(12)
            << gbs(r.hbm_start_ps, r.hbm_done_ps) << std::setw(14)
            << obs::ps_as_ns(r.sram_done_ps - r.sram_start_ps) << std::setw(12)
            << gbs(r.sram_start_ps, r.sram_done_ps) << "\n";
    }
    out << "\nmakespan " << obs::ps_as_ns(probe.makespan_ps()) << " ns\n";
}

// Opens the VCD and registers the platform's shadow signals (before sc_start).
sc_core::sc_trace_file* open_vcd(const CliOptions& options, const Platform& platform) {
    if (!options.vcd) return nullptr;
    // The kernel writes beside the VCD; finish_vcd() writes the VCD itself.
    const std::string kernel_path = vcd_kernel_path(*options.vcd);
    const std::string base = kernel_path.substr(0, kernel_path.size() - 4);  // SystemC adds .vcd
    sc_core::sc_trace_file* tf = sc_core::sc_create_vcd_trace_file(base.c_str());
    if (!tf) throw ConfigError({"command line", 0, 0, ""}, "--vcd: cannot open '" + *options.vcd + "'");
    // Every event lands on its exact ps; the kernel's note about it is noise.
    sc_core::sc_report_handler::set_actions("tracing timescale unit set", sc_core::SC_DO_NOTHING);
    tf->set_time_unit(1, sc_core::SC_PS);
    if (platform.add_traces(tf, options.vcd_filter).empty())
        throw ConfigError({"command line", 0, 0, ""},
                          "--vcd-filter: no node id matches the given patterns");
    return tf;
}

// The tiles a workload feeds: every composite's tiles, times the PEs that
// run its kernel (direct launches and host launches), saturating.
std::uint64_t workload_tiles(const WorkloadConfig& w) {
    auto kernel_tiles = [&](const std::string& name) {
        std::uint64_t n = 0;
        const auto it = w.kernels.find(name);
        if (it == w.kernels.end()) return n;
        for (const Command& c : it->second.commands)
            if (c.kind == CommandKind::composite) n = sat_add(n, TilePlanner(c.composite).total_tiles());
        return n;
    };
    std::uint64_t total = 0;
    for (const Launch& l : w.launches) total = sat_add(total, sat_mul(kernel_tiles(l.kernel), l.pes.size()));
    for (const HostRequest& r : w.host)
        if (r.kind == HostRequestKind::kernel_launch)
            total = sat_add(total, sat_mul(kernel_tiles(r.kernel), sat_mul(r.cubes.size(), r.target_pe.size())));
    return total;
}

// Above this many tiles a run is long (minutes at a few million tiles per
// second): npuvp warns and names the limits (docs/limits.md "Long runs").
constexpr std::uint64_t kLongRunTiles = 100000000;

// What each PE's command numbers name, for the save file's filters: every
// command its scheduler completed or still holds.
CommandLabels command_labels(const Platform& platform) {
    CommandLabels labels;
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            for (const Pe* pe : cube.pes) {
                std::map<std::uint64_t, std::string>& mine = labels[pe->name()];
                auto add = [&](std::uint64_t seq, const Command& c) { mine[seq] = c.id + " " + to_string(c.kind); };
                for (const PeScheduler::CompletionRecord& r : pe->scheduler().completions()) add(r.seq, *r.command);
                for (const InflightCommand* c : pe->scheduler().inflight()) add(c->seq, *c->command);
                if (mine.empty()) labels.erase(pe->name());
            }
    return labels;
}

// `energy`: a finished run's, whose power over time becomes a signal. Then
// the GTKWave save file and its filter files beside it.
void close_vcd(const CliOptions& options, sc_core::sc_trace_file* tf, const Platform& platform,
               const Energy* energy = nullptr) {
    if (!tf) return;
    sc_core::sc_close_vcd_trace_file(tf);
    const WaveContents waves = finish_vcd(*options.vcd, energy);
    for (const GtkwFile& file : gtkw_files(*options.vcd, waves, command_labels(platform)))
        write_file_atomically(file.path, [&](std::ostream& out) { out << file.text; });
    std::cout << "vcd      " << *options.vcd << " (open: gtkwave " << *options.vcd << " "
              << gtkw_path(*options.vcd) << ")\n";
}

// Runs the simulation to its end, or to a limit (--max-sim-time, always
// set, and --max-tokens; docs/limits.md): `stopped` then says which, and
// the run is not finished. On a terminal, stderr shows a progress line
// (simulated time, share of known commands done, kernel events per second of
// wall time), updated about every quarter second. Running in slices changes
// no simulated time: sc_start(t) stops between events and resumes where it
// stopped. Returns the wall-clock speed.
SimSpeed simulate(const WorkloadRun* run, const Platform& platform, const CliOptions& options, std::string& stopped) {
    using clock = std::chrono::steady_clock;
    const MainStackAfterSimulation main_stack;
    SimStopwatch watch;
    watch.start();
    const sc_core::sc_time limit = sc_core::sc_time::from_value(options.max_sim_ps);
    auto time_left = [&] { return limit - sc_core::sc_time_stamp(); };
    const bool tty = isatty(2);
    if (!tty && options.max_tokens == 0) {
        sc_core::sc_start(limit, sc_core::SC_EXIT_ON_STARVATION);
    } else {
        const auto begin = clock::now();
        auto last = begin;
        sc_core::sc_time slice(1, sc_core::SC_US);
        std::uint64_t fed = 0;
        // Before the first sc_start there is no pending activity to ask about.
        for (bool first = true; first || sc_core::sc_pending_activity(); first = false) {
            if (sc_core::sc_time_stamp() >= limit) break;
            sc_core::sc_start(std::min(slice, time_left()), sc_core::SC_EXIT_ON_STARVATION);
            if (options.max_tokens) {
                const std::uint64_t now_fed = platform.work_counts().tiles;
                if (now_fed >= options.max_tokens) break;
                // Slices small enough not to run far past the limit.
                if (now_fed - fed < (options.max_tokens - now_fed) / 16) slice = slice * 2;
                fed = now_fed;
            }
            if (!tty) continue;
            const auto now = clock::now();
            const double since_print = std::chrono::duration<double>(now - last).count();
            if (!options.max_tokens && since_print < 0.05) slice = slice * 2;  // cheap slices: take bigger ones
            if (since_print < 0.25) continue;
            last = now;
            const double wall = watch.elapsed_s();
            std::fprintf(stderr, "\r[npuvp] t = %.3f us", sc_core::sc_time_stamp().to_seconds() * 1e6);
            if (run && run->known_commands())
                std::fprintf(stderr, ", commands %llu / %llu (%.0f%%)",
                             static_cast<unsigned long long>(run->completed_commands()),
                             static_cast<unsigned long long>(run->known_commands()),
                             100.0 * run->completed_commands() / run->known_commands());
            std::fprintf(stderr, ", %.2f M delta cycles/s   ",
                         static_cast<double>(sc_core::sc_delta_count()) / wall / 1e6);
            std::fflush(stderr);
        }
        if (last != begin) std::fprintf(stderr, "\r%*s\r", 90, "");
    }
    watch.stop();
    if (sc_core::sc_pending_activity()) {
        const std::uint64_t fed = platform.work_counts().tiles;
        const std::string now = obs::ps_as_ns(sc_core::sc_time_stamp().value()) + " ns";
        if (options.max_tokens && fed >= options.max_tokens)
            stopped = "--max-tokens " + std::to_string(options.max_tokens) + " reached (" + std::to_string(fed) +
                      " tiles fed) at " + now;
        else  // the kernel stops at its last event before the limit
            stopped = std::string(options.max_sim_given ? "--max-sim-time" : "the longest simulated time, 2^62 ps,") +
                      " reached at " + obs::ps_as_ns(options.max_sim_ps) + " ns (the last event before it at " + now + ")";
    }
    return watch.speed();
}

// Which PEs ran decoupled, and why the others did not (grouped by reason).
// `limited`: a run limit turned decoupling off (the reason printed is that).
void note_pipelines(const Decoupler& decoupler, SimSpeed& speed, bool limited) {
    for (const Decoupler::Verdict& v : decoupler.verdicts()) {
        ++speed.pes;
        if (v.decoupled) {
            ++speed.decoupled_pes;
            continue;
        }
        const std::string why = limited ? "--max-tokens and --max-sim-time stop at an exact simulated time, which "
                                          "needs every PE per stage (a decoupled PE runs ahead of the kernel)"
                                        : v.why;
        auto it = std::find_if(speed.per_stage.begin(), speed.per_stage.end(),
                               [&](const auto& g) { return g.second == why; });
        const std::string name = v.pe->name();
        if (it == speed.per_stage.end())
            speed.per_stage.emplace_back(name, why);
        else
            it->first += ", " + name;
    }
}

// Simulation speed: what was simulated per second of wall time. Wall-clock
// figures vary run to run, so they go only to this line and the summary's
// `speed`, never to a trace.
void print_speed(const SimSpeed& speed, std::ostream& out) {
    out << "speed    " << std::fixed << std::setprecision(3) << speed.wall_s << " s wall for "
        << obs::ps_as_ns(speed.sim_ps) << " ns simulated; " << speed.stage_events
        << " stage events (" << std::setprecision(2) << speed.stage_events_per_s() / 1e6
        << " M/s), " << speed.tiles << " tiles (" << speed.tiles_per_s() / 1e6 << " M/s), "
        << speed.delta_cycles << " delta cycles\n";
    if (speed.pes == 0) return;
    out << "pipeline " << speed.decoupled_pes << " of " << speed.pes << " PEs decoupled"
        << (speed.decoupled_pes == speed.pes ? "\n" : "; per stage:\n");
    for (const auto& [pes, why] : speed.per_stage) out << "         " << pes << ": " << why << "\n";
    out.unsetf(std::ios::floatfield);
}

// The --summary file of this process (docs/cli.md "Summary JSON"). Its path
// and inputs are read from the raw arguments before anything can fail, so a
// run rejected for bad input still leaves a summary saying why; it is written
// once: by run() at its end, or by sc_main's handler when run() throws.
struct PendingSummary {
    std::optional<std::string> path;
    RunSummary data;
};

PendingSummary& pending_summary() {
    static PendingSummary pending;
    return pending;
}

void note_summary_request(int argc, char* argv[]) {
    PendingSummary& p = pending_summary();
    p.data.inputs.topology = std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/default.yaml";
    for (int i = 1; i + 1 < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--summary") p.path = argv[++i];
        else if (arg == "--topology") p.data.inputs.topology = argv[++i];
        else if (arg == "--workload" || arg == "--model") p.data.inputs.workload = argv[++i];
        else if (arg == "--set") p.data.inputs.sets.push_back(argv[++i]);
    }
}

}  // namespace

// Writes the pending summary, if one was asked for, with this outcome.
// Returns false (after saying so on stderr) when the file cannot be written.
bool write_pending_summary(int exit_code, const std::string& error) {
    PendingSummary& p = pending_summary();
    if (!p.path) return true;
    const std::string path = *p.path;
    p.path.reset();  // once, whatever happens next
    p.data.exit_code = exit_code;
    p.data.status = summary_status(exit_code);
    p.data.error = error;
    try {
        write_file_atomically(path, [&](std::ostream& o) { write_summary_json(o, p.data); });
    } catch (const std::exception& e) {
        std::cerr << "npuvp: error: --summary: " << e.what() << "\n";
        return false;
    }
    return true;
}

namespace {

// What --model / map say about the mapping (one line; empty without a model).
std::string& model_line() {
    static std::string line;
    return line;
}

// --model: the network mapped by the chosen policy, loaded as the workload
// YAML it maps to (so `npuvp map` writes what runs). `yaml` gets the text.
// The mapping of the --model being run (its layers, for the per-layer table).
model::Mapping& model_mapping() {
    static model::Mapping mapping;
    return mapping;
}

// --llm (docs/llm.md "How to read the results"): the step, the model's
// sizes and the machine's HBM, planned before the run and answered after it.
struct LlmAnswer {
    bool given = false;
    model::LlmConfig config;
    model::LlmStep step;
    std::uint64_t min_hbm_bytes = 0;  // the step reads at least this (weights once, the KV cache)
    double hbm_gbs = 0.0;             // the cubes' HBM bandwidth the step runs on
    int cubes = 1;
};
LlmAnswer& llm_answer() {
    static LlmAnswer answer;
    return answer;
}

// The sizes, and whether the model and its KV cache fit the HBM of the
// cubes the step is mapped on (--map-cubes): a ModelError says by how much
// they do not.
LlmAnswer llm_plan(const model::LlmConfig& c, const model::LlmStep& step, const TopologyConfig& topo, int cubes) {
    LlmAnswer a;
    a.given = true;
    a.config = c;
    a.step = step;
    a.cubes = cubes;
    const model::LlmSizes sizes = model::llm_sizes(c);
    constexpr const char* what = "a language model's memory";
    const std::uint64_t tokens = step.phase == model::LlmPhase::prefill ? step.context : checked_add(step.context, 1, what);
    // A mixed step's chunk: its prompts' cached tokens and the chunk's.
    const std::uint64_t chunk_tokens =
        step.phase == model::LlmPhase::mixed
            ? checked_mul(step.chunk_prompts, checked_add(step.chunk_past, step.chunk, what), what)
            : 0;
    const std::uint64_t kv = checked_mul(checked_add(checked_mul(step.batch, tokens, what), chunk_tokens, what),
                                         sizes.kv_bytes_per_token, what);
    const std::uint64_t need = checked_add(sizes.weight_bytes, kv, what);
    const std::uint64_t have = model::hbm_bytes(topo, cubes);
    auto gb = [](std::uint64_t b) { return obs::fixed(static_cast<double>(b) / 1e9, 2) + " GB"; };
    if (need > have)
        throw model::ModelError(c.file, "", "",
                                "does not fit: its weights (" + gb(sizes.weight_bytes) + ") and the KV cache of " +
                                    std::to_string(step.batch) + (step.batch == 1 ? " sequence of " : " sequences of ") + std::to_string(tokens) + " tokens" +
                                    (chunk_tokens ? " and a chunk's prompts' " + std::to_string(chunk_tokens) + " tokens" : std::string()) + " (" +
                                    gb(kv) + ") need " + gb(need) + ", the HBM of " + std::to_string(cubes) +
                                    (cubes == 1 ? " cube" : " cubes") + " holds " + gb(have) + ": " + gb(need - have) +
                                    " short (docs/llm.md \"Sizes\")");
    a.min_hbm_bytes = model::llm_step_min_hbm_bytes(c, step);
    // One cube's: over several cubes the mapper pipelines the layers (each
    // cube a stage, docs/models.md "Mapping"), and one step passes through
    // the stages one after another.
    a.hbm_gbs = topo.cube.hbm_ctrl.bw_gbs * static_cast<double>(topo.cube.memory_map.hbm_slices_per_cube);
    return a;
}

// The step's answer, after the run (docs/llm.md "How to read the results").
void print_llm(std::ostream& out, const LlmAnswer& a, std::uint64_t makespan_ps, const Energy& energy) {
    const double ns = static_cast<double>(makespan_ps) / 1000.0;
    const model::LlmStep& s = a.step;
    const int layers = s.layers == 0 ? a.config.layers : s.layers;
    const std::string seqs = std::to_string(s.batch) + (s.batch == 1 ? " sequence" : " sequences");
    const std::string scope = layers == a.config.layers ? std::to_string(layers) + " layers"
                                                        : std::to_string(layers) + " of " + std::to_string(a.config.layers) + " layers";
    out << "llm      " << a.config.name << " ";
    if (s.phase == model::LlmPhase::mixed) {
        // Chunked prefill: the decoding sequences' tokens and the chunk in one step.
        out << "mixed step, " << (s.batch == 0 ? std::string("no sequence decoding")
                                             : seqs + " decoding at context " + std::to_string(s.context))
            << " and a prefill chunk of " << s.chunk
            << " tokens of " << s.chunk_prompts << (s.chunk_prompts == 1 ? " prompt" : " prompts") << " after "
            << s.chunk_past << " cached (" << scope << "): " << obs::fixed(ns / 1000.0, 3) << " µs, "
            << obs::fixed(1e9 / ns * static_cast<double>(s.batch), 1) << " output tokens/s and "
            << obs::fixed(1e9 / ns * static_cast<double>(s.chunk * s.chunk_prompts), 1) << " prompt tokens/s\n";
    } else if (s.phase == model::LlmPhase::decode) {
        const double per_s = 1e9 / ns;
        out << "decode step, " << seqs << " at context " << s.context << " (" << scope << "): time per output token "
            << obs::fixed(ns / 1000.0, 3) << " µs = " << obs::fixed(per_s, 1) << " tokens/s per sequence, "
            << obs::fixed(per_s * static_cast<double>(s.batch), 1) << " output tokens/s in all\n";
    } else {
        out << "prefill, " << seqs << " of " << s.context << " tokens (" << scope << "): time to first token "
            << obs::fixed(ns / 1000.0, 3) << " µs = "
            << obs::fixed(1e9 / ns * static_cast<double>(s.batch) * static_cast<double>(s.context), 1)
            << " prompt tokens/s\n";
    }
    // The memory floor: what the step must read from HBM at the cubes' bandwidth.
    // Tensor parallel: the cards read their shards at once.
    const int tp = s.tensor_parallel;
    const double gbs = a.hbm_gbs * static_cast<double>(tp);
    const double floor_ns = static_cast<double>(a.min_hbm_bytes) / gbs;
    out << "         HBM: the step reads at least " << obs::fixed(static_cast<double>(a.min_hbm_bytes) / 1e9, 3)
        << " GB (weights once" << (s.phase != model::LlmPhase::prefill ? ", the KV cache" : "") << "), "
        << obs::fixed(floor_ns / 1000.0, 3) << " µs at "
        << (tp == 1 ? "a cube's " : "the " + std::to_string(tp) + " cards' ") << obs::fixed(gbs, 1) << " GB/s"
        << (tp > 1 ? " (each card reads its shard)"
            : a.cubes == 1 ? std::string()
                         : " (the " + std::to_string(a.cubes) + " cubes are stages of a pipeline the step passes through in turn)")
        << ": " << obs::fixed(100.0 * floor_ns / ns, 1)
        << " % of the step (the rest: compute, launches, DMA start-ups, exchanges; the bound line above)\n";
    // The energy model's (docs/outputs.md "Energy"), per token the step made.
    // Per token the step made: output tokens (decode), prompt tokens
    // (prefill), both (mixed).
    const double tokens = static_cast<double>(s.phase == model::LlmPhase::decode ? s.batch
                                              : s.phase == model::LlmPhase::prefill ? s.batch * s.context
                                                                                    : s.batch + s.chunk * s.chunk_prompts);
    const double uj = energy.total_pj / 1e6 / tokens;
    out << "         energy: " << (uj >= 1000.0 ? obs::fixed(uj / 1000.0, 3) + " mJ" : obs::fixed(uj, 3) + " µJ") << " per "
        << (s.phase == model::LlmPhase::decode ? "output token" : s.phase == model::LlmPhase::prefill ? "prompt token" : "token (output or prompt)")
        << ", "
        << obs::fixed(energy.average_w(), 2) << " W on average over the step\n";
}

WorkloadConfig load_model(const CliOptions& options, const TopologyConfig& topo, std::string* yaml) {
    const auto& registry = model::mappers();
    const auto mapper = registry.find(options.mapper);
    if (mapper == registry.end()) {
        std::string known;
        for (const auto& [name, fn] : registry) known += (known.empty() ? "" : ", ") + name;
        throw ConfigError({"command line", 0, 0, "--mapper"}, "unknown mapper '" + options.mapper + "' (known: " + known + ")");
    }
    model::ImportOptions import;
    import.batch = options.batch;
    // A size beyond 64 bits (checked arithmetic) is the model's: name its file.
    auto overflow = [&](const Overflow& e) { return model::ModelError(*options.model, "", "", e.what()); };
    model::Network net;
    if (const int cubes = topo.system.sips * topo.system.cubes_per_sip; options.tensor_parallel > cubes)
        throw ConfigError({"command line", 0, 0, "--tensor-parallel"},
                          "--tensor-parallel " + std::to_string(options.tensor_parallel) + ": the topology has " +
                              std::to_string(cubes) + (cubes == 1 ? " cube (card)" : " cubes (cards)"));
    try {
        if (options.llm) {
            // One step of a language model (docs/llm.md), built as a Network.
            const model::LlmConfig llm = model::load_llm_file(*options.model);
            model::LlmStep step;
            step.phase = options.prefill ? model::LlmPhase::prefill
                         : options.mixed ? model::LlmPhase::mixed
                                         : model::LlmPhase::decode;
            // A mixed step without --batch: the chunk alone, no sequence decoding.
            step.batch = options.batch > 0 ? static_cast<std::uint64_t>(options.batch) : options.mixed ? 0 : 1;
            step.chunk = options.chunk;
            step.chunk_prompts = options.chunk_prompts;
            step.chunk_past = options.chunk_past;
            step.context = options.context;
            step.layers = options.llm_layers;
            step.tensor_parallel = options.tensor_parallel;
            net = model::llm_step_network(llm, step);
            llm_answer() = llm_plan(llm, step, topo, std::max(options.map_cubes, options.tensor_parallel));
        } else {
            net = model::import_onnx(*options.model, import);
        }
    } catch (const Overflow& e) {
        throw overflow(e);
    }
    const int cubes = topo.system.sips * topo.system.cubes_per_sip;
    if (options.map_cubes > cubes)
        throw ConfigError({"command line", 0, 0, "--map-cubes"}, "--map-cubes " + std::to_string(options.map_cubes) +
                                                                     ": the topology has " + std::to_string(cubes) + " cubes");
    model::MapOptions map_options;
    map_options.cubes = options.map_cubes;
    map_options.recognise = options.patterns;
    map_options.device_queue = options.device_queue;
    map_options.compiled = options.compiled;
    map_options.prefetch = options.prefetch;
    map_options.tensor_parallel = options.tensor_parallel;
    // A language model's elements (bf16, or 8-bit: INT8 / FP8); an ONNX
    // model's run as bf16 (docs/models.md).
    if (llm_answer().given) map_options.elem_bytes = model::dtype_bytes(llm_answer().config.weights);
    map_options.all_reduce = options.all_reduce_tree ? model::MapOptions::AllReduce::tree : model::MapOptions::AllReduce::ring;
    model::Mapping mapping;
    try {
        mapping = mapper->second(net, topo, map_options);
    } catch (const Overflow& e) {
        throw overflow(e);
    }
    if (yaml) *yaml = mapping.workload_yaml;
    model_mapping() = mapping;
    std::size_t fused = 0;
    std::map<std::string, std::size_t> patterns;
    for (const auto& l : mapping.layers) {
        fused += l.fused.size();
        for (const std::string& p : l.patterns) ++patterns[p];
    }
    model_line() = "model    " + *options.model + ": " + std::to_string(net.nodes.size()) + " nodes -> " +
                   std::to_string(mapping.layers.size()) + " layers (" + std::to_string(fused) +
                   " nodes fused into them, " + std::to_string(mapping.folded.size()) +
                   " views / constants folded) by " + options.mapper;
    std::size_t cross = 0, staged = 0;
    for (const auto& t : mapping.transfers) (t.cross_cube ? cross : staged) += 1;
    if (options.map_cubes > 1)
        model_line() += " over " + std::to_string(options.map_cubes) + " cubes (" + std::to_string(cross) +
                        " cross-cube input reads)";
    if (options.tensor_parallel > 1) {
        std::size_t steps = 0;
        for (const auto& l : mapping.layers) steps += l.op == "AllReduce";
        model_line() += " split over " + std::to_string(options.tensor_parallel) + " cards (tensor parallel; " +
                        std::to_string(steps) + " " + model::to_string(map_options.all_reduce) + " all-reduce steps)";
    }
    if (options.device_queue) model_line() += "; launched through the device queue (--launch device)";
    if (options.compiled) {
        const std::size_t pes = mapping.compiled.size();
        model_line() += "; compiled: one kernel a PE on " + std::to_string(pes) + (pes == 1 ? " PE, " : " PEs, ") +
                        (mapping.barriers == 0 ? std::string("no barrier")
                                               : std::to_string(mapping.barriers) +
                                                     (mapping.barriers == 1 ? " barrier" : " barriers")) +
                        " (--launch compiled)";
        if (!options.prefetch)
            model_line() += ", weights read per token (--no-prefetch)";
        else
            model_line() += ", the weights of " + std::to_string(mapping.prefetched_layers) + " of " +
                            std::to_string(mapping.layers.size()) + " layers prefetched into TCM (" +
                            std::to_string(mapping.prefetch_chunks) +
                            (mapping.prefetch_chunks == 1 ? " prefetch)" : " prefetches)");
    }
    // What the recognition made of the file (docs/models.md "Recognised patterns").
    if (!options.patterns) {
        model_line() += "; patterns not recognised (--no-patterns)";
    } else if (!patterns.empty()) {
        std::string list;
        for (const auto& [name, n] : patterns) list += (list.empty() ? "" : ", ") + std::to_string(n) + " " + name;
        model_line() += "; recognised " + list;
    }
    model_line() += "; " + std::to_string(mapping.sram_tensors) + " outputs exchanged through shared SRAM, " +
                    std::to_string(staged) + " staged copies through HBM";
    return load_workload_text(mapping.workload_yaml, *options.model + " (mapped by " + options.mapper + ")", topo);
}

// `npuvp map MODEL --out FILE [options]`: writes the mapped workload.
int run_map(int argc, char* argv[]) {
    std::vector<const char*> args = {"npuvp"};
    std::optional<std::string> out;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--out") {
            if (i + 1 >= argc) throw ConfigError({"command line", 0, 0, "--out"}, "--out needs a file");
            out = argv[++i];
        } else if (i == 1 && !arg.empty() && arg[0] != '-') {
            args.push_back("--model");
            args.push_back(argv[i]);
        } else {
            args.push_back(argv[i]);
        }
    }
    const CliOptions options = parse_cli(static_cast<int>(args.size()), args.data(),
                                         std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/default.yaml");
    if (!options.model || !out)
        throw ConfigError({"command line", 0, 0, ""}, "usage: npuvp map MODEL.onnx --out FILE [--topology T] [--set K=V] [--batch N] [--mapper M]");
    const TopologyConfig topo = load_topology_file(options.topology, options.overrides, builtin_registry());
    std::string yaml;
    load_model(options, topo, &yaml);  // what it writes loads
    try {
        write_file_atomically(*out, [&](std::ostream& file) { file << yaml; });
    } catch (const std::runtime_error& e) {
        throw ConfigError({"command line", 0, 0, "--out"}, e.what());
    }
    std::cout << model_line() << "\nnpuvp map: wrote " << *out << "\n";
    return exit_ok;
}

// `npuvp trace-to-json TRACE --out FILE`: a --trace-binary trace as the
// JSON lines --trace writes for the same run, byte for byte.
int run_trace_to_json(int argc, char* argv[]) {
    std::optional<std::string> in, out;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--out" && i + 1 < argc) out = argv[++i];
        else if (!in && !arg.empty() && arg[0] != '-') in = arg;
        else in.reset(), out.reset(), i = argc;
    }
    const std::string usage = "usage: npuvp trace-to-json TRACE.bin --out FILE";
    if (!in || !out) throw ConfigError({"command line", 0, 0, ""}, usage);
    std::ifstream file(*in, std::ios::binary);
    if (!file) throw ConfigError({"command line", 0, 0, "trace-to-json"}, "cannot read '" + *in + "'");
    check_output_path("--out", *out);
    AtomicOutput json("--out", *out);
    const std::string error = binary_trace_to_json_lines(file, json.stream());
    if (!error.empty())
        throw ConfigError({"command line", 0, 0, "trace-to-json"}, "'" + *in + "': " + error);
    json.commit();
    std::cout << "npuvp trace-to-json: wrote " << *out << "\n";
    return exit_ok;
}

// Ends run() with `code`: the summary records it (a summary that cannot be
// written turns success into bad input, exit 2).
int finish(int code, const std::string& error = "") {
    if (!write_pending_summary(code, error) && code == exit_ok) return exit_bad_input;
    return code;
}

// Every output path, checked before anything runs (one error style, exit 2;
// docs/cli.md "Outputs"), and --summary given only where it has a run to
// describe.
void check_outputs(const CliOptions& options) {
    const bool summarised_run = runs_workload(options) && options.compare.empty() && options.compare_sets.empty() &&
                                !options.list && options.routes.empty();
    if (options.summary && !summarised_run) {
        pending_summary().path.reset();  // nothing to describe: no file at all
        throw ConfigError({"command line", 0, 0, ""},
                          "--summary: it describes one --workload or --model run; " +
                              std::string(!options.compare.empty() || !options.compare_sets.empty()
                                              ? "--compare writes each variant's itself"
                                          : options.list || !options.routes.empty()
                                              ? "--list and --route run nothing"
                                              : "without --workload or --model npuvp runs the platform probe, "
                                                "which has none"));
    }
    const std::pair<const char*, const std::optional<std::string>*> files[] = {
        {"--summary", &options.summary}, {"--trace", &options.trace},   {"--trace-binary", &options.trace_binary},
        {"--timeline", &options.timeline}, {"--svg", &options.svg},     {"--report", &options.report},
        {"--roofline", &options.roofline}, {"--vcd", &options.vcd},     {"--vcd-rtl", &options.vcd_rtl}};
    for (const auto& [flag, path] : files)
        if (*path) check_output_path(flag, **path);
    if (options.vcd) check_output_path("--vcd", gtkw_path(*options.vcd));
}

int run(int argc, char* argv[]) {
    if (argc > 1 && std::string(argv[1]) == "sweep") return run_sweep(argc - 1, argv + 1);
    if (argc > 1 && std::string(argv[1]) == "map") return run_map(argc - 1, argv + 1);
    if (argc > 1 && std::string(argv[1]) == "calibrate") return run_calibrate(argc - 1, argv + 1);
    if (argc > 1 && std::string(argv[1]) == "serve") return run_serve(argc - 1, argv + 1);
    if (argc > 1 && std::string(argv[1]) == "trace-to-json") return run_trace_to_json(argc - 1, argv + 1);
    note_summary_request(argc, argv);
    const CliOptions options =
        parse_cli(argc, argv, std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/default.yaml");
    check_outputs(options);
    if (options.help) {
        std::cout << cli_usage();
        return exit_ok;
    }
    if (options.version) {
        std::cout << "npuvp " << NPUVP_VERSION << " (SystemC " << sc_core::sc_release() << ")\n";
        return exit_ok;
    }
    const TopologyConfig topo =
        load_topology_file(options.topology, options.overrides, builtin_registry());
    if (!options.compare.empty() || !options.compare_sets.empty()) {
        // Each variant is its own process; check the inputs here first so a
        // bad file is one error, not one per variant.
        // (A variant's dumps go to the places the user named once the
        // variants are compared: checked against --dump-dir here.)
        std::vector<std::vector<std::string>> dumps;  // each variant's `dump` files, as written
        const auto check = [&](const std::string& w) {
            WorkloadConfig variant = load_workload_file(w, topo);
            std::vector<std::string>& files = dumps.emplace_back();
            for (const DataDump& d : variant.dumps) files.push_back(d.file);
            resolve_dump_paths(variant, options.dump_dir.value_or(""));
        };
        for (const std::string& w : options.compare) check(w);
        if (!options.compare_sets.empty()) {
            // One workload for every --compare-set variant: loaded once.
            check(*options.workload);
            dumps.resize(dumps.size() + options.compare_sets.size() - 1, dumps.back());
        }
        std::cout << "npuvp " << NPUVP_VERSION << "  topology " << options.topology << "\n";
        return run_compare(options, dumps, std::cout);
    }
    WorkloadConfig workload = options.model ? load_model(options, topo, nullptr)
                              : options.workload ? load_workload_file(*options.workload, topo)
                                                 : WorkloadConfig();
    resolve_dump_paths(workload, options.dump_dir.value_or(""));

    if (const std::uint64_t tiles = workload_tiles(workload); tiles > kLongRunTiles && options.max_tokens == 0)
        std::cerr << "npuvp: warning: the workload feeds " << tiles
                  << " tiles: at a few million tiles per second of wall time this runs for "
                  << (tiles / 3000000 >= 60 ? std::to_string(tiles / 180000000) + " min or more"
                                            : std::to_string(tiles / 3000000) + " s or more")
                  << "; --max-tokens N or --max-sim-time NS stops it with a partial report (docs/limits.md)\n";
    std::optional<AtomicOutput> trace_file;  // written beside --trace, renamed at the end
    TraceSink trace;
    if (options.trace) trace.attach(&trace_file.emplace("--trace", *options.trace).stream());
    if (options.trace_binary)
        trace.attach(&trace_file.emplace("--trace-binary", *options.trace_binary).stream(), TraceFormat::binary);
    // The trace is renamed into place however the run ended (a failed run's
    // trace shows what led to the stop); a write error throws, exit 1.
    auto close_trace = [&] {
        if (!trace_file || trace_file->committed()) return;
        trace.flush();
        trace_file->commit();
        std::cout << "trace    " << trace.events() << " events -> " << trace_file->path() << "\n";
    };

    // --timeline, --svg and --report: the recorder gathers what they draw
    // while the run goes (report/run_recorder.h), bounded by the tile detail.
    const OutputFiles files{options.timeline, options.svg, options.report, options.roofline};
    const bool outputs = files.any();
    obs::RunRecorder recorder(options.detail);
    if (outputs && runs_workload(options)) trace.listen(&recorder);

    // The machine is kept until the process ends, like the kernel's own
    // objects and the RequestRound: destroying it one SystemC object at a
    // time goes through kernel registries that search from their start,
    // quadratic in the machine (9 s of a 16,384-PE machine's 15 s, issue
    // 38), and frees nothing the exit does not. A static keeps it reachable.
    static Platform* const kept = new Platform(topo, trace);
    Platform& platform = *kept;
    // A run limit needs the kernel's time to be every PE's (docs/limits.md).
    const bool limited = !options.per_stage && (options.max_tokens != 0 || options.max_sim_given);
    platform.decoupler().set_enabled(!options.per_stage && !limited);
    std::cout << "npuvp " << NPUVP_VERSION << "  topology " << options.topology << "\n";
    print_machine(platform, std::cout);
    if (!model_line().empty()) std::cout << model_line() << "\n";
    if (options.list) print_list(platform, std::cout);
    for (const auto& [from, to] : options.routes) print_route(platform, from, to, std::cout);
    if (options.list || !options.routes.empty()) return exit_ok;

    // --vcd-rtl: the RTL blocks' own waveforms, written while the run goes.
    std::unique_ptr<RtlWaves> rtl_waves;
    if (options.vcd_rtl) rtl_waves = open_rtl_waves(*options.vcd_rtl, rtl_blocks(platform));
    auto close_vcd_rtl = [&] {
        if (!rtl_waves) return;
        rtl_waves.reset();
        std::cout << "vcd-rtl  " << *options.vcd_rtl << "\n";
    };

    if (runs_workload(options)) {
        WorkloadRun run(platform, workload);
        sc_core::sc_trace_file* vcd = open_vcd(options, platform);
        std::string stopped;  // a limit that stopped the run (docs/limits.md)
        SimSpeed speed = simulate(&run, platform, options, stopped);
        trace.flush();  // the last instant's events (a run stopped by a limit has not)
        const Platform::WorkCounts work = platform.work_counts();
        speed.stage_events = work.stage_events;
        speed.tiles = work.tiles;
        note_pipelines(platform.decoupler(), speed, limited);
        close_vcd_rtl();
        pending_summary().data.take_results(run, platform);
        pending_summary().data.speed = speed;
        const std::string name = !workload.name.empty() ? workload.name
                                 : options.model        ? *options.model
                                                        : *options.workload;
        if (!stopped.empty() || !run.finished()) {
            close_vcd(options, vcd, platform);
            print_run(std::cout, run);
            // What ran up to the stop, marked as failed (docs/cli.md "Outputs").
            if (outputs) write_outputs(files, run, platform, recorder, name, false, std::cout);
            if (!stopped.empty()) {
                // A limit, not the model, ended it: what ran is reported as a
                // failed run's (docs/limits.md "Long runs").
                std::cerr << "npuvp: run stopped: " << stopped << "; the report is what ran up to the stop:\n"
                          << run.diagnosis();
                close_trace();
                return finish(exit_run_failed, "run stopped: " + stopped);
            }
            std::cerr << "npuvp: run failed";
            if (!platform.status().failed())
                std::cerr << " (the simulation ran out of events with work outstanding — a deadlock — or "
                             "a request failed)";
            std::cerr << ":\n" << run.diagnosis();
            close_trace();
            return finish(exit_run_failed, platform.status().failed() ? platform.status().error()
                                                                       : run.diagnosis());
        }
        // What bound the run opens its report (docs/outputs.md "What bound the run");
        // the bound, roofline and energy are computed once and shown by every output.
        const obs::RunView view = obs::build_view(run, platform, recorder);
        std::vector<LayerResult> layers;
        if (options.model) layers = layer_results(model_mapping(), run, topo);
        const RunAnswers answers = answer_run(run, platform, view, layers, options.power_window_ps);
        pending_summary().data.take_answers(answers);
        pending_summary().data.layers = layers;
        print_run(std::cout, run, &answers.bound);
        if (options.model) print_layers(std::cout, layers, run.makespan_ps());
        if (llm_answer().given) print_llm(std::cout, llm_answer(), run.makespan_ps(), answers.energy);
        print_roofline(std::cout, answers.roofline);
        print_energy(std::cout, answers.energy);
        close_vcd(options, vcd, platform, &answers.energy);
        print_speed(speed, std::cout);
        write_outputs(files, run, platform, recorder, name, true, std::cout, layers, &view, &answers);
        // Data mode: the workload's `dump` regions (docs/workload.md "Operand data").
        if (run.data() != nullptr && !workload.dumps.empty()) {
            try {
                run.data()->write_dumps(workload);
            } catch (const std::exception& e) {
                std::cerr << "npuvp: " << e.what() << "\n";
                close_trace();
                return finish(exit_bad_input, e.what());
            }
            for (const DataDump& dump : workload.dumps) std::cout << "dump     " << dump.file << "\n";
        }
    } else {
        if (outputs)
            std::cerr << "npuvp: note: --timeline, --svg and --report apply to --workload "
                         "runs; ignored for the probe\n";
        Probe probe("probe", platform, options.probe_bytes, trace);
        sc_core::sc_trace_file* vcd = open_vcd(options, platform);
        std::string stopped;
        simulate(nullptr, platform, options, stopped);
        close_vcd(options, vcd, platform);
        close_vcd_rtl();
        if (!probe.finished()) {
            std::cerr << "npuvp: run failed: the simulation ran out of events at "
                      << sc_core::sc_time_stamp() << " before the probe finished\n";
            close_trace();
            return exit_run_failed;
        }
        print_probe(probe, std::cout);
    }
    close_trace();
    return finish(exit_ok);
}

}  // namespace
}  // namespace npuvp

namespace {
// The kernel prints its banner on stdout unless told not to, and it may do so
// before sc_main runs; the summary is what an architect reads, so keep stdout
// for it. Set at static initialisation, before the kernel's main().
const int quiet_kernel_banner = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
}  // namespace

int sc_main(int argc, char* argv[]) {
    (void)quiet_kernel_banner;
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    try {
        return npuvp::run(argc, argv);
    } catch (const npuvp::ConfigError& e) {
        std::cerr << "npuvp: error: " << e.what() << "\n";
        npuvp::write_pending_summary(npuvp::exit_bad_input, e.what());
        return npuvp::exit_bad_input;
    } catch (const npuvp::model::ModelError& e) {
        std::cerr << "npuvp: error: " << e.what() << "\n";
        npuvp::write_pending_summary(npuvp::exit_bad_input, e.what());
        return npuvp::exit_bad_input;
    } catch (const npuvp::Overflow& e) {  // from the inputs alone, before the run (issue 21)
        std::cerr << "npuvp: error: " << e.what() << "\n";
        npuvp::write_pending_summary(npuvp::exit_bad_input, e.what());
        return npuvp::exit_bad_input;
    } catch (const std::invalid_argument& e) {
        std::cerr << "npuvp: error: " << e.what() << "\n";
        npuvp::write_pending_summary(npuvp::exit_bad_input, e.what());
        return npuvp::exit_bad_input;
    } catch (const std::logic_error& e) {
        std::cerr << "npuvp: internal error: " << e.what() << "\n";
        npuvp::write_pending_summary(npuvp::exit_internal, e.what());
        return npuvp::exit_internal;
    } catch (const std::exception& e) {
        std::cerr << "npuvp: run failed: " << e.what() << "\n";
        npuvp::write_pending_summary(npuvp::exit_run_failed, e.what());
        return npuvp::exit_run_failed;
    }
}
