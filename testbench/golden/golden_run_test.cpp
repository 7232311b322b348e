// The golden whole-platform run (STYLE.md "Tests": a golden trace, reviewed,
// with the reason it is right). testbench/golden/host_two_pe/workload.yaml
// runs on default.yaml with every output; each output, normalised (below),
// must equal the file in testbench/golden/host_two_pe/expected/ byte for byte,
// in the default mode and with --per-stage: the net that catches the two
// modes drifting apart (docs/speed.md "The decoupled pipeline"). Every time
// in those files is derived by hand in testbench/golden/host_two_pe/README.md;
// hand_derived_numbers_hold_in_the_golden_files states the key ones in code.
//
// A deliberate change: regenerate with
//   NPUVP_UPDATE_GOLDEN=1 ctest --test-dir build -R golden_run_test.default_mode_matches_golden
// then run the whole suite, review `git diff testbench/golden`, and bring
// README.md's derivation (and the numbers below) up to date with it.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "testbench/harness/run_npuvp.h"
#include "testbench/harness/trace_reader.h"

using namespace npuvp::test;

namespace {

const std::string source_dir = NPUVP_SOURCE_DIR;
const std::string golden_dir = source_dir + "/testbench/golden/host_two_pe";
const std::string expected_dir = golden_dir + "/expected";

// The outputs compared, by their names in expected/ and in the run's folder.
const char* const outputs[] = {"stdout.txt", "trace.jsonl", "summary.json", "timeline.json", "run.vcd"};

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// What differs between two correct runs, taken out: the source tree's place
// (paths become relative to it), npuvp's version in the first line of
// stdout, the wall-clock speed line and the pipeline lines (stdout; they say
// which PEs ran decoupled, which differs between the modes by design), the
// summary's "speed" line (the same), and the SystemC build's version banner
// in the VCD. Nothing else: every simulated number stays.
std::string normalise(const std::string& name, std::string text) {
    text = replace_all(text, source_dir + "/", "");
    if (name == "stdout.txt") {
        const std::string banner = std::string("npuvp ") + NPUVP_VERSION + " ";
        if (text.rfind(banner, 0) == 0) text.replace(0, banner.size(), "npuvp (version) ");
        return without_speed_line(text);
    }
    if (name == "summary.json") {
        const std::size_t at = text.find("\n  \"speed\": ");
        BOOST_REQUIRE_MESSAGE(at != std::string::npos, "the summary has no speed line");
        text.erase(at, text.find('\n', at + 1) - at);
    }
    if (name == "run.vcd") {
        const std::size_t at = text.find("$version\n");
        BOOST_REQUIRE_MESSAGE(at != std::string::npos, "the VCD has no $version");
        const std::size_t from = at + 9, to = text.find("\n$end", from);
        text.replace(from, to - from, " (SystemC version, normalised by golden_run_test)");
    }
    return text;
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    BOOST_REQUIRE_MESSAGE(out.good(), "cannot write " << path);
}

// Fails naming the first line where `actual` and `expected` (the golden file
// `name`, or what the caller made of it) differ, with the lines around it,
// and keeps `actual` in `actual_path` for diff -u.
void check_equal(const std::string& name, const std::string& actual, const std::string& actual_path,
                 const std::string* expected_text = nullptr) {
    const std::string expected_path = expected_dir + "/" + name;
    const std::string expected = expected_text ? *expected_text : slurp(expected_path);
    if (actual == expected) return;
    write_file(actual_path, actual);
    std::vector<std::string> e, a;
    for (auto [text, lines] : {std::pair{&expected, &e}, std::pair{&actual, &a}}) {
        std::istringstream in(*text);
        for (std::string line; std::getline(in, line);) lines->push_back(line);
    }
    std::size_t i = 0;
    while (i < e.size() && i < a.size() && e[i] == a[i]) ++i;
    std::ostringstream msg;
    msg << name << " differs from the golden file at line " << i + 1 << " (expected " << e.size()
        << " lines, got " << a.size() << "); diff -u " << expected_path << " " << actual_path << "\n";
    for (std::size_t j = i; j < i + 3; ++j) {
        if (j < e.size()) msg << "  - " << e[j] << "\n";
        if (j < a.size()) msg << "  + " << a[j] << "\n";
    }
    BOOST_ERROR(msg.str());
}

// Runs the golden workload with every output in a folder of its own (under
// the working directory, the build tree) and returns the folder.
std::filesystem::path run_golden(const std::string& tag, const std::string& extra, bool with_outputs = true) {
    const std::filesystem::path dir = std::filesystem::current_path() / ("golden_run_test." + tag);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::filesystem::path home = std::filesystem::current_path();
    // The outputs are named relative to the run's folder, so that stdout
    // names them the same wherever the build tree is. Each case runs in a
    // process of its own: changing its directory touches no other case.
    std::filesystem::current_path(dir);
    const RunResult run = run_npuvp(
        "--topology " + source_dir + "/configs/topologies/default.yaml --workload " + golden_dir +
        "/workload.yaml" +
        (with_outputs ? " --trace trace.jsonl --summary summary.json --timeline timeline.json --vcd run.vcd" : "") +
        " " + extra);
    std::filesystem::current_path(home);
    BOOST_REQUIRE_MESSAGE(run.code == 0, "npuvp exited with " << run.code << ":\n" << run.out);
    write_file((dir / "stdout.txt").string(), run.out);
    return dir;
}

void check_against_golden(const std::string& tag, const std::string& extra, bool may_update) {
    const std::filesystem::path dir = run_golden(tag, extra);
    const bool update = may_update && std::getenv("NPUVP_UPDATE_GOLDEN") != nullptr;
    for (const char* name : outputs) {
        const std::string actual = normalise(name, slurp((dir / name).string()));
        if (update) {
            write_file(expected_dir + "/" + name, actual);
            BOOST_TEST_MESSAGE("rewrote " << expected_dir << "/" << name << ": review the diff");
        } else {
            check_equal(name, actual, (dir / (std::string(name) + ".normalised")).string());
        }
    }
}

// The golden stdout without the lines that name output files.
std::string without_output_lines(const std::string& out) {
    std::istringstream in(out);
    std::string kept;
    for (std::string line; std::getline(in, line);)
        if (line.rfind("vcd ", 0) != 0 && line.rfind("timeline ", 0) != 0 && line.rfind("trace ", 0) != 0)
            kept += line + "\n";
    return kept;
}

// A time in ns as the outputs print it (three decimals) in whole ps, so
// that the checks below are exact.
long long ps(double ns) { return std::llround(ns * 1000.0); }

}  // namespace

