// Observability outputs (SPEC §7; docs/cli.md "Outputs") on whole-platform
// runs with the events recorded in memory: the Chrome timeline is trace-event
// JSON whose engine slices are exactly the trace's engine_start /
// engine_complete pairs; the SVG is well-formed with one box per engine
// interval and per command; the report's utilisation and critical path match
// a schedule derived by hand.
//
// simple_commands.yaml on default.yaml (the schedule of
// testbench/pe/pipeline_test.cpp): ld_a 3 -> 777.667 ns; ld_b submitted at 4,
// waits for the dma context held by ld_a, runs 778.667 -> 1553.334; PE_CPU's
// `wait [ld_a, ld_b]` lets mm in at 1555.334, it runs 1556.334 -> 1812.334;
// `wait [mm]` -> act 1815.334 -> 1855.334; `wait all` -> st 1858.334 ->
// 2633.001 = the makespan. PE_SCHEDULER records ld_b as gated by ld_a
// (cause context); mm, act and st never waited in the scheduler (gated_by
// -1): each was issued after the command before it completed. So the
// critical path is ld_a -context-> ld_b -issue-> mm -issue-> act -issue-> st.
// Engine busy: DMA_READ 2 x 774.667 = 1549.334 ns of 2633.001.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "platform/platform.h"
#include "report/report_writer.h"
#include "report/svg_writer.h"
#include "report/timeline_writer.h"
#include "config/workload_loader.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/trace_reader.h"
#include "testbench/harness/xml_check.h"

using namespace npuvp;
using npuvp::test::xml_problem;

namespace {

struct Sim {
    TopologyConfig topo;
    WorkloadConfig wl;
    std::ostringstream trace_text;
    std::vector<RecordedEvent> log;
    TraceSink trace{&trace_text};
    Platform platform;
    WorkloadRun run;

    explicit Sim(const std::string& name)
        : topo(test::load_shipped("default")),
          wl(load_workload_file(std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/" + name + ".yaml",
                                topo)),
          platform(topo, trace),
          run(platform, wl) {
        trace.record_to(&log);
    }
    obs::RunView start() {
        sc_core::sc_start();
        BOOST_REQUIRE(run.finished());
        return obs::build_view(run, platform, log);
    }
};

// The events of one kind in a recorded log.
std::vector<RecordedEvent> events_named(const std::vector<RecordedEvent>& log, const std::string& ev) {
    std::vector<RecordedEvent> out;
    for (const auto& e : log)
        if (to_string(e.kind) == ev) out.push_back(e);
    return out;
}

// A trace-event time ("12.345678" µs, six decimals) back in integer ps.
std::uint64_t us_text_as_ps(const std::string& text) {
    const std::size_t dot = text.find('.');
    BOOST_REQUIRE(dot != std::string::npos && text.size() - dot == 7);
    return std::stoull(text.substr(0, dot)) * 1000000u + std::stoull(text.substr(dot + 1));
}

// Every arrow of a timeline binds to slices the way Perfetto and
// chrome://tracing bind it: its "s" inside an "X" slice of the same pid/tid,
// on that slice's last picosecond; its "f" ("bp":"e") on the first
// picosecond of an "X" slice of its pid/tid. Returns the arrows checked.
int check_arrows_bind(const YAML::Node& events) {
    struct Slice {
        std::uint64_t start, end;
    };
    std::map<std::pair<int, int>, std::vector<Slice>> slices;
    for (const YAML::Node& e : events)
        if (e["ph"].as<std::string>() == "X") {
            const std::uint64_t ts = us_text_as_ps(e["ts"].as<std::string>());
            slices[{e["pid"].as<int>(), e["tid"].as<int>()}].push_back(
                {ts, ts + us_text_as_ps(e["dur"].as<std::string>())});
        }
    int arrows = 0;
    for (const YAML::Node& e : events) {
        const std::string ph = e["ph"].as<std::string>();
        if (ph != "s" && ph != "f") continue;
        const std::uint64_t t = us_text_as_ps(e["ts"].as<std::string>());
        bool bound = false;
        for (const Slice& x : slices[{e["pid"].as<int>(), e["tid"].as<int>()}]) {
            if (ph == "s") bound = bound || (x.end > x.start && t == x.end - 1);
            else bound = bound || t == x.start;
        }
        BOOST_CHECK_MESSAGE(bound, ph << " of arrow " << e["id"].as<std::string>() << " at " << t
                                      << " ps is not on its slice's edge");
        if (ph == "f") BOOST_CHECK_EQUAL(e["bp"].as<std::string>(), "e");
        if (ph == "s") ++arrows;
    }
    return arrows;
}

}  // namespace

