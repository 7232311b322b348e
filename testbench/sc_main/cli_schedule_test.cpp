// Seed 002's tuning protocol as a user runs it (SPEC §6): `npuvp --compare`
// runs each double-buffering variant in its own process and the pipelined one
// has the lower makespan; `--summary` writes the printed makespan.
#include <boost/test/unit_test.hpp>

#include "testbench/harness/run_npuvp.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace {

using npuvp::test::run_npuvp;
using npuvp::test::RunResult;

std::string source(const std::string& rel) { return std::string(NPUVP_SOURCE_DIR) + "/" + rel; }

// The makespan column of the --compare row whose variant name contains `name`
// (the row after the "variants" header), or -1.
double compare_makespan(const std::string& out, const std::string& name) {
    const std::size_t header = out.find("\nvariants");
    if (header == std::string::npos) return -1;
    std::istringstream in(out.substr(header + 1));
    std::string line;
    std::getline(in, line);  // title
    std::getline(in, line);  // column names
    while (std::getline(in, line)) {
        std::istringstream cols(line);
        std::string variant, makespan;
        cols >> variant >> makespan;
        if (variant.find(name) != std::string::npos) return std::stod(makespan);
    }
    return -1;
}

}  // namespace

BOOST_AUTO_TEST_CASE(double_buffering_pipelined_beats_rolled) {
    const RunResult r = run_npuvp("--topology " + source("configs/topologies/rngd_pe.yaml") +
                           " --compare " + source("configs/workloads/double_buffer_rolled.yaml") +
                           " " + source("configs/workloads/double_buffer_pipelined.yaml"));
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const double rolled = compare_makespan(r.out, "double_buffer_rolled");
    const double pipelined = compare_makespan(r.out, "double_buffer_pipelined");
    BOOST_REQUIRE_MESSAGE(rolled > 0 && pipelined > 0, r.out);
    BOOST_CHECK_MESSAGE(pipelined < rolled, r.out);
}

BOOST_AUTO_TEST_CASE(summary_makespan_equals_printed_makespan) {
    const std::string summary = "cli_schedule_summary.json";
    std::remove(summary.c_str());
    const RunResult r = run_npuvp("--topology " + source("configs/topologies/rngd_pe.yaml") +
                           " --workload " + source("configs/workloads/double_buffer_pipelined.yaml") +
                           " --summary " + summary);
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::size_t at = r.out.find("\nmakespan ");
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, r.out);
    std::istringstream line(r.out.substr(at + 10));
    std::string printed, unit;
    line >> printed >> unit;
    BOOST_CHECK_EQUAL(unit, "ns");
    const YAML::Node s = YAML::LoadFile(summary);  // JSON is YAML
    BOOST_CHECK_EQUAL(s["status"].as<std::string>(), "ok");
    BOOST_CHECK_EQUAL(s["makespan_ns"].as<std::string>(), printed);
    BOOST_CHECK_GT(s["makespan_ns"].as<double>(), 0.0);
}

