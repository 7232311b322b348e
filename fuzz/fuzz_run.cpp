// libFuzzer harness: the whole run. The input is a topology and a workload,
// loaded as npuvp loads them and then simulated to the end, or to a budget,
// with every output built (the printed report, --report, --timeline, --svg).
//
// Input: a topology's text, a line "#%% workload", then the workload's text.
// Without that line the whole input is a workload on the default topology.
//
// One run per process: SystemC elaborates once per process (SPEC §1), so
// each input that loads is simulated in a child made by fork(). The loaders
// run in the fuzzer's own process (their coverage counts directly); the
// child builds the platform, runs, and before it exits copies its coverage
// counters (-fsanitize=fuzzer's inline 8-bit counters) into a shared page that the parent copies back over its own,
// so libFuzzer sees the simulation's coverage as if it had run in process.
// Only the comparison tracing (-use_value_profile, the table of recent
// comparisons) of the child is lost.
//
// Budgets (each overridable by an environment variable):
//   NPUVP_FUZZ_SIM_PS      simulated time, default 1 ms (1e9 ps)
//   NPUVP_FUZZ_TOKENS      pipeline work: tiles + stage events, default 200000
//   NPUVP_FUZZ_WALL_S      wall clock of one child, default 20 s
//   NPUVP_FUZZ_RSS_MB      resident memory of one child, default 1536 MB
// The first two stop the run cleanly (what legal but long work does; it is
// not a finding); the last two are findings (a hang, runaway memory): the
// child aborts, and so does the parent, which makes libFuzzer save the input.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <typeinfo>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <systemc>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "fuzz/fuzz_common.h"
#include "platform/impl_registry.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "report/run_answers.h"
#include "report/run_outputs.h"
#include "report/run_print.h"
#include "report/run_recorder.h"
#include "report/run_view.h"

NPUVP_FUZZ_SC_MAIN_STUB

// The inline 8-bit counters of everything instrumented in this executable
// (the harness and npuvp_core are linked in statically), as the
// instrumentation's module constructors register them with libFuzzer: the
// link wraps that call (-Wl,--wrap, fuzz/CMakeLists.txt) to note the range.
namespace {
std::uint8_t* counters_start = nullptr;
std::uint8_t* counters_stop = nullptr;
}  // namespace

extern "C" void __real___sanitizer_cov_8bit_counters_init(std::uint8_t* start, std::uint8_t* stop);
extern "C" void __wrap___sanitizer_cov_8bit_counters_init(std::uint8_t* start, std::uint8_t* stop) {
    if (start != stop) {
        if (counters_start && (start != counters_start || stop != counters_stop)) {
            std::fprintf(stderr, "npuvp fuzz run: more than one counter section\n");
            std::abort();
        }
        counters_start = start;
        counters_stop = stop;
    }
    __real___sanitizer_cov_8bit_counters_init(start, stop);
}

namespace {

constexpr const char* separator = "\n#%% workload\n";

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
    const char* s = std::getenv(name);
    return s && *s ? std::strtoull(s, nullptr, 10) : fallback;
}

struct Budget {
    std::uint64_t sim_ps = env_u64("NPUVP_FUZZ_SIM_PS", 1000000000ull);
    std::uint64_t tokens = env_u64("NPUVP_FUZZ_TOKENS", 200000);
    std::uint64_t wall_s = env_u64("NPUVP_FUZZ_WALL_S", 20);
    std::uint64_t rss_mb = env_u64("NPUVP_FUZZ_RSS_MB", 1536);
};

// The child's watchdog: a hang or runaway memory is a finding.
void watch(const Budget& budget) {
    const auto start = std::chrono::steady_clock::now();
    const long page_kb = sysconf(_SC_PAGESIZE) / 1024;
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        long pages = 0, resident = 0;
        if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
            if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
            std::fclose(f);
        }
        const std::uint64_t rss_mb = static_cast<std::uint64_t>(resident * page_kb) / 1024;
        if (rss_mb > budget.rss_mb) {
            std::fprintf(stderr, "npuvp fuzz run: the run's resident memory reached %llu MB (budget %llu MB)\n",
                         static_cast<unsigned long long>(rss_mb),
                         static_cast<unsigned long long>(budget.rss_mb));
            std::abort();
        }
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(budget.wall_s)) {
            std::fprintf(stderr, "npuvp fuzz run: the run took more than %llu s of wall time (a hang)\n",
                         static_cast<unsigned long long>(budget.wall_s));
            std::abort();
        }
    }
}

