// npuvp_bench: how fast npuvp simulates (docs/speed.md, SPEC §9).
//
//   ./build/bench/npuvp_bench            the full suite (about a minute on 2 cores)
//   ./build/bench/npuvp_bench --smoke    tiny sizes of every case (seconds; CTest bench_smoke)
//   ./build/bench/npuvp_bench --no-baseline   skip the SimPy baseline
//   ./build/bench/npuvp_bench --repeat N      runs per case (median; default 3, smoke 1)
//   ./build/bench/npuvp_bench --case outputs --m M --k K --n N --out PREFIX
//                                              one outputs case by hand (files PREFIX.*)
//
// Every case runs in its own process (SystemC elaborates once per process):
// the harness re-executes itself through /proc/self/exe with `--case ...`, as
// `npuvp --compare` does, reads the child's RESULT line and its peak resident
// memory (wait4 rusage). Every process runs on the CPU the bench started on.
// The SimPy baseline (baseline_simpy/pe_pipeline.py) runs the one-PE and
// eight-PE cases, launched directly and by a host kernel_launch, in the same
// run, its runs alternating with the case's own (the bench fails when a
// makespan differs from npuvp's by a picosecond);
// the `kernel` case is a
// raw SystemC ping-pong, the physical limit of this machine's kernel. With
// the RTL co-simulation built, `rtl_gemm` / `rtl_cpp` (the GEMM array) and
// `rtl_math` / `rtl_math_cpp` (the vector unit) measure RTL cycles per second
// and the slowdown against the C++ model (docs/rtl.md).
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

#include "config/config_error.h"
#include "platform/impl_registry.h"
#include "platform/platform.h"
#include "platform/rtl_support.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "model/mapper.h"
#include "model/onnx_import.h"
#include "platform/workload_run.h"
#include "modules/pe/pe_routes.h"
#include "report/run_outputs.h"
#include "sc_main/self_exec.h"
#include "tlm_sockets/route.h"


namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// ---------------------------------------------------------------- child side

// Where the GEMM runs: pe0 of sip0.cube0, all 8 PEs of it, or every PE of a
// 2 SIP x 4 cube x 8 PE system.
enum class Placement { one, eight, all };
// How it starts: a direct `launch` at t = 0, or one host `kernel_launch`
// request through IO_CPU, M_CPU and PE_CPU, as every real program starts
// (docs/workload.md "Host requests"; `one` and `eight` only).
enum class Launcher { direct, host };

// `all`: every PE of `sips` SIPs of `cubes` cubes each. Operand reuse off
// (reuse: none): the SimPy port, seed 000's pipeline, reloads both operands
// per token, and the bench compares makespans with it to the picosecond.
std::string gemm_workload(Placement where, std::uint64_t m, std::uint64_t k, std::uint64_t n,
                          int sips = 0, int cubes = 0, Launcher how = Launcher::direct) {
    std::ostringstream w;
    w << "name: bench_gemm\n"
         "kernels:\n"
         "  gemm:\n"
         "    - composite:\n"
         "        id: fc\n"
      << "        gemm: { m: " << m << ", k: " << k << ", n: " << n << " }\n"
      << "        tile: { m: 128, k: 128, n: 128 }\n"
         "        dtype: { in: bf16, out: bf16 }\n"
         "        epilogues:\n"
         "          - { op: bias_add, scope: per_output_tile }\n"
         "        reuse: none\n"
         "        wait: true\n";
    if (how == Launcher::host) {
        w << "host:\n  - kernel_launch: { id: go, kernel: gemm, cubes: [sip0.cube0], target_pe: "
          << (where == Placement::one ? "[0]" : "all") << " }\n";
        return w.str();
    }
    w << "launch:\n";
    if (where == Placement::one) w << "  - { kernel: gemm, cube: sip0.cube0, pes: [0] }\n";
    if (where == Placement::eight) w << "  - { kernel: gemm, cube: sip0.cube0, pes: all }\n";
    if (where == Placement::all)
        for (int s = 0; s < sips; ++s)
            for (int c = 0; c < cubes; ++c)
                w << "  - { kernel: gemm, cube: sip" << s << ".cube" << c << ", pes: all }\n";
    return w.str();
}

void print_result(const std::map<std::string, std::string>& kv) {
    std::cout << "RESULT";
    for (const auto& [k, v] : kv) std::cout << ' ' << k << '=' << v;
    std::cout << std::endl;
}

template <typename T>
std::string str(T v) {
    std::ostringstream o;
    o << std::setprecision(12) << v;
    return o.str();
}

// Runs the elaborated model to its end: the kernel's initialisation (end of
// elaboration, every process started on its own stack, the t = 0 delta
// cycles) timed on its own, since it costs per process, not per token; then
// the simulation, with the delta cycles it took.
struct Timing {
    double init_s = 0, wall_s = 0;
    std::uint64_t deltas = 0;
};

Timing simulate_timed() {
    Timing t;
    const auto ti = clock_type::now();
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    t.init_s = seconds_since(ti);
    const std::uint64_t deltas0 = sc_core::sc_delta_count();
    const auto t1 = clock_type::now();
    sc_core::sc_start();
    t.wall_s = seconds_since(t1);
    t.deltas = sc_core::sc_delta_count() - deltas0;
    return t;
}

// Builds the platform for `topo` and `workload` (tracing off: the sink is
// not attached, as in an ordinary run), runs it to its end and prints its
// RESULT line; `t0` is when loading began (the elaboration time starts
// there). `listener` (if any) hears every event as the run goes; `more` adds
// case-specific fields after the run.
using Fields = std::map<std::string, std::string>;
int simulate_case(
    const npuvp::TopologyConfig& topo, const npuvp::WorkloadConfig& workload,
    clock_type::time_point t0,
    const std::function<void(const npuvp::Platform&, const npuvp::WorkloadRun&, Fields&)>& more = {},
    npuvp::TraceListener* listener = nullptr, bool per_stage = false) {
    npuvp::TraceSink trace;
    if (listener) trace.listen(listener);
    // Kept until the process ends, as npuvp keeps it: SystemC's registries
    // make a teardown quadratic (~10 s of a 16,384-PE case; docs/speed.md
    // "Scale: 16,384 PEs"). One case a process.
    static npuvp::Platform* const kept = new npuvp::Platform(topo, trace);
    npuvp::Platform& platform = *kept;
    platform.decoupler().set_enabled(!per_stage);  // npuvp --per-stage
    npuvp::WorkloadRun run(platform, workload);
    const double elab = seconds_since(t0);

    const Timing t = simulate_timed();
    trace.flush();  // the last instant's events, before the listener is read
    if (!run.finished()) {
        std::cerr << "npuvp_bench: run did not finish:\n" << run.diagnosis();
        return 3;
    }
    const npuvp::Platform::WorkCounts work = platform.work_counts();
    // MNIST is simple commands (one token each), not composite tiles.
    const std::uint64_t tokens = work.tiles ? work.tiles : work.commands;
    Fields fields{{"elab_s", str(elab)},
                  {"init_s", str(t.init_s)},
                  {"wall_s", str(t.wall_s)},
                  {"tokens", str(tokens)},
                  {"stages", str(work.stage_events)},
                  {"activations", str(work.activations)},
                  {"deltas", str(t.deltas)},
                  {"pes", str(work.pes)},
                  {"decoupled", str(platform.decoupler().decoupled_pes())},
                  // Process activations the kernel ran: the model's, less
                  // those a pipeline calendar ran, plus the calendars' driver.
                  {"kernel_activations", str(work.activations - platform.decoupler().activities() +
                                             platform.decoupler().runs())},
                  {"makespan_ps", str(run.makespan_ps())}};
    if (more) more(platform, run, fields);
    print_result(fields);
    return 0;
}

