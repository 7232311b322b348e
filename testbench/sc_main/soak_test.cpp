// Soak (issue 21, point 7): every shipped workload (configs/workloads/*.yaml),
// on the topology it is written for (as in cli_examples_test), run 20 times
// in a row through the npuvp program with --trace and --summary. Every run
// must give byte-identical outputs — stdout and stderr without the speed and
// pipeline lines (wall-clock figures), the summary without its `speed`
// object, the trace file — and the same exit code (0, or 1 for the two
// examples that fail on purpose). Peak memory must not grow: the child's
// peak resident set (ru_maxrss from wait4) of the last five runs may exceed
// that of the first five by at most 5% + 8 MiB (allocator and page-cache
// noise; a leak or a cache that grows with each run shows as more). A
// child's ru_maxrss also counts what the test process had resident when it
// forked (Linux keeps the larger of the old and the new image's peak across
// execve), so this test keeps only run 1's outputs and discards each later
// run's after comparing: its own memory is the same at every fork from run 2
// on, and below npuvp's. One
// case per workload, so CTest runs them in parallel and each stays well
// inside its 120 s timeout under the sanitizer build.
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "testbench/harness/run_npuvp.h"

using namespace npuvp::test;

namespace {

constexpr int runs = 20;
constexpr int window = 5;  // runs compared at each end for the memory check

struct Soaked {
    const char* workload;
    const char* topology;
    std::vector<std::string> extra;  // as the example's header says
    int code;                        // 1: fails on purpose
};

const Soaked soaked[] = {
    {"double_buffer_pipelined", "rngd_pe", {}, 0},
    {"double_buffer_rolled", "rngd_pe", {}, 0},
    {"elementwise_relu", "default", {}, 0},
    {"gemm_all_pes", "default", {}, 0},
    {"gemm_bias_relu", "default", {}, 0},
    {"gemm_bias_relu_data", NPUVP_RTL_BUILT ? "rtl_gemm_math" : "default", {}, 0},
    {"gemm_int8_small", NPUVP_RTL_BUILT ? "rtl_gemm" : "default", {}, 0},
    {"host_launch", "default", {}, 0},
    {"host_two_cubes", "two_sip", {}, 0},
    {"host_watchdog", "default", {"--set", "cube.m_cpu.attrs.response_timeout_ns=100000"}, 1},
    {"ipcq_exchange", "default", {}, 0},
    {"mmu_fault", "default", {}, 1},
    {"mmu_va", "default", {}, 0},
    {"mnist_mlp", "rngd_pe", {}, 0},
    {"mnist_mlp_opbyop", "rngd_pe", {}, 0},
    {"simple_commands", "default", {}, 0},
};

struct Outcome {
    int code = -1;
    long maxrss_kb = 0;
    std::string out, err, summary, trace;
};

// Runs npuvp with `args`, stdout and stderr to files; its peak memory from wait4.
Outcome run_once(const std::vector<std::string>& args, const std::string& dir) {
    const char* bin = std::getenv("NPUVP_BIN");
    BOOST_REQUIRE_MESSAGE(bin != nullptr, "NPUVP_BIN is not set (run through ctest)");
    const std::string out_path = dir + "/stdout", err_path = dir + "/stderr";
    const std::string summary_path = dir + "/summary.json", trace_path = dir + "/trace.jsonl";
    std::filesystem::remove(summary_path);
    std::filesystem::remove(trace_path);
    std::vector<std::string> argv_s = {bin};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    for (const std::string& a : {std::string("--summary"), summary_path, std::string("--trace"), trace_path})
        argv_s.push_back(a);
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) {
        const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
        execv(bin, argv.data());
        _exit(127);
    }
    int status = 0;
    struct rusage usage {};
    BOOST_REQUIRE(wait4(pid, &status, 0, &usage) == pid);
    Outcome o;
    o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o.maxrss_kb = usage.ru_maxrss;
    o.out = without_speed_line(slurp(out_path));
    o.err = slurp(err_path);
    o.trace = slurp(trace_path);
    // The summary's `speed` object is its last key and the only wall-clock part.
    o.summary = slurp(summary_path);
    const std::size_t speed = o.summary.find(",\n  \"speed\": ");
    BOOST_REQUIRE_MESSAGE(speed != std::string::npos, "no speed object in the summary:\n" << o.summary);
    o.summary.erase(speed, o.summary.rfind("\n}") - speed);
    return o;
}

