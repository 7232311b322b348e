// Tile detail and the run's aggregate (docs/cli.md "Tile detail";
// report/run_recorder.h): the outputs keep engine intervals and counter
// samples one by one only in a window and up to a cap, and the whole run in
// exact totals and time bins, with memory that does not grow with the run.
//
// simple_commands.yaml on default.yaml (the schedule of
// testbench/report/observability_test.cpp and testbench/pe/pipeline_test.cpp),
// its five engine intervals in the order they complete:
//   ld_a  DMA_READ  [   3.000,  777.667) ns   (32 KiB at the DMA's 774.667 ns)
//   ld_b  DMA_READ  [ 778.667, 1553.334)
//   mm    GEMM      [1556.334, 1812.334)      (256 ns)
//   act   MATH      [1815.334, 1855.334)      (40 ns)
//   st    DMA_WRITE [1858.334, 2633.001)      (774.667 ns) — the makespan
// and two inbox_fill samples (1, then 0) at each engine start: ten samples.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/workload_loader.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "report/report_writer.h"
#include "report/run_recorder.h"
#include "report/run_view.h"
#include "report/svg_writer.h"
#include "report/timeline_writer.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/trace_reader.h"
#include "testbench/harness/xml_check.h"

using namespace npuvp;
using npuvp::test::xml_problem;

namespace {

// A shipped workload on default.yaml, its events written as a trace, kept in
// memory (record_to) and handed to a recorder as they happen (listen).
struct Sim {
    TopologyConfig topo;
    WorkloadConfig wl;
    std::ostringstream trace_text;
    std::vector<RecordedEvent> log;
    TraceSink trace{&trace_text};
    obs::RunRecorder recorder;
    Platform platform;
    WorkloadRun run;

    Sim(const WorkloadConfig& workload, const obs::DetailOptions& options)
        : topo(test::load_shipped("default")), wl(workload), recorder(options), platform(topo, trace), run(platform, wl) {
        trace.record_to(&log);
        trace.listen(&recorder);
    }
    Sim(const std::string& name, const obs::DetailOptions& options)
        : Sim(load_workload_file(std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/" + name + ".yaml",
                                 test::load_shipped("default")),
              options) {}
    obs::RunView start() {
        sc_core::sc_start();
        BOOST_REQUIRE(run.finished());
        return obs::build_view(run, platform, recorder);
    }
    std::vector<test::EngineInterval> intervals() const {
        return test::engine_intervals(test::parse_trace(trace_text.str()));
    }
};

obs::DetailOptions cap(std::uint64_t max_slices) {
    obs::DetailOptions d;
    d.max_slices = max_slices;
    return d;
}

std::string timeline_of(const obs::RunView& view) {
    std::ostringstream text;
    write_timeline(text, view);
    return text.str();
}

// Counter samples "C" of one name in a timeline, as (ts text, args value text).
std::vector<std::pair<std::string, std::string>> counter(const YAML::Node& events, const std::string& name,
                                                         const std::string& arg) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const YAML::Node& e : events)
        if (e["ph"].as<std::string>() == "C" && e["name"].as<std::string>() == name)
            out.push_back({e["ts"].as<std::string>(), e["args"][arg].as<std::string>()});
    return out;
}

const obs::RunView::Detail::Occupancy* occupancy(const obs::RunView& view, const std::string& lane) {
    for (const auto& o : view.detail.occupancy)
        if (o.lane == lane) return &o;
    return nullptr;
}

std::uint64_t sum(const std::vector<std::uint64_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); }

}  // namespace

// A run whose tile detail holds everything is drawn exactly as from the
// recorded events (the path the outputs took before the recorder): same
// view, same bytes, no aggregate, no note.
BOOST_AUTO_TEST_CASE(complete_detail_draws_the_same_bytes_as_the_recorded_events) {
    Sim sim("gemm_bias_relu", {});
    const obs::RunView live = sim.start();
    const obs::RunView replayed = obs::build_view(sim.run, sim.platform, sim.log);
    BOOST_CHECK(live.detail.complete);
    BOOST_CHECK_EQUAL(live.engines.size(), sim.intervals().size());
    BOOST_CHECK_EQUAL(live.detail.slices, sim.intervals().size());
    const std::string timeline = timeline_of(live);
    BOOST_CHECK(timeline == timeline_of(replayed));
    BOOST_CHECK(timeline.find("otherData") == std::string::npos);
    BOOST_CHECK(timeline.find(" busy\"") == std::string::npos);
    std::ostringstream svg_live, svg_replayed;
    write_svg(svg_live, live, "g");
    write_svg(svg_replayed, replayed, "g");
    BOOST_CHECK(svg_live.str() == svg_replayed.str());
    BOOST_CHECK(svg_live.str().find("class=\"occ\"") == std::string::npos);
    std::ostringstream json;
    write_report_json(json, build_report(sim.run, sim.platform, live, "g"));
    BOOST_CHECK(json.str().find("tile_detail") == std::string::npos);
    BOOST_CHECK(obs::detail_note(live.detail).empty());
}

