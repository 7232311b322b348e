// npuvp --timeline / --svg / --report as a user runs them (docs/cli.md
// "Outputs"): the outputs are written, and writing them changes no simulated
// time — the printed makespan and schedule are identical with and without.
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace {

struct Result {
    int code;
    std::string out;
};

Result npuvp(const std::string& args) {
    const char* bin = std::getenv("NPUVP_BIN");
    BOOST_REQUIRE_MESSAGE(bin != nullptr, "NPUVP_BIN is not set (run through ctest)");
    const std::string command = std::string(bin) + " " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    BOOST_REQUIRE(pipe != nullptr);
    std::string out;
    char buffer[4096];
    std::size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string workload(const std::string& name) {
    return std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/" + name + ".yaml";
}

std::string line_with(const std::string& text, const std::string& prefix) {
    const std::size_t at = text.find("\n" + prefix);
    if (at == std::string::npos) return {};
    return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

// The printed run up to the outputs' own lines.
std::string schedule_part(const std::string& out) {
    return out.substr(0, out.find("\ncritical path"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(outputs_change_no_simulated_time) {
    for (const char* name : {"simple_commands", "gemm_bias_relu", "host_launch"}) {
        const std::string base = std::string("cli_outputs_") + name;
        const Result plain = npuvp("--workload " + workload(name));
        const Result all = npuvp("--workload " + workload(name) + " --trace " + base + ".jsonl" +
                                 " --timeline " + base + ".timeline.json --svg " + base +
                                 ".svg --report " + base + ".report.md");
        BOOST_REQUIRE_MESSAGE(plain.code == 0, plain.out);
        BOOST_REQUIRE_MESSAGE(all.code == 0, all.out);
        const std::string makespan = line_with(plain.out, "makespan ");
        BOOST_CHECK(!makespan.empty());
        BOOST_CHECK_EQUAL(makespan, line_with(all.out, "makespan "));
        BOOST_CHECK(schedule_part(plain.out) == schedule_part(all.out));
        BOOST_CHECK(slurp(base + ".timeline.json").rfind("{\"traceEvents\":[", 0) == 0);
        BOOST_CHECK(slurp(base + ".svg").find("</svg>") != std::string::npos);
        BOOST_CHECK(slurp(base + ".report.md").find("## Critical path") != std::string::npos);
        BOOST_CHECK(all.out.find("timeline " + base + ".timeline.json") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(report_format_follows_the_extension) {
    const Result json = npuvp("--workload " + workload("simple_commands") +
                              " --report cli_outputs_report.json");
    BOOST_REQUIRE_MESSAGE(json.code == 0, json.out);
    const std::string text = slurp("cli_outputs_report.json");
    BOOST_CHECK(text.find("\"schema\": \"npuvp.report/1\"") != std::string::npos);
    BOOST_CHECK(text.find("\"makespan_ns\": 2633.001") != std::string::npos);

    const Result bad = npuvp("--workload " + workload("simple_commands") +
                             " --report cli_outputs_report.txt");
    BOOST_CHECK_EQUAL(bad.code, 2);
    BOOST_CHECK_MESSAGE(bad.out.find("must end in .json or .md") != std::string::npos, bad.out);
}

BOOST_AUTO_TEST_CASE(probe_ignores_outputs_with_a_note) {
    const Result r = npuvp("--probe-bytes 4096 --timeline cli_outputs_probe.json");
    BOOST_CHECK_EQUAL(r.code, 0);
    BOOST_CHECK(r.out.find("ignored for the probe") != std::string::npos);
}
