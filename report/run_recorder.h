// What the outputs (--timeline, --svg, --report) need of a run, gathered
// while it runs (docs/cli.md "Tile detail"). The recorder listens to the
// trace sink (TraceSink::listen) and consumes each typed event as it is
// emitted, so its memory does not grow with the run:
//   - always, exactly: engine intervals and busy time per PE and engine,
//     host requests and fan-outs, and every engine interval and counter
//     sample folded into time bins (per-engine occupancy, per-counter
//     maximum) over the whole run;
//   - one by one ("tile detail"): engine intervals and counter samples in the
//     detail window, at most DetailOptions::max_slices intervals (and
//     counter_samples_per_slice times as many samples). Over the cap, the
//     window ends where the first interval that does not fit starts: at the
//     (max_slices + 1)-th earliest start (or the (cap + 1)-th earliest
//     sample), so it keeps every interval that starts before that time.
// The recorder takes each event as it is emitted (needs_order() is false:
// a decoupled PE's events come while its calendar runs ahead, not in the
// trace's order), so it keeps with each interval, sample and host span its
// source (node and lane, trace_lane()) and puts them in the trace's order
// (T4: time, node, lane, then as emitted) when the view is built; the cap
// is applied there too (window()), the recorder keeping at most twice the
// cap meanwhile. Strings are interned once; a kept interval or sample holds
// ids and integers only. build_view (run_view.h) turns it into the RunView
// the writers draw. Same events, same state: nothing depends on addresses
// or on the order calendars ran in.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "modules/common/trace.h"

namespace npuvp {
namespace obs {

// Defaults of the tile detail, named once (docs/cli.md "Tile detail").
// 100 000 engine intervals: about 30 000 tiles of a GEMM composite, a
// timeline of some 80 MB that Perfetto opens at once.
inline constexpr std::uint64_t default_detail_slices = 100000;
// Counter samples kept per engine interval of the cap (a GEMM tile has
// about 3.3 samples per interval: inbox fills, reserved TCM, tiles in flight).
inline constexpr std::uint64_t counter_samples_per_slice = 4;
// Time bins of the aggregate: at most this many per series; the first bin
// width is 1 ns, doubled (and neighbours merged) whenever the run outgrows
// them, so a run ends with between max_bins / 2 and max_bins bins.
inline constexpr std::size_t max_bins = 1024;
// ... and at most bin_budget bins over all tracks (engine lanes and counter
// series) together: a machine with more than bin_budget / max_bins tracks
// gets fewer bins a track (a power of two, at least min_bins), so the
// aggregate's memory stays bounded as the machine grows (16,384 PEs have
// some 430,000 tracks: 1024 bins each were 11 GB).
inline constexpr std::size_t bin_budget = std::size_t{1} << 22;
inline constexpr std::size_t min_bins = 16;
inline constexpr std::uint64_t first_bin_ps = 1000;
inline constexpr std::uint64_t open_end = std::numeric_limits<std::uint64_t>::max();

struct DetailOptions {
    std::uint64_t from_ps = 0;                       // --detail-window FROM:TO, in ps
    std::uint64_t to_ps = open_end;
    std::uint64_t max_slices = default_detail_slices;  // --detail-slices N
};

class RunRecorder final : public TraceListener {
public:
    explicit RunRecorder(const DetailOptions& options = {});

    void on_trace(const TraceEvent& event) override;
    bool needs_order() const override { return false; }

    // ---- what build_view reads (after the run)
    struct Slice {  // one engine interval, as ids
        std::uint32_t group, lane;
        std::int64_t cmd, tile, bytes;
        std::uint64_t start_ps, end_ps;
        std::uint32_t source;  // its end's node and lane (Source; source_ranks() places it)
    };
    struct Sample {  // one counter sample
        std::uint32_t series;
        std::uint32_t source;  // its node and lane (Source; source_ranks() places it)
        std::uint64_t t_ps;
        std::int64_t value;
    };
    // The lane of a node that events come from (trace_lane()); the order
    // of sources at one instant is T4's (source_ranks()).
    struct Source {
        std::uint32_t node;   // text id
        TraceLane lane;
        std::uint32_t stage;  // text id of the stage (TraceLane::stage)
    };
    struct Bin {  // a counter's samples in one time bin
        std::int64_t max = 0, last = 0;
        bool seen = false;
    };
    struct Series {  // one counter track: (group, name), e.g. (sip0.cube0.pe0, reserved TCM bytes)
        std::uint32_t group, name;
        std::vector<Bin> bins;
        bool before = false;  // a sample before the window's start: the value it opens with
        Sample last_before{};
        Sample first{};            // its first sample: where the track begins in the trace ...
        std::uint64_t first_seq = 0;  // ... (samples counted as they came)
    };
    struct Lane {  // one engine lane of one group: every interval of the run
        std::uint32_t group, lane;
        std::uint64_t slices = 0, busy_ps = 0;
        std::vector<std::uint64_t> busy_bins;  // busy ps per time bin
    };
    struct NodeStart {  // an open host request (IO_CPU) or fan-out (M_CPU)
        std::string node, detail, stage;
        std::int64_t cmd = -1;
        bool request = false;
        std::uint64_t t_ps = 0;
    };
    struct NodeDone {  // a completed one: its group, id and kind, as the span shows them
        std::string node, id, kind;
        std::int64_t cmd = -1;
        bool request = false;
        std::uint64_t start_ps = 0, end_ps = 0;
        std::uint32_t source = 0;  // of its completion
    };
    struct OpenKey {
        std::uint32_t node, stage;
        std::int64_t cmd, tile;
        bool operator<(const OpenKey& o) const;
    };
    struct OpenStart {
        std::uint64_t t_ps;
        std::int64_t bytes;
    };
    struct CommandName {
        std::string id, kind;
    };