// The recorder is handed each event as it is emitted — a decoupled PE's
// while its calendar runs ahead — and puts what it keeps in the trace's
// order itself (T4: time, node, lane, then as emitted). host_launch.yaml:
// the host launches one GEMM on all eight PEs of the cube; they run on one
// calendar and do the same work at the same times, so most instants hold
// the events of all eight (ordered by node id: pe0 .. pe7), emitted PE
// after PE as the calendar runs ahead, and the host's requests and fan-outs
// come from the kernel's side. The outputs drawn live are the bytes drawn
// from the trace's own order (the sink's log), whole and with a cap of 10
// of its 48 intervals (the cap's window ends at the 11th earliest start
// whatever order the intervals came in).
BOOST_AUTO_TEST_CASE(live_detail_is_in_the_traces_order) {
    Sim sim("host_launch", {});
    const obs::RunView live = sim.start();
    BOOST_CHECK_EQUAL(sim.platform.decoupler().decoupled_pes(), 8u);
    const obs::RunView replayed = obs::build_view(sim.run, sim.platform, sim.log);
    BOOST_CHECK(live.detail.complete);
    BOOST_CHECK_EQUAL(live.detail.slices, 48u);
    BOOST_CHECK_EQUAL(live.engines.size(), 48u);
    BOOST_CHECK_GT(live.counters.size(), 8u);
    BOOST_CHECK_EQUAL(live.nodes.size(), replayed.nodes.size());
    BOOST_CHECK(timeline_of(live) == timeline_of(replayed));
    std::ostringstream svg_live, svg_replayed;
    write_svg(svg_live, live, "g");
    write_svg(svg_replayed, replayed, "g");
    BOOST_CHECK(svg_live.str() == svg_replayed.str());
    std::ostringstream json_live, json_replayed;
    write_report_json(json_live, build_report(sim.run, sim.platform, live, "g"));
    write_report_json(json_replayed, build_report(sim.run, sim.platform, replayed, "g"));
    BOOST_CHECK(json_live.str() == json_replayed.str());
}

BOOST_AUTO_TEST_CASE(live_capped_detail_is_in_the_traces_order) {
    Sim sim("host_launch", cap(10));
    const obs::RunView live = sim.start();
    BOOST_CHECK_EQUAL(sim.platform.decoupler().decoupled_pes(), 8u);
    const obs::RunView replayed = obs::build_view(sim.run, sim.platform, sim.log, cap(10));
    BOOST_CHECK_EQUAL(live.detail.slices, 48u);
    BOOST_CHECK_EQUAL(live.detail.slices_kept, 10u);
    BOOST_CHECK(live.detail.cut);
    BOOST_CHECK_EQUAL(live.detail.to_ps, replayed.detail.to_ps);
    BOOST_CHECK(timeline_of(live) == timeline_of(replayed));
    std::ostringstream svg_live, svg_replayed;
    write_svg(svg_live, live, "g");
    write_svg(svg_replayed, replayed, "g");
    BOOST_CHECK(svg_live.str() == svg_replayed.str());
}

