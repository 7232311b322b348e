// The npuvp program as a user runs it: exit codes, error messages,
// --list / --route, and byte-identical traces from identical runs.
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

std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = "cli_test_" + name;
    std::ofstream(path) << text;
    return path;
}

}  // namespace

BOOST_AUTO_TEST_CASE(default_run_prints_the_probe_and_exits_zero) {
    const RunResult r = run_npuvp("");
    BOOST_CHECK_EQUAL(r.code, 0);
    BOOST_CHECK(r.out.find("machine  1 SIP x 1 cube x 8 PE") != std::string::npos);
    BOOST_CHECK(r.out.find("sip0.cube0.pe7") != std::string::npos);
    BOOST_CHECK(r.out.find("makespan") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(same_inputs_give_byte_identical_traces) {
    const RunResult a = run_npuvp("--set cube.pe_template.components.pe_dma.attrs.bw_gbs=200 "
                           "--trace cli_test_trace_a.jsonl");
    const RunResult b = run_npuvp("--set cube.pe_template.components.pe_dma.attrs.bw_gbs=200 "
                           "--trace cli_test_trace_b.jsonl");
    BOOST_REQUIRE_EQUAL(a.code, 0);
    BOOST_REQUIRE_EQUAL(b.code, 0);
    const std::string ta = slurp("cli_test_trace_a.jsonl");
    // 8 control deliveries + 2 probes x 8 PEs x (start + complete) = 40 events.
    std::size_t lines = 0;
    for (char c : ta) lines += c == '\n';
    BOOST_CHECK_EQUAL(lines, 40u);
    BOOST_CHECK(ta == slurp("cli_test_trace_b.jsonl"));
    // The printed summaries agree too, up to the line naming the trace file.
    BOOST_CHECK(a.out.substr(0, a.out.find("trace    ")) == b.out.substr(0, b.out.find("trace    ")));
}

BOOST_AUTO_TEST_CASE(list_prints_every_node_and_route_prints_hops) {
    const RunResult r = run_npuvp("--list --route sip0.cube0.pe0.pe_dma sip0.cube0.hbm_ctrl.pe7");
    BOOST_CHECK_EQUAL(r.code, 0);
    BOOST_CHECK(r.out.find("sip0.cube0.pe5.pe_ipcq  [pe_ipcq]") != std::string::npos);
    BOOST_CHECK(r.out.find("-> sip0.cube0.noc.r1  mesh, 2.500 ns, 256.0 GB/s") != std::string::npos);
    // 6 links, 7 hops with the HBM port, 112 ns (see platform_test).
    BOOST_CHECK(r.out.find("route sip0.cube0.pe0.pe_dma -> sip0.cube0.hbm_ctrl.pe7: 6 links, 7 "
                           "hops, latency 112.000 ns") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_inputs_exit_two_naming_file_line_and_key) {
    // Unknown key on line 3.
    const std::string yaml = write_temp("bad.yaml", "name: x\nsystem:\n  sipz: 1\n");
    RunResult r = run_npuvp("--topology " + yaml);
    BOOST_CHECK_EQUAL(r.code, 2);
    BOOST_CHECK_MESSAGE(r.out.find(yaml + ":3:") != std::string::npos, r.out);
    BOOST_CHECK_MESSAGE(r.out.find("system.sipz") != std::string::npos, r.out);

    r = run_npuvp("--set cube.noc.attrs.link_bw_gbs=0");
    BOOST_CHECK_EQUAL(r.code, 2);
    BOOST_CHECK_MESSAGE(r.out.find("--set") != std::string::npos &&
                            r.out.find("cube.noc.attrs.link_bw_gbs") != std::string::npos,
                        r.out);

    r = run_npuvp("--topology does_not_exist.yaml");
    BOOST_CHECK_EQUAL(r.code, 2);
    BOOST_CHECK_MESSAGE(r.out.find("does_not_exist.yaml") != std::string::npos, r.out);

    r = run_npuvp("--frobnicate");
    BOOST_CHECK_EQUAL(r.code, 2);
    BOOST_CHECK(r.out.find("unknown option '--frobnicate'") != std::string::npos);

    r = run_npuvp("--route sip0.cube0.pe0.pe_gemm sip0.cube0.hbm_ctrl.pe0");
    BOOST_CHECK_EQUAL(r.code, 2);
    BOOST_CHECK(r.out.find("no route from sip0.cube0.pe0.pe_gemm") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(help_and_version_exit_zero) {
    RunResult r = run_npuvp("--help");
    BOOST_CHECK_EQUAL(r.code, 0);
    BOOST_CHECK(r.out.find("--topology FILE") != std::string::npos);
    r = run_npuvp("--version");
    BOOST_CHECK_EQUAL(r.code, 0);
    BOOST_CHECK(r.out.find("npuvp 0.1.0") != std::string::npos);
}
