// npuvp --timeline / --svg / --report as a user runs them (docs/cli.md
// "Outputs"): the outputs are written, and writing them changes no simulated
// time — the printed makespan and schedule are identical with and without.
#include <boost/test/unit_test.hpp>

#include "testbench/harness/run_npuvp.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>

namespace {

using npuvp::test::run_npuvp;
using npuvp::test::RunResult;
using npuvp::test::slurp;
std::string workload(const std::string& name) { return npuvp::test::shipped_workload(name); }

std::string line_with(const std::string& text, const std::string& prefix) {
    const std::size_t at = text.find("\n" + prefix);
    if (at == std::string::npos) return {};
    return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

// The printed run up to the outputs' own lines, without the speed line.
std::string schedule_part(const std::string& out) {
    return npuvp::test::without_speed_line(out.substr(0, out.find("\ncritical path")));
}

}  // namespace

BOOST_AUTO_TEST_CASE(outputs_change_no_simulated_time) {
    for (const char* name : {"simple_commands", "gemm_bias_relu", "host_launch"}) {
        const std::string base = std::string("cli_outputs_") + name;
        const RunResult plain = run_npuvp("--workload " + workload(name));
        const RunResult all = run_npuvp("--workload " + workload(name) + " --trace " + base + ".jsonl" +
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
    const RunResult json = run_npuvp("--workload " + workload("simple_commands") +
                              " --report cli_outputs_report.json");
    BOOST_REQUIRE_MESSAGE(json.code == 0, json.out);
    const std::string text = slurp("cli_outputs_report.json");
    BOOST_CHECK(text.find("\"schema\": \"npuvp.report/1\"") != std::string::npos);
    BOOST_CHECK(text.find("\"makespan_ns\": 2633.001") != std::string::npos);

    const RunResult bad = run_npuvp("--workload " + workload("simple_commands") +
                             " --report cli_outputs_report.txt");
    BOOST_CHECK_EQUAL(bad.code, 2);
    BOOST_CHECK_MESSAGE(bad.out.find("must end in .json or .md") != std::string::npos, bad.out);
}

BOOST_AUTO_TEST_CASE(probe_ignores_outputs_with_a_note) {
    const RunResult r = run_npuvp("--probe-bytes 4096 --timeline cli_outputs_probe.json");
    BOOST_CHECK_EQUAL(r.code, 0);
    BOOST_CHECK(r.out.find("ignored for the probe") != std::string::npos);
}

// The speed line counts the work the run did; the counts (not the wall
// figures) are fixed by the workload. gemm_bias_relu: 512^3 in 128^3 tiles =
// 4 x 4 output tiles x 4 K-steps = 64 tiles. Every tile is DMA_READ, FETCH,
// GEMM (3 stage events); the 16 last-K tiles add MATH bias_add, MATH relu,
// STORE, DMA_WRITE (4 more): 64 * 3 + 16 * 4 = 256 stage events.
BOOST_AUTO_TEST_CASE(speed_line_counts_the_runs_work) {
    const RunResult r = run_npuvp("--workload " + workload("gemm_bias_relu"));
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string speed = line_with(r.out, "speed    ");
    BOOST_TEST_MESSAGE(speed);
    // The simulated time is the run's end: the makespan line's figure.
    const std::string makespan = line_with(r.out, "makespan ");
    BOOST_REQUIRE(!makespan.empty());
    const std::string ns = makespan.substr(9, makespan.find(" ns") - 9);
    BOOST_CHECK(speed.find(" s wall for " + ns + " ns simulated; ") != std::string::npos);
    BOOST_CHECK(speed.find("; 256 stage events (") != std::string::npos);
    BOOST_CHECK(speed.find("), 64 tiles (") != std::string::npos);
}

// The tile detail's options (docs/cli.md "Tile detail"): a capped run says on
// stdout, in the report and in the timeline's metadata what it aggregated;
// the same run without a cap says nothing of it. gemm_bias_relu has 256
// engine intervals (speed_line_counts_the_runs_work): a cap of 10 applies.
BOOST_AUTO_TEST_CASE(capped_outputs_say_what_they_aggregated) {
    const std::string args = "--workload " + workload("gemm_bias_relu") +
                             " --timeline cli_outputs_cap.json --report cli_outputs_cap.md";
    const RunResult capped = run_npuvp(args + " --detail-slices 10");
    BOOST_REQUIRE_MESSAGE(capped.code == 0, capped.out);
    const std::string note = line_with(capped.out, "note     tile detail: ");
    BOOST_CHECK_MESSAGE(note.find("of 256 engine intervals") != std::string::npos, note);
    BOOST_CHECK(note.find("--detail-window FROM_NS:TO_NS") != std::string::npos);
    BOOST_CHECK(slurp("cli_outputs_cap.md").find("\nNote: tile detail: ") != std::string::npos);
    BOOST_CHECK(slurp("cli_outputs_cap.json").find(",\"otherData\":{\"tile_detail\":\"partial\"") != std::string::npos);

    const RunResult window = run_npuvp(args + " --detail-window 20000:30000.5");
    BOOST_REQUIRE_MESSAGE(window.code == 0, window.out);
    BOOST_CHECK(line_with(window.out, "note     ").find("those in 20000.000 .. 30000.500 ns (--detail-window)") !=
                std::string::npos);

    const RunResult plain = run_npuvp(args);
    BOOST_REQUIRE_MESSAGE(plain.code == 0, plain.out);
    BOOST_CHECK(line_with(plain.out, "note ").empty());
    BOOST_CHECK(slurp("cli_outputs_cap.md").find("Note:") == std::string::npos);
    BOOST_CHECK(slurp("cli_outputs_cap.json").find("otherData") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(detail_options_are_checked) {
    const std::string run = "--workload " + workload("simple_commands") + " --report cli_outputs_opt.json ";
    for (const char* bad : {"--detail-window 5", "--detail-window 30:20", "--detail-window 10:10",
                            "--detail-window 1.2345:", "--detail-window a:b", "--detail-window 1:2:3",
                            "--detail-slices -1", "--detail-slices x", "--detail-slices"}) {
        const RunResult r = run_npuvp(run + bad);
        BOOST_CHECK_MESSAGE(r.code == 2, bad << ": exit " << r.code);
        BOOST_CHECK_MESSAGE(r.out.find("--detail-") != std::string::npos, bad << ": " << r.out);
    }
    for (const char* good : {"--detail-window :5000", "--detail-window 1000:", "--detail-window 0.5:7.25",
                             "--detail-slices 0"}) {
        const RunResult r = run_npuvp(run + good);
        BOOST_CHECK_MESSAGE(r.code == 0, good << ": " << r.out);
    }
}

// --trace-binary writes the events of --trace in a compact form; npuvp
// trace-to-json turns it back into --trace's JSON lines, byte for byte
// (docs/cli.md "Trace format"). The probe (no workload) and workloads with
// host requests, waits and composites cover every field.
BOOST_AUTO_TEST_CASE(binary_trace_converts_to_the_json_lines_byte_for_byte) {
    for (const char* name : {"", "simple_commands", "gemm_bias_relu", "host_launch"}) {
        const std::string base = std::string("cli_trace_binary_") + (*name ? name : "probe");
        const std::string run = *name ? "--workload " + workload(name) : std::string();
        const RunResult json = run_npuvp(run + " --trace " + base + ".jsonl");
        const RunResult binary = run_npuvp(run + " --trace-binary " + base + ".bin");
        BOOST_REQUIRE_MESSAGE(json.code == 0, json.out);
        BOOST_REQUIRE_MESSAGE(binary.code == 0, binary.out);
        const std::string events = line_with(json.out, "trace    ");
        BOOST_CHECK(!events.empty());
        BOOST_CHECK_EQUAL(events.substr(0, events.find(" -> ")),
                          line_with(binary.out, "trace    ").substr(0, events.find(" -> ")));
        const RunResult converted = run_npuvp("trace-to-json " + base + ".bin --out " + base + ".converted.jsonl");
        BOOST_REQUIRE_MESSAGE(converted.code == 0, converted.out);
        const std::string lines = slurp(base + ".jsonl");
        BOOST_CHECK(!lines.empty());
        BOOST_CHECK(slurp(base + ".converted.jsonl") == lines);
        BOOST_CHECK(slurp(base + ".bin").size() * 4 < lines.size());
    }
    // Not a binary trace: exit 2, naming the file; both formats at once: exit 2.
    const RunResult bad = run_npuvp("trace-to-json cli_trace_binary_probe.jsonl --out cli_trace_binary_bad.jsonl");
    BOOST_CHECK_EQUAL(bad.code, 2);
    BOOST_CHECK(bad.out.find("not a binary npuvp trace") != std::string::npos);
    const RunResult both = run_npuvp("--trace a.jsonl --trace-binary a.bin");
    BOOST_CHECK_EQUAL(both.code, 2);
    BOOST_CHECK(both.out.find("not both") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_output_to_a_fifo_or_device_is_written_in_place) {
    // An output path that is neither a file nor a folder (a FIFO here;
    // /dev/null, /dev/stdout) is written in place: the atomic writer's
    // temporary file renamed over it would replace the FIFO (or, run as
    // root, the device) by a plain file.
    const char* bin = std::getenv("NPUVP_BIN");
    BOOST_REQUIRE(bin != nullptr);
    const std::string fifo = "cli_fifo_trace";
    std::remove(fifo.c_str());
    BOOST_REQUIRE(std::system(("mkfifo " + fifo).c_str()) == 0);
    const std::string run = "--workload " + workload("simple_commands");
    // (The reader gives up after 30 s: a writer that never opens the FIFO
    // fails the test instead of hanging it.)
    const std::string command = "timeout 30 cat " + fifo + " > " + fifo + ".out & " + std::string(bin) + " " + run +
                                " --trace " + fifo + " > /dev/null 2>&1; status=$?; wait; exit $status";
    const int status = std::system(command.c_str());
    BOOST_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct stat st {};
    BOOST_REQUIRE(::stat(fifo.c_str(), &st) == 0);
    BOOST_CHECK(S_ISFIFO(st.st_mode));  // still the FIFO
    const RunResult file = run_npuvp(run + " --trace " + fifo + ".file");
    BOOST_REQUIRE_MESSAGE(file.code == 0, file.out);
    const std::string lines = slurp(fifo + ".file");
    BOOST_CHECK(!lines.empty());
    BOOST_CHECK(slurp(fifo + ".out") == lines);  // what went through the FIFO is the trace
}