// A cap of two intervals on simple_commands (header): ld_a and ld_b fit;
// mm's GEMM interval, the third to complete (at 1812.334 ns), does not, so
// the window ends where it starts: [0, 1556.334 ns). act and st start after
// that. The counter samples in it are the four of dma_read_inbox at 3.000
// and 778.667 ns (gemm_inbox's two at 1556.334 ns are at the window's end).
// The aggregate is exact: busy per engine DMA_READ 2 × 774.667 = 1549.334
// ns, GEMM 256, MATH 40, DMA_WRITE 774.667 — the model's own busy figures.
// The run lasts 2633.001 ns: 1 ns bins doubled until 1024 of them cover it,
// 4 ns (2633.001 / 4 = 658.25 -> 659 bins). GEMM's [1556.334, 1812.334) falls
// in bins 389 (1556..1560 ns: 3.666 ns), 390 .. 452 (4 ns each) and 453
// (1812..1812.334: 0.334 ns): 3.666 + 63 · 4 + 0.334 = 256 ns.
BOOST_AUTO_TEST_CASE(cap_ends_the_window_and_the_aggregate_is_exact) {
    Sim sim("simple_commands", cap(2));
    const obs::RunView view = sim.start();
    const obs::RunView::Detail& d = view.detail;
    BOOST_CHECK(!d.complete);
    BOOST_CHECK(d.cut);
    BOOST_CHECK_EQUAL(d.from_ps, 0u);
    BOOST_CHECK_EQUAL(d.to_ps, 1556334u);
    BOOST_CHECK_EQUAL(d.slices, 5u);
    BOOST_CHECK_EQUAL(d.slices_kept, 2u);
    BOOST_CHECK_EQUAL(d.samples, 10u);
    BOOST_CHECK_EQUAL(d.samples_kept, 4u);
    BOOST_REQUIRE_EQUAL(view.engines.size(), 2u);
    BOOST_CHECK_EQUAL(view.engines[0].label, "ld_a");
    BOOST_CHECK_EQUAL(view.engines[0].start_ps, 3000u);
    BOOST_CHECK_EQUAL(view.engines[1].label, "ld_b");
    BOOST_CHECK_EQUAL(view.engines[1].end_ps, 1553334u);
    BOOST_REQUIRE_EQUAL(view.counters.size(), 4u);
    for (const auto& c : view.counters) {
        BOOST_CHECK_EQUAL(c.name, "dma_read_inbox fill");
        BOOST_CHECK_LT(c.count.t_ps, d.to_ps);
    }
    BOOST_CHECK_EQUAL(view.commands.size(), 5u);  // command spans are always there

    // Busy totals, by hand (header), from the aggregate and from the model.
    const std::map<std::string, std::uint64_t> busy{
        {"DMA_READ", 1549334}, {"GEMM", 256000}, {"MATH", 40000}, {"DMA_WRITE", 774667}};
    BOOST_REQUIRE_EQUAL(view.lane_totals.size(), busy.size());
    for (const auto& l : view.lane_totals) {
        BOOST_TEST_CONTEXT(l.lane) {
            BOOST_CHECK_EQUAL(l.busy_ps, busy.at(l.lane));
            BOOST_CHECK_EQUAL(l.slices, l.lane == "DMA_READ" ? 2u : 1u);
            BOOST_REQUIRE(occupancy(view, l.lane));
            BOOST_CHECK_EQUAL(sum(occupancy(view, l.lane)->busy_ps), busy.at(l.lane));
        }
    }
    const Report r = build_report(sim.run, sim.platform, view, "simple_commands");
    for (const auto& e : r.engines)
        if (busy.count(e.engine)) {
            BOOST_CHECK_EQUAL(e.busy_ps, busy.at(e.engine));
            BOOST_CHECK_EQUAL(e.slices, e.engine == "DMA_READ" ? 2u : 1u);
        }
    BOOST_CHECK_EQUAL(d.bin_ps, 4000u);
    BOOST_CHECK_EQUAL(d.bins, 659u);
    const auto& gemm = occupancy(view, "GEMM")->busy_ps;
    BOOST_REQUIRE_EQUAL(gemm.size(), 454u);
    BOOST_CHECK_EQUAL(gemm[388], 0u);
    BOOST_CHECK_EQUAL(gemm[389], 3666u);
    for (std::size_t b = 390; b <= 452; ++b) BOOST_CHECK_EQUAL(gemm[b], 4000u);
    BOOST_CHECK_EQUAL(gemm[453], 334u);

    // Timeline: 2 engine slices, 5 command slices, no arrow across the
    // window; "GEMM busy" over the whole run: 0 from the start, 3666 / 4000
    // = 0.917 (half up) at bin 389, 1 from bin 390, 334 / 4000 = 0.084 at
    // bin 453, 0 from bin 454; the window's end marked, the metadata saying it.
    const std::string text = timeline_of(view);
    const YAML::Node doc = YAML::Load(text);
    const YAML::Node events = doc["traceEvents"];
    std::map<std::string, int> slices;
    for (const YAML::Node& e : events)
        if (e["ph"].as<std::string>() == "X") ++slices[e["cat"].as<std::string>()];
    BOOST_CHECK_EQUAL(slices["engine"], 2);
    BOOST_CHECK_EQUAL(slices["command"], 5);
    const std::vector<std::pair<std::string, std::string>> gemm_busy{
        {"0.000000", "0.000"}, {"1.556000", "0.917"}, {"1.560000", "1.000"}, {"1.812000", "0.084"}, {"1.816000", "0.000"}};
    BOOST_CHECK(counter(events, "GEMM busy", "busy") == gemm_busy);
    // dma_read_inbox fill in the window: its four samples; over the run, the
    // bin maximum: 1 in bins 0 (3 ns) and 194 (778.667 ns), then the last
    // value, 0, at the next bin.
    BOOST_CHECK_EQUAL(counter(events, "dma_read_inbox fill", "value").size(), 4u);
    const std::vector<std::pair<std::string, std::string>> inbox_max{
        {"0.000000", "1"}, {"0.004000", "0"}, {"0.776000", "1"}, {"0.780000", "0"}};
    BOOST_CHECK(counter(events, "dma_read_inbox fill (bin max)", "value") == inbox_max);
    int ends = 0;
    for (const YAML::Node& e : events)
        if (e["ph"].as<std::string>() == "i" && e["name"].as<std::string>() == "tile detail ends") {
            BOOST_CHECK_EQUAL(e["ts"].as<std::string>(), "1.556334");
            ++ends;
        }
    BOOST_CHECK_EQUAL(ends, 1);
    const YAML::Node meta = doc["otherData"];
    BOOST_REQUIRE(meta.IsMap());
    BOOST_CHECK_EQUAL(meta["tile_detail"].as<std::string>(), "partial");
    BOOST_CHECK_EQUAL(meta["detail_to_ns"].as<std::string>(), "1556.334");
    BOOST_CHECK_EQUAL(meta["engine_intervals"].as<int>(), 5);
    BOOST_CHECK_EQUAL(meta["engine_intervals_in_detail"].as<int>(), 2);
    BOOST_CHECK(meta["note"].as<std::string>().find("--detail-window FROM_NS:TO_NS") != std::string::npos);

    // SVG: engine lanes as occupancy bars, a box per command only.
    std::ostringstream svg;
    write_svg(svg, view, "simple_commands");
    std::map<std::string, int> counts;
    const std::string problem = xml_problem(svg.str(), counts);
    BOOST_CHECK_MESSAGE(problem.empty(), problem);
    BOOST_CHECK_EQUAL(counts["op"], 5);
    BOOST_CHECK_GT(counts["occ"], 0);
    BOOST_CHECK_EQUAL(counts["detail-window"], 1);

    // Report: the note, and the figures of the whole run.
    std::ostringstream json, md;
    write_report(json, r, "r.json");
    write_report(md, r, "r.md");
    const YAML::Node rep = YAML::Load(json.str());
    BOOST_CHECK(!rep["tile_detail"]["complete"].as<bool>());
    BOOST_CHECK_EQUAL(rep["tile_detail"]["to_ns"].as<std::string>(), "1556.334");
    BOOST_CHECK_EQUAL(rep["tile_detail"]["engine_intervals"].as<int>(), 5);
    BOOST_CHECK(md.str().find("Note: tile detail: 2 of 5 engine intervals") != std::string::npos);
}

