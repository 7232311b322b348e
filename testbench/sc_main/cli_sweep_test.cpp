// `npuvp --summary` and `npuvp sweep` as an architect uses them (SPEC §9,
// docs/cli.md "Summary JSON", docs/sweep.md): the summary's bytes and speed,
// a summary for rejected input, the sweep file's errors, and a 12-point
// sweep through the local workers, GNU parallel and a real Slurm job array —
// identical CSVs —, resumed after a kill, re-run to no effect, and with a bad
// point that fails alone.
#include <boost/test/unit_test.hpp>

#include "testbench/harness/run_npuvp.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using npuvp::test::run_npuvp;
using npuvp::test::RunResult;
using npuvp::test::shipped_workload;
using npuvp::test::slurp;

std::string source(const std::string& rel) { return std::string(NPUVP_SOURCE_DIR) + "/" + rel; }

// A fresh directory under the build directory (the tests' working directory).
std::string fresh_dir(const std::string& name) {
    char cwd[4096];
    BOOST_REQUIRE(getcwd(cwd, sizeof cwd) != nullptr);
    const std::string dir = std::string(cwd) + "/sweep_test_" + name;
    BOOST_REQUIRE(std::system(("rm -rf '" + dir + "'").c_str()) == 0);
    BOOST_REQUIRE(mkdir(dir.c_str(), 0755) == 0);
    return dir;
}

void write(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    BOOST_REQUIRE(out.good());
}

// The 12-point sweep of the tests: reserved TCM 1 or 2 MiB x DMA bandwidth
// 64, 128, 256 GB/s x tile 128 or 256 (zipped with its workload file).
// Every point fits: the 256^3 tile needs 6·256² = 393216 bytes < 1 MiB.
std::string twelve_point_sweep(const std::string& dir, const std::string& bw_values = "[64, 128, 256]") {
    const std::string file = dir + "/sweep.yaml";
    write(file, "name: twelve\n"
                "topology: " + source("configs/topologies/default.yaml") + "\n"
                "workload: " + source("configs/sweeps/gemm_tiles/tile_128.yaml") + "\n"
                "axes:\n"
                "  - key: cube.pe_template.components.pe_tcm.attrs.reserved_mb\n"
                "    values: [1, 2]\n"
                "  - key: cube.pe_template.components.pe_dma.attrs.bw_gbs\n"
                "    values: " + bw_values + "\n"
                "  - zip:\n"
                "      - { key: workload, values: [" + source("configs/sweeps/gemm_tiles/tile_128.yaml") + ", " +
                               source("configs/sweeps/gemm_tiles/tile_256.yaml") + "] }\n"
                "      - { name: tile, values: [128, 256] }\n");
    return file;
}

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(slurp(path));
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::string cell;
        bool quoted = false;
        for (std::size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (quoted) {
                if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cell += '"', ++i;
                else if (c == '"') quoted = false;
                else cell += c;
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                cells.push_back(cell);
                cell.clear();
            } else {
                cell += c;
            }
        }
        cells.push_back(cell);
        rows.push_back(cells);
    }
    return rows;
}

std::size_t column(const std::vector<std::vector<std::string>>& csv, const std::string& name) {
    BOOST_REQUIRE(!csv.empty());
    for (std::size_t i = 0; i < csv[0].size(); ++i)
        if (csv[0][i] == name) return i;
    BOOST_FAIL("no column " + name);
    return 0;
}

std::size_t count_results(const std::string& dir) {
    std::size_t n = 0;
    DIR* points = opendir((dir + "/points").c_str());
    if (!points) return 0;
    while (dirent* e = readdir(points)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        struct stat st;
        if (stat((dir + "/points/" + name + "/result.json").c_str(), &st) == 0) ++n;
    }
    closedir(points);
    return n;
}

// The CSV of the 12-point sweep run by local workers (the reference).
std::string local_reference_csv(const std::string& name) {
    const std::string dir = fresh_dir(name);
    const RunResult r = run_npuvp("sweep run " + twelve_point_sweep(dir) + " --out " + dir + "/out --jobs 2");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const RunResult c = run_npuvp("sweep collect " + dir + "/out");
    BOOST_REQUIRE_MESSAGE(c.code == 0, c.out);
    return slurp(dir + "/out/results.csv");
}

}  // namespace

// ---------------------------------------------------------------- summary