// "<case>_stage": the same case per stage (npuvp --per-stage). Strips the
// suffix from `what` and says whether it was there.
bool strip_per_stage(std::string& what) {
    const std::string suffix = "_stage";
    if (what.size() <= suffix.size() || what.compare(what.size() - suffix.size(), suffix.size(), suffix) != 0)
        return false;
    what.resize(what.size() - suffix.size());
    return true;
}

// "onnx_<model>": configs/models/<model>.onnx imported, mapped by the greedy
// mapper and run on default.yaml (docs/models.md); its elab_s includes the
// import and the mapping, and map_s is those alone.
int run_onnx_case(const std::string& model) {
    const std::string src = NPUVP_SOURCE_DIR;
    const auto t0 = clock_type::now();
    const npuvp::TopologyConfig topo =
        npuvp::load_topology_file(src + "/configs/topologies/default.yaml", {}, npuvp::builtin_registry());
    const std::string file = src + "/configs/models/" + model + ".onnx";
    const npuvp::model::Mapping mapping =
        npuvp::model::greedy_map(npuvp::model::import_onnx(file), topo, npuvp::model::MapOptions{});
    const npuvp::WorkloadConfig workload = npuvp::load_workload_text(mapping.workload_yaml, file, topo);
    const double map_s = seconds_since(t0);
    return simulate_case(topo, workload, t0,
                         [&](const npuvp::Platform&, const npuvp::WorkloadRun&, Fields& f) { f["map_s"] = str(map_s); });
}

int run_model_case(std::string what, std::uint64_t m, std::uint64_t k, std::uint64_t n) {
    if (what.rfind("onnx_", 0) == 0) return run_onnx_case(what.substr(5));
    const bool per_stage = strip_per_stage(what);
    const std::string src = NPUVP_SOURCE_DIR;
    const auto t0 = clock_type::now();
    std::string topo_path = src + "/configs/topologies/default.yaml";
    std::vector<npuvp::Override> overrides;
    // all64 / all256 / all1024: two_sip.yaml grown to 2 x 4 and 2 x 16
    // cubes of 8 PEs, and 4 x 16 cubes of 16 PEs (a 4 x 4 mesh; the
    // loader allows 64 cubes).
    int sips = 0, cubes = 0;
    if (what == "all64") sips = 2, cubes = 4;
    if (what == "all256") sips = 2, cubes = 16;
    if (what == "all1024") sips = 4, cubes = 16;
    // scale1024 / scale4096 / scale16384: scale_16k.yaml (cubes of 256 PEs)
    // cut to 1 x 4 and 2 x 8 cubes, and whole (8 x 8).
    const bool scale = what.rfind("scale", 0) == 0;
    if (what == "scale1024") sips = 1, cubes = 4;
    if (what == "scale4096") sips = 2, cubes = 8;
    if (what == "scale16384") sips = 8, cubes = 8;
    if (scale) {
        topo_path = src + "/configs/topologies/scale_16k.yaml";
        overrides.push_back(npuvp::parse_override("system.sips=" + std::to_string(sips)));
        overrides.push_back(npuvp::parse_override("system.cubes_per_sip=" + std::to_string(cubes)));
    } else if (sips) {
        topo_path = src + "/configs/topologies/two_sip.yaml";
        overrides.push_back(npuvp::parse_override("system.sips=" + std::to_string(sips)));
        overrides.push_back(npuvp::parse_override("system.cubes_per_sip=" + std::to_string(cubes)));
        if (what == "all1024") {
            overrides.push_back(npuvp::parse_override("cube.pe_layout.rows=4"));
            overrides.push_back(npuvp::parse_override("cube.memory_map.hbm_slices_per_cube=16"));
        }
    }
    if (what == "mnist") topo_path = src + "/configs/topologies/rngd_pe.yaml";
    const npuvp::TopologyConfig topo =
        npuvp::load_topology_file(topo_path, overrides, npuvp::builtin_registry());
    const npuvp::WorkloadConfig workload =
        what == "mnist"
            ? npuvp::load_workload_file(src + "/configs/workloads/mnist_mlp_opbyop.yaml", topo)
            : npuvp::load_workload_text(
                  gemm_workload(what == "one" || what == "host_one"       ? Placement::one
                                : what == "eight" || what == "host_eight" ? Placement::eight
                                                                          : Placement::all,
                                m, k, n, sips, cubes,
                                what.rfind("host_", 0) == 0 ? Launcher::host : Launcher::direct),
                  "bench", topo);
    return simulate_case(topo, workload, t0, {}, nullptr, per_stage);
}