// An explicit window on gemm_bias_relu: the engine slices are exactly the
// trace's intervals that overlap it, the counters exactly the samples in it
// plus each track's last sample before it; token arrows join kept slices
// only; both ends are marked; the busy aggregate still covers the run.
BOOST_AUTO_TEST_CASE(window_keeps_exactly_its_intervals_and_samples) {
    obs::DetailOptions window;
    window.from_ps = 20000000;  // 20 us .. 30 us of the 61.7 us run
    window.to_ps = 30000000;
    Sim sim("gemm_bias_relu", window);
    const obs::RunView view = sim.start();
    const obs::RunView::Detail& d = view.detail;
    BOOST_CHECK(!d.complete);
    BOOST_CHECK(!d.cut);
    BOOST_CHECK_EQUAL(d.to_ps, window.to_ps);

    std::multiset<std::string> want, got;
    std::map<std::string, std::uint64_t> busy;
    for (const auto& i : sim.intervals()) {
        busy[i.stage] += i.end_ps - i.start_ps;
        if (i.start_ps < window.to_ps && i.end_ps > window.from_ps)
            want.insert(i.stage + "|" + std::to_string(i.cmd) + "|" + std::to_string(i.tile) + "|" +
                        std::to_string(i.start_ps));
    }
    for (const auto& s : view.engines)
        got.insert(s.lane + "|" + std::to_string(s.cmd) + "|" + std::to_string(s.tile) + "|" +
                   std::to_string(s.start_ps));
    BOOST_CHECK_GT(want.size(), 0u);
    BOOST_CHECK(got == want);
    BOOST_CHECK_LT(view.engines.size(), sim.intervals().size());
    for (const auto& l : view.lane_totals) {
        BOOST_CHECK_EQUAL(l.busy_ps, busy[l.lane]);
        BOOST_CHECK_EQUAL(sum(occupancy(view, l.lane)->busy_ps), busy[l.lane]);
    }

    // Counter samples: those in the window, and per track the last before it.
    std::map<std::string, std::uint64_t> last_before;
    std::size_t in_window = 0;
    for (const RecordedEvent& e : sim.log) {
        if (e.kind != TraceKind::inbox_fill && e.kind != TraceKind::tcm_in_use) continue;
        const std::string track = e.kind == TraceKind::inbox_fill ? e.stage + " fill" : "reserved TCM bytes";
        if (e.t_ps < window.from_ps) last_before[track] = e.t_ps;
        else if (e.t_ps < window.to_ps) ++in_window;
    }
    std::size_t before = 0, inside = 0;
    for (const auto& c : view.counters) {
        BOOST_CHECK_LT(c.count.t_ps, window.to_ps);
        if (c.count.t_ps < window.from_ps) {
            BOOST_CHECK_EQUAL(c.count.t_ps, last_before[c.name]);
            ++before;
        } else {
            ++inside;
        }
    }
    BOOST_CHECK_EQUAL(before, last_before.size());
    BOOST_CHECK_EQUAL(inside, in_window);

    const YAML::Node events = YAML::Load(timeline_of(view))["traceEvents"];
    std::map<std::string, std::string> marks;
    int arrows = 0;
    for (const YAML::Node& e : events) {
        const std::string ph = e["ph"].as<std::string>();
        if (ph == "i") marks[e["name"].as<std::string>()] = e["ts"].as<std::string>();
        if (ph == "s" && e["cat"].as<std::string>() == "token") ++arrows;
    }
    BOOST_CHECK_EQUAL(marks["tile detail begins"], "20.000000");
    BOOST_CHECK_EQUAL(marks["tile detail ends"], "30.000000");
    // An arrow per consecutive pair of a token's kept stages.
    std::map<std::tuple<std::int64_t, std::int64_t>, int> stages;
    for (const auto& s : view.engines) ++stages[{s.cmd, s.tile}];
    int pairs = 0;
    for (const auto& [token, n] : stages) pairs += n - 1;
    BOOST_CHECK_EQUAL(arrows, pairs);
}