BOOST_AUTO_TEST_CASE(timeline_is_trace_event_json_matching_engine_pairs) {
    Sim sim("gemm_bias_relu");
    const obs::RunView view = sim.start();
    std::ostringstream text;
    write_timeline(text, view);

    const YAML::Node doc = YAML::Load(text.str());  // JSON is YAML
    BOOST_REQUIRE(doc.IsMap());
    BOOST_CHECK_EQUAL(doc["displayTimeUnit"].as<std::string>(), "ns");
    const YAML::Node events = doc["traceEvents"];
    BOOST_REQUIRE(events.IsSequence());

    const auto intervals = test::engine_intervals(test::parse_trace(sim.trace_text.str()));
    BOOST_REQUIRE_GT(intervals.size(), 0u);
    // Expected (ts, dur, stage, cmd, tile) of every engine interval, as text.
    std::multiset<std::string> expected, got;
    for (const auto& i : intervals)
        expected.insert(obs::ps_as_us(i.start_ps) + "|" + obs::ps_as_us(i.end_ps - i.start_ps) + "|" +
                        i.stage + "|" + std::to_string(i.cmd) + "|" + std::to_string(i.tile));
    std::map<std::string, int> phases;
    std::map<std::string, int> flow_ids;
    std::set<std::pair<int, int>> named_threads, used_threads;
    for (const YAML::Node& e : events) {
        BOOST_REQUIRE(e.IsMap());
        const std::string ph = e["ph"].as<std::string>();
        ++phases[ph];
        BOOST_REQUIRE(e["pid"]);
        if (ph == "M") {
            if (e["name"].as<std::string>() == "thread_name")
                named_threads.insert({e["pid"].as<int>(), e["tid"].as<int>()});
            continue;
        }
        BOOST_REQUIRE(e["ts"]);
        BOOST_CHECK_GE(e["ts"].as<double>(), 0.0);
        if (ph == "X") {
            BOOST_REQUIRE(e["dur"] && e["name"] && e["tid"] && e["args"]);
            used_threads.insert({e["pid"].as<int>(), e["tid"].as<int>()});
            if (e["cat"].as<std::string>() != "engine") continue;
            const YAML::Node a = e["args"];
            got.insert(e["ts"].as<std::string>() + "|" + e["dur"].as<std::string>() + "|" +
                       a["stage"].as<std::string>() + "|" + a["cmd"].as<std::string>() + "|" +
                       a["tile"].as<std::string>());
        } else if (ph == "s" || ph == "f") {
            flow_ids[e["id"].as<std::string>()] += ph == "s" ? 1 : 10;
        } else if (ph == "C") {
            BOOST_CHECK(e["args"].IsMap());
        }
    }
    BOOST_CHECK_EQUAL(got.size(), intervals.size());
    BOOST_CHECK(got == expected);
    for (const auto& t : used_threads) BOOST_CHECK(named_threads.count(t));
    // Every flow id has exactly one start and one finish; a token of the
    // 4-stage pipeline has three arrows.
    for (const auto& [id, n] : flow_ids) BOOST_CHECK_MESSAGE(n == 11, "flow " << id);
    BOOST_CHECK_EQUAL(phases["s"], static_cast<int>(intervals.size()) - 64);
    BOOST_CHECK_EQUAL(check_arrows_bind(events), phases["s"]);
    BOOST_CHECK_GT(phases["C"], 0);
    // One command slice (the composite) besides the engine slices.
    BOOST_CHECK_EQUAL(phases["X"], static_cast<int>(intervals.size()) + 1);

    // Deterministic: the same view writes the same bytes.
    std::ostringstream again;
    write_timeline(again, view);
    BOOST_CHECK(again.str() == text.str());
}

