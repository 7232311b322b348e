// --vcd opened in GTKWave itself, headless under Xvfb (xvfb-run, installed by
// tools/bootstrap.sh), with the save file npuvp writes beside the waves:
// GTKWave's Tcl interface reads back what a user would see at a marker.
// A busy `cmd` reads as the command's id and kind through the PE's filter
// file, an idle one is z (drawn blank), the busy PE's signals come first and
// M_CPU's never-busy channels last; the same for the VCD and for FST.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/harness/run_npuvp.h"

using namespace npuvp::test;

namespace {

struct Span {
    std::uint64_t start = 0, end = 0;
    long cmd = -1;
};

// The first engine interval of `node` in a --trace file: its engine_start
// and the engine_complete after it, and the command number it runs.
Span first_span(const std::string& trace, const std::string& node) {
    std::istringstream in(trace);
    std::string line;
    Span span;
    auto field = [&](const std::string& key) {
        const std::size_t at = line.find("\"" + key + "\":");
        return at == std::string::npos ? std::string() : line.substr(at + key.size() + 3);
    };
    while (std::getline(in, line)) {
        if (line.find("\"node\":\"" + node + "\"") == std::string::npos) continue;
        const std::uint64_t t = std::stoull(field("t_ps"));
        if (span.cmd < 0 && line.find("\"ev\":\"engine_start\"") != std::string::npos) {
            span.start = t;
            span.cmd = std::stol(field("cmd"));
        } else if (span.cmd >= 0 && line.find("\"ev\":\"engine_complete\"") != std::string::npos) {
            span.end = t;
            break;
        }
    }
    return span;
}

// GTKWave's answers: "signals <list>" and "value <time> <name> <text>" lines.
struct Readback {
    std::vector<std::string> signals;
    std::map<std::string, std::string> values;  // "<time> <name>" -> what GTKWave shows
    std::string log;
};

// Opens `dump` with `save` in GTKWave under Xvfb and reads each (time, name)'s value.
Readback open_in_gtkwave(const std::string& dump, const std::string& save,
                         const std::vector<std::pair<std::uint64_t, std::string>>& probes) {
    const std::string script = dump + ".tcl", log = dump + ".gtkwave.log";
    {
        std::ofstream tcl(script);
        tcl << "if {[catch {\n"
               "  puts \"npuvp-check signals [gtkwave::getDisplayedSignals]\"\n";
        for (const auto& [t, name] : probes)  // braces: a name's [31:0] is not a Tcl command
            tcl << "  set name {" << name << "}\n"
                << "  gtkwave::setMarker " << t << "\n"
                << "  puts \"npuvp-check value " << t << " $name <[gtkwave::getTraceValueAtMarkerFromName $name]>\"\n";
        tcl << "} err]} { puts \"npuvp-check error $err\" }\n"
               "gtkwave::/File/Quit\n";
    }
    const std::string command = "timeout 120 xvfb-run -a gtkwave -S " + script + " " + dump + " " + save + " > " +
                                log + " 2>&1";
    const int code = std::system(command.c_str());
    Readback r;
    r.log = slurp(log);
    BOOST_CHECK_MESSAGE(code == 0, "gtkwave under xvfb-run failed: " << r.log);
    std::istringstream in(r.log);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("npuvp-check signals ", 0) == 0) {
            std::istringstream names(line.substr(20));
            for (std::string n; names >> n;) r.signals.push_back(n);
        } else if (line.rfind("npuvp-check value ", 0) == 0) {
            const std::size_t open = line.find(" <");
            r.values[line.substr(18, open - 18)] = line.substr(open + 2, line.size() - open - 3);
        } else if (line.rfind("npuvp-check error", 0) == 0) {
            BOOST_ERROR("GTKWave's Tcl: " << line);
        }
    }
    return r;
}