BOOST_AUTO_TEST_CASE(summary_reports_bytes_bandwidth_and_speed) {
    const std::string dir = fresh_dir("summary_bytes");
    const RunResult r = run_npuvp("--workload " + shipped_workload("gemm_bias_relu") + " --summary " + dir + "/s.json");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const YAML::Node s = YAML::LoadFile(dir + "/s.json");  // JSON is YAML
    BOOST_CHECK_EQUAL(s["schema"].as<std::string>(), "npuvp.summary/2");
    BOOST_CHECK_EQUAL(s["status"].as<std::string>(), "ok");
    BOOST_CHECK_EQUAL(s["exit_code"].as<int>(), 0);
    BOOST_CHECK_EQUAL(s["error"].as<std::string>(), "");
    // gemm_bias_relu.yaml: 512^3 in 128^3 tiles = 4·4·4 = 64 tokens. The
    // default reuse keeps an A row panel (A and B would save the same 3 · 512
    // KiB; A on a tie; docs/timing.md "Operand reuse"): the 16 tokens of the
    // first N pass (ni = 0) read their A and B tiles of 128·128 bf16 = 32768
    // bytes each, the other 48 only B: 16 · 2 · 32768 + 48 · 32768 bytes. The
    // 16 output tiles are written once each, 128·128·2 = 32768 bytes.
    const std::uint64_t reads = 16u * 2 * 32768 + 48u * 32768;
    BOOST_CHECK_EQUAL(s["totals"]["dma_read_bytes"].as<std::uint64_t>(), reads);
    BOOST_CHECK_EQUAL(s["totals"]["dma_write_bytes"].as<std::uint64_t>(), 16u * 32768);
    // Average bandwidth = bytes / makespan (bytes per ns = GB/s), 3 decimals.
    const double makespan = s["makespan_ns"].as<double>();
    BOOST_REQUIRE_GT(makespan, 0.0);
    BOOST_CHECK_CLOSE(s["totals"]["dma_read_gbs"].as<double>(), static_cast<double>(reads) / makespan, 0.01);
    // The report's traffic rows: the DMA read row of pe0 with the default
    // topology's peak, 256 GB/s per read engine x 1 engine.
    bool found = false;
    for (const auto& t : s["traffic"]) {
        if (t["name"].as<std::string>() != "sip0.cube0.pe0.pe_dma read") continue;
        found = true;
        BOOST_CHECK_EQUAL(t["kind"].as<std::string>(), "dma");
        BOOST_CHECK_EQUAL(t["bytes"].as<std::uint64_t>(), reads);
        BOOST_CHECK_CLOSE(t["peak_gbs"].as<double>(), 256.0, 1e-9);
        BOOST_CHECK_LE(t["achieved_gbs"].as<double>(), 256.0);
    }
    BOOST_CHECK(found);
    // Speed: wall-clock figures, present and positive (their values vary).
    BOOST_CHECK_GT(s["speed"]["wall_s"].as<double>(), 0.0);
    BOOST_CHECK_GT(s["speed"]["delta_cycles"].as<std::uint64_t>(), 0u);
    BOOST_CHECK_GT(s["speed"]["delta_cycles_per_s"].as<double>(), 0.0);
    // The work is fixed by the inputs: 64 tiles of DMA_READ, FETCH, GEMM, and
    // the 16 last-K tiles add MATH bias_add, MATH relu, STORE, DMA_WRITE:
    // 64 * 3 + 16 * 4 = 256 stage events.
    BOOST_CHECK_EQUAL(s["speed"]["stage_events"].as<std::uint64_t>(), 256u);
    BOOST_CHECK_EQUAL(s["speed"]["tiles"].as<std::uint64_t>(), 64u);
    // Written atomically: no temporary file is left beside it.
    struct stat st;
    DIR* d = opendir(dir.c_str());
    BOOST_REQUIRE(d != nullptr);
    while (dirent* e = readdir(d)) BOOST_CHECK(std::string(e->d_name).find(".tmp") == std::string::npos);
    closedir(d);
    BOOST_CHECK(stat((dir + "/s.json").c_str(), &st) == 0);
}