// The two modes agree only if they differ: the default run has both PEs on
// a calendar (IPCQ partners share one), the per-stage run neither.
void check_pipeline_line(const std::string& tag, const std::string& expected) {
    const std::string out = slurp((std::filesystem::current_path() / ("golden_run_test." + tag) / "stdout.txt").string());
    BOOST_CHECK_MESSAGE(out.find("\n" + expected + "\n") != std::string::npos || out.find("\n" + expected + ";") != std::string::npos,
                        tag << ": no line '" << expected << "' in its stdout");
}

BOOST_AUTO_TEST_CASE(default_mode_matches_golden) {
    check_against_golden("default", "", true);
    check_pipeline_line("default", "pipeline 2 of 2 PEs decoupled");
}

BOOST_AUTO_TEST_CASE(per_stage_mode_matches_golden) {
    check_against_golden("per_stage", "--per-stage", false);
    check_pipeline_line("per_stage", "pipeline 0 of 2 PEs decoupled");
}

// Without outputs nothing asks for a per-stage run: the run that a future
// decoupled pipeline takes first must print the same table.
BOOST_AUTO_TEST_CASE(run_without_outputs_prints_the_golden_table) {
    const std::filesystem::path dir = run_golden("plain", "", false);
    const std::string expected = without_output_lines(slurp(expected_dir + "/stdout.txt"));
    check_equal("stdout.txt", normalise("stdout.txt", slurp((dir / "stdout.txt").string())),
                (dir / "stdout.txt.normalised").string(), &expected);
}