void check_waves_read_in_gtkwave(const std::string& stem, const std::string& ext) {
    const RunResult r = run_npuvp("--workload " + shipped_workload("gemm_bias_relu") + " --trace " + stem +
                                  ".jsonl --vcd " + stem + ext);
    BOOST_REQUIRE_EQUAL(r.code, 0);
    // The filter file beside the save file names pe0's one command.
    const std::string filter = slurp(stem + ".sip0.cube0.pe0.filter");
    BOOST_CHECK(filter.find("\n00000000 fc1 composite\n") != std::string::npos);

    // gemm_bias_relu has one command on pe0, the composite fc1: dispatch
    // number 0. Its first tile reaches the GEMM only once DMA_READ has
    // brought that tile's A and B panels into the TCM (604 ns of route
    // start-up alone on default.yaml, docs/outputs.md "What bound a layer"),
    // so the GEMM is idle at 0 and busy with fc1 over its first stage, from
    // its first engine_start to the engine_complete after it in the trace;
    // the middle of that stage is inside it whatever its length. PE_MATH
    // runs fc1's bias + ReLU epilogue on each output tile after its last
    // K-step, so its first stage comes later, and it too reads as fc1.
    const std::string pe0 = "SystemC.sip0.cube0.pe0.";
    const std::string trace = slurp(stem + ".jsonl");
    const Span gemm = first_span(trace, "sip0.cube0.pe0.pe_gemm");
    const Span math = first_span(trace, "sip0.cube0.pe0.pe_math");
    for (const Span& span : {gemm, math}) {
        BOOST_REQUIRE_EQUAL(span.cmd, 0);
        BOOST_REQUIRE_GT(span.end, span.start);
    }
    BOOST_REQUIRE_GT(gemm.start, 604000u);
    BOOST_REQUIRE_GT(math.start, gemm.end);
    const std::uint64_t gemm_mid = (gemm.start + gemm.end) / 2, math_mid = (math.start + math.end) / 2;
    const std::string gemm_cmd = pe0 + "pe_gemm.cmd[31:0]", math_cmd = pe0 + "pe_math.cmd[31:0]";
    const Readback back = open_in_gtkwave(stem + ext, stem + ".gtkw",
                                          {{0, gemm_cmd}, {gemm_mid, gemm_cmd}, {gemm_mid, math_cmd},
                                           {math_mid, math_cmd}});
    // Busy: the command's id and kind, through the filter file.
    BOOST_CHECK_EQUAL(back.values.at(std::to_string(gemm_mid) + " " + gemm_cmd), "fc1 composite");
    BOOST_CHECK_EQUAL(back.values.at(std::to_string(math_mid) + " " + math_cmd), "fc1 composite");
    // Idle: z in every digit (GTKWave draws it as a blank mid-line), not -1:
    // the GEMM before its first tile, PE_MATH while the GEMM runs it.
    BOOST_CHECK_EQUAL(back.values.at("0 " + gemm_cmd), "zzzzzzzz");
    BOOST_CHECK_EQUAL(back.values.at(std::to_string(gemm_mid) + " " + math_cmd), "zzzzzzzz");

    // The view: the power first, then pe0 (the one busy PE) from its DMA
    // read channel on; M_CPU's channels, which never move, come after pe0's
    // busy engines, folded into the closed group at the end.
    BOOST_REQUIRE_GT(back.signals.size(), 3u);
    BOOST_CHECK_EQUAL(back.signals[0], "npuvp.power_w");
    BOOST_CHECK_EQUAL(back.signals[1], pe0 + "pe_dma.rd0.busy");
    const auto at = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(back.signals.begin(), back.signals.end(), name) -
                                        back.signals.begin());
    };
    const std::size_t m_cpu = at("SystemC.sip0.cube0.m_cpu.dma_read.in_use[31:0]");
    BOOST_CHECK_LT(at(gemm_cmd), m_cpu);
    BOOST_CHECK_LT(at(math_cmd), m_cpu);
    BOOST_CHECK_LT(m_cpu, back.signals.size());
    const std::string save = slurp(stem + ".gtkw");
    const std::size_t fold = save.find("@c00200\n-never busy (");
    BOOST_CHECK(fold != std::string::npos);
    BOOST_CHECK_LT(fold, save.find("SystemC.sip0.cube0.m_cpu.dma_read.in_use"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_vcd_reads_as_commands_in_gtkwave) { check_waves_read_in_gtkwave("cli_gtkwave", ".vcd"); }

BOOST_AUTO_TEST_CASE(an_fst_reads_the_same_in_gtkwave) {
    check_waves_read_in_gtkwave("cli_gtkwave_fst", ".fst");
    // Same inputs, same bytes: the FST carries no wall-clock date.
    const std::string args = "--workload " + shipped_workload("gemm_bias_relu") + " --vcd ";
    BOOST_REQUIRE_EQUAL(run_npuvp(args + "cli_gtkwave_fst2.fst").code, 0);
    BOOST_CHECK(slurp("cli_gtkwave_fst.fst") == slurp("cli_gtkwave_fst2.fst"));
    // A VCD of the same run: the FST is the smaller.
    BOOST_REQUIRE_EQUAL(run_npuvp(args + "cli_gtkwave_fst3.vcd").code, 0);
    BOOST_CHECK_LT(slurp("cli_gtkwave_fst.fst").size(), slurp("cli_gtkwave_fst3.vcd").size());
}