// The timeline's counters: reserved-TCM bytes and inbox fill levels follow
// the tiles. gemm_bias_relu.yaml, bf16, tile 128: a tile's input buffer is
// (128·128 + 128·128)·2 = 65536 B and a last K-step's output 128·128·2 =
// 32768 B (64-byte aligned already). Reserved TCM never exceeds its 8 MiB, it
// reaches at least one input buffer, and ends at 0 when every tile is done;
// an inbox never holds more than inbox_depth = 2 tokens and ends empty.
BOOST_AUTO_TEST_CASE(timeline_counters_follow_tcm_and_inbox_fill) {
    Sim sim("gemm_bias_relu");
    const obs::RunView view = sim.start();
    std::ostringstream text;
    write_timeline(text, view);
    const YAML::Node events = YAML::Load(text.str())["traceEvents"];
    std::map<std::string, std::vector<long>> series;
    for (const YAML::Node& e : events)
        if (e["ph"].as<std::string>() == "C" && e["name"].as<std::string>() != "tiles in flight")
            series[e["name"].as<std::string>()].push_back(e["args"]["value"].as<long>());
    const auto& tcm = series["reserved TCM bytes"];
    BOOST_REQUIRE_EQUAL(tcm.size(), 2u * 64u);  // one on each tile's feed and completion
    BOOST_CHECK_GE(*std::max_element(tcm.begin(), tcm.end()), 65536);
    BOOST_CHECK_LE(*std::max_element(tcm.begin(), tcm.end()), 8L << 20);
    BOOST_CHECK_EQUAL(tcm.back(), 0);
    const auto& gemm = series["gemm_inbox fill"];
    BOOST_REQUIRE_EQUAL(gemm.size(), 2u * 64u);  // every token in and out of GEMM's inbox
    BOOST_CHECK_LE(*std::max_element(gemm.begin(), gemm.end()), 2);
    BOOST_CHECK_GE(*std::min_element(gemm.begin(), gemm.end()), 0);
    BOOST_CHECK_EQUAL(gemm.back(), 0);
}

// The wait arrow of simple_commands.yaml (schedule in the header): ld_b was
// held by ld_a (cause context), so one arrow leaves ld_a's command slice on
// `ctx dma` at its last picosecond, 777667 - 1 = 777666 ps, and lands on
// ld_b's start, 778667 ps, on the same lane.
BOOST_AUTO_TEST_CASE(timeline_wait_arrow_leaves_where_the_blocker_ends) {
    Sim sim("simple_commands");
    const obs::RunView view = sim.start();
    std::ostringstream text;
    write_timeline(text, view);
    const YAML::Node events = YAML::Load(text.str())["traceEvents"];
    std::vector<YAML::Node> arrow;
    for (const YAML::Node& e : events)
        if ((e["ph"].as<std::string>() == "s" || e["ph"].as<std::string>() == "f") &&
            e["cat"].as<std::string>() == "wait")
            arrow.push_back(e);
    BOOST_REQUIRE_EQUAL(arrow.size(), 2u);
    BOOST_CHECK_EQUAL(arrow[0]["ph"].as<std::string>(), "s");
    BOOST_CHECK_EQUAL(arrow[0]["name"].as<std::string>(), "context: ld_b waits for ld_a");
    BOOST_CHECK_EQUAL(arrow[0]["ts"].as<std::string>(), "0.777666");
    BOOST_CHECK_EQUAL(arrow[1]["ts"].as<std::string>(), "0.778667");
    BOOST_CHECK_EQUAL(arrow[0]["tid"].as<int>(), arrow[1]["tid"].as<int>());
    BOOST_CHECK_EQUAL(check_arrows_bind(events), 1);
}