    const std::string& text(std::uint32_t id) const { return m_text[id]; }
    std::uint32_t group_of_node(std::uint32_t node) const { return m_group[node]; }
    const DetailOptions& options() const { return m_options; }
    // The window the tile detail covers: [from_ps, to_ps) (to_ps may be
    // open_end), and whether the cap ended it, from what is kept: the
    // intervals and samples below that start in it are the detail.
    struct Window {
        std::uint64_t to_ps;
        bool cut;
    };
    Window window() const;
    // Kept so far, as they came (at most twice the cap): intervals that
    // may be in the window, and samples (those before the window's start
    // are not kept; each track's last one is, Series::last_before).
    const std::vector<Slice>& slices() const { return m_slices; }
    const std::vector<Sample>& tile_samples() const { return m_tile_samples; }
    const std::vector<Sample>& counter_samples() const { return m_counter_samples; }
    // Each source's place at one instant, T4's order: by node id, then
    // lane "" first, stages by name, the simple commands' lane last.
    std::vector<std::uint32_t> source_ranks() const;
    std::uint64_t samples_total() const { return m_samples_total; }
    const std::vector<Series>& series() const { return m_series; }
    const std::vector<Lane>& lanes() const { return m_lanes; }
    std::uint64_t bin_ps() const { return m_bin_ps; }
    std::size_t bins_used() const { return m_bins_used; }
    std::size_t bin_limit() const { return m_bin_limit; }
    const std::vector<NodeDone>& nodes_done() const { return m_nodes_done; }
    const std::map<std::pair<std::string, std::int64_t>, NodeStart>& nodes_open() const { return m_node_open; }
    // The engine starts not yet paired with a completion (made on each call).
    std::map<OpenKey, std::vector<OpenStart>> engines_open() const;
    const CommandName* command(std::uint32_t group, std::int64_t cmd) const;
    bool any_event() const { return m_events > 0; }
    std::uint64_t last_event_ps() const { return m_last_ps; }  // the latest event's time

private:
    std::uint32_t intern(std::string_view text);
    // The emitters' strings live as long as the run (node ids, stage names):
    // looked up by address first, checked by content, so a hash of the text
    // is paid once per string, not once per event.
    std::uint32_t intern_at(const void* address, std::string_view text);
    std::uint32_t node_id(const std::string* node) { return node ? intern_at(node, *node) : intern(""); }
    std::uint32_t stage_id(const char* stage) { return stage ? intern_at(stage, stage) : intern(""); }
    std::uint32_t series_id(std::uint32_t group, std::uint32_t name);
    std::uint32_t lane_index(std::uint32_t group, std::uint32_t lane);

    // What the recorder keeps per emitter, found once per event through
    // the sink's keys (TraceEvent::node_key, stage_key) and a short scan:
    // no string is hashed or compared per event.
    static constexpr std::uint32_t none = ~std::uint32_t{0};
    struct Open {  // an engine start not yet completed
        std::int64_t cmd, tile;
        std::uint64_t t_ps;
        std::int64_t bytes;
    };
    struct NodeRec;
    struct NodeLane {  // one stage (engine channel or inbox) of one node
        NodeRec* node;
        std::uint32_t stage;
        std::uint32_t lane = none;    // m_lanes of (group, stage), from its first interval
        std::uint32_t fill = none;    // the "<inbox> fill" series, from its first sample
        std::uint32_t source = none;  // m_sources, from its first kept event
        std::vector<Open> open;       // in start order
    };
    struct GroupRec {  // a PE (or a node outside one)
        std::uint32_t tcm = none, tiles = none;  // its series, from their first sample
        std::int64_t in_flight = 0;              // composite tiles in flight
        std::int64_t cmd = -1;                   // the last command tile_count looked up ...
        bool composite = false, cmd_known = false;  // ... and whether it is a composite
    };
    struct NodeRec {
        std::uint32_t node, group, group_rec;
        std::deque<NodeLane> lanes;  // (TraceOrigin::lane_record points into it)
        std::uint32_t plain = none, simple = none;  // m_sources of its lanes "" and simple commands
    };
    // The emitter's node and the event's lane: through the event's origin
    // once it holds this recorder's records (TraceOrigin), else looked up.
    NodeRec& node_of(const TraceEvent& e);
    NodeLane& lane_of(const TraceEvent& e);
    void claim(TraceOrigin& origin) const;
    NodeRec& node_rec(const TraceEvent& e);
    NodeRec& node_rec_of(std::uint32_t node);
    std::uint32_t stage_of(const TraceEvent& e);
    NodeLane& node_lane(NodeRec& node, std::uint32_t stage);
    std::uint32_t source_id(std::uint32_t node, TraceLane lane, std::uint32_t stage);
    std::uint32_t source_of(NodeRec& node, const TraceEvent& e);  // a lane "" or simple commands event's
    std::uint32_t source_of(const NodeRec& node, NodeLane& lane, const TraceEvent& e);