// --detail-slices 0: no tile detail at all; commands and the aggregate stay.
BOOST_AUTO_TEST_CASE(no_detail_keeps_commands_and_occupancy) {
    Sim sim("gemm_bias_relu", cap(0));
    const obs::RunView view = sim.start();
    BOOST_CHECK(!view.detail.complete);
    BOOST_CHECK(view.engines.empty());
    BOOST_CHECK(view.counters.empty() && view.tiles_in_flight.empty());
    BOOST_CHECK_EQUAL(view.commands.size(), 1u);
    const Report r = build_report(sim.run, sim.platform, view, "gemm_bias_relu");
    for (const auto& e : r.engines) {
        const auto* o = occupancy(view, e.engine);
        BOOST_TEST_CONTEXT(e.engine) {
            BOOST_CHECK_EQUAL(o ? sum(o->busy_ps) : 0u, e.busy_ps);
        }
    }
    const YAML::Node events = YAML::Load(timeline_of(view))["traceEvents"];
    int engine = 0, command = 0, none = 0;
    for (const YAML::Node& e : events) {
        const std::string ph = e["ph"].as<std::string>();
        if (ph == "X") ++(e["cat"].as<std::string>() == "engine" ? engine : command);
        if (ph == "i" && e["name"].as<std::string>() == "no tile detail") ++none;
    }
    BOOST_CHECK_EQUAL(engine, 0);
    BOOST_CHECK_EQUAL(command, 1);
    BOOST_CHECK_EQUAL(none, 1);
    BOOST_CHECK_GT(counter(events, "GEMM busy", "busy").size(), 1u);
    BOOST_CHECK_GT(counter(events, "tiles in flight (bin max)", "value").size(), 1u);
    BOOST_CHECK(obs::detail_note(view.detail).find("none asked for (--detail-slices 0)") != std::string::npos);
}