BOOST_AUTO_TEST_CASE(compare_takes_its_ratios_from_the_first_variant_that_ran) {
    // The first variant cannot load (reserved TCM of 64 MiB > the 32 MiB
    // TCM): it is "failed", exit 1, and the ratios are against the second,
    // whose own ratio is then exactly 1.000x. The long variant names keep the
    // columns aligned: every row's makespan column starts where the header's
    // does. Each row also names what bound it.
    const std::string bad = "cube.pe_template.components.pe_tcm.attrs.reserved_mb=64";
    const std::string ok = "cube.pe_template.components.pe_dma.attrs.bw_gbs=128";
    const RunResult r = run_npuvp("--workload " + source("configs/workloads/gemm_all_pes.yaml") +
                                  " --compare-set \"" + bad + "\" --compare-set \"" + ok +
                                  "\" --compare-set \"cube.pe_template.components.pe_dma.attrs.bw_gbs=512\"");
    BOOST_CHECK_EQUAL(r.code, 1);
    BOOST_CHECK(r.out.find("ratios against " + ok + ")") != std::string::npos);
    const std::size_t header = r.out.find("variant ", r.out.find("\nvariants"));
    const std::size_t column = r.out.find("makespan ns", header) - header;
    std::istringstream rows(r.out.substr(r.out.find('\n', header) + 1));
    std::string failed, first, second;
    std::getline(rows, failed);
    std::getline(rows, first);
    std::getline(rows, second);
    BOOST_CHECK(failed.rfind(bad, 0) == 0 && failed.find("failed        -  (exit 2)") != std::string::npos);
    BOOST_CHECK(first.find("1.000x") != std::string::npos);
    // Right-aligned: the makespan figure ends where "makespan ns" does.
    const std::size_t end = column + std::string("makespan ns").size();
    BOOST_REQUIRE_GT(first.size(), end);
    BOOST_CHECK(std::isdigit(static_cast<unsigned char>(first[end - 1])) && first[end] == ' ');
    BOOST_CHECK(std::isdigit(static_cast<unsigned char>(second[end - 1])) && second[end] == ' ');
    BOOST_CHECK(second.find("DMA start-up") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(compare_gives_each_engine_kinds_mean_utilisation) {
    // gemm_all_pes runs a GEMM on each of the 8 PEs. --compare's engine
    // table gives, per engine kind, the mean over the PEs of busy / makespan:
    // here computed from the same run's --summary engine rows (each
    // busy_ns / makespan_ns), and the rolled variant's printed with one
    // decimal. A kind no PE used (IPCQ_SEND) shows 0.0%.
    const std::string summary = "cli_schedule_engines.json";
    const RunResult s = run_npuvp("--workload " + source("configs/workloads/gemm_all_pes.yaml") + " --summary " + summary);
    BOOST_REQUIRE_MESSAGE(s.code == 0, s.out);
    const YAML::Node j = YAML::LoadFile(summary);
    const double makespan = j["makespan_ns"].as<double>();
    std::map<std::string, std::pair<double, int>> mean;
    for (const auto& e : j["engines"]) {
        auto& m = mean[e["engine"].as<std::string>()];
        m.first += e["busy_ns"].as<double>() / makespan;
        ++m.second;
    }
    BOOST_REQUIRE_EQUAL(mean["GEMM"].second, 8);
    const RunResult r = run_npuvp("--workload " + source("configs/workloads/gemm_all_pes.yaml") +
                                  " --compare-set \"cube.pe_template.components.pe_dma.attrs.bw_gbs=128\"" +
                                  " --compare-set \"cube.pe_template.components.pe_dma.attrs.bw_gbs=256\"");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::size_t table = r.out.find("\nengine utilisation (busy / makespan, mean over the PEs that ran the engine)\n");
    BOOST_REQUIRE_MESSAGE(table != std::string::npos, r.out);
    std::istringstream rows(r.out.substr(table + 1));
    std::string title, header, row128, row256;
    std::getline(rows, title);
    std::getline(rows, header);
    std::getline(rows, row128);
    std::getline(rows, row256);
    // The default topology's DMA runs at 256 GB/s: the second variant is the
    // summary's run.
    std::istringstream names(header), cells(row256.substr(row256.find("bw_gbs=256") + 10));
    std::string word;
    names >> word;  // "variant"
    for (std::string kind, cell; names >> kind && cells >> cell;) {
        std::ostringstream want;
        want << std::fixed << std::setprecision(1) << 100.0 * mean[kind].first / mean[kind].second << "%";
        BOOST_CHECK_MESSAGE(cell == want.str(), kind << ": printed " << cell << ", summary gives " << want.str());
    }
    BOOST_CHECK(header.find("IPCQ_SEND") != std::string::npos);
}

// The context table has a row per PE whose contexts ran or waited (a
// composite runs outside the contexts, docs/workload.md "Contexts"): pe0 runs
// a dma_read on its dma context, pe1 only a composite, so pe1 has no row and
// a line counts it; a run of composites alone prints one line, no table.
BOOST_AUTO_TEST_CASE(context_table_leaves_out_pes_whose_contexts_ran_nothing) {
    const std::string workload = "cli_schedule_contexts.yaml";
    {
        std::ofstream w(workload);
        w << "name: contexts\n"
             "kernels:\n"
             "  simple:\n"
             "    - dma_read: { id: rd, bytes: 4096, addr: { own: 0 }, wait: true }\n"
             "  tiled:\n"
             "    - composite:\n"
             "        id: fc\n"
             "        gemm: { m: 128, k: 128, n: 128 }\n"
             "        tile: { m: 128, k: 128, n: 128 }\n"
             "        src: { own: 0 }\n"
             "        dst: { own: 0x100000 }\n"
             "        wait: true\n"
             "launch:\n"
             "  - { kernel: simple, cube: sip0.cube0, pes: [0] }\n"
             "  - { kernel: tiled, cube: sip0.cube0, pes: [1] }\n";
    }
    const RunResult r = run_npuvp("--workload " + workload);
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::size_t table = r.out.find("\ncontext busy / waited ns\n");
    BOOST_REQUIRE_MESSAGE(table != std::string::npos, r.out);
    const std::string rest = r.out.substr(table, r.out.find("waits by cause", table) - table);
    BOOST_CHECK_MESSAGE(rest.find("\nsip0.cube0.pe0 ") != std::string::npos, rest);
    BOOST_CHECK_MESSAGE(rest.find("\nsip0.cube0.pe1 ") == std::string::npos, rest);
    BOOST_CHECK_MESSAGE(rest.find("(1 of 2 PEs ran no context-scheduled command and are left out)") !=
                            std::string::npos,
                        rest);

    const RunResult c = run_npuvp("--workload " + source("configs/workloads/gemm_all_pes.yaml"));
    BOOST_REQUIRE_MESSAGE(c.code == 0, c.out);
    BOOST_CHECK_MESSAGE(c.out.find("\ncontexts no context-scheduled command ran on any PE") != std::string::npos,
                        c.out);
    BOOST_CHECK_MESSAGE(c.out.find("context busy / waited ns") == std::string::npos, c.out);
}

namespace {

std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The shipped data-mode example with B drawn from `seed_b` instead of 2.
std::string data_workload(const std::string& path, int seed_b) {
    std::string text = file_text(source("configs/workloads/gemm_bias_relu_data.yaml"));
    const std::string from = "seed: 2,";
    const std::size_t at = text.find(from);
    BOOST_REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), "seed: " + std::to_string(seed_b) + ",");
    std::ofstream(path) << text;
    return path;
}

}  // namespace