// The GEMM on pe0 of default.yaml with every output of a workload run on, as
// `npuvp --timeline --svg --report` writes them (report/run_outputs.h; the
// recorder listens to the run with the default tile detail): the files go
// to `out` + ".timeline.json", ".svg" and ".report.json". Reports the
// simulation's wall time (recording included), the time to write the
// files, their sizes and the tile detail kept; the parent reads the peak RSS.
int run_outputs_case(std::uint64_t m, std::uint64_t k, std::uint64_t n, const std::string& out) {
    const std::string src = NPUVP_SOURCE_DIR;
    const auto t0 = clock_type::now();
    const npuvp::TopologyConfig topo =
        npuvp::load_topology_file(src + "/configs/topologies/default.yaml", {}, npuvp::builtin_registry());
    const npuvp::WorkloadConfig workload =
        npuvp::load_workload_text(gemm_workload(Placement::one, m, k, n), "bench", topo);
    npuvp::obs::RunRecorder recorder;
    auto write_files = [&](const npuvp::Platform& platform, const npuvp::WorkloadRun& run,
                           Fields& fields) {
        const npuvp::OutputFiles files{out + ".timeline.json", out + ".svg", out + ".report.json", std::nullopt};
        const auto tw = clock_type::now();
        std::ostringstream names;
        npuvp::write_outputs(files, run, platform, recorder, "bench", false, names);
        fields["write_s"] = str(seconds_since(tw));
        auto size_of = [](const std::string& path) {
            std::ifstream in(path, std::ios::binary | std::ios::ate);
            return str(static_cast<std::uint64_t>(in ? static_cast<std::uint64_t>(in.tellg()) : 0));
        };
        std::uint64_t slices = 0;
        for (const auto& l : recorder.lanes()) slices += l.slices;
        fields["intervals"] = str(slices);
        fields["detail_intervals"] = str(recorder.slices().size());
        fields["timeline_bytes"] = size_of(*files.timeline);
        fields["svg_bytes"] = size_of(*files.svg);
        fields["report_bytes"] = size_of(*files.report);
    };
    return simulate_case(topo, workload, t0, write_files, &recorder);
}

// `commands` relu commands of `elements` each on pe0, one after another.
std::string math_workload(std::uint64_t commands, std::uint64_t elements) {
    std::ostringstream w;
    w << "name: bench_math\nkernels:\n  k:\n";
    for (std::uint64_t i = 0; i < commands; ++i)
        w << "    - math: { id: m" << i << ", op: relu, elements: " << elements << " }\n";
    w << "    - wait: all\nlaunch:\n  - { kernel: k, cube: sip0.cube0, pes: [0] }\n";
    return w.str();
}

// RTL co-simulation (docs/rtl.md): the GEMM on pe0 of rtl_gemm.yaml, with
// the Verilated array (`rtl`) or the C++ model configured like it
// (`rtl_cpp`); or `m` relu commands of `k` elements on pe0 of
// rtl_gemm_math.yaml, with the Verilated vector unit (`rtl_math`) or the C++
// model configured like it (`rtl_math_cpp`). Reports the RTL cycles
// clocked, for cycles per second.
int run_rtl_case(const std::string& what, std::uint64_t m, std::uint64_t k, std::uint64_t n) {
    const std::string src = NPUVP_SOURCE_DIR;
    const auto t0 = clock_type::now();
    const bool math = what.rfind("rtl_math", 0) == 0;
    std::vector<npuvp::Override> overrides;
    if (what == "rtl_cpp")
        overrides.push_back(
            npuvp::parse_override("cube.pe_template.components.pe_gemm.impl=builtin.pe_gemm"));
    if (what == "rtl_math_cpp")
        overrides.push_back(
            npuvp::parse_override("cube.pe_template.components.pe_math.impl=builtin.pe_math"));
    const npuvp::TopologyConfig topo = npuvp::load_topology_file(
        src + (math ? "/configs/topologies/rtl_gemm_math.yaml" : "/configs/topologies/rtl_gemm.yaml"),
        overrides, npuvp::builtin_registry());
    const npuvp::WorkloadConfig workload = npuvp::load_workload_text(
        math ? math_workload(m, k) : gemm_workload(Placement::one, m, k, n), "bench", topo);
    return simulate_case(topo, workload, t0,
                         [](const npuvp::Platform& platform, const npuvp::WorkloadRun&, Fields& fields) {
        const npuvp::Pe& pe = *platform.sips()[0].cubes[0].pes[0];
        std::uint64_t rtl_cycles = 0;
        for (const npuvp::RtlBlock* b : npuvp::rtl_blocks(platform)) rtl_cycles += b->rtl_cycles();
        fields["gemm_stages"] = str(pe.gemm().worker().stages_done());
        fields["math_stages"] = str(pe.math().worker().stages_done());
        fields["rtl_cycles"] = str(rtl_cycles);
    });
}

// The T1 routes of pe0 on the default topology, one hop a line, in the order
// the SimPy baseline hard-codes them (bench/baseline_simpy/pe_pipeline.py);
// then the control routes of a host kernel launch (IO_CPU -> M_CPU ->
// PE_CPU of every PE of sip0.cube0, and the responses back), each with its
// path and the nodes on it that add a transit cost (an IO_CPU or M_CPU
// between its ends), which the baseline derives from the topology.
int run_routes_case() {
    const npuvp::TopologyConfig topo = npuvp::load_topology_file(
        std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/default.yaml", {},
        npuvp::builtin_registry());
    npuvp::TraceSink trace;
    npuvp::Platform platform(topo, trace);
    npuvp::PeRoutes& routes = *platform.sips()[0].cubes[0].routes[0];
    auto dump = [](const char* name, const npuvp::Route& r) {
        std::cout << name << ": latency_ps=" << r.latency_ps << " min_bw_gbs=" << r.min_bw_gbs << "\n";
        for (const npuvp::RouteStep& s : r.steps)
            std::cout << "    " << s.hop->name() << " latency_ps=" << s.hop->latency_ps()
                      << " bw_gbs=" << s.hop->bw_gbs() << "\n";
    };
    dump("to_scheduler", routes.to_scheduler());
    dump("dma_read", routes.dma(npuvp::DmaDirection::read, 0, 0));
    dump("dma_write", routes.dma(npuvp::DmaDirection::write, 0, 0));
    dump("fetch", routes.fetch());
    dump("store", routes.store());

    // A launch's messages carry n = 0 bytes: pure latency (T1 "Control
    // messages"), so a route's latency_ps is all its transport adds, but for
    // the transit costs of the nodes between its ends (none on default.yaml).
    auto control = [&](const std::string& name, npuvp::RoutedNode& from, npuvp::RoutedNode& to) {
        const npuvp::Route& r = platform.route(from, to);
        std::cout << name << ": latency_ps=" << r.latency_ps << " path=";
        std::string transit;
        for (std::size_t i = 0; i < r.path.size(); ++i) {
            const npuvp::RoutedNode& node = *r.path[i].node;
            std::cout << (i ? " > " : "") << node.node_id_ref();
            if (i > 0 && i + 1 < r.path.size() && node.has_transit_cost())
                transit += (transit.empty() ? "" : ", ") + node.node_id_ref();
        }
        std::cout << " transit_cost_at=" << (transit.empty() ? "none" : transit) << "\n";
        for (const npuvp::RouteStep& s : r.steps)
            std::cout << "    " << s.hop->name() << " latency_ps=" << s.hop->latency_ps() << "\n";
    };
    npuvp::RoutedNode& io_cpu = platform.node(npuvp::NodeRole::io_cpu, 0, 0, 0);
    npuvp::RoutedNode& m_cpu = platform.node(npuvp::NodeRole::m_cpu, 0, 0, 0);
    control("io_cpu->m_cpu", io_cpu, m_cpu);
    for (int p = 0; p < platform.pes_per_cube(); ++p)
        control("m_cpu->pe" + std::to_string(p) + ".pe_cpu", m_cpu,
                platform.node(npuvp::NodeRole::pe_cpu, 0, 0, p));
    for (int p = 0; p < platform.pes_per_cube(); ++p)
        control("pe" + std::to_string(p) + ".pe_cpu->m_cpu",
                platform.node(npuvp::NodeRole::pe_cpu, 0, 0, p), m_cpu);
    control("m_cpu->io_cpu", m_cpu, io_cpu);
    return 0;
}