void soak(const std::string& name) {
    const auto it = std::find_if(std::begin(soaked), std::end(soaked),
                                 [&](const Soaked& s) { return name == s.workload; });
    BOOST_REQUIRE(it != std::end(soaked));
    const std::string dir = "soak_" + name;
    std::filesystem::create_directories(dir);
    std::vector<std::string> args = {"--topology", std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/" +
                                                       it->topology + ".yaml",
                                     "--workload", shipped_workload(name)};
    args.insert(args.end(), it->extra.begin(), it->extra.end());

    Outcome first;
    std::vector<long> peaks_kb;
    for (int i = 0; i < runs; ++i) {
        Outcome o = run_once(args, dir);
        peaks_kb.push_back(o.maxrss_kb);
        BOOST_REQUIRE_MESSAGE(o.code == it->code, "run " << i + 1 << ": exit " << o.code << "\n"
                                                         << o.out << o.err);
        BOOST_REQUIRE_MESSAGE(!o.trace.empty(), "run " << i + 1 << ": empty trace");
        if (i == 0) {
            first = std::move(o);
            continue;
        }
        BOOST_CHECK_MESSAGE(o.out == first.out, "run " << i + 1 << ": stdout differs from run 1");
        BOOST_CHECK_MESSAGE(o.err == first.err, "run " << i + 1 << ": stderr differs from run 1");
        BOOST_CHECK_MESSAGE(o.summary == first.summary, "run " << i + 1 << ": summary differs from run 1");
        BOOST_CHECK_MESSAGE(o.trace == first.trace, "run " << i + 1 << ": trace differs from run 1");
    }
    long first_peak = 0, last_peak = 0;
    for (int i = 0; i < window; ++i) {
        first_peak = std::max(first_peak, peaks_kb[i]);
        last_peak = std::max(last_peak, peaks_kb[runs - 1 - i]);
    }
    BOOST_TEST_MESSAGE(name << ": peak RSS of the first " << window << " runs " << first_peak
                            << " KiB, of the last " << window << " runs " << last_peak << " KiB");
    BOOST_CHECK_GT(first_peak, 0);
    BOOST_CHECK_MESSAGE(last_peak <= first_peak + first_peak / 20 + 8 * 1024,
                        name << ": peak RSS grew from " << first_peak << " KiB (first " << window
                             << " runs) to " << last_peak << " KiB (last " << window << " runs)");
    std::filesystem::remove_all(dir);
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_shipped_workload_is_soaked) {
    const std::vector<std::string> shipped = npuvp::test::shipped_workload_names();
    std::vector<std::string> listed;
    for (const Soaked& s : soaked) listed.push_back(s.workload);
    BOOST_CHECK_EQUAL_COLLECTIONS(shipped.begin(), shipped.end(), listed.begin(), listed.end());
}

BOOST_AUTO_TEST_CASE(soak_double_buffer_pipelined) { soak("double_buffer_pipelined"); }
BOOST_AUTO_TEST_CASE(soak_double_buffer_rolled) { soak("double_buffer_rolled"); }
BOOST_AUTO_TEST_CASE(soak_elementwise_relu) { soak("elementwise_relu"); }
BOOST_AUTO_TEST_CASE(soak_gemm_all_pes) { soak("gemm_all_pes"); }
BOOST_AUTO_TEST_CASE(soak_gemm_bias_relu) { soak("gemm_bias_relu"); }
BOOST_AUTO_TEST_CASE(soak_gemm_int8_small) { soak("gemm_int8_small"); }
BOOST_AUTO_TEST_CASE(soak_gemm_bias_relu_data) { soak("gemm_bias_relu_data"); }
BOOST_AUTO_TEST_CASE(soak_host_launch) { soak("host_launch"); }
BOOST_AUTO_TEST_CASE(soak_host_two_cubes) { soak("host_two_cubes"); }
BOOST_AUTO_TEST_CASE(soak_host_watchdog) { soak("host_watchdog"); }
BOOST_AUTO_TEST_CASE(soak_ipcq_exchange) { soak("ipcq_exchange"); }
BOOST_AUTO_TEST_CASE(soak_mmu_fault) { soak("mmu_fault"); }
BOOST_AUTO_TEST_CASE(soak_mmu_va) { soak("mmu_va"); }
BOOST_AUTO_TEST_CASE(soak_mnist_mlp) { soak("mnist_mlp"); }
BOOST_AUTO_TEST_CASE(soak_mnist_mlp_opbyop) { soak("mnist_mlp_opbyop"); }
BOOST_AUTO_TEST_CASE(soak_simple_commands) { soak("simple_commands"); }
