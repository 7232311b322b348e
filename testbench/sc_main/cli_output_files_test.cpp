// Output files (issue 21 point 4; docs/cli.md "Outputs"): every output path
// is checked before the run starts, with one error style and exit 2; every
// file is written beside itself and renamed over it, so a reader (or a
// second run writing the same path) never sees half a file; --summary is
// refused where there is no run for it to describe.
#include <boost/test/unit_test.hpp>

#include <dirent.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "testbench/harness/run_npuvp.h"

namespace {

using npuvp::test::run_npuvp;
using npuvp::test::RunResult;
using npuvp::test::slurp;

std::string source(const std::string& rel) { return std::string(NPUVP_SOURCE_DIR) + "/" + rel; }
const std::string workload = " --workload " + source("configs/workloads/gemm_bias_relu.yaml");

// The names in `dir` starting with `prefix` that hold ".tmp." (a temporary
// file left behind).
std::vector<std::string> temporaries(const std::string& dir, const std::string& prefix = "") {
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d)) {
            const std::string name = e->d_name;
            if (name.rfind(prefix, 0) == 0 && name.find(".tmp.") != std::string::npos) out.push_back(name);
        }
        closedir(d);
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_output_path_is_checked_before_the_run_with_one_error_style) {
    // Each option's path in a folder that does not exist: exit 2, the same
    // sentence naming the option, the path and the folder, and nothing ran
    // (no makespan printed). The VCD once gave the kernel's raw E701 and
    // exit 1.
    for (const std::string flag : {"--trace", "--summary", "--timeline", "--svg", "--report", "--roofline", "--vcd"}) {
        const std::string path = flag == "--vcd" ? "no_such_folder/x.vcd" : flag == "--report" ? "no_such_folder/x.json"
                                                                                                 : "no_such_folder/x";
        const RunResult r = run_npuvp(workload + " " + flag + " " + path);
        BOOST_CHECK_MESSAGE(r.code == 2, flag << ": exit " << r.code << "\n" << r.out);
        BOOST_CHECK_MESSAGE(r.out.find("npuvp: error: command line: " + flag + ": cannot write '" + path +
                                       "': the folder 'no_such_folder' does not exist") != std::string::npos,
                            r.out);
        BOOST_CHECK_MESSAGE(r.out.find("makespan") == std::string::npos, flag << " ran anyway:\n" << r.out);
    }
    // A folder where a file is wanted.
    mkdir("cli_output_files_dir", 0755);
    const RunResult d = run_npuvp(workload + " --timeline cli_output_files_dir");
    BOOST_CHECK_EQUAL(d.code, 2);
    BOOST_CHECK(d.out.find("--timeline: cannot write 'cli_output_files_dir': it is a folder") != std::string::npos);
    // The VCD's save file beside it is checked too: a folder named like it.
    mkdir("cli_output_files_v.gtkw", 0755);
    const RunResult g = run_npuvp(workload + " --vcd cli_output_files_v.vcd");
    BOOST_CHECK_EQUAL(g.code, 2);
    BOOST_CHECK(g.out.find("--vcd: cannot write 'cli_output_files_v.gtkw': it is a folder") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_summary_is_refused_where_no_run_has_one) {
    // The probe (no --workload), --list and --compare: exit 2, no file (it
    // was once silently not written, exit 0).
    std::remove("cli_output_files_probe.json");
    const RunResult probe = run_npuvp("--summary cli_output_files_probe.json");
    BOOST_CHECK_EQUAL(probe.code, 2);
    BOOST_CHECK(probe.out.find("--summary: it describes one --workload or --model run; without --workload or "
                               "--model npuvp runs the platform probe, which has none") != std::string::npos);
    BOOST_CHECK(!std::ifstream("cli_output_files_probe.json"));
    const RunResult list = run_npuvp("--list --summary cli_output_files_probe.json");
    BOOST_CHECK_EQUAL(list.code, 2);
    BOOST_CHECK(list.out.find("--list and --route run nothing") != std::string::npos);
    const RunResult compare = run_npuvp("--compare " + source("configs/workloads/gemm_bias_relu.yaml") + " " +
                                        source("configs/workloads/gemm_all_pes.yaml") +
                                        " --summary cli_output_files_probe.json");
    BOOST_CHECK_EQUAL(compare.code, 2);
    BOOST_CHECK(compare.out.find("--compare writes each variant's itself") != std::string::npos);
    BOOST_CHECK(!std::ifstream("cli_output_files_probe.json"));
}

BOOST_AUTO_TEST_CASE(outputs_are_renamed_into_place_whole) {
    // One run with every output: each file is there, no temporary is left.
    mkdir("cli_output_files_out", 0755);
    const std::string dir = "cli_output_files_out/";
    const RunResult r = run_npuvp(workload + " --trace " + dir + "t.jsonl --summary " + dir + "s.json --timeline " +
                                  dir + "t.json --svg " + dir + "s.svg --report " + dir + "r.md --roofline " + dir +
                                  "r.svg --vcd " + dir + "v.vcd");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    for (const char* f : {"t.jsonl", "s.json", "t.json", "s.svg", "r.md", "r.svg", "v.vcd", "v.gtkw"})
        BOOST_CHECK_MESSAGE(!slurp(dir + f).empty(), f << " is empty or missing");
    BOOST_CHECK(temporaries("cli_output_files_out").empty());
    const std::string trace = slurp(dir + "t.jsonl"), vcd = slurp(dir + "v.vcd");
    // Four runs at once, all writing the same trace and VCD: each file is
    // whole and equal to the single run's (the same inputs give the same
    // bytes; before, two runs left a torn trace), and no temporary is left.
    const char* bin = std::getenv("NPUVP_BIN");
    BOOST_REQUIRE(bin != nullptr);
    std::string cmd;
    for (int i = 0; i < 4; ++i)
        cmd += std::string(bin) + workload + " --trace " + dir + "same.jsonl --vcd " + dir + "same.vcd >/dev/null 2>&1 & ";
    cmd += "wait";
    BOOST_REQUIRE_EQUAL(std::system(cmd.c_str()), 0);
    BOOST_CHECK(slurp(dir + "same.jsonl") == trace);
    BOOST_CHECK(slurp(dir + "same.vcd") == vcd);
    BOOST_CHECK(temporaries("cli_output_files_out").empty());
}

BOOST_AUTO_TEST_CASE(a_failed_runs_trace_is_kept) {
    // A run that fails (host_watchdog: the watchdog fires, exit 1) still
    // leaves its whole trace, renamed into place, to show what led to the stop.
    std::remove("cli_output_files_failed.jsonl");
    const RunResult r = run_npuvp("--workload " + source("configs/workloads/host_watchdog.yaml") +
                                  " --trace cli_output_files_failed.jsonl");
    BOOST_REQUIRE_MESSAGE(r.code == 1, r.out);
    const std::string trace = slurp("cli_output_files_failed.jsonl");
    BOOST_CHECK(!trace.empty() && trace.back() == '\n');
    BOOST_CHECK(r.out.find("trace    ") != std::string::npos);
    BOOST_CHECK(temporaries(".", "cli_output_files_failed").empty());
}