BOOST_AUTO_TEST_CASE(summary_is_written_when_the_input_is_rejected) {
    const std::string dir = fresh_dir("summary_bad_input");
    // A bad --set value: rejected while the topology loads, before any run.
    RunResult r = run_npuvp("--workload " + shipped_workload("gemm_bias_relu") +
                            " --set cube.noc.attrs.link_bw_gbs=-1 --summary " + dir + "/set.json");
    BOOST_CHECK_EQUAL(r.code, 2);
    YAML::Node s = YAML::LoadFile(dir + "/set.json");
    BOOST_CHECK_EQUAL(s["status"].as<std::string>(), "bad_input");
    BOOST_CHECK_EQUAL(s["exit_code"].as<int>(), 2);
    BOOST_CHECK_EQUAL(s["error"].as<std::string>(), "--set: cube.noc.attrs.link_bw_gbs: must be > 0 (got -1)");
    BOOST_CHECK_EQUAL(s["inputs"]["sets"][0].as<std::string>(), "cube.noc.attrs.link_bw_gbs=-1");
    BOOST_CHECK_EQUAL(s["makespan_ns"].as<double>(), 0.0);
    BOOST_CHECK(s["speed"].IsNull());
    // A workload that does not exist.
    r = run_npuvp("--workload " + dir + "/missing.yaml --summary " + dir + "/wl.json");
    BOOST_CHECK_EQUAL(r.code, 2);
    s = YAML::LoadFile(dir + "/wl.json");
    BOOST_CHECK_EQUAL(s["status"].as<std::string>(), "bad_input");
    BOOST_CHECK(s["error"].as<std::string>().find(dir + "/missing.yaml") != std::string::npos);
    // A malformed command line (the summary path is still known).
    r = run_npuvp("--workload " + shipped_workload("gemm_bias_relu") + " --summary " + dir +
                  "/cli.json --no-such-option");
    BOOST_CHECK_EQUAL(r.code, 2);
    s = YAML::LoadFile(dir + "/cli.json");
    BOOST_CHECK_EQUAL(s["status"].as<std::string>(), "bad_input");
    BOOST_CHECK(s["error"].as<std::string>().find("--no-such-option") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(summary_of_a_failed_run_says_why) {
    const std::string dir = fresh_dir("summary_failed");
    const RunResult r = run_npuvp("--workload " + shipped_workload("mmu_fault") + " --summary " + dir + "/s.json");
    BOOST_CHECK_EQUAL(r.code, 1);
    const YAML::Node s = YAML::LoadFile(dir + "/s.json");
    BOOST_CHECK_EQUAL(s["status"].as<std::string>(), "failed");
    BOOST_CHECK_EQUAL(s["exit_code"].as<int>(), 1);
    BOOST_CHECK_MESSAGE(s["error"].as<std::string>().find("MMU fault") != std::string::npos,
                        s["error"].as<std::string>());
    BOOST_CHECK(s["speed"].IsMap());  // the simulation ran
}

// ---------------------------------------------------------------- plan

BOOST_AUTO_TEST_CASE(sweep_plan_ids_order_and_constraints) {
    const std::string dir = fresh_dir("plan");
    write(dir + "/sweep.yaml",
          "topology: " + source("configs/topologies/default.yaml") + "\n"
          "workload: " + source("configs/sweeps/gemm_tiles/tile_128.yaml") + "\n"
          "set: [cube.noc.attrs.link_bw_gbs=128]\n"
          "axes:\n"
          "  - { key: cube.pe_template.components.pe_tcm.attrs.reserved_mb, name: tcm, values: [2, 1] }\n"
          "  - { key: cube.pe_template.components.pe_dma.attrs.bw_gbs, range: { from: 0.5, to: 1.5, step: 0.5 } }\n"
          "constraints:\n"
          "  - not (tcm == 1 and bw_gbs > 1)\n");
    const RunResult r = run_npuvp("sweep run " + dir + "/sweep.yaml --out " + dir + "/out --dry-run");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    // 2 x 3 = 6 combinations, first axis outermost, in the order the values
    // are written; the constraint removes tcm=1 with bw 1.5: 5 points. The
    // name defaults to the key's last segment (bw_gbs); ids are name=value.
    BOOST_CHECK_MESSAGE(r.out.find("5 points (1 left out by constraints), 0 already done, 5 to run") !=
                            std::string::npos, r.out);
    BOOST_CHECK_EQUAL(slurp(dir + "/out/plan.tsv"),
                      "#npuvp.sweep-plan/1\tsweep\n"
                      "index\tid\ttcm\tbw_gbs\n"
                      "0\ttcm=2,bw_gbs=0.5\t2\t0.5\n"
                      "1\ttcm=2,bw_gbs=1\t2\t1\n"
                      "2\ttcm=2,bw_gbs=1.5\t2\t1.5\n"
                      "3\ttcm=1,bw_gbs=0.5\t1\t0.5\n"
                      "4\ttcm=1,bw_gbs=1\t1\t1\n");
    // Each point's arguments: the base files, the fixed --set, then its own.
    BOOST_CHECK_EQUAL(slurp(dir + "/out/points/tcm=1,bw_gbs=0.5/args"),
                      "--topology\n" + source("configs/topologies/default.yaml") + "\n--workload\n" +
                          source("configs/sweeps/gemm_tiles/tile_128.yaml") +
                          "\n--set\ncube.noc.attrs.link_bw_gbs=128\n--set\n"
                          "cube.pe_template.components.pe_tcm.attrs.reserved_mb=1\n--set\n"
                          "cube.pe_template.components.pe_dma.attrs.bw_gbs=0.5\n");
    BOOST_CHECK_EQUAL(count_results(dir + "/out"), 0u);  // --dry-run ran nothing
    // Run one point, then a sweep whose same-named point would run with
    // other arguments (another fixed --set) is refused in this directory...
    RunResult one = run_npuvp("sweep point " + dir + "/out 'tcm=1,bw_gbs=1'");
    BOOST_REQUIRE_MESSAGE(one.code == 0, one.out);
    std::string text = slurp(dir + "/sweep.yaml");
    write(dir + "/other.yaml", text.replace(text.find("link_bw_gbs=128"), 15, "link_bw_gbs=64"));
    const RunResult other = run_npuvp("sweep run " + dir + "/other.yaml --out " + dir + "/out --dry-run");
    BOOST_CHECK_EQUAL(other.code, 2);
    BOOST_CHECK_MESSAGE(other.out.find("point tcm=1,bw_gbs=1 of this directory ran with other arguments") !=
                            std::string::npos, other.out);
    // ... while the same sweep grown by a value keeps the finished point.
    text = slurp(dir + "/sweep.yaml");
    write(dir + "/grown.yaml", text.replace(text.find("values: [2, 1]"), 14, "values: [2, 1, 4]"));
    const RunResult grown = run_npuvp("sweep run " + dir + "/grown.yaml --out " + dir + "/out --dry-run");
    BOOST_CHECK_EQUAL(grown.code, 0);
    BOOST_CHECK_MESSAGE(grown.out.find("8 points (1 left out by constraints), 1 already done, 7 to run") !=
                            std::string::npos, grown.out);
}

BOOST_AUTO_TEST_CASE(sweep_file_errors_name_file_line_and_key) {
    const std::string dir = fresh_dir("errors");
    const std::string head = "topology: " + source("configs/topologies/default.yaml") + "\n" +
                             "workload: " + source("configs/sweeps/gemm_tiles/tile_128.yaml") + "\n";
    struct Case {
        std::string body, expect;
    };
    const std::vector<Case> cases = {
        {"axes:\n  - { key: system.sips, values: [1] }\nconstrains: []\n",
         ":5:1: constrains: unknown key"},
        {"axes:\n  - zip:\n      - { key: system.sips, values: [1, 2] }\n      - { name: n, values: [1] }\n",
         ":6:9: axes[0].zip[1]: has 1 values but axes[0].zip[0] has 2"},
        {"axes:\n  - { key: system.sips, values: [1] }\nconstraints:\n  - sipz > 1\n",
         ":6:5: constraints[0]: unknown parameter 'sipz' (parameters: sips)"},
        {"axes:\n  - key: system.sips\n    range: { from: 1, to: 4, factor: 1 }\n",
         ":5:38: axes[0].range.factor: must be > 1"},
        {"axes:\n  - { key: a..b, values: [1] }\n", ":4:12: axes[0].key: not a --set key path"},
        {"axes:\n  - { key: system.sips, values: [1] }\n  - { key: other.sips, values: [2] }\n",
         ":5:12: axes[1].name: parameter name 'sips' is used twice"},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const std::string file = dir + "/bad" + std::to_string(i) + ".yaml";
        write(file, head + cases[i].body);
        const RunResult r = run_npuvp("sweep run " + file + " --out " + dir + "/out" + std::to_string(i));
        BOOST_CHECK_EQUAL(r.code, 2);
        BOOST_CHECK_MESSAGE(r.out.find(file + cases[i].expect) != std::string::npos,
                            "case " << i << ": want '" << file + cases[i].expect << "' in:\n" << r.out);
    }
    // A file value that does not exist names the parameter.
    const std::string file = dir + "/missing.yaml";
    write(file, head + "axes:\n  - { key: workload, values: [nowhere.yaml] }\n");
    const RunResult r = run_npuvp("sweep run " + file + " --out " + dir + "/outm");
    BOOST_CHECK_EQUAL(r.code, 2);
    BOOST_CHECK_MESSAGE(r.out.find(file + ":4:5: workload: cannot find file 'nowhere.yaml'") != std::string::npos, r.out);
    // The document itself: not a map, empty, not there (read as the
    // topology and workload files are, config/yaml_document.h).
    const std::vector<Case> documents = {
        {"- topology\n", ":1:1: the document must be a map of sweep keys"},
        {"# nothing\n", ": empty document"},
    };
    for (std::size_t i = 0; i < documents.size(); ++i) {
        const std::string doc = dir + "/doc" + std::to_string(i) + ".yaml";
        write(doc, documents[i].body);
        const RunResult d = run_npuvp("sweep run " + doc + " --out " + dir + "/outd");
        BOOST_CHECK_EQUAL(d.code, 2);
        BOOST_CHECK_MESSAGE(d.out.find(doc + documents[i].expect) != std::string::npos, d.out);
    }
    const RunResult none = run_npuvp("sweep run " + dir + "/none.yaml --out " + dir + "/outn");
    BOOST_CHECK_EQUAL(none.code, 2);
    BOOST_CHECK_MESSAGE(none.out.find(dir + "/none.yaml: cannot open file") != std::string::npos, none.out);
}

// A constraint nested very deep (parentheses, not, unary minus, a long
// chain of operators) is rejected with the constraint's place, not a stack
// overflow: the parser, the evaluation and freeing the tree all recurse as
// deep as it nests (100000 parentheses were a segfault, ASan's
// stack-overflow under fuzz/fuzz_sweep; issue 21). 100 levels still parse.
BOOST_AUTO_TEST_CASE(sweep_constraint_nested_too_deep_is_an_error_not_a_crash) {
    const std::string dir = fresh_dir("deep");
    const std::string head = "topology: " + source("configs/topologies/default.yaml") + "\n" +
                             "workload: " + source("configs/sweeps/gemm_tiles/tile_128.yaml") + "\n" +
                             "axes:\n  - { key: system.sips, values: [1] }\nconstraints:\n";
    auto repeat = [](const std::string& s, int n) {
        std::string out;
        for (int i = 0; i < n; ++i) out += s;
        return out;
    };
    const std::vector<std::string> deep = {
        repeat("(", 100000) + "sips > 1" + repeat(")", 100000),
        repeat("not ", 100000) + "sips > 1",
        repeat("- ", 100000) + "sips > 1",
        "sips" + repeat(" + 1", 5000) + " > 1",
    };
    for (std::size_t i = 0; i < deep.size(); ++i) {
        const std::string file = dir + "/deep" + std::to_string(i) + ".yaml";
        write(file, head + "  - \"" + deep[i] + "\"\n");
        const RunResult r = run_npuvp("sweep run " + file + " --out " + dir + "/out" + std::to_string(i));
        BOOST_CHECK_EQUAL(r.code, 2);
        BOOST_CHECK_MESSAGE(r.out.find(file + ":6:5: constraints[0]: ") != std::string::npos &&
                                r.out.find("nested more than 256 deep") != std::string::npos,
                            "case " << i << ":\n" << r.out.substr(0, 2000));
    }
    // Not too low: 100 levels of parentheses parse and evaluate (false here:
    // the one point is left out, which is its own error).
    const std::string file = dir + "/nested100.yaml";
    write(file, head + "  - \"" + repeat("(", 100) + "sips > 1" + repeat(")", 100) + "\"\n");
    const RunResult r = run_npuvp("sweep run " + file + " --out " + dir + "/out100");
    BOOST_CHECK_EQUAL(r.code, 2);
    BOOST_CHECK_MESSAGE(r.out.find("the constraints leave no point to run") != std::string::npos, r.out);
}

// ---------------------------------------------------------------- backends

BOOST_AUTO_TEST_CASE(sweep_local_and_gnu_parallel_give_identical_csv) {
    const std::string local = local_reference_csv("local_vs_parallel_local");
    const std::string dir = fresh_dir("local_vs_parallel_parallel");
    // GNU parallel with an ssh login file whose one login is ':' (this
    // machine, no ssh), 2 jobs at once: the option path that spreads points
    // over machines sharing the file system.
    write(dir + "/logins", "2/:\n");
    const RunResult r = run_npuvp("sweep run " + twelve_point_sweep(dir) + " --out " + dir +
                                  "/out --backend parallel --sshloginfile " + dir + "/logins");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_CHECK(slurp(dir + "/out/parallel.sh").find("--sshloginfile '" + dir + "/logins'") != std::string::npos);
    // GNU parallel's own job log: one row per point, all exit 0.
    std::istringstream joblog(slurp(dir + "/out/parallel.joblog"));
    std::string line;
    std::size_t jobs = 0;
    std::getline(joblog, line);  // header
    while (std::getline(joblog, line)) ++jobs;
    BOOST_CHECK_EQUAL(jobs, 12u);
    const RunResult c = run_npuvp("sweep collect " + dir + "/out");
    BOOST_REQUIRE_MESSAGE(c.code == 0, c.out);
    const std::string parallel = slurp(dir + "/out/results.csv");
    BOOST_CHECK_EQUAL(local, parallel);

    const auto csv = read_csv(dir + "/out/results.csv");
    BOOST_REQUIRE_EQUAL(csv.size(), 13u);  // header + 12 points
    const std::size_t status = column(csv, "status"), makespan = column(csv, "makespan_ns"),
                      bw = column(csv, "bw_gbs"), tile = column(csv, "tile"),
                      reads = column(csv, "dma_read_bytes");
    std::map<std::string, std::map<double, double>> by_series;  // (tcm, tile) -> bw -> makespan
    for (std::size_t i = 1; i < csv.size(); ++i) {
        BOOST_CHECK_EQUAL(csv[i][status], "ok");
        // Bytes read depend on the tile only. The default reuse keeps an A
        // row panel (docs/timing.md "Operand reuse"): A is read once, 512·512·2
        // bytes, B once per M tile, (512/t)·512·512·2: 2621440 for t = 128,
        // 1572864 for t = 256.
        const double t = std::stod(csv[i][tile]);
        BOOST_CHECK_EQUAL(std::stod(csv[i][reads]), 512.0 * 512 * 2 + (512.0 / t) * 512 * 512 * 2);
        by_series[csv[i][1] + "/" + csv[i][tile]][std::stod(csv[i][bw])] = std::stod(csv[i][makespan]);
    }
    // More DMA bandwidth never makes the same GEMM slower.
    for (const auto& [series, points] : by_series) {
        double last = INFINITY;
        for (const auto& [b, m] : points) {
            BOOST_CHECK_MESSAGE(m <= last, series << " bw " << b << ": " << m << " > " << last);
            last = m;
        }
    }
}

BOOST_AUTO_TEST_CASE(sweep_slurm_array_gives_the_same_csv) {
    // tools/slurm_local.sh (the CTest fixture) started munged, slurmctld and
    // slurmd on this machine, or wrote why it could not.
    const char* slurm_dir = std::getenv("NPUVP_SLURM_DIR");
    BOOST_REQUIRE_MESSAGE(slurm_dir != nullptr, "NPUVP_SLURM_DIR is not set (run through ctest)");
    const std::string unavailable = slurp(std::string(slurm_dir) + "/unavailable");
    if (!unavailable.empty()) {
        std::printf("SKIPPED: no local Slurm cluster: %s", unavailable.c_str());
        std::fflush(stdout);
        std::_Exit(77);  // CTest SKIP_RETURN_CODE
    }
    setenv("SLURM_CONF", (std::string(slurm_dir) + "/slurm.conf").c_str(), 1);
    const std::string local = local_reference_csv("slurm_local");
    const std::string dir = fresh_dir("slurm");
    // 12 points, 4 per array task: --array=0-2%2.
    const RunResult r = run_npuvp("sweep run " + twelve_point_sweep(dir) + " --out " + dir +
                                  "/out --backend slurm --per-task 4 --throttle 2 --wait");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_CHECK(slurp(dir + "/out/slurm.sbatch").find("#SBATCH --array=0-2%2\n") != std::string::npos);
    BOOST_CHECK_MESSAGE(r.out.find("submitted Slurm job ") != std::string::npos, r.out);
    // Each array task wrote its own output file through Slurm.
    std::size_t task_logs = 0;
    DIR* d = opendir((dir + "/out/slurm").c_str());
    BOOST_REQUIRE(d != nullptr);
    while (dirent* e = readdir(d)) task_logs += std::string(e->d_name).find(".out") != std::string::npos;
    closedir(d);
    BOOST_CHECK_EQUAL(task_logs, 3u);
    const RunResult c = run_npuvp("sweep collect " + dir + "/out");
    BOOST_REQUIRE_MESSAGE(c.code == 0, c.out);
    BOOST_CHECK_EQUAL(local, slurp(dir + "/out/results.csv"));
}

// ---------------------------------------------------------------- resuming

BOOST_AUTO_TEST_CASE(sweep_rerun_of_a_finished_sweep_runs_nothing) {
    const std::string dir = fresh_dir("rerun");
    const std::string sweep = twelve_point_sweep(dir);
    RunResult r = run_npuvp("sweep run " + sweep + " --out " + dir + "/out --jobs 2");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    std::map<std::string, std::string> before;
    for (const char* f : {"result.json", "summary.json", "log.txt"})
        for (const char* id : {"reserved_mb=1,bw_gbs=64,workload=tile_128,tile=128",
                               "reserved_mb=2,bw_gbs=256,workload=tile_256,tile=256"})
            before[std::string(id) + "/" + f] = slurp(dir + "/out/points/" + id + "/" + f);
    r = run_npuvp("sweep run " + sweep + " --out " + dir + "/out --jobs 2");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_CHECK_MESSAGE(r.out.find("12 points, 12 already done, 0 to run") != std::string::npos, r.out);
    BOOST_CHECK_MESSAGE(r.out.find("\nok ") == std::string::npos, r.out);  // no point ran
    // The summaries carry wall-clock speed: a point that ran again would
    // almost surely have written different bytes.
    for (const auto& [file, text] : before) BOOST_CHECK_EQUAL(slurp(dir + "/out/points/" + file), text);
    // The same through GNU parallel: nothing pending, parallel is not needed.
    r = run_npuvp("sweep run " + sweep + " --out " + dir + "/out --backend parallel");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_CHECK_EQUAL(slurp(dir + "/out/pending.txt"), "");
}

BOOST_AUTO_TEST_CASE(sweep_killed_midway_completes_the_rest_on_rerun) {
    const std::string reference = local_reference_csv("kill_reference");
    const std::string dir = fresh_dir("kill");
    const std::string sweep = twelve_point_sweep(dir);
    const char* bin = std::getenv("NPUVP_BIN");
    BOOST_REQUIRE(bin != nullptr);
    // One worker, in its own process group, killed (SIGKILL, the whole group:
    // the sweep and the point it is running) once two points are done.
    const pid_t pid = fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        const std::string log = dir + "/first.log";
        freopen(log.c_str(), "w", stdout);
        freopen(log.c_str(), "a", stderr);
        const std::string out = dir + "/out";
        execl(bin, bin, "sweep", "run", sweep.c_str(), "--out", out.c_str(), "--jobs", "1", (char*)nullptr);
        _exit(127);
    }
    setpgid(pid, pid);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (count_results(dir + "/out") < 2 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    kill(-pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    BOOST_REQUIRE(WIFSIGNALED(status));
    const std::size_t done = count_results(dir + "/out");
    BOOST_TEST_MESSAGE("killed with " << done << " of 12 points done");
    BOOST_REQUIRE_GE(done, 2u);
    BOOST_REQUIRE_LT(done, 12u);
    // The re-run runs exactly the rest and ends with the same CSV as an
    // uninterrupted sweep.
    const RunResult r = run_npuvp("sweep run " + sweep + " --out " + dir + "/out --jobs 2");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string expect = std::to_string(done) + " already done, " + std::to_string(12 - done) + " to run";
    BOOST_CHECK_MESSAGE(r.out.find(expect) != std::string::npos, "want '" << expect << "' in " << r.out);
    const RunResult c = run_npuvp("sweep collect " + dir + "/out");
    BOOST_REQUIRE_MESSAGE(c.code == 0, c.out);
    BOOST_CHECK_EQUAL(slurp(dir + "/out/results.csv"), reference);
}

BOOST_AUTO_TEST_CASE(sweep_bad_point_is_reported_and_the_rest_complete) {
    const std::string dir = fresh_dir("bad_point");
    // bw_gbs = -1 breaks the topology's "bw: > 0" rule: 2 TCM sizes x 2 tiles = 4 of
    // the 12 points.
    const std::string sweep = twelve_point_sweep(dir, "[64, -1, 256]");
    RunResult r = run_npuvp("sweep run " + sweep + " --out " + dir + "/out --jobs 2");
    BOOST_CHECK_EQUAL(r.code, 1);
    BOOST_CHECK_MESSAGE(r.out.find("12 points: 8 ok, 4 failed, 0 not done") != std::string::npos, r.out);
    const std::string error =
        "--set: cube.pe_template.components.pe_dma.attrs.bw_gbs: must be > 0 (got -1)";
    BOOST_CHECK_MESSAGE(r.out.find("bad_input  reserved_mb=1,bw_gbs=-1,workload=tile_128,tile=128: " + error) !=
                            std::string::npos, r.out);
    r = run_npuvp("sweep collect " + dir + "/out");
    BOOST_CHECK_EQUAL(r.code, 1);  // not every point is ok
    const auto csv = read_csv(dir + "/out/results.csv");
    BOOST_REQUIRE_EQUAL(csv.size(), 13u);
    const std::size_t status = column(csv, "status"), code = column(csv, "exit_code"),
                      err = column(csv, "error"), makespan = column(csv, "makespan_ns"),
                      bw = column(csv, "bw_gbs");
    std::size_t ok = 0, bad = 0;
    for (std::size_t i = 1; i < csv.size(); ++i) {
        if (csv[i][bw] == "-1") {
            ++bad;
            BOOST_CHECK_EQUAL(csv[i][status], "bad_input");
            BOOST_CHECK_EQUAL(csv[i][code], "2");
            BOOST_CHECK_EQUAL(csv[i][err], error);
            BOOST_CHECK_EQUAL(csv[i][makespan], "");
        } else {
            ++ok;
            BOOST_CHECK_EQUAL(csv[i][status], "ok");
            BOOST_CHECK_GT(std::stod(csv[i][makespan]), 0.0);
        }
    }
    BOOST_CHECK_EQUAL(ok, 8u);
    BOOST_CHECK_EQUAL(bad, 4u);
    // A failed point is done: a re-run leaves it; --retry-failed runs it again.
    r = run_npuvp("sweep run " + sweep + " --out " + dir + "/out");
    BOOST_CHECK_MESSAGE(r.out.find("12 already done, 0 to run") != std::string::npos, r.out);
    r = run_npuvp("sweep run " + sweep + " --out " + dir + "/out --retry-failed");
    BOOST_CHECK_MESSAGE(r.out.find("8 already done, 4 to run") != std::string::npos, r.out);
}

// ---------------------------------------------------------------- collect

BOOST_AUTO_TEST_CASE(sweep_collect_plots_and_pareto_front) {
    const std::string dir = fresh_dir("plot");
    RunResult r = run_npuvp("sweep run " + twelve_point_sweep(dir) + " --out " + dir + "/out --jobs 2");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    r = run_npuvp("sweep collect " + dir + "/out --plot " + dir + "/m.svg --x bw_gbs --y makespan_ns");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string svg = slurp(dir + "/m.svg");
    auto count = [](const std::string& text, const std::string& what) {
        std::size_t n = 0;
        for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
        return n;
    };
    BOOST_CHECK_EQUAL(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
    BOOST_CHECK_EQUAL(count(svg, "<circle class=\"point\""), 12u);
    // One line per combination of the other parameters: 2 TCM sizes x 2
    // tiles (the workload file steps with the tile) = 4 series of 3 points.
    BOOST_CHECK_EQUAL(count(svg, "<polyline stroke=\"#"), 4u);
    BOOST_CHECK(svg.find("reserved_mb=1, workload=") != std::string::npos);

    // Pareto front of two results, both minimised: computed here from the
    // CSV, and compared with what collect printed and drew.
    r = run_npuvp("sweep collect " + dir + "/out --plot " + dir + "/p.svg --x makespan_ns --y util_dma_read --pareto");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const auto csv = read_csv(dir + "/out/results.csv");
    const std::size_t x = column(csv, "makespan_ns"), y = column(csv, "util_dma_read");
    std::set<std::string> front;
    for (std::size_t i = 1; i < csv.size(); ++i) {
        bool dominated = false;
        for (std::size_t j = 1; j < csv.size(); ++j) {
            const double xi = std::stod(csv[i][x]), yi = std::stod(csv[i][y]);
            const double xj = std::stod(csv[j][x]), yj = std::stod(csv[j][y]);
            dominated = dominated || (xj <= xi && yj <= yi && (xj < xi || yj < yi));
        }
        if (!dominated) front.insert(csv[i][0]);
    }
    BOOST_REQUIRE(!front.empty());
    BOOST_CHECK_MESSAGE(r.out.find("Pareto front of makespan_ns (min) and util_dma_read (min): " +
                                   std::to_string(front.size()) + " points") != std::string::npos, r.out);
    for (const std::string& id : front) BOOST_CHECK_MESSAGE(r.out.find("  " + id + "  ") != std::string::npos, id);
    const std::string pareto_svg = slurp(dir + "/p.svg");
    BOOST_CHECK_EQUAL(count(pareto_svg, "<circle class=\"front\""), front.size());
    BOOST_CHECK_EQUAL(count(pareto_svg, "<circle class=\"point\""), 12u);
    BOOST_CHECK_EQUAL(count(pareto_svg, "<polyline stroke=\"#"), 0u);  // two results: no series lines
    // A column that does not exist is named with the ones that do.
    r = run_npuvp("sweep collect " + dir + "/out --plot " + dir + "/q.svg --x bw --y makespan_ns");
    BOOST_CHECK_EQUAL(r.code, 2);
    BOOST_CHECK_MESSAGE(r.out.find("no numeric column 'bw' (columns: reserved_mb, bw_gbs,") != std::string::npos, r.out);

    // A categorical x (the workload file): one place per file, its name as
    // the tick, one legend entry, no line; a log y labelled with its unit.
    r = run_npuvp("sweep collect " + dir + "/out --plot " + dir + "/c.svg --x workload --y makespan_ns --log-y");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string cat = slurp(dir + "/c.svg");
    BOOST_CHECK_EQUAL(count(cat, "<circle class=\"point\""), 12u);
    BOOST_CHECK_EQUAL(count(cat, "<polyline stroke=\"#"), 0u);
    BOOST_CHECK(cat.find(">tile_128.yaml</text>") != std::string::npos);
    BOOST_CHECK(cat.find(">tile_256.yaml</text>") != std::string::npos);
    BOOST_CHECK(cat.find(">all points</text>") != std::string::npos);
    BOOST_CHECK(cat.find(">makespan (ns) (log)</text>") != std::string::npos);
    // --group: one line per value of the column (2 tiles), labelled by it.
    r = run_npuvp("sweep collect " + dir + "/out --plot " + dir + "/g.svg --x bw_gbs --y energy_pj --group tile --log-x");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string grouped = slurp(dir + "/g.svg");
    BOOST_CHECK_EQUAL(count(grouped, "<polyline stroke=\"#"), 2u);
    BOOST_CHECK(grouped.find(">tile=128</text>") != std::string::npos && grouped.find(">tile=256</text>") != std::string::npos);
    BOOST_CHECK(grouped.find(">bw (GB/s) (log)</text>") != std::string::npos);
    BOOST_CHECK(grouped.find(">energy (pJ)</text>") != std::string::npos);
    // A log axis of categories is refused.
    r = run_npuvp("sweep collect " + dir + "/out --plot " + dir + "/b.svg --x workload --y makespan_ns --log-x");
    BOOST_CHECK_EQUAL(r.code, 2);
    BOOST_CHECK(r.out.find("--log-x: 'workload' is not numeric") != std::string::npos);
}

// A data-mode workload (docs/workload.md "Operand data") in a sweep: every
// point runs with --dump-dir points/ID, so the points, run at once by two
// workers, each keep their own C beside their summary. The axis (the mesh
// link bandwidth) changes timing only, so both points hold the same
// 64 x 64 int32 bytes.
BOOST_AUTO_TEST_CASE(sweep_points_keep_their_own_dumps) {
    const std::string dir = fresh_dir("dumps");
    write(dir + "/sweep.yaml",
          "topology: " + source("configs/topologies/default.yaml") + "\n"
          "workload: " + source("configs/workloads/gemm_bias_relu_data.yaml") + "\n"
          "axes:\n"
          "  - { key: cube.noc.attrs.link_bw_gbs, name: bw, values: [64, 256] }\n");
    const RunResult r = run_npuvp("sweep run " + dir + "/sweep.yaml --out " + dir + "/out --jobs 2");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string a = slurp(dir + "/out/points/bw=64/gemm_bias_relu_data_c.bin");
    const std::string b = slurp(dir + "/out/points/bw=256/gemm_bias_relu_data_c.bin");
    BOOST_CHECK_EQUAL(a.size(), 64u * 64u * 4u);
    BOOST_CHECK(a == b);
}