// The recorder's memory is bounded by the cap, not by the run: a 10 000-tile
// GEMM (2560 x 3200 x 2560 in 128^3 tiles: 20 · 25 · 20) with a cap of 1000
// intervals keeps at most twice the cap while it runs (2000 intervals, 8000
// samples) and at most 1024 bins per track, while every interval is counted.
// The detail is the cap's rule on the trace: the window ends at the 1001st
// earliest start of the run's intervals, and holds exactly the intervals
// that start before it (1000, or fewer when several start at that time).
// Same inputs, same view.
BOOST_AUTO_TEST_CASE(recorder_memory_is_bounded_by_the_cap) {
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl = load_workload_text(R"(name: big
kernels:
  gemm:
    - composite:
        id: fc
        gemm: { m: 2560, k: 3200, n: 2560 }
        tile: { m: 128, k: 128, n: 128 }
        dtype: { in: bf16, out: bf16 }
        epilogues:
          - { op: bias_add, scope: per_output_tile }
        wait: true
launch:
  - { kernel: gemm, cube: sip0.cube0, pes: [0] }
)",
                                                 "big.yaml", topo);
    std::ostringstream trace_text;
    TraceSink trace(&trace_text);
    obs::RunRecorder recorder(cap(1000));
    trace.listen(&recorder);
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    sc_core::sc_start();
    trace.flush();
    BOOST_REQUIRE(run.finished());
    BOOST_CHECK_EQUAL(platform.work_counts().tiles, 10000u);
    BOOST_CHECK(recorder.window().cut);
    BOOST_CHECK_LE(recorder.slices().size(), 2000u);
    BOOST_CHECK_LE(recorder.tile_samples().size() + recorder.counter_samples().size(), 8000u);
    std::uint64_t slices = 0;
    for (const auto& l : recorder.lanes()) {
        slices += l.slices;
        BOOST_CHECK_LE(l.busy_bins.size(), obs::max_bins);
    }
    for (const auto& s : recorder.series()) BOOST_CHECK_LE(s.bins.size(), obs::max_bins);
    BOOST_CHECK_GT(recorder.bins_used(), obs::max_bins / 2);
    BOOST_CHECK_LE(recorder.bins_used(), obs::max_bins);
    // Every tile: DMA_READ, FETCH, GEMM; the 400 last K-steps also MATH, STORE, DMA_WRITE.
    BOOST_CHECK_EQUAL(slices, 3u * 10000u + 3u * 400u);
    const obs::RunView view = obs::build_view(run, platform, recorder);
    BOOST_CHECK_EQUAL(view.detail.slices, slices);

    // The cap's rule, from the trace.
    const std::vector<test::EngineInterval> all = test::engine_intervals(test::parse_trace(trace_text.str()));
    BOOST_REQUIRE_EQUAL(all.size(), slices);
    std::vector<std::uint64_t> starts;
    for (const auto& i : all) starts.push_back(i.start_ps);
    std::sort(starts.begin(), starts.end());
    const std::uint64_t cut = starts[1000];
    BOOST_CHECK_EQUAL(view.detail.to_ps, cut);
    using Interval = std::tuple<std::string, std::uint64_t, std::uint64_t, std::int64_t>;  // lane, start, end, tile
    std::vector<Interval> kept, shown;
    for (const auto& i : all)
        if (i.start_ps < cut) kept.emplace_back(i.stage, i.start_ps, i.end_ps, i.tile);
    for (const auto& e : view.engines) shown.emplace_back(e.lane, e.start_ps, e.end_ps, e.tile);
    std::sort(kept.begin(), kept.end());
    std::sort(shown.begin(), shown.end());
    BOOST_CHECK_LE(kept.size(), 1000u);
    BOOST_CHECK_GT(kept.size(), 990u);
    BOOST_CHECK(shown == kept);
    BOOST_CHECK(timeline_of(view) == timeline_of(obs::build_view(run, platform, recorder)));
}