// Data mode under --compare (docs/cli.md): each variant writes its dumps in a
// folder of its own. Variants that differ in timing only (the mesh link
// bandwidth) compute the same C, so the file is written once, with the bytes
// of a run of the workload alone; two workloads whose B differs give
// different C, so each variant's copy is kept as FILE.vN, N its row.
BOOST_AUTO_TEST_CASE(compare_writes_a_dump_once_when_the_variants_agree) {
    const std::string dir = "cli_compare_dumps";
    std::filesystem::remove_all(dir);
    for (const char* sub : {"", "/alone", "/same", "/differ"}) std::filesystem::create_directories(dir + sub);
    const std::string same = data_workload(dir + "/same.yaml", 2), other = data_workload(dir + "/other.yaml", 7);
    const std::string c = "gemm_bias_relu_data_c.bin";

    const RunResult alone = run_npuvp("--workload " + same + " --dump-dir " + dir + "/alone");
    BOOST_REQUIRE_MESSAGE(alone.code == 0, alone.out);
    const std::string expected = file_text(dir + "/alone/" + c);
    BOOST_REQUIRE_EQUAL(expected.size(), 64u * 64u * 4u);  // 64 x 64 int32

    const RunResult a = run_npuvp("--workload " + same + " --dump-dir " + dir + "/same" +
                                  " --compare-set cube.noc.attrs.link_bw_gbs=64 --compare-set cube.noc.attrs.link_bw_gbs=256");
    BOOST_REQUIRE_MESSAGE(a.code == 0, a.out);
    BOOST_CHECK_MESSAGE(a.out.find("dump     " + dir + "/same/" + c + ": the same bytes from every variant") !=
                            std::string::npos,
                        a.out);
    BOOST_CHECK(file_text(dir + "/same/" + c) == expected);
    BOOST_CHECK(!std::filesystem::exists(dir + "/same/" + c + ".v1"));

    const RunResult b = run_npuvp("--compare " + same + " " + other + " --dump-dir " + dir + "/differ");
    BOOST_REQUIRE_MESSAGE(b.code == 0, b.out);
    BOOST_CHECK_MESSAGE(b.out.find("the variants wrote different bytes (as same: same; different: other)") !=
                            std::string::npos,
                        b.out);
    BOOST_CHECK(!std::filesystem::exists(dir + "/differ/" + c));
    BOOST_CHECK(file_text(dir + "/differ/" + c + ".v1") == expected);
    const std::string v2 = file_text(dir + "/differ/" + c + ".v2");
    BOOST_CHECK_EQUAL(v2.size(), expected.size());
    BOOST_CHECK(v2 != expected);
}

BOOST_AUTO_TEST_CASE(a_kernel_end_delays_the_hosts_answer_by_itself) {
    // pe_cpu.kernel_end_ns (issue 40 point 1): the kernel's completion phase
    // comes before its PE answers M_CPU, so a host-launched kernel's request
    // completes exactly kernel_end_ns later (every PE of host_launch.yaml
    // runs one kernel; the slowest answers last, 600 ns later as well), and
    // the bound line names it.
    const std::string base = "--workload " + std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/host_launch.yaml";
    const auto done_ns = [](const std::string& out) {
        const auto at = out.find("\ngo ");
        BOOST_REQUIRE(at != std::string::npos);
        std::istringstream row(out.substr(at + 1, out.find('\n', at + 1) - at - 1));
        std::string id, kind;
        double issued = 0, done = 0;
        row >> id >> kind >> issued >> done;
        return done;
    };
    const npuvp::test::RunResult a = npuvp::test::run_npuvp(base);
    const npuvp::test::RunResult b =
        npuvp::test::run_npuvp(base + " --set cube.pe_template.components.pe_cpu.attrs.kernel_end_ns=600");
    BOOST_REQUIRE_MESSAGE(a.code == 0, a.out);
    BOOST_REQUIRE_MESSAGE(b.code == 0, b.out);
    BOOST_CHECK_CLOSE(done_ns(b.out) - done_ns(a.out), 600.0, 1e-6);
    BOOST_CHECK(b.out.find("kernel end 4% (sip0.cube0.pe") != std::string::npos);
    BOOST_CHECK(a.out.find("kernel end") == std::string::npos);
}