// The kernel's own cost: two threads hand control to each other through
// delta notifications, `iters` round trips = 2·iters context switches.
SC_MODULE(PingPong) {
    std::uint64_t iters = 0;
    sc_core::sc_event to_a, to_b;
    void a() {
        for (std::uint64_t i = 0; i < iters; ++i) {
            to_b.notify(sc_core::SC_ZERO_TIME);
            wait(to_a);
        }
    }
    void b() {
        for (;;) {
            wait(to_b);
            to_a.notify(sc_core::SC_ZERO_TIME);
        }
    }
    SC_CTOR(PingPong) {
        SC_THREAD(a);
        SC_THREAD(b);
    }
};

// The same with two SC_METHODs (no stacks, no context switch): the limit for
// npuvp's stage workers, which are methods (docs/speed.md). `iters` round
// trips = 2·iters method activations.
SC_MODULE(PingPongMethod) {
    std::uint64_t iters = 0, done = 0;
    sc_core::sc_event to_a, to_b;
    void a() {
        if (done++ < iters) to_b.notify(sc_core::SC_ZERO_TIME);
    }
    void b() { to_a.notify(sc_core::SC_ZERO_TIME); }
    SC_CTOR(PingPongMethod) {
        SC_METHOD(a);
        sensitive << to_a;
        SC_METHOD(b);
        sensitive << to_b;
        dont_initialize();
    }
};

int run_kernel_case(std::uint64_t iters, bool methods) {
    const auto t0 = clock_type::now();
    std::unique_ptr<PingPong> threads_pp;
    std::unique_ptr<PingPongMethod> methods_pp;
    if (methods) {
        methods_pp = std::make_unique<PingPongMethod>("pingpong");
        methods_pp->iters = iters;
    } else {
        threads_pp = std::make_unique<PingPong>("pingpong");
        threads_pp->iters = iters;
    }
    const double elab = seconds_since(t0);
    const Timing t = simulate_timed();
    print_result({{"elab_s", str(elab)},
                  {"init_s", str(t.init_s)},
                  {"wall_s", str(t.wall_s)},
                  {"switches", str(2 * iters)},
                  {"deltas", str(t.deltas)}});
    return 0;
}

// ---------------------------------------------------------------- parent side

struct Case {
    std::string name;
    std::string what;  // one, eight, host_one, host_eight, all64, scale4096, mnist, kernel
    std::uint64_t m = 0, k = 0, n = 0;
    int baseline_pes = 0;  // 0: no SimPy run
    bool host = false;     // launched by a host kernel_launch: so is its SimPy run
    // measured
    std::map<std::string, double> r;
    double rss_mib = 0;
    bool ok = false;
    // SimPy
    bool base_ok = false;
    std::map<std::string, double> base;
};

std::map<std::string, double> parse_result(const std::string& text, const char* tag) {
    std::map<std::string, double> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(tag, 0) != 0) continue;
        std::istringstream words(line.substr(std::strlen(tag)));
        std::string w;
        while (words >> w) {
            const auto eq = w.find('=');
            if (eq != std::string::npos) out[w.substr(0, eq)] = std::atof(w.c_str() + eq + 1);
        }
    }
    return out;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Runs `program args`, stdout and stderr to `log`; returns the exit code and
// the child's peak resident set (KiB).
int spawn(const std::string& program, const std::vector<std::string>& args,
          const std::string& log, long* maxrss_kib) {
    const pid_t pid = npuvp::start_process(program, args, log);
    if (pid < 0) return -1;
    int status = 0;
    struct rusage usage {};
    if (wait4(pid, &status, 0, &usage) < 0) return -1;
    if (maxrss_kib) *maxrss_kib = usage.ru_maxrss;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string fixed(double v, int prec) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(prec) << v;
    return o.str();
}

std::string sci(double v) {
    std::ostringstream o;
    if (v >= 1e6)
        o << std::fixed << std::setprecision(2) << v / 1e6 << " M";
    else if (v >= 1e3)
        o << std::fixed << std::setprecision(1) << v / 1e3 << " k";
    else
        o << std::fixed << std::setprecision(1) << v;
    return o.str();
}