BOOST_AUTO_TEST_CASE(svg_is_well_formed_with_one_box_per_operation) {
    Sim sim("simple_commands");
    const obs::RunView view = sim.start();
    std::ostringstream svg;
    write_svg(svg, view, "simple <commands> & \"quotes\"");
    std::map<std::string, int> counts;
    const std::string problem = xml_problem(svg.str(), counts);
    BOOST_CHECK_MESSAGE(problem.empty(), problem);
    BOOST_CHECK(svg.str().rfind("<?xml", 0) == 0);
    BOOST_CHECK(svg.str().find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
    // 5 engine intervals + 5 commands; ld_b's wait (and the 1 ns dispatch of the others).
    BOOST_CHECK_EQUAL(view.engines.size(), 5u);
    BOOST_CHECK_EQUAL(view.commands.size(), 5u);
    BOOST_CHECK_EQUAL(counts["op"], 10);
    BOOST_CHECK_EQUAL(counts["wait"], 5);
    BOOST_CHECK(svg.str().find("url(#hatch-context)") != std::string::npos);
    BOOST_CHECK(svg.str().find(">ld_b<") != std::string::npos);  // a labelled box
}

BOOST_AUTO_TEST_CASE(report_utilisation_and_critical_path_by_hand) {
    Sim sim("simple_commands");
    const obs::RunView view = sim.start();
    const Report r = build_report(sim.run, sim.platform, view, "simple_commands");
    BOOST_CHECK_EQUAL(r.makespan_ps, 2633001u);

    std::map<std::string, const Report::Engine*> eng;
    for (const auto& e : r.engines) eng[e.engine] = &e;
    BOOST_REQUIRE(eng.count("DMA_READ") && eng.count("GEMM") && eng.count("MATH"));
    BOOST_CHECK_EQUAL(eng["DMA_READ"]->busy_ps, 1549334u);
    BOOST_CHECK_CLOSE(eng["DMA_READ"]->utilisation, 1549334.0 / 2633001.0, 1e-9);
    BOOST_CHECK_EQUAL(eng["DMA_READ"]->slices, 2u);
    BOOST_CHECK_EQUAL(eng["GEMM"]->busy_ps, 256000u);
    BOOST_CHECK_CLOSE(eng["GEMM"]->utilisation, 256000.0 / 2633001.0, 1e-9);
    BOOST_CHECK_EQUAL(eng["MATH"]->busy_ps, 40000u);

    // gated_by as recorded: ld_b by ld_a (seq 0), cause context; the rest never.
    for (const auto& c : view.commands) {
        if (c.id == "ld_b") {
            BOOST_CHECK_EQUAL(c.gated_by, 0);
            BOOST_CHECK_EQUAL(c.gated_cause, "context");
        } else {
            BOOST_CHECK_EQUAL(c.gated_by, -1);
        }
    }
    const std::vector<std::string> ids{"ld_a", "ld_b", "mm", "act", "st"};
    const std::vector<std::string> via{"", "context", "issue", "issue", "issue"};
    const std::vector<std::uint64_t> start{3000, 778667, 1556334, 1815334, 1858334};
    const std::vector<std::uint64_t> end{777667, 1553334, 1812334, 1855334, 2633001};
    const std::vector<std::uint64_t> gap{0, 1000, 3000, 3000, 3000};
    BOOST_REQUIRE_EQUAL(r.critical_path.size(), ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const auto& s = r.critical_path[i];
        BOOST_CHECK_EQUAL(s.id, ids[i]);
        BOOST_CHECK_EQUAL(s.via, via[i]);
        BOOST_CHECK_EQUAL(s.started_ps, start[i]);
        BOOST_CHECK_EQUAL(s.finished_ps, end[i]);
        BOOST_CHECK_EQUAL(s.gap_ps, gap[i]);
    }
    BOOST_CHECK_EQUAL(r.critical_path.back().finished_ps, r.makespan_ps);

    // Bytes: 2 x 32 KiB read, 32 KiB written, all through hbm_ctrl.pe0 (192 GB/s).
    std::map<std::string, const Report::Traffic*> traffic;
    for (const auto& t : r.traffic) traffic[t.name] = &t;
    BOOST_REQUIRE(traffic.count("sip0.cube0.pe0.pe_dma read"));
    BOOST_CHECK_EQUAL(traffic["sip0.cube0.pe0.pe_dma read"]->bytes, 65536u);
    BOOST_CHECK_EQUAL(traffic["sip0.cube0.pe0.pe_dma write"]->bytes, 32768u);
    BOOST_REQUIRE(traffic.count("sip0.cube0.hbm_ctrl.pe0"));
    const auto* hbm = traffic["sip0.cube0.hbm_ctrl.pe0"];
    BOOST_CHECK_EQUAL(hbm->bytes, 98304u);
    BOOST_CHECK_CLOSE(hbm->peak_gbs, 192.0, 1e-9);
    BOOST_CHECK_CLOSE(hbm->achieved_gbs, 98304.0 * 1000.0 / static_cast<double>(hbm->busy_ps), 1e-9);
    for (const auto& t : r.traffic) BOOST_CHECK_GT(t.bytes, 0u);
    BOOST_CHECK(r.waits.at(0).first == "context");
    BOOST_CHECK_EQUAL(r.waits.at(0).second, 773667u);

    // JSON parses; Markdown has the sections.
    std::ostringstream json, md;
    write_report(json, r, "r.json");
    write_report(md, r, "r.md");
    const YAML::Node doc = YAML::Load(json.str());
    BOOST_CHECK_EQUAL(doc["makespan_ns"].as<std::string>(), "2633.001");
    BOOST_CHECK_EQUAL(doc["critical_path"].size(), 5u);
    BOOST_CHECK_EQUAL(doc["critical_path"][1]["via"].as<std::string>(), "context");
    for (const char* h : {"## Engines", "## Bytes moved", "## Waits by cause", "## Critical path"})
        BOOST_CHECK(md.str().find(h) != std::string::npos);
    std::ostringstream bad;
    BOOST_CHECK_THROW(write_report(bad, r, "r.txt"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(report_lists_host_request_latency) {
    Sim sim("host_launch");
    const obs::RunView view = sim.start();
    const Report r = build_report(sim.run, sim.platform, view, "host_launch");
    const auto& requests = sim.run.host()->requests();
    BOOST_REQUIRE_EQUAL(r.requests.size(), requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
        BOOST_CHECK_EQUAL(r.requests[i].id, requests[i].request->id);
        BOOST_CHECK_EQUAL(r.requests[i].status, "ok");
        BOOST_CHECK_EQUAL(r.requests[i].latency_ps,
                          (requests[i].completed - requests[i].issued).value());
    }
    // The host's requests and M_CPU's fan-outs are lanes of the timeline too:
    // default.yaml has one cube, so every request (memory write, MMU map,
    // kernel launch, memory read) is one span on IO_CPU and one fan-out on
    // sip0.cube0's M_CPU, each labelled "<id> (<kind>)".
    std::map<std::string, int> spans;
    for (const auto& n : view.nodes) ++spans[n.group + " " + n.lane + " " + n.label];
    for (const auto& q : requests) {
        const std::string label = q.request->id + " (" + to_string(q.request->kind) + ")";
        BOOST_CHECK_MESSAGE(spans["sip0.io_cpu requests " + label] == 1, label);
        BOOST_CHECK_MESSAGE(spans["sip0.cube0.m_cpu fanouts " + label] == 1, label);
    }
    BOOST_CHECK_EQUAL(view.nodes.size(), 2 * requests.size());
}

// A failed run's outputs show what ran until the stop. mmu_fault.yaml on
// default.yaml: pe0's only command, ld (dma_read of a VA nothing maps), is
// dispatched to DMA_READ and PE_MMU faults on its first access; the platform
// records the fault and the simulation stops there (SPEC §8). So: nothing
// completed; ld is in flight, started when PE_SCHEDULER dispatched it (its
// sub_command_dispatched event) and open until the stop = the fault's time;
// the diagnosis names the fault and the stuck kernel. Every output says so.
BOOST_AUTO_TEST_CASE(failed_run_outputs_show_what_ran_until_the_stop) {
    Sim sim("mmu_fault");
    sc_core::sc_start();
    BOOST_REQUIRE(!sim.run.finished());
    BOOST_REQUIRE(sim.platform.status().failed());
    const std::uint64_t stop = sim.platform.status().time().value();
    const auto dispatched = events_named(sim.log, "sub_command_dispatched");
    BOOST_REQUIRE_EQUAL(dispatched.size(), 1u);
    BOOST_REQUIRE_LT(dispatched[0].t_ps, stop);

    const obs::RunView view = obs::build_view(sim.run, sim.platform, sim.log);
    BOOST_CHECK(view.failed);
    BOOST_CHECK_EQUAL(view.stopped_ps, stop);
    BOOST_CHECK(view.failure == sim.run.diagnosis());
    BOOST_CHECK(view.failure.find("MMU fault") != std::string::npos);
    BOOST_CHECK(view.commands.empty());
    BOOST_CHECK(view.engines.empty());
    BOOST_REQUIRE_EQUAL(view.unfinished.size(), 1u);
    const obs::CommandSpan& ld = view.unfinished[0];
    BOOST_CHECK_EQUAL(ld.id, "ld");
    BOOST_CHECK_EQUAL(ld.lane, "dma");
    BOOST_CHECK(ld.started);
    BOOST_CHECK_EQUAL(ld.started_ps, dispatched[0].t_ps);
    BOOST_CHECK_EQUAL(ld.finished_ps, stop);
    BOOST_CHECK_EQUAL(ld.tiles, 1u);
    BOOST_CHECK_EQUAL(ld.tiles_done, 0u);

    // Timeline: ld as an unfinished slice up to the stop, and the stop marked.
    std::ostringstream text;
    write_timeline(text, view);
    const YAML::Node events = YAML::Load(text.str())["traceEvents"];
    int unfinished = 0, instants = 0;
    for (const YAML::Node& e : events) {
        const std::string ph = e["ph"].as<std::string>();
        if (ph == "X") {
            BOOST_CHECK_EQUAL(e["cat"].as<std::string>(), "unfinished");
            BOOST_CHECK_EQUAL(e["name"].as<std::string>(), "ld (unfinished)");
            BOOST_CHECK_EQUAL(e["ts"].as<std::string>(), obs::ps_as_us(dispatched[0].t_ps));
            BOOST_CHECK_EQUAL(e["dur"].as<std::string>(), obs::ps_as_us(stop - dispatched[0].t_ps));
            BOOST_CHECK(e["args"]["unfinished"].as<bool>());
            ++unfinished;
        } else if (ph == "i") {
            BOOST_CHECK_EQUAL(e["name"].as<std::string>(), "run failed");
            BOOST_CHECK_EQUAL(e["s"].as<std::string>(), "g");
            BOOST_CHECK_EQUAL(e["ts"].as<std::string>(), obs::ps_as_us(stop));
            BOOST_CHECK(e["args"]["diagnosis"].as<std::string>() == view.failure);
            ++instants;
        }
    }
    BOOST_CHECK_EQUAL(unfinished, 1);
    BOOST_CHECK_EQUAL(instants, 1);

    // SVG: one dashed box, the stop line, the diagnosis.
    std::ostringstream svg;
    write_svg(svg, view, "mmu_fault");
    std::map<std::string, int> counts;
    const std::string problem = xml_problem(svg.str(), counts);
    BOOST_CHECK_MESSAGE(problem.empty(), problem);
    BOOST_CHECK_EQUAL(counts["op"], 0);
    BOOST_CHECK_EQUAL(counts["unfinished"], 1);
    BOOST_CHECK(svg.str().find("class=\"stop\"") != std::string::npos);
    BOOST_CHECK(svg.str().find("MMU fault: command ld accesses unmapped virtual address") != std::string::npos);

    // Report: failed, over the time it ran.
    const Report r = build_report(sim.run, sim.platform, view, "mmu_fault");
    BOOST_CHECK_EQUAL(r.status, "failed");
    BOOST_CHECK(r.failure == view.failure);
    BOOST_CHECK_EQUAL(r.makespan_ps, stop);
    BOOST_CHECK(r.critical_path.empty());
    std::ostringstream json, md;
    write_report(json, r, "r.json");
    write_report(md, r, "r.md");
    const YAML::Node doc = YAML::Load(json.str());
    BOOST_CHECK_EQUAL(doc["status"].as<std::string>(), "failed");
    BOOST_CHECK(doc["failure"].as<std::string>() == view.failure);
    BOOST_CHECK_EQUAL(doc["makespan_ns"].as<std::string>(), obs::ps_as_ns(stop));
    BOOST_CHECK(md.str().find("**Run failed**, stopped at **" + obs::ps_as_ns(stop) + " ns**") !=
                std::string::npos);

    // An engine interval that started and never completed is open up to the
    // stop too (this run's fault comes before DMA_READ starts; add one).
    std::vector<RecordedEvent> log = sim.log;
    RecordedEvent start;
    start.t_ps = dispatched[0].t_ps;
    start.kind = TraceKind::engine_start;
    start.node = "sip0.cube0.pe0.pe_dma";
    start.cmd = 0;
    start.tile = 0;
    start.stage = "DMA_READ";
    start.bytes = 4096;
    log.push_back(start);
    const obs::RunView with_open = obs::build_view(sim.run, sim.platform, log);
    BOOST_REQUIRE_EQUAL(with_open.open_engines.size(), 1u);
    BOOST_CHECK_EQUAL(with_open.open_engines[0].group, "sip0.cube0.pe0");
    BOOST_CHECK_EQUAL(with_open.open_engines[0].lane, "DMA_READ");
    BOOST_CHECK_EQUAL(with_open.open_engines[0].label, "ld");
    BOOST_CHECK_EQUAL(with_open.open_engines[0].start_ps, dispatched[0].t_ps);
    BOOST_CHECK_EQUAL(with_open.open_engines[0].end_ps, stop);
    BOOST_CHECK_EQUAL(with_open.unpaired, 1u);
}

// A finished run is not marked: no failure, the stop is the makespan,
// nothing is left open.
BOOST_AUTO_TEST_CASE(finished_run_is_not_marked_failed) {
    Sim sim("simple_commands");
    const obs::RunView view = sim.start();
    BOOST_CHECK(!view.failed);
    BOOST_CHECK(view.failure.empty());
    BOOST_CHECK_EQUAL(view.stopped_ps, view.makespan_ps);
    BOOST_CHECK(view.unfinished.empty() && view.open_engines.empty() && view.open_nodes.empty());
    const Report r = build_report(sim.run, sim.platform, view, "simple_commands");
    BOOST_CHECK_EQUAL(r.status, "ok");
    std::ostringstream text;
    write_timeline(text, view);
    BOOST_CHECK(text.str().find("unfinished") == std::string::npos);
    BOOST_CHECK(text.str().find("run failed") == std::string::npos);
}

// The critical path of a host workload crosses IO_CPU, M_CPU and the PEs.
// A hand-built workload on default.yaml: the host writes 4 KiB, then
// launches a one-command kernel (a 64 KiB dma_read of PA 0, in pe0's HBM
// slice) on pe0 and pe1. By docs/workload.md "Ordering" the write is sent at
// t = 0 and the launch when the write has completed; the run ends when the
// launch's response reaches IO_CPU. So the path is: w (whole request) -issue->
// go on IO_CPU until M_CPU starts the fan-out -request-> M_CPU until the
// kernel starts on the PE whose ld finishes last -launch-> that ld
// -response-> M_CPU until its fan-out completes -response-> IO_CPU until go
// completes. Each boundary is checked against the trace event that marks it.
BOOST_AUTO_TEST_CASE(critical_path_crosses_io_cpu_m_cpu_and_the_slowest_pe) {
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl = load_workload_text(R"(name: host_chain
kernels:
  k:
    - dma_read: { id: ld, bytes: 65536, addr: { pa: 0x0 } }
host:
  - memory_write:  { id: w, pa: 0x0, bytes: 4096 }
  - kernel_launch: { id: go, kernel: k, cubes: [sip0.cube0], target_pe: [0, 1] }
)",
                                                 "host_chain.yaml", topo);
    std::ostringstream trace_text;
    std::vector<RecordedEvent> log;
    TraceSink trace{&trace_text};
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    trace.record_to(&log);
    sc_core::sc_start();
    BOOST_REQUIRE(run.finished());

    // The marks, from the trace.
    auto at = [&](const std::string& ev, const std::string& node, const std::string& detail) {
        for (const auto& e : log)
            if (to_string(e.kind) == ev && e.node == node && (detail.empty() || e.detail == detail)) return e.t_ps;
        BOOST_FAIL("no " << ev << " on " << node << " " << detail);
        return std::uint64_t{0};
    };
    const std::string io = "sip0.io_cpu", m_cpu = "sip0.cube0.m_cpu";
    const std::uint64_t done0 = at("command_complete", "sip0.cube0.pe0.pe_scheduler", "ld");
    const std::uint64_t done1 = at("command_complete", "sip0.cube0.pe1.pe_scheduler", "ld");
    BOOST_REQUIRE_NE(done0, done1);  // one PE is the slower, and the path goes through it
    const std::string pe = done0 > done1 ? "sip0.cube0.pe0" : "sip0.cube0.pe1";

    const obs::RunView view = obs::build_view(run, platform, log);
    const Report r = build_report(run, platform, view, "host_chain");
    struct Want {
        std::string node, id, context, via;
        std::uint64_t started, finished;
    };
    const std::vector<Want> want{
        {io, "w", "request", "", 0, at("request_complete", io, "w")},
        {io, "go", "request", "issue", at("request_complete", io, "w"), at("fanout_start", m_cpu, "go")},
        {m_cpu, "go", "fan-out", "request", at("fanout_start", m_cpu, "go"), at("kernel_start", pe + ".pe_cpu", "k")},
        {pe, "ld", "dma", "launch", at("sub_command_dispatched", pe + ".pe_scheduler", "ld"),
         std::max(done0, done1)},
        {m_cpu, "go", "fan-out", "response", std::max(done0, done1), at("fanout_complete", m_cpu, "go")},
        {io, "go", "request", "response", at("fanout_complete", m_cpu, "go"), at("request_complete", io, "go")},
    };
    BOOST_REQUIRE_EQUAL(r.critical_path.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const Report::Step& s = r.critical_path[i];
        BOOST_TEST_CONTEXT("step " << i) {
            BOOST_CHECK_EQUAL(s.pe, want[i].node);
            BOOST_CHECK_EQUAL(s.id, want[i].id);
            BOOST_CHECK_EQUAL(s.context, want[i].context);
            BOOST_CHECK_EQUAL(s.via, want[i].via);
            BOOST_CHECK_EQUAL(s.started_ps, want[i].started);
            BOOST_CHECK_EQUAL(s.finished_ps, want[i].finished);
            if (i) BOOST_CHECK_EQUAL(s.gap_ps, want[i].started - want[i - 1].finished);
        }
    }
    BOOST_CHECK_EQUAL(r.critical_path.back().finished_ps, r.makespan_ps);
}