    void engine_start(const TraceEvent& e);
    void engine_complete(const TraceEvent& e);
    void node_start(const TraceEvent& e);
    void node_complete(const TraceEvent& e);
    void command_submitted(const TraceEvent& e);
    void tile_count(const TraceEvent& e);

    void slice(const NodeRec& node, NodeLane& lane, std::int64_t cmd, std::int64_t tile, std::int64_t bytes,
               std::uint64_t start_ps, std::uint64_t end_ps, std::uint32_t source);
    void sample(std::vector<Sample>& detail, std::uint32_t series, std::uint32_t source, std::uint64_t t_ps,
                std::int64_t value);
    bool in_window(std::uint64_t start_ps, std::uint64_t end_ps) const;
    // Ends the window at `t_ps` (the cap is reached).
    void cut_at(std::uint64_t t_ps);
    // Twice the cap kept: the window ends at the cap's time among them, and
    // what starts later goes.
    void prune_slices();
    void prune_samples();
    // Widens the bins until `last_ps` (a time in the run) falls in one.
    void cover(std::uint64_t last_ps);
    // Bins twice as wide, on every track.
    void widen();
    // A track was added: fewer bins a track if the budget asks it.
    void track_added();

    DetailOptions m_options;
    std::uint64_t m_to;     // the window's end, options().to_ps until the cap ends it
    bool m_cut = false;
    std::uint64_t m_sample_cap;  // counter samples kept at most

    std::deque<std::string> m_text;  // interned strings, by id
    std::unordered_map<std::string_view, std::uint32_t> m_ids;
    std::unordered_map<const void*, std::uint32_t> m_by_address;
    std::vector<std::uint32_t> m_group;  // node id -> its group's id ("sip0.cube0.pe3.pe_dma" -> "sip0.cube0.pe3")

    static std::uint64_t next_serial();
    const std::uint64_t m_serial = next_serial();  // this recorder, in TraceOrigin::listener
    std::deque<NodeRec> m_nodes;  // (TraceOrigin::node_record points into it)
    std::vector<GroupRec> m_groups;
    std::unordered_map<std::uint32_t, std::uint32_t> m_node_of_text, m_group_of_text;  // -> m_nodes, m_groups
    std::vector<std::uint32_t> m_node_of_key, m_stage_of_key;  // sink key -> m_nodes, stage text id

    std::map<std::pair<std::uint32_t, std::int64_t>, CommandName> m_names;  // (group, seq) -> name, kind
    std::map<std::pair<std::string, std::int64_t>, NodeStart> m_node_open;
    std::vector<NodeDone> m_nodes_done;

    std::vector<Slice> m_slices;  // tile detail, as they completed
    std::uint64_t m_slice_room;   // kept at most (twice the cap)
    std::vector<Sample> m_tile_samples, m_counter_samples;  // tile detail, as they came
    std::uint64_t m_sample_room, m_samples_total = 0;  // (m_samples_total also numbers them as they came)
    std::vector<std::uint64_t> m_times;  // prune_*()'s scratch
    std::vector<Source> m_sources;
    std::unordered_map<std::uint64_t, std::uint32_t> m_source_index;  // (node, lane, stage) -> m_sources

    std::vector<Lane> m_lanes;
    std::unordered_map<std::uint64_t, std::uint32_t> m_lane_index;  // (group << 32 | lane) -> m_lanes
    std::vector<Series> m_series;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> m_series_index;
    std::unordered_map<std::uint32_t, std::uint32_t> m_fill_name;  // inbox id -> "<inbox> fill" id
    std::uint32_t m_tcm_name, m_tiles_name;
    std::uint64_t m_bin_ps = first_bin_ps;  // first_bin_ps << m_bin_shift
    unsigned m_bin_shift = 0;
    std::size_t m_bins_used = 0;
    std::size_t m_bin_limit = max_bins;  // bins a track, at most (bin_budget)

    std::uint64_t m_events = 0, m_last_ps = 0;
};

}  // namespace obs
}  // namespace npuvp
