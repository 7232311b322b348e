// npuvp --workload as a user runs it: identical runs write identical traces,
// a run-time fault exits 1 naming PE, command and address, and a bad
// workload file exits 2 naming file, line and key.
#include <boost/test/unit_test.hpp>

#include "testbench/harness/run_npuvp.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace {

using npuvp::test::run_npuvp;
using npuvp::test::RunResult;
using npuvp::test::slurp;
std::string workload(const std::string& name) { return npuvp::test::shipped_workload(name); }

}  // namespace

BOOST_AUTO_TEST_CASE(trace_is_deterministic) {
    const std::string args = "--workload " + workload("gemm_bias_relu") + " --trace ";
    const RunResult a = run_npuvp(args + "cli_workload_trace_a.jsonl");
    const RunResult b = run_npuvp(args + "cli_workload_trace_b.jsonl");
    BOOST_REQUIRE_EQUAL(a.code, 0);
    BOOST_REQUIRE_EQUAL(b.code, 0);
    const std::string ta = slurp("cli_workload_trace_a.jsonl");
    // 64 tokens: at least a dispatch, and a start and complete per stage.
    BOOST_CHECK_GT(ta.size(), 64u * 100u);
    BOOST_CHECK(ta.find("\"ev\":\"command_complete\"") != std::string::npos);
    BOOST_CHECK(ta == slurp("cli_workload_trace_b.jsonl"));
    BOOST_CHECK(npuvp::test::without_speed_line(a.out.substr(0, a.out.find("trace    "))) ==
                npuvp::test::without_speed_line(b.out.substr(0, b.out.find("trace    "))));
}

BOOST_AUTO_TEST_CASE(mmu_fault_exits_one_naming_pe_command_and_address) {
    const RunResult r = run_npuvp("--workload " + workload("mmu_fault"));
    BOOST_CHECK_EQUAL(r.code, 1);
    BOOST_CHECK_MESSAGE(r.out.find("sip0.cube0.pe0") != std::string::npos, r.out);
    BOOST_CHECK_MESSAGE(r.out.find("MMU fault: command ld ") != std::string::npos, r.out);
    BOOST_CHECK_MESSAGE(r.out.find("0x80000000") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(unknown_workload_key_exits_two_naming_file_line_and_key) {
    // The unknown key `colour` is on line 5.
    const std::string path = "cli_workload_test_bad.yaml";
    std::ofstream(path) << "name: bad\n"
                           "kernels:\n"
                           "  k:\n"
                           "    - dma_read:\n"
                           "        colour: red\n"
                           "        bytes: 64\n"
                           "launch:\n"
                           "  - { kernel: k, pes: [0] }\n";
    const RunResult r = run_npuvp("--workload " + path);
    BOOST_CHECK_EQUAL(r.code, 2);
    BOOST_CHECK_MESSAGE(r.out.find(path + ":5:") != std::string::npos, r.out);
    BOOST_CHECK_MESSAGE(r.out.find("colour") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(host_launch_exits_zero_and_prints_the_request_table) {
    const RunResult r = run_npuvp("--workload " + workload("host_launch"));
    BOOST_CHECK_EQUAL(r.code, 0);
    BOOST_CHECK_MESSAGE(r.out.find("request") != std::string::npos &&
                            r.out.find("xfer ns") != std::string::npos,
                        r.out);
    for (const char* id : {"w_in ", "map ", "go ", "r_out "})
        BOOST_CHECK_MESSAGE(r.out.find(std::string("\n") + id) != std::string::npos, id << "\n" << r.out);
    BOOST_CHECK_MESSAGE(r.out.find("FAILED") == std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(host_watchdog_exits_one_naming_the_missing_pe) {
    const RunResult r = run_npuvp("--workload " + workload("host_watchdog") +
                           " --set cube.m_cpu.attrs.response_timeout_ns=100000");
    BOOST_CHECK_EQUAL(r.code, 1);
    BOOST_CHECK_MESSAGE(r.out.find("sip0.cube0.pe2") != std::string::npos, r.out);
    BOOST_CHECK_MESSAGE(r.out.find("hang") != std::string::npos, r.out);
}