// RTL co-simulation speed (docs/speed.md, docs/rtl.md): RTL cycles per
// second of wall time, and the slowdown against the C++ model on the same
// work (the same topology with builtin.pe_gemm).
void print_rtl(const std::vector<Case>& cases) {
    const auto find = [&](const char* what) -> const Case* {
        for (const Case& c : cases)
            if (c.what == what && c.ok) return &c;
        return nullptr;
    };
    const auto print = [](const Case* rtl, const Case* cpp, const std::string& title,
                          const char* name, const char* stages, const char* builtin) {
        if (!rtl) return;
        const double cycles = rtl->r.at("rtl_cycles"), wall = rtl->r.at("wall_s");
        std::cout << "\nRTL co-simulation (" << title << "):\n"
                  << "  " << std::left << std::setw(13) << name << std::right
                  << std::uint64_t(cycles) << " RTL cycles in " << std::uint64_t(rtl->r.at(stages))
                  << " stages, wall " << fixed(wall, 3) << " s = " << sci(cycles / wall)
                  << " RTL cycles/s (" << fixed(wall / cycles * 1e9, 1)
                  << " ns of wall time per cycle)\n";
        if (!cpp) return;
        const double cwall = cpp->r.at("wall_s");
        const double mk = rtl->r.at("makespan_ps"), cmk = cpp->r.at("makespan_ps");
        std::cout << "  " << std::left << std::setw(13) << (std::string(name) + "_cpp") << std::right
                  << "the same run with " << builtin << ": wall " << fixed(cwall, 4)
                  << " s; co-simulation is " << fixed(wall / cwall, 0)
                  << "x slower; makespan " << fixed(mk / 1e6, 6) << " us (RTL) vs "
                  << fixed(cmk / 1e6, 6) << " us (C++): "
                  << (mk == cmk ? std::string("identical")
                                : "differ by " + fixed((mk - cmk) / 1e3, 3) + " ns")
                  << "\n";
    };
    if (const Case* rtl = find("rtl"))
        print(rtl, find("rtl_cpp"),
              "rtl_gemm.yaml, pe0, " + std::to_string(rtl->m) + "x" + std::to_string(rtl->k) + "x" +
                  std::to_string(rtl->n) + " in 128^3 tiles, 8 x 8 RTL array at 1 GHz",
              "rtl_gemm", "gemm_stages", "builtin.pe_gemm");
    if (const Case* rtl = find("rtl_math"))
        print(rtl, find("rtl_math_cpp"),
              "rtl_gemm_math.yaml, pe0, " + std::to_string(rtl->m) + " relu commands of " +
                  std::to_string(rtl->k) + " elements, 16-lane RTL vector unit at 1 GHz",
              "rtl_math", "math_stages", "builtin.pe_math");
}

// The pe*_512 cases (docs/speed.md "Scale: 16,384 PEs"): the wall time
// per token on every PE of a larger machine against 8 PEs, the same work a
// PE, in the same run (issue 38: at most 2x).
void print_scale(const std::vector<Case>& cases) {
    const auto find = [&](const std::string& name) -> const Case* {
        for (const Case& c : cases)
            if (c.name == name && c.ok) return &c;
        return nullptr;
    };
    const Case* base = find("pe8_512");
    if (base == nullptr) return;
    const double base_per_token = base->r.at("wall_s") / base->r.at("tokens");
    std::cout << "\ncost per token as the machine grows (the same GEMM on every PE; wall s per token "
                 "against pe8_512's):\n";
    for (const char* name : {"pe1024_512", "pe4096_512", "pe16384_512"}) {
        const Case* c = find(name);
        if (c == nullptr) continue;
        const double per_token = c->r.at("wall_s") / c->r.at("tokens");
        std::cout << "  " << std::left << std::setw(12) << name << std::right << " "
                  << std::uint64_t(c->r.at("pes")) << " PEs: " << fixed(per_token * 1e6, 3)
                  << " us per token = " << fixed(per_token / base_per_token, 2) << "x; elaboration "
                  << fixed(c->r.at("elab_s"), 2) << " s, initialisation " << fixed(c->r.at("init_s"), 2)
                  << " s, RSS " << fixed(c->rss_mib, 0) << " MiB\n";
    }
}

// The *_outputs cases (docs/speed.md "Outputs"): peak memory and time with
// --timeline, --svg and --report on.
void print_outputs(const std::vector<Case>& cases) {
    bool header = false;
    for (const Case& c : cases) {
        if (c.what != "outputs") continue;
        if (!header) {
            std::cout << "\noutputs on (--timeline, --svg, --report .json; default tile detail; files in /tmp, "
                         "removed after):\n"
                      << std::left << std::setw(20) << "case" << std::right << std::setw(9) << "tokens"
                      << std::setw(10) << "wall s" << std::setw(10) << "write s" << std::setw(9) << "RSS MiB"
                      << std::setw(11) << "intervals" << std::setw(11) << "in detail" << std::setw(13)
                      << "timeline MB" << std::setw(9) << "svg MB" << std::setw(11) << "report kB" << "\n";
            header = true;
        }
        std::cout << std::left << std::setw(20) << c.name << std::right;
        if (!c.ok) {
            std::cout << "  FAILED\n";
            continue;
        }
        std::cout << std::setw(9) << std::uint64_t(c.r.at("tokens")) << std::setw(10) << fixed(c.r.at("wall_s"), 4)
                  << std::setw(10) << fixed(c.r.at("write_s"), 4) << std::setw(9) << fixed(c.rss_mib, 1)
                  << std::setw(11) << std::uint64_t(c.r.at("intervals")) << std::setw(11)
                  << std::uint64_t(c.r.at("detail_intervals")) << std::setw(13)
                  << fixed(c.r.at("timeline_bytes") / 1e6, 1) << std::setw(9) << fixed(c.r.at("svg_bytes") / 1e6, 2)
                  << std::setw(11) << fixed(c.r.at("report_bytes") / 1e3, 1) << "\n";
    }
}