// The key numbers of README.md's derivation, read from the golden files
// (which the cases above hold every run to). Constants, default.yaml:
// IO_CPU and M_CPU 5 ns per message, io link 500 ns, M_CPU -> pe0 2 ns and
// -> pe1 4.5 ns (attach 1 + mesh 2.5 + attach 1), PE_CPU 2 ns per command,
// PE_SCHEDULER 1 ns per dispatch.
BOOST_AUTO_TEST_CASE(hand_derived_numbers_hold_in_the_golden_files) {
    const YAML::Node summary = YAML::LoadFile(expected_dir + "/summary.json");
    auto command = [&](const std::string& pe, const std::string& id) {
        for (const YAML::Node& c : summary["commands"])
            if (c["pe"].as<std::string>() == "sip0.cube0." + pe && c["id"].as<std::string>() == id) return c;
        BOOST_FAIL("no command " << id << " on " << pe << " in the golden summary");
        return YAML::Node();
    };
    auto started = [&](const std::string& pe, const std::string& id) { return command(pe, id)["started_ns"].as<double>(); };
    auto finished = [&](const std::string& pe, const std::string& id) { return command(pe, id)["finished_ns"].as<double>(); };

    // pe0 starts at 5 (IO_CPU) + 500 (io link) + 5 (M_CPU) + 2 = 512 ns;
    // PE_CPU issues ld at 514, pre 516, act 518, tx 520, rx 522 (2 ns each).
    // ld: dma_read of 4096 B from its own slice, dispatched at 515:
    // 500 (channel) + 1 + 1 (attach links) + 100 (HBM) + 2 (TCM write port)
    // + ser(4096 B, 192 GB/s) = 21.334 -> 625.334 ns, done 1140.334.
    BOOST_CHECK_EQUAL(ps(started("pe0", "ld")), ps(515.0));
    BOOST_CHECK_EQUAL(ps(finished("pe0", "ld")), ps(1140.334));
    // pre (sub context) overlaps ld: 517 + 2 (TCM read port) + 2048 B / 2048 GB/s + 1 = 521.
    BOOST_CHECK_EQUAL(ps(started("pe0", "pre")), ps(517.0));
    BOOST_CHECK_EQUAL(ps(finished("pe0", "pre")), ps(521.0));
    // The hazard: act reads what ld writes (RAW), so it starts 1 ns after ld's
    // done: 1141.334, having waited 1140.334 - 518 = 622.334 ns for it;
    // relu on 2048 bf16 elements: ceil(2048 / 512) + 8 = 12 ns.
    BOOST_CHECK_EQUAL(ps(started("pe0", "act")), ps(1141.334));
    BOOST_CHECK_EQUAL(ps(finished("pe0", "act")), ps(1153.334));
    // tx waits for act (RAW on 0x801000): 1154.334; IPCQ_SEND of 4096 B:
    // 500 (vc_comm) + 1 + 2.5 + 1 + 4096 B / 256 GB/s = 520.5 -> 1674.834,
    // when the bytes reach pe1's ring and pe1's rx completes.
    BOOST_CHECK_EQUAL(ps(started("pe0", "tx")), ps(1154.334));
    BOOST_CHECK_EQUAL(ps(finished("pe0", "tx")), ps(1674.834));
    BOOST_CHECK_EQUAL(ps(finished("pe1", "rx")), ps(1674.834));
    BOOST_CHECK_EQUAL(ps(summary["waits_ns"]["dependency"].as<double>()), ps(622.334 + 633.334));

    // pe1 starts at 10 (IO_CPU's second message) + 505 + 4.5 = 519.5; fc is
    // submitted at 521.5, its tiles fed at 522.5 and 523.5; tx dispatched at
    // 524.5 sends 4096 B to pe0 in 520.5 ns: pe0's rx completes at 1045.
    BOOST_CHECK_EQUAL(ps(started("pe1", "tx")), ps(524.5));
    BOOST_CHECK_EQUAL(ps(finished("pe0", "rx")), ps(1045.0));
    // fc: tile 1's DMA_WRITE ends at 3646.168 (README.md, tile by tile:
    // DMA_READ 945.334, FETCH 35, GEMM 256, 2 x 40 epilogues, STORE 19 or
    // 258 behind tile 1's TCM write reservation, DMA_WRITE 774.667 each).
    BOOST_CHECK_EQUAL(ps(started("pe1", "fc")), ps(522.5));
    BOOST_CHECK_EQUAL(ps(finished("pe1", "fc")), ps(3646.168));

    // The makespan: go1's response, 3646.168 + 4.5 (pe1 -> M_CPU) + 5
    // (M_CPU) + 500 (io link) + 5 (IO_CPU) = 4160.668 ns.
    BOOST_CHECK_EQUAL(ps(summary["makespan_ns"].as<double>()), ps(4160.668));

    // The host side, from the trace: request_start, kernel_start, request_complete.
    const std::vector<TraceLine> trace = parse_trace(slurp(expected_dir + "/trace.jsonl"));
    auto at = [&](const std::string& ev, const std::string& node, std::int64_t cmd) {
        for (const TraceLine& t : trace)
            if (t.ev == ev && t.node == node && t.cmd == cmd) return static_cast<double>(t.t_ps) / 1000.0;
        BOOST_FAIL("no " << ev << " of " << node << " cmd " << cmd << " in the golden trace");
        return 0.0;
    };
    BOOST_CHECK_EQUAL(ps(at("request_start", "sip0.io_cpu", 0)), ps(5.0));
    BOOST_CHECK_EQUAL(ps(at("request_start", "sip0.io_cpu", 1)), ps(10.0));
    BOOST_CHECK_EQUAL(ps(at("kernel_start", "sip0.cube0.pe0.pe_cpu", -1)), ps(512.0));
    BOOST_CHECK_EQUAL(ps(at("kernel_start", "sip0.cube0.pe1.pe_cpu", -1)), ps(519.5));
    // go0: 1674.834 + 2 + 5 + 500 + 5 = 2186.834.
    BOOST_CHECK_EQUAL(ps(at("request_complete", "sip0.io_cpu", 0)), ps(2186.834));
    BOOST_CHECK_EQUAL(ps(at("request_complete", "sip0.io_cpu", 1)), ps(4160.668));

    // Tile 0's STORE of fc (32768 B, 19 ns uncontended) starts at 1838.834
    // and finds pe1's TCM write port reserved by tile 1's DMA_READ, which
    // started at 1467.834 and holds the port from 1467.834 + 502 + 100 =
    // 2069.834 for 65536 B / 8192 GB/s = 8 ns (T1: reservations in start
    // order, one busy-until per hop): 2077.834 + 2 + 16 + 1 = 2096.834.
    // Tile 1's STORE finds the port free: 2784.168 + 19 = 2803.168.
    const auto stores = with_stage(engine_intervals(trace), "STORE", "sip0.cube0.pe1.pe_fetch_store");
    BOOST_REQUIRE_EQUAL(stores.size(), 2u);
    BOOST_CHECK_EQUAL(stores[0].start_ps, 1838834u);
    BOOST_CHECK_EQUAL(stores[0].end_ps, 2096834u);
    BOOST_CHECK_EQUAL(stores[1].start_ps, 2784168u);
    BOOST_CHECK_EQUAL(stores[1].end_ps, 2803168u);
    // The IPCQ deliveries: pe0's receiver takes pe1's bytes at 1045 and
    // pe1's takes pe0's at 1674.834, each the sender's done.
    const auto recvs = with_stage(engine_intervals(trace), "IPCQ_RECV");
    BOOST_REQUIRE_EQUAL(recvs.size(), 2u);
    BOOST_CHECK_EQUAL(recvs[0].node, "sip0.cube0.pe0.pe_ipcq");
    BOOST_CHECK_EQUAL(recvs[0].start_ps, 1045000u);
    BOOST_CHECK_EQUAL(recvs[1].node, "sip0.cube0.pe1.pe_ipcq");
    BOOST_CHECK_EQUAL(recvs[1].start_ps, 1674834u);
}
