// Every shipped example (configs/workloads/*.yaml) writes every output, as a
// user runs it: `--vcd --timeline --svg --report` on the topology the example
// is written for (its header; docs/workload.md, docs/mnist.md). Each file
// exists and is non-empty; the VCD is accepted by GTKWave's vcd2fst, the
// .gtkw names it, the timeline and report JSON parse (JSON is YAML), the SVG
// is well-formed XML with a box per command. The two examples that fail on
// purpose (mmu_fault, host_watchdog) exit 1 and still write everything, marked
// as failed. A test also checks that this list covers every shipped workload.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "testbench/harness/run_npuvp.h"
#include "testbench/harness/xml_check.h"

using namespace npuvp::test;

namespace {

struct Example {
    const char* workload;
    const char* topology;
    const char* extra;  // further options, as the example's header says
    bool fails;         // fails on purpose (exit code 1)
};

const Example examples[] = {
    {"double_buffer_pipelined", "rngd_pe", "", false},
    {"double_buffer_rolled", "rngd_pe", "", false},
    {"elementwise_relu", "default", "", false},
    {"gemm_all_pes", "default", "", false},
    {"gemm_bias_relu", "default", "", false},
    {"gemm_bias_relu_data", NPUVP_RTL_BUILT ? "rtl_gemm_math" : "default", "", false},
    // Meant for the RTL GEMM (docs/rtl.md); on the builtin one when this
    // build has no Verilator.
    {"gemm_int8_small", NPUVP_RTL_BUILT ? "rtl_gemm" : "default", "", false},
    {"host_launch", "default", "", false},
    {"host_two_cubes", "two_sip", "", false},
    {"host_watchdog", "default", "--set cube.m_cpu.attrs.response_timeout_ns=100000", true},
    {"ipcq_exchange", "default", "", false},
    {"mmu_fault", "default", "", true},
    {"mmu_va", "default", "", false},
    {"mnist_mlp", "rngd_pe", "", false},
    {"mnist_mlp_opbyop", "rngd_pe", "", false},
    {"simple_commands", "default", "", false},
};

void check_example(const std::string& name) {
    const auto it = std::find_if(std::begin(examples), std::end(examples),
                                 [&](const Example& e) { return name == e.workload; });
    BOOST_REQUIRE(it != std::end(examples));
    const std::string base = "cli_examples_" + name;
    for (const char* ext : {".vcd", ".gtkw", ".timeline.json", ".svg", ".report.json"})
        std::filesystem::remove(base + ext);
    const RunResult r = run_npuvp(
        "--topology " + std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/" + it->topology +
        ".yaml --workload " + shipped_workload(name) + " " + it->extra + " --vcd " + base +
        ".vcd --timeline " + base + ".timeline.json --svg " + base + ".svg --report " + base +
        ".report.json");
    BOOST_REQUIRE_MESSAGE(r.code == (it->fails ? 1 : 0), r.out);
    if (it->fails) BOOST_CHECK_MESSAGE(r.out.find("npuvp: run failed") != std::string::npos, r.out);

    for (const char* ext : {".vcd", ".gtkw", ".timeline.json", ".svg", ".report.json"}) {
        const std::string path = base + ext;
        BOOST_REQUIRE_MESSAGE(std::filesystem::exists(path), path << " was not written\n" << r.out);
        BOOST_CHECK_MESSAGE(std::filesystem::file_size(path) > 0, path << " is empty");
    }

    // VCD: GTKWave's own converter accepts it; the save file opens it.
    BOOST_CHECK_EQUAL(std::system(("vcd2fst " + base + ".vcd " + base + ".fst > " + base +
                                   ".fst.log 2>&1").c_str()),
                      0);
    BOOST_CHECK(slurp(base + ".gtkw").find("[dumpfile] \"" + base + ".vcd\"") != std::string::npos);

    // Timeline: trace-event JSON with slices; a failed run has its marker.
    const YAML::Node timeline = YAML::Load(slurp(base + ".timeline.json"));
    BOOST_REQUIRE(timeline["traceEvents"].IsSequence());
    std::map<std::string, int> phases, cats;
    for (const YAML::Node& e : timeline["traceEvents"]) {
        ++phases[e["ph"].as<std::string>()];
        if (e["cat"]) ++cats[e["cat"].as<std::string>()];
    }
    BOOST_CHECK_GT(phases["M"], 0);
    BOOST_CHECK_GT(phases["X"], 0);
    BOOST_CHECK_EQUAL(phases["i"], it->fails ? 1 : 0);
    if (!it->fails) BOOST_CHECK_EQUAL(cats["unfinished"], 0);

    // Report: the schema and the run's status.
    const YAML::Node report = YAML::Load(slurp(base + ".report.json"));
    BOOST_CHECK_EQUAL(report["schema"].as<std::string>(), "npuvp.report/1");
    BOOST_CHECK_EQUAL(report["workload"].as<std::string>(), name);
    BOOST_CHECK_EQUAL(report["status"].as<std::string>(), it->fails ? "failed" : "ok");
    BOOST_CHECK_EQUAL(report["failure"].as<std::string>().empty(), !it->fails);
    BOOST_CHECK(report["engines"].IsSequence() && report["engines"].size() > 0);

    // SVG: well-formed, and every slice of the timeline is a box of it too
    // (engine intervals, commands, requests and fan-outs; an unfinished
    // command that never started is only its wait).
    std::map<std::string, int> boxes;
    const std::string svg = slurp(base + ".svg");
    const std::string problem = xml_problem(svg, boxes);
    BOOST_CHECK_MESSAGE(problem.empty(), problem);
    BOOST_CHECK_EQUAL(boxes["op"], phases["X"] - cats["unfinished"]);
    BOOST_CHECK_LE(boxes["unfinished"], cats["unfinished"]);
    BOOST_CHECK_EQUAL(boxes["unfinished"] > 0, it->fails);
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_shipped_workload_is_an_example_here) {
    const std::vector<std::string> shipped = npuvp::test::shipped_workload_names();
    std::vector<std::string> listed;
    for (const Example& e : examples) listed.push_back(e.workload);
    BOOST_CHECK_EQUAL_COLLECTIONS(shipped.begin(), shipped.end(), listed.begin(), listed.end());
}

BOOST_AUTO_TEST_CASE(double_buffer_pipelined) { check_example("double_buffer_pipelined"); }
BOOST_AUTO_TEST_CASE(double_buffer_rolled) { check_example("double_buffer_rolled"); }
BOOST_AUTO_TEST_CASE(elementwise_relu) { check_example("elementwise_relu"); }
BOOST_AUTO_TEST_CASE(gemm_all_pes) { check_example("gemm_all_pes"); }
BOOST_AUTO_TEST_CASE(gemm_bias_relu) { check_example("gemm_bias_relu"); }
BOOST_AUTO_TEST_CASE(gemm_int8_small) { check_example("gemm_int8_small"); }
BOOST_AUTO_TEST_CASE(gemm_bias_relu_data) { check_example("gemm_bias_relu_data"); }
BOOST_AUTO_TEST_CASE(host_launch) { check_example("host_launch"); }
BOOST_AUTO_TEST_CASE(host_two_cubes) { check_example("host_two_cubes"); }
BOOST_AUTO_TEST_CASE(host_watchdog) { check_example("host_watchdog"); }
BOOST_AUTO_TEST_CASE(ipcq_exchange) { check_example("ipcq_exchange"); }
BOOST_AUTO_TEST_CASE(mmu_fault) { check_example("mmu_fault"); }
BOOST_AUTO_TEST_CASE(mmu_va) { check_example("mmu_va"); }
BOOST_AUTO_TEST_CASE(mnist_mlp) { check_example("mnist_mlp"); }
BOOST_AUTO_TEST_CASE(mnist_mlp_opbyop) { check_example("mnist_mlp_opbyop"); }
BOOST_AUTO_TEST_CASE(simple_commands) { check_example("simple_commands"); }