int run_parent(bool smoke, bool baseline, const std::string& baseline_script, int repeats) {
    // Sizes: tokens = ceil(M/128)·ceil(N/128)·ceil(K/128).
    std::vector<Case> cases;
    auto gemm = [&](const char* name, const char* what, std::uint64_t m, std::uint64_t k,
                    std::uint64_t n, int base) {
        Case c;
        c.name = name;
        c.what = what;
        c.m = m, c.k = k, c.n = n;
        c.baseline_pes = base;
        c.host = std::string(what).rfind("host_", 0) == 0;
        cases.push_back(c);
    };
    if (smoke) {
        gemm("pe1_gemm", "one", 256, 256, 256, 1);
        gemm("pe8_gemm", "eight", 256, 256, 256, 8);
        gemm("pe1_stage", "one_stage", 256, 256, 256, 0);
        gemm("pe8_stage", "eight_stage", 256, 256, 256, 0);
        gemm("host1_gemm", "host_one", 256, 256, 256, 1);
        gemm("host8_gemm", "host_eight", 256, 256, 256, 8);
        gemm("host1_stage", "host_one_stage", 256, 256, 256, 0);
        gemm("host8_stage", "host_eight_stage", 256, 256, 256, 0);
        gemm("pe64_gemm", "all64", 256, 256, 256, 0);
        gemm("pe256_gemm", "all256", 256, 256, 128, 0);
        gemm("pe1024_gemm", "all1024", 128, 128, 128, 0);
        gemm("pe8_512", "eight", 128, 128, 128, 0);
        gemm("pe1024_512", "scale1024", 128, 128, 128, 0);
        gemm("mnist", "mnist", 0, 0, 0, 0);
        gemm("resnet50", "onnx_resnet50", 0, 0, 0, 0);
        gemm("scale_8", "one", 256, 256, 256, 0);
        gemm("scale_64", "one", 512, 512, 512, 0);
        gemm("scale_512", "one", 1024, 1024, 1024, 0);
        gemm("scale_512_outputs", "outputs", 1024, 1024, 1024, 0);
        gemm("kernel", "kernel", 100000, 0, 0, 0);
        gemm("kernel_m", "kernel_method", 100000, 0, 0, 0);
        if (npuvp::rtl_built()) {
            gemm("rtl_gemm", "rtl", 128, 128, 128, 0);      // 1 token, 32 784 RTL cycles
            gemm("rtl_cpp", "rtl_cpp", 128, 128, 128, 0);
            // 8 x (65 536 / 16 + 3) = 32 792 RTL cycles
            gemm("rtl_math", "rtl_math", 8, 65536, 0, 0);
            gemm("rtl_math_cpp", "rtl_math_cpp", 8, 65536, 0, 0);
        }
    } else {
        gemm("pe1_gemm", "one", 2048, 2048, 2048, 1);         // 16·16·16 = 4096 tokens
        gemm("pe8_gemm", "eight", 2048, 2048, 2048, 8);       // 8 x 4096
        // The same two per stage (npuvp --per-stage): the decoupled
        // pipeline's gain in the same run.
        gemm("pe1_stage", "one_stage", 2048, 2048, 2048, 0);
        gemm("pe8_stage", "eight_stage", 2048, 2048, 2048, 0);
        // pe1_gemm and pe8_gemm started as every real program is, by a host
        // kernel_launch through IO_CPU, M_CPU and PE_CPU (the SimPy baseline
        // launches them the same way), and the same two per stage.
        gemm("host1_gemm", "host_one", 2048, 2048, 2048, 1);
        gemm("host8_gemm", "host_eight", 2048, 2048, 2048, 8);
        gemm("host1_stage", "host_one_stage", 2048, 2048, 2048, 0);
        gemm("host8_stage", "host_eight_stage", 2048, 2048, 2048, 0);
        gemm("pe64_gemm", "all64", 2048, 2048, 2048, 0);      // 64 x 4096
        // Per-token cost with many PEs (issue 16): less work per PE, the
        // same kernel. 256 x 8·16·8 = 262 144 and 1024 x 8·8·8 = 524 288 tokens.
        gemm("pe256_gemm", "all256", 1024, 2048, 1024, 0);
        gemm("pe1024_gemm", "all1024", 1024, 1024, 1024, 0);
        // Cost per token as the machine grows (issue 38): gemm_all_pes's
        // 512^3 (64 tokens) on every PE, from 8 PEs to 16,384 (scale_16k.yaml).
        gemm("pe8_512", "eight", 512, 512, 512, 0);
        gemm("pe1024_512", "scale1024", 512, 512, 512, 0);
        gemm("pe4096_512", "scale4096", 512, 512, 512, 0);
        gemm("pe16384_512", "scale16384", 512, 512, 512, 0);
        gemm("mnist", "mnist", 0, 0, 0, 0);
        // ONNX models mapped by the greedy mapper (docs/models.md); elab s
        // includes the import and the mapping.
        gemm("resnet50", "onnx_resnet50", 0, 0, 0, 0);
        gemm("bert_layer", "onnx_bert_base_layer", 0, 0, 0, 0);
        gemm("gpt2_block", "onnx_gpt2_small_block", 0, 0, 0, 0);
        gemm("scale_1k", "one", 1024, 2048, 1024, 0);         // 8·8·16 = 1024
        gemm("scale_10k", "one", 2560, 3200, 2560, 0);        // 20·20·25 = 10 000
        gemm("scale_100k", "one", 5120, 6400, 6400, 0);       // 40·50·50 = 100 000
        gemm("scale_1m", "one", 12800, 12800, 12800, 0);      // 100·100·100 = 1 000 000
        // The same with --timeline, --svg and --report on (docs/speed.md "Outputs").
        gemm("scale_100k_outputs", "outputs", 5120, 6400, 6400, 0);
        gemm("scale_1m_outputs", "outputs", 12800, 12800, 12800, 0);
        gemm("kernel", "kernel", 5000000, 0, 0, 0);
        gemm("kernel_m", "kernel_method", 5000000, 0, 0, 0);
        if (npuvp::rtl_built()) {
            // gemm_bias_relu's 512^3 (bias_add only): 64 tokens, 2 098 176 RTL cycles.
            gemm("rtl_gemm", "rtl", 512, 512, 512, 0);
            gemm("rtl_cpp", "rtl_cpp", 512, 512, 512, 0);
            // 64 relu commands of 2^19 elements: 64 x (32 768 + 3) = 2 097 344 RTL cycles.
            gemm("rtl_math", "rtl_math", 64, 524288, 0, 0);
            gemm("rtl_math_cpp", "rtl_math_cpp", 64, 524288, 0, 0);
        }
    }

    // Every process of the bench, npuvp's and SimPy's, runs on the CPU the
    // bench started on. On a machine whose CPUs are not equally fast at a
    // given moment (a VM's virtual CPUs share physical cores with other
    // tenants: on the 2-core machine of docs/speed.md one CPU ran both
    // programs 1.5-1.8x slower than the other for minutes at a time, and
    // which one flipped), a case and its baseline on different CPUs would
    // compare the CPUs, not the programs.
    const int cpu = sched_getcpu();
    cpu_set_t one_cpu;
    CPU_ZERO(&one_cpu);
    if (cpu >= 0) CPU_SET(cpu, &one_cpu);
    const bool pinned = cpu >= 0 && sched_setaffinity(0, sizeof one_cpu, &one_cpu) == 0;

    // SimPy baseline, same run: found first, so that each case's SimPy runs
    // alternate with its own (below).
    bool have_simpy = false;
    std::string python;
    if (baseline) {
        // The first python3 that imports simpy: PATH's, else Debian's (a
        // pyenv or venv python3 on PATH does not see python3-simpy3).
        const std::string log = "/tmp/npuvp_bench." + std::to_string(getpid()) + ".probe.log";
        for (const char* candidate : {"python3", "/usr/bin/python3"}) {
            long ignored = 0;
            if (spawn(candidate, {"-c", "import simpy"}, log, &ignored) == 0) {
                python = candidate;
                have_simpy = true;
                break;
            }
        }
        std::remove(log.c_str());
    }

    const std::string tmp = "/tmp/npuvp_bench." + std::to_string(getpid());
    bool all_ok = true;
    // One run in a fresh process: its RESULT line and peak RSS.
    using Run = std::pair<std::map<std::string, double>, long>;
    auto run_once = [&](const std::string& program, const std::vector<std::string>& args,
                        const std::string& log, std::vector<Run>& runs) {
        long rss = 0;
        const int code = spawn(program, args, log, &rss);
        const std::string text = slurp(log);
        std::remove(log.c_str());
        auto r = parse_result(text, "RESULT");
        if (code != 0 || !r.count("wall_s")) {
            std::cerr << " FAILED (exit " << code << "):\n" << text;
            return false;
        }
        runs.emplace_back(std::move(r), rss);
        return true;
    };
    // The run with the median wall time (a 2-core machine is noisy).
    auto median = [](std::vector<Run>& runs, std::map<std::string, double>& result, double* rss_mib) {
        std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
            return a.first.at("wall_s") < b.first.at("wall_s");
        });
        result = runs[runs.size() / 2].first;
        if (rss_mib) *rss_mib = runs[runs.size() / 2].second / 1024.0;
    };
    for (Case& c : cases) {
        std::vector<std::string> args{"--case", c.what, "--m", std::to_string(c.m), "--k",
                                      std::to_string(c.k), "--n", std::to_string(c.n)};
        const std::string out = tmp + "." + c.name;  // the *_outputs cases' files
        if (c.what == "outputs") args.insert(args.end(), {"--out", out});
        const bool with_base = have_simpy && c.baseline_pes != 0;
        std::cerr << "npuvp_bench: " << c.name << (with_base ? " and its SimPy baseline" : "") << " ..."
                  << std::flush;
        // Each case `repeats` times, each time in a fresh process; a case
        // with a baseline alternates with it, run for run, so that both see
        // the machine in the same state.
        std::vector<Run> runs, base_runs;
        c.ok = true;
        c.base_ok = with_base;
        for (int i = 0; i < repeats && c.ok; ++i) {
            c.ok = run_once("/proc/self/exe", args, tmp + "." + c.name + ".log", runs);
            if (c.ok && c.base_ok)
                c.base_ok = run_once(python,
                                     {baseline_script, "--pes", std::to_string(c.baseline_pes), "--m",
                                      std::to_string(c.m), "--k", std::to_string(c.k), "--n",
                                      std::to_string(c.n), "--launch", c.host ? "host" : "direct"},
                                     tmp + "." + c.name + ".simpy.log", base_runs);
        }
        if (c.ok) median(runs, c.r, &c.rss_mib);
        if (c.ok && c.base_ok) median(base_runs, c.base, nullptr);
        if (c.what == "outputs")
            for (const char* suffix : {".timeline.json", ".svg", ".report.json"})
                std::remove((out + suffix).c_str());
        if (c.ok) std::cerr << " done\n";
        all_ok = all_ok && c.ok;
    }
    if (!baseline)
        std::cout << "baseline: skipped (--no-baseline)\n";
    else if (!have_simpy)
        std::cout << "baseline: skipped (python3 with simpy not found; Debian: apt-get "
                     "install python3-simpy3)\n";

    // ---- the table
    std::cout << "\nnpuvp_bench" << (smoke ? " --smoke" : "") << "  (SystemC "
              << sc_core::sc_release() << ", tracing off, each case in its own process, "
              << (pinned ? "all on CPU " + std::to_string(cpu) : std::string("not pinned to a CPU")) << ")\n\n";
    std::cout << std::left << std::setw(12) << "case" << std::right << std::setw(6) << "PEs"
              << std::setw(9) << "tokens" << std::setw(9) << "elab s" << std::setw(9) << "init s" << std::setw(10) << "wall s"
              << std::setw(12) << "tokens/s" << std::setw(12) << "stages/s" << std::setw(9)
              << "stg/tok" << std::setw(9) << "act/stg" << std::setw(9) << "krn/tok" << std::setw(5) << "dec" << std::setw(9) << "dlt/tok" << std::setw(10) << "us/tok" << std::setw(9)
              << "RSS MiB" << std::setw(16) << "makespan us" << "\n";
    const Case* kernel = nullptr;
    const Case* kernel_m = nullptr;
    for (const Case& c : cases) {
        if (c.what == "kernel" || c.what == "kernel_method") {
            (c.what == "kernel" ? kernel : kernel_m) = &c;
            continue;
        }
        if (c.what.rfind("rtl", 0) == 0 || c.what == "outputs") continue;  // print_rtl, print_outputs
        std::cout << std::left << std::setw(12) << c.name << std::right;
        if (!c.ok) {
            std::cout << "  FAILED\n";
            continue;
        }
        const double tokens = c.r.at("tokens"), wall = c.r.at("wall_s");
        std::cout << std::setw(6) << c.r.at("pes") << std::setw(9) << std::uint64_t(tokens)
                  << std::setw(9) << fixed(c.r.at("elab_s"), 3) << std::setw(9)
                  << fixed(c.r.at("init_s"), 3) << std::setw(10) << fixed(wall, 4)
                  << std::setw(12) << sci(tokens / wall) << std::setw(12)
                  << sci(c.r.at("stages") / wall) << std::setw(9)
                  << fixed(c.r.at("stages") / tokens, 2) << std::setw(9)
                  << fixed(c.r.at("activations") / c.r.at("stages"), 2) << std::setw(9)
                  << fixed(c.r.at("kernel_activations") / tokens, 2) << std::setw(5)
                  << std::uint64_t(c.r.at("decoupled")) << std::setw(9)
                  << fixed(c.r.at("deltas") / tokens, 2) << std::setw(10)
                  << fixed(wall / tokens * 1e6, 3) << std::setw(9) << fixed(c.rss_mib, 1)
                  << std::setw(16) << fixed(c.r.at("makespan_ps") / 1e6, 3) << "\n";
    }
    double switches_per_s = 0;
    if (kernel && kernel->ok) {
        switches_per_s = kernel->r.at("switches") / kernel->r.at("wall_s");
        std::cout << "\nkernel     2 SC_THREADs ping-ponging on sc_events: "
                  << std::uint64_t(kernel->r.at("switches")) << " context switches in "
                  << fixed(kernel->r.at("wall_s"), 3) << " s = " << sci(switches_per_s)
                  << " switches/s (" << fixed(1e9 / switches_per_s, 1) << " ns each), RSS "
                  << fixed(kernel->rss_mib, 1) << " MiB\n";
    }

    double activations_per_s = 0;
    if (kernel_m && kernel_m->ok) {
        activations_per_s = kernel_m->r.at("switches") / kernel_m->r.at("wall_s");
        std::cout << "kernel_m   2 SC_METHODs ping-ponging on sc_events: "
                  << std::uint64_t(kernel_m->r.at("switches")) << " activations in "
                  << fixed(kernel_m->r.at("wall_s"), 3) << " s = " << sci(activations_per_s)
                  << " activations/s (" << fixed(1e9 / activations_per_s, 1) << " ns each)\n";
    }

    // ---- ratios
    // The baseline is an independent model of the timing contract: a makespan
    // that differs from npuvp's by a picosecond is a bug in one of them.
    bool simpy_agrees = true;
    std::cout << "\nagainst the SimPy baseline (same case, same machine, same run, same CPU, run for run in turn):\n";
    for (const Case& c : cases) {
        if (!c.baseline_pes || !c.ok) continue;
        std::cout << "  " << std::left << std::setw(10) << c.name << std::right;
        if (!c.base_ok) {
            std::cout << " baseline skipped\n";
            continue;
        }
        const double tps = c.r.at("tokens") / c.r.at("wall_s");
        const double btps = c.base.at("tokens") / c.base.at("wall_s");
        const double mk = c.r.at("makespan_ps"), bmk = c.base.at("makespan_ps");
        std::cout << " SimPy " << fixed(c.base.at("wall_s"), 3) << " s, " << sci(btps)
                  << " tokens/s; npuvp " << sci(tps) << " tokens/s = " << fixed(tps / btps, 1)
                  << "x; makespan npuvp " << fixed(mk / 1e6, 6) << " us, SimPy "
                  << fixed(bmk / 1e6, 6) << " us ("
                  << (mk == bmk ? std::string("identical")
                                : "differ by " + fixed((bmk - mk) / 1e3, 3) + " ns = " +
                                      fixed(100.0 * (bmk - mk) / mk, 4) + "%")
                  << ")\n";
        simpy_agrees = simpy_agrees && mk == bmk;
    }
    if (!simpy_agrees) {
        std::cerr << "npuvp_bench: a makespan differs from its SimPy baseline's\n";
        all_ok = false;
    }
    // ---- the decoupled pipeline against per-stage runs of the same case
    bool agree = true;
    std::cout << "\ndecoupled against per stage (npuvp --per-stage; same case, same run):\n";
    for (const Case& s : cases) {
        std::string what = s.what;
        if (!strip_per_stage(what)) continue;
        const auto d = std::find_if(cases.begin(), cases.end(), [&](const Case& c) { return c.what == what; });
        if (d == cases.end() || !d->ok || !s.ok) continue;
        const double td = d->r.at("tokens") / d->r.at("wall_s"), ts = s.r.at("tokens") / s.r.at("wall_s");
        const bool same = d->r.at("makespan_ps") == s.r.at("makespan_ps");
        agree = agree && same;
        std::cout << "  " << std::left << std::setw(10) << d->name << std::right << " "
                  << std::uint64_t(d->r.at("decoupled")) << " of " << std::uint64_t(d->r.at("pes"))
                  << " PEs decoupled: " << sci(td) << " tokens/s, per stage " << sci(ts)
                  << " tokens/s = " << fixed(td / ts, 2) << "x; kernel activations per token "
                  << fixed(d->r.at("kernel_activations") / d->r.at("tokens"), 2) << " vs "
                  << fixed(s.r.at("kernel_activations") / s.r.at("tokens"), 2)
                  << "; delta cycles per token " << fixed(d->r.at("deltas") / d->r.at("tokens"), 2)
                  << " vs " << fixed(s.r.at("deltas") / s.r.at("tokens"), 2) << "; makespan "
                  << (same ? "identical" : "DIFFERS") << "\n";
    }
    if (!agree) {
        std::cerr << "npuvp_bench: a decoupled run's makespan differs from its per-stage run's\n";
        all_ok = false;
    }
    if (switches_per_s > 0) {
        std::cout << "\nagainst the raw kernel (" << sci(switches_per_s) << " switches/s):\n";
        for (const Case& c : cases) {
            if (!c.ok || c.what == "kernel" || c.what == "kernel_method" || c.what.rfind("rtl", 0) == 0 ||
                c.what == "outputs")
                continue;
            const double stage_rate = c.r.at("stages") / c.r.at("wall_s");
            std::cout << "  " << std::left << std::setw(10) << c.name << std::right
                      << " stage events/s = " << fixed(100.0 * stage_rate / switches_per_s, 2)
                      << "% of the kernel's switches/s; wall per token = "
                      << fixed(c.r.at("wall_s") / c.r.at("tokens") * switches_per_s, 1)
                      << " kernel context switches' worth";
            if (activations_per_s > 0)
                std::cout << " = " << fixed(c.r.at("wall_s") / c.r.at("tokens") * activations_per_s, 1)
                          << " method activations' worth";
            std::cout << "\n";
        }
    }
    print_scale(cases);
    print_rtl(cases);
    print_outputs(cases);
    return all_ok ? 0 : 1;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    bool smoke = false, baseline = true;
    int repeats = 0;
    std::string what;
    std::uint64_t m = 0, k = 0, n = 0;
    std::string script = NPUVP_BENCH_BASELINE;
    std::string out;  // --out PREFIX: where an outputs case writes its files
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "npuvp_bench: " << a << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--smoke") smoke = true;
        else if (a == "--no-baseline") baseline = false;
        else if (a == "--baseline") script = value();
        else if (a == "--repeat") repeats = std::stoi(value());
        else if (a == "--case") what = value();
        else if (a == "--m") m = std::stoull(value());
        else if (a == "--k") k = std::stoull(value());
        else if (a == "--n") n = std::stoull(value());
        else if (a == "--out") out = value();
        else if (a == "--help" || a == "-h") {
            std::cout << "usage: npuvp_bench [--smoke] [--no-baseline] [--baseline script.py] [--repeat N]\n"
                         "  see docs/speed.md\n";
            return 0;
        } else {
            std::cerr << "npuvp_bench: unknown argument '" << a << "' (try --help)\n";
            return 2;
        }
    }
    try {
        if (what.empty()) return run_parent(smoke, baseline, script, repeats > 0 ? repeats : smoke ? 1 : 3);
        if (what == "kernel" || what == "kernel_method")
            return run_kernel_case(m, what == "kernel_method");
        if (what == "routes") return run_routes_case();
        if (what.rfind("rtl", 0) == 0) return run_rtl_case(what, m, k, n);
        if (what == "outputs") return run_outputs_case(m, k, n, out.empty() ? "npuvp_bench_outputs" : out);
        return run_model_case(what, m, k, n);
    } catch (const std::exception& e) {
        std::cerr << "npuvp_bench: error: " << e.what() << "\n";
        return 2;
    }
}
