// --vcd: the waveforms GTKWave reads. GTKWave's own converter must accept the
// file, and the busy signals must change exactly when the trace says the
// engines start and finish.
#include <boost/test/unit_test.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "testbench/harness/run_npuvp.h"
#include "testbench/harness/vcd_reader.h"

using namespace npuvp::test;

namespace {

// The busy edges the trace implies for one node and stage: intervals from
// engine_start to engine_complete, merged where one ends as the next starts
// (the VCD samples once per time step, so such an edge pair cancels).
std::vector<std::pair<std::uint64_t, char>> trace_edges(const std::string& trace,
                                                        const std::string& node) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    std::istringstream in(trace);
    std::string line;
    std::map<std::string, std::uint64_t> open;
    while (std::getline(in, line)) {
        if (line.find("\"node\":\"" + node + "\"") == std::string::npos) continue;
        const bool start = line.find("\"ev\":\"engine_start\"") != std::string::npos;
        const bool done = line.find("\"ev\":\"engine_complete\"") != std::string::npos;
        if (!start && !done) continue;
        const std::uint64_t t = std::stoull(line.substr(8, line.find(',') - 8));
        if (start) spans.emplace_back(t, 0);
        else spans.back().second = t;  // one engine: starts and completes alternate
    }
    std::vector<std::pair<std::uint64_t, char>> edges;
    for (const auto& [from, to] : spans) {
        if (!edges.empty() && edges.back().first == from && edges.back().second == '0')
            edges.pop_back();  // back to back: no falling edge
        else
            edges.emplace_back(from, '1');
        edges.emplace_back(to, '0');
    }
    return edges;
}

}  // namespace

BOOST_AUTO_TEST_CASE(vcd_is_accepted_by_gtkwave_and_matches_the_trace) {
    const RunResult r = run_npuvp("--workload " + shipped_workload("gemm_bias_relu") +
                                  " --trace cli_vcd.jsonl --vcd cli_vcd.vcd");
    BOOST_REQUIRE_EQUAL(r.code, 0);
    // GTKWave's own tool must accept the file (the gtkwave package, installed
    // by tools/bootstrap.sh).
    const int converted = std::system("vcd2fst cli_vcd.vcd cli_vcd.fst > cli_vcd.fst.log 2>&1");
    BOOST_CHECK_EQUAL(converted, 0);
    const std::string vcd = slurp("cli_vcd.vcd");
    const std::string trace = slurp("cli_vcd.jsonl");
    BOOST_CHECK(vcd.find("$timescale\n     1 ps") != std::string::npos);
    // GEMM and MATH of pe0: every busy edge at the trace's time.
    for (const char* node : {"sip0.cube0.pe0.pe_gemm", "sip0.cube0.pe0.pe_math"}) {
        const auto edges = trace_edges(trace, node);
        BOOST_REQUIRE_GT(edges.size(), 2u);
        auto changes = vcd_scalar_changes(vcd, std::string("SystemC.") + node + ".busy");
        // The initial dump at #0 sets 0; it is not an edge.
        if (!changes.empty() && changes.front() == std::make_pair<std::uint64_t, char>(0, '0'))
            changes.erase(changes.begin());
        BOOST_CHECK(changes == edges);
    }
    // The save file groups by PE and names real signals.
    const std::string gtkw = slurp("cli_vcd.gtkw");
    BOOST_CHECK(gtkw.find("[dumpfile] \"cli_vcd.vcd\"") != std::string::npos);
    BOOST_CHECK(gtkw.find("-SystemC.sip0.cube0.pe0\n") != std::string::npos);
    BOOST_CHECK(gtkw.find("SystemC.sip0.cube0.pe0.pe_gemm.busy\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(vcd_is_deterministic_and_filterable) {
    const std::string args = "--workload " + shipped_workload("gemm_all_pes") +
                             " --vcd-filter 'sip0.cube0.pe3*' --vcd ";
    BOOST_REQUIRE_EQUAL(run_npuvp(args + "cli_vcd_a.vcd").code, 0);
    BOOST_REQUIRE_EQUAL(run_npuvp(args + "cli_vcd_b.vcd").code, 0);
    const std::string a = slurp("cli_vcd_a.vcd");
    BOOST_CHECK(a == slurp("cli_vcd_b.vcd"));
    // Only pe3 is traced.
    BOOST_CHECK(a.find("$scope module pe3 $end") != std::string::npos);
    BOOST_CHECK(a.find("$scope module pe0 $end") == std::string::npos);
    const RunResult none = run_npuvp(args.substr(0, args.find("--vcd-filter")) +
                                     "--vcd-filter 'nothing*' --vcd cli_vcd_c.vcd");
    BOOST_CHECK_EQUAL(none.code, 2);
    BOOST_CHECK(none.out.find("--vcd-filter: no node id matches") != std::string::npos);
}