// The aggregate's bins are bounded over all tracks together (bin_budget), so
// that a machine of 16,384 PEs (some 430,000 tracks) does not keep 1024 bins
// a track. Events handed to recorders directly: on `groups` PEs, each PE's
// DMA reads for [0, 1 us) and its reserved TCM is sampled at 0 and at
// 999 ns — one engine lane and one counter series a PE, 2 x groups tracks.
// 1 us is 1000 bins of the first width (1 ns), so:
//   - 2048 PEs: 4096 tracks x 1024 bins is the budget (2^22): 1024 bins a
//     track still, the run fits in 1000 bins of 1 ns, each bin busy 1 ns;
//   - 4096 PEs: 8192 tracks, 2^22 / 8192 = 512 bins a track: the bins widen
//     once, 500 bins of 2 ns, each busy 2 ns;
//   - 2^17 + 4096 PEs: 2^18 + 8192 tracks would get 8 bins; the floor is
//     min_bins (16):
//     1 us in bins of 64 ns (1000 / 64 -> 16 bins, the last one 40 ns busy).
// The totals are exact whatever the bins: 1 us busy a lane.
BOOST_AUTO_TEST_CASE(aggregate_bins_are_bounded_over_all_tracks) {
    struct Case {
        std::size_t groups;
        std::size_t limit, bins;
        std::uint64_t bin_ps;
    };
    for (const Case c : {Case{2048, 1024, 1000, 1000}, Case{4096, 512, 500, 2000},
                         Case{(std::size_t{1} << 17) + 4096, obs::min_bins, 16, 64000}}) {
        BOOST_TEST_CONTEXT("PEs " << c.groups) {
            std::vector<std::string> nodes, pes;
            nodes.reserve(c.groups);
            pes.reserve(c.groups);
            for (std::size_t i = 0; i < c.groups; ++i) {
                pes.push_back("pe" + std::to_string(i));
                nodes.push_back(pes.back() + ".pe_dma");
            }
            obs::RunRecorder rec;
            for (std::size_t i = 0; i < c.groups; ++i) {
                rec.on_trace(trace::engine_start(0, nodes[i], 0, 0, "DMA_READ", 64));
                rec.on_trace(trace::tcm_in_use(0, pes[i], 4096));
            }
            for (std::size_t i = 0; i < c.groups; ++i) {
                rec.on_trace(trace::tcm_in_use(999000, pes[i], 0));
                rec.on_trace(trace::engine_complete(1000000, nodes[i], 0, 0, "DMA_READ", 64));
            }
            BOOST_CHECK_EQUAL(rec.lanes().size(), c.groups);
            BOOST_CHECK_EQUAL(rec.series().size(), c.groups);
            BOOST_CHECK_EQUAL(rec.bin_limit(), c.limit);
            BOOST_CHECK_EQUAL(rec.bins_used(), c.bins);
            BOOST_CHECK_EQUAL(rec.bin_ps(), c.bin_ps);
            std::size_t worst = 0;
            for (const auto& l : rec.lanes()) {
                BOOST_CHECK_EQUAL(l.busy_ps, 1000000u);
                BOOST_CHECK_EQUAL(sum(l.busy_bins), 1000000u);
                worst = std::max(worst, l.busy_bins.size());
            }
            for (const auto& s : rec.series()) worst = std::max(worst, s.bins.size());
            BOOST_CHECK_LE(worst, c.limit);
            BOOST_CHECK_LE(worst * (rec.lanes().size() + rec.series().size()), std::max(obs::bin_budget, obs::min_bins * 2 * c.groups));
            const auto& first = rec.lanes().front().busy_bins;
            BOOST_CHECK_EQUAL(first.front(), std::min<std::uint64_t>(c.bin_ps, 1000000));
            BOOST_CHECK_EQUAL(first.back(), 1000000 - (c.bins - 1) * c.bin_ps);
            // The counter: 4096 at 0, 0 at 999 ns: its first bin's maximum
            // 4096, the bin of 999 ns ends at 0.
            const auto& tcm = rec.series().front().bins;
            BOOST_CHECK_EQUAL(tcm.front().max, 4096);
            BOOST_CHECK_EQUAL(tcm.back().last, 0);
        }
    }
}