// In the child: elaborate, run within the budget, build every output.
// Returns "" or, when an exception other than ConfigError ended it, its kind
// and message (the parent notes it: see fuzz_common.h).
std::string simulate(const npuvp::TopologyConfig& topo, const npuvp::WorkloadConfig& workload,
                     const Budget& budget) {
    using namespace npuvp;
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    try {
        TraceSink trace;
        obs::RunRecorder recorder;
        trace.listen(&recorder);
        Platform platform(topo, trace);
        WorkloadRun run(platform, workload);
        const sc_core::sc_time slice(1, sc_core::SC_US);
        bool budget_hit = false;
        for (bool first = true; first || sc_core::sc_pending_activity(); first = false) {
            sc_core::sc_start(slice);
            const Platform::WorkCounts work = platform.work_counts();
            if (sc_core::sc_time_stamp().value() >= budget.sim_ps ||
                work.tiles + work.stage_events >= budget.tokens) {
                budget_hit = true;
                break;
            }
        }
        std::ostringstream out;
        const std::string base = "/dev/shm/npuvp-fuzz-run-" + std::to_string(getpid());
        OutputFiles files{base + ".timeline.json", base + ".svg", base + ".report.json", base + ".roofline.svg"};
        if (budget_hit || !run.finished()) {
            print_run(out, run);
            (void)run.diagnosis();
            write_outputs(files, run, platform, recorder, "fuzz", false, out);
        } else {
            const obs::RunView view = obs::build_view(run, platform, recorder);
            const RunAnswers answers = answer_run(run, platform, view, {});
            print_run(out, run, &answers.bound);
            print_roofline(out, answers.roofline);
            print_energy(out, answers.energy);
            write_outputs(files, run, platform, recorder, "fuzz", true, out, {}, &view, &answers);
        }
        for (const auto& f : {files.timeline, files.svg, files.report, files.roofline}) std::remove(f->c_str());
    } catch (const ConfigError&) {
    } catch (const std::exception& e) {
        return std::string(typeid(e).name()) + ": " + e.what();
    } catch (...) {
        return "a non-std exception";
    }
    return "";
}

constexpr std::size_t message_room = 4096;

std::uint8_t* shared_counters() {
    static std::uint8_t* shared = [] {
        const std::size_t n = static_cast<std::size_t>(counters_stop - counters_start);
        void* p = mmap(nullptr, n + message_room, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) std::abort();
        return static_cast<std::uint8_t*>(p);
    }();
    return shared;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace npuvp;
    const std::string input(reinterpret_cast<const char*>(data), size);
    static const TopologyConfig default_topo = load_topology_file(
        fuzz::source_dir() + "/configs/topologies/default.yaml", {}, builtin_registry());

    TopologyConfig topo = default_topo;
    std::string workload_text = input;
    const std::size_t at = input.find(separator);
    if (at != std::string::npos) {
        workload_text = input.substr(at + std::strlen(separator));
        if (!fuzz::guarded("run", data, size, [&] {
                topo = load_topology_text(input.substr(0, at), "fuzz-topology.yaml", {}, builtin_registry());
            }))
            return 0;
    }
    WorkloadConfig workload;
    if (!fuzz::guarded("run", data, size,
                       [&] { workload = load_workload_text(workload_text, "fuzz-workload.yaml", topo); }))
        return 0;

    const Budget budget;
    std::uint8_t* const counters = counters_start;
    const std::size_t n = static_cast<std::size_t>(counters_stop - counters_start);
    std::uint8_t* const shared = shared_counters();
    shared[n] = 0;
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        std::perror("npuvp fuzz run: fork");
        std::abort();
    }
    if (pid == 0) {
        std::thread(watch, budget).detach();
        const std::string message = simulate(topo, workload, budget);
        if (n) std::memcpy(shared, counters, n);
        std::snprintf(reinterpret_cast<char*>(shared + n), message_room, "%s", message.c_str());
        std::fflush(nullptr);
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            std::perror("npuvp fuzz run: waitpid");
            std::abort();
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "npuvp fuzz run: the simulation's child %s %d\n",
                     WIFSIGNALED(status) ? "was killed by signal" : "exited with",
                     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        std::abort();
    }
    if (n) std::memcpy(counters, shared, n);
    const std::string message(reinterpret_cast<const char*>(shared + n));
    if (!message.empty()) fuzz::note_unexpected("run", message, data, size);
    return 0;
}
