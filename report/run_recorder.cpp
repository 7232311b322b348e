#include "report/run_recorder.h"

#include <algorithm>
#include <atomic>
#include <tuple>

namespace npuvp {
namespace obs {
namespace {

// The bin of `t_ps` when bins are first_bin_ps << shift wide: a division by
// a constant (a multiply) and a shift, where t_ps / bin_ps would be a
// division per call, several per event (floor(floor(t / a) / b) is
// floor(t / (a b))).
std::size_t bin_of(std::uint64_t t_ps, unsigned shift) {
    return static_cast<std::size_t>((t_ps / first_bin_ps) >> shift);
}

// Busy time of [start, end) added to the bins it overlaps.
void add_busy(std::vector<std::uint64_t>& bins, std::uint64_t bin_ps, unsigned shift, std::uint64_t start,
              std::uint64_t end) {
    if (end <= start) return;
    const std::size_t last = bin_of(end - 1, shift);
    if (bins.size() <= last) bins.resize(last + 1, 0);
    for (std::size_t b = bin_of(start, shift); b <= last; ++b) {
        const std::uint64_t lo = std::max<std::uint64_t>(start, b * bin_ps);
        const std::uint64_t hi = std::min<std::uint64_t>(end, (b + 1) * bin_ps);
        bins[b] += hi - lo;
    }
}

// Twice as wide: bin i takes bins 2i and 2i + 1.
void halve(std::vector<std::uint64_t>& bins) {
    for (std::size_t i = 0; 2 * i < bins.size(); ++i)
        bins[i] = bins[2 * i] + (2 * i + 1 < bins.size() ? bins[2 * i + 1] : 0);
    bins.resize((bins.size() + 1) / 2);
}

void halve(std::vector<RunRecorder::Bin>& bins) {
    for (std::size_t i = 0; 2 * i < bins.size(); ++i) {
        RunRecorder::Bin a = bins[2 * i];
        if (2 * i + 1 < bins.size()) {
            const RunRecorder::Bin& b = bins[2 * i + 1];
            if (b.seen) {
                a.max = a.seen ? std::max(a.max, b.max) : b.max;
                a.last = b.last;
                a.seen = true;
            }
        }
        bins[i] = a;
    }
    bins.resize((bins.size() + 1) / 2);
}

bool is_request(TraceKind kind) { return kind == TraceKind::request_start || kind == TraceKind::request_complete; }

// A request pairs by its sequence number; a fan-out by its request id (a
// kernel launch's fanout_start carries the fan-out number in cmd, its
// fanout_complete -1).
std::pair<std::string, std::int64_t> node_key(const TraceEvent& e) {
    const std::string node = e.node ? *e.node : std::string();
    if (is_request(e.kind)) return {node + "|requests", e.cmd};
    return {node + "|fanouts|" + (e.detail ? *e.detail : std::string()), -1};
}

// Twice `cap`, at least cap + 1 (what prune_*() needs to find the cap's
// time), saturating.
std::uint64_t room_for(std::uint64_t cap) { return cap > open_end / 2 ? open_end : std::max<std::uint64_t>(2 * cap, 1); }

// The (cap + 1)-th earliest of `times` (more than cap of them), reordering them.
std::uint64_t cap_time(std::vector<std::uint64_t>& times, std::uint64_t cap) {
    const auto nth = times.begin() + static_cast<std::ptrdiff_t>(cap);
    std::nth_element(times.begin(), nth, times.end());
    return *nth;
}

}  // namespace

RunRecorder::RunRecorder(const DetailOptions& options)
    : m_options(options),
      m_to(options.to_ps),
      m_sample_cap(options.max_slices > open_end / counter_samples_per_slice
                       ? open_end
                       : options.max_slices * counter_samples_per_slice),
      m_slice_room(room_for(options.max_slices)),
      m_sample_room(room_for(m_sample_cap)) {
    m_tcm_name = intern("reserved TCM bytes");
    m_tiles_name = intern("tiles in flight");
    if (m_options.max_slices == 0) cut_at(m_options.from_ps);  // no tile detail at all
    // Room for the tile detail up to twice its cap (at most two million
    // each): kept ones are not copied as the vectors grow, and pages not
    // used are never touched.
    constexpr std::uint64_t most = std::uint64_t{1} << 21;
    m_slices.reserve(static_cast<std::size_t>(std::min(m_slice_room, most)));
    m_counter_samples.reserve(static_cast<std::size_t>(std::min(m_sample_room, most)));
    m_tile_samples.reserve(static_cast<std::size_t>(std::min(m_sample_room, most)) / 4);
}

std::uint64_t RunRecorder::next_serial() {
    static std::atomic<std::uint64_t> serial{0};
    return ++serial;
}

bool RunRecorder::OpenKey::operator<(const OpenKey& o) const {
    return std::tie(node, stage, cmd, tile) < std::tie(o.node, o.stage, o.cmd, o.tile);
}

std::uint32_t RunRecorder::intern(std::string_view text) {
    const auto it = m_ids.find(text);
    if (it != m_ids.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(m_text.size());
    m_text.emplace_back(text);
    m_ids.emplace(m_text.back(), id);
    m_group.push_back(id);
    // "sip0.cube0.pe3.pe_dma" -> "sip0.cube0.pe3"; a node outside a PE is its own group.
    const std::size_t dot = text.rfind('.');
    if (dot != std::string_view::npos && text.compare(dot + 1, 3, "pe_") == 0) {
        const std::uint32_t group = intern(text.substr(0, dot));
        m_group[id] = group;
    }
    return id;
}

std::uint32_t RunRecorder::intern_at(const void* address, std::string_view text) {
    const auto it = m_by_address.find(address);
    if (it != m_by_address.end() && m_text[it->second] == text) return it->second;
    const std::uint32_t id = intern(text);
    m_by_address[address] = id;
    return id;
}

std::uint32_t RunRecorder::series_id(std::uint32_t group, std::uint32_t name) {
    const auto [it, added] = m_series_index.try_emplace({group, name}, static_cast<std::uint32_t>(m_series.size()));
    if (added) {
        m_series.push_back({group, name, {}, false, {}, {}, 0});
        track_added();
    }
    return it->second;
}

std::uint32_t RunRecorder::lane_index(std::uint32_t group, std::uint32_t lane) {
    const std::uint64_t key = static_cast<std::uint64_t>(group) << 32 | lane;
    const auto [it, added] = m_lane_index.try_emplace(key, static_cast<std::uint32_t>(m_lanes.size()));
    if (added) {
        m_lanes.push_back({group, lane, 0, 0, {}});
        track_added();
    }
    return it->second;
}

RunRecorder::NodeRec& RunRecorder::node_rec_of(std::uint32_t node) {
    const auto [it, added] = m_node_of_text.try_emplace(node, static_cast<std::uint32_t>(m_nodes.size()));
    if (added) {
        const std::uint32_t group = m_group[node];
        const auto g = m_group_of_text.try_emplace(group, static_cast<std::uint32_t>(m_groups.size())).first;
        if (g->second == m_groups.size()) m_groups.emplace_back();
        m_nodes.push_back({node, group, g->second, {}, none, none});
    }
    return m_nodes[it->second];
}

// The emitter's record: by the sink's key when the event came through a
// sink, else by the node id's text.
RunRecorder::NodeRec& RunRecorder::node_rec(const TraceEvent& e) {
    if (e.node_key == 0) return node_rec_of(node_id(e.node));
    if (m_node_of_key.size() <= e.node_key) m_node_of_key.resize(e.node_key + 1, none);
    std::uint32_t& rec = m_node_of_key[e.node_key];
    if (rec == none) {
        const std::uint32_t node = node_id(e.node);
        node_rec_of(node);
        rec = m_node_of_text[node];
    }
    return m_nodes[rec];
}

std::uint32_t RunRecorder::stage_of(const TraceEvent& e) {
    if (e.stage_key == 0) return stage_id(e.stage);
    if (m_stage_of_key.size() <= e.stage_key) m_stage_of_key.resize(e.stage_key + 1, none);
    std::uint32_t& id = m_stage_of_key[e.stage_key];
    if (id == none) id = stage_id(e.stage);
    return id;
}

// A node has a few stages (PE_DMA's two channels, a PE's inboxes): a scan.
RunRecorder::NodeLane& RunRecorder::node_lane(NodeRec& node, std::uint32_t stage) {
    for (NodeLane& l : node.lanes)
        if (l.stage == stage) return l;
    node.lanes.push_back({&node, stage, none, none, none, {}});
    return node.lanes.back();
}

void RunRecorder::claim(TraceOrigin& origin) const {
    if (origin.listener == m_serial) return;
    origin.listener = m_serial;
    origin.node_record = origin.lane_record = nullptr;
}

RunRecorder::NodeRec& RunRecorder::node_of(const TraceEvent& e) {
    TraceOrigin* o = e.origin;
    if (o != nullptr && o->listener == m_serial && o->node_record != nullptr) return *static_cast<NodeRec*>(o->node_record);
    NodeRec& n = node_rec(e);
    if (o != nullptr) {
        claim(*o);
        o->node_record = &n;
    }
    return n;
}

// (An origin's lane is its stage's; an event of another stage is looked up.)
RunRecorder::NodeLane& RunRecorder::lane_of(const TraceEvent& e) {
    TraceOrigin* o = e.origin;
    if (o != nullptr && o->listener == m_serial && o->lane_record != nullptr && e.stage == o->stage)
        return *static_cast<NodeLane*>(o->lane_record);
    NodeLane& l = node_lane(node_of(e), stage_of(e));
    if (o != nullptr && e.stage == o->stage) o->lane_record = &l;  // (node_of() claimed it)
    return l;
}

std::uint32_t RunRecorder::source_id(std::uint32_t node, TraceLane lane, std::uint32_t stage) {
    if (lane != TraceLane::stage) stage = 0;
    const std::uint64_t key = std::uint64_t{node} << 34 | std::uint64_t{static_cast<std::uint8_t>(lane)} << 32 | stage;
    const auto [it, added] = m_source_index.try_emplace(key, static_cast<std::uint32_t>(m_sources.size()));
    if (added) m_sources.push_back({node, lane, stage});
    return it->second;
}

std::uint32_t RunRecorder::source_of(NodeRec& node, const TraceEvent& e) {
    const TraceLane lane = trace_lane(e);
    std::uint32_t& cached = lane == TraceLane::simple_commands ? node.simple : node.plain;
    if (cached == none) cached = source_id(node.node, lane, 0);
    return cached;
}

// An engine or inbox event's: its stage's lane (or "", without a stage).
std::uint32_t RunRecorder::source_of(const NodeRec& node, NodeLane& lane, const TraceEvent& e) {
    if (lane.source == none) lane.source = source_id(node.node, trace_lane(e), lane.stage);
    return lane.source;
}

std::vector<std::uint32_t> RunRecorder::source_ranks() const {
    std::vector<std::uint32_t> by_order(m_sources.size());
    for (std::uint32_t i = 0; i < by_order.size(); ++i) by_order[i] = i;
    std::sort(by_order.begin(), by_order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const Source& x = m_sources[a];
        const Source& y = m_sources[b];
        if (x.node != y.node) return m_text[x.node] < m_text[y.node];
        if (x.lane != y.lane) return x.lane < y.lane;  // "", stages, simple commands
        return m_text[x.stage] < m_text[y.stage];
    });
    std::vector<std::uint32_t> rank(m_sources.size());
    for (std::uint32_t r = 0; r < by_order.size(); ++r) rank[by_order[r]] = r;
    return rank;
}

RunRecorder::Window RunRecorder::window() const {
    Window w{m_to, m_cut};
    if (m_to <= m_options.from_ps) return w;
    std::vector<std::uint64_t> times;
    for (const Slice& s : m_slices)
        if (s.start_ps < m_to) times.push_back(s.start_ps);
    if (times.size() > m_options.max_slices) w.to_ps = std::min(w.to_ps, cap_time(times, m_options.max_slices));
    times.clear();
    for (const auto* samples : {&m_tile_samples, &m_counter_samples})
        for (const Sample& x : *samples)
            if (x.t_ps < m_to) times.push_back(x.t_ps);
    if (times.size() > m_sample_cap) w.to_ps = std::min(w.to_ps, cap_time(times, m_sample_cap));
    w.cut = w.cut || w.to_ps < m_to;
    return w;
}

std::map<RunRecorder::OpenKey, std::vector<RunRecorder::OpenStart>> RunRecorder::engines_open() const {
    std::map<OpenKey, std::vector<OpenStart>> open;
    for (const NodeRec& n : m_nodes)
        for (const NodeLane& l : n.lanes)
            for (const Open& o : l.open) open[{n.node, l.stage, o.cmd, o.tile}].push_back({o.t_ps, o.bytes});
    return open;
}

const RunRecorder::CommandName* RunRecorder::command(std::uint32_t group, std::int64_t cmd) const {
    const auto it = m_names.find({group, cmd});
    return it == m_names.end() ? nullptr : &it->second;
}

void RunRecorder::on_trace(const TraceEvent& e) {
    ++m_events;
    m_last_ps = std::max(m_last_ps, e.t_ps);
    switch (e.kind) {
    case TraceKind::engine_start: engine_start(e); break;
    case TraceKind::engine_complete: engine_complete(e); break;
    case TraceKind::request_start:
    case TraceKind::fanout_start: node_start(e); break;
    case TraceKind::request_complete:
    case TraceKind::fanout_complete: node_complete(e); break;
    case TraceKind::command_submitted: command_submitted(e); break;
    case TraceKind::tcm_in_use: {
        NodeRec& n = node_of(e);
        GroupRec& g = m_groups[n.group_rec];
        if (g.tcm == none) g.tcm = series_id(n.group, m_tcm_name);
        sample(m_counter_samples, g.tcm, source_of(n, e), e.t_ps, e.bytes);
        break;
    }
    case TraceKind::inbox_fill: {
        NodeLane& l = lane_of(e);
        NodeRec& n = *l.node;
        if (l.fill == none) {
            auto it = m_fill_name.find(l.stage);
            if (it == m_fill_name.end()) it = m_fill_name.emplace(l.stage, intern(m_text[l.stage] + " fill")).first;
            l.fill = series_id(n.node, it->second);
        }
        sample(m_counter_samples, l.fill, source_of(n, l, e), e.t_ps, e.bytes);
        break;
    }
    case TraceKind::sub_command_dispatched:
    case TraceKind::tile_ready: tile_count(e); break;
    default: break;  // read from the model's own records, or not drawn
    }
}

void RunRecorder::command_submitted(const TraceEvent& e) {
    const NodeRec& n = node_rec(e);
    m_names[{n.group, e.cmd}] = {e.detail ? *e.detail : std::string(), e.stage ? e.stage : ""};
    m_groups[n.group_rec].cmd_known = false;  // the command tile_count looked up may be this one
}

void RunRecorder::engine_start(const TraceEvent& e) {
    lane_of(e).open.push_back({e.cmd, e.tile, e.t_ps, e.bytes});
}

// Pairs with the earliest open start of the same node, stage, command and tile.
void RunRecorder::engine_complete(const TraceEvent& e) {
    NodeLane& l = lane_of(e);
    NodeRec& n = *l.node;
    const auto it = std::find_if(l.open.begin(), l.open.end(),
                                 [&](const Open& o) { return o.cmd == e.cmd && o.tile == e.tile; });
    if (it == l.open.end()) return;
    const Open s = *it;
    l.open.erase(it);
    slice(n, l, e.cmd, e.tile, s.bytes >= 0 ? s.bytes : e.bytes, s.t_ps, e.t_ps, source_of(n, l, e));
}

void RunRecorder::node_start(const TraceEvent& e) {
    NodeStart s;
    s.node = e.node ? *e.node : std::string();
    s.detail = e.detail ? *e.detail : std::string();
    s.stage = e.stage ? e.stage : "";
    s.cmd = e.cmd;
    s.request = is_request(e.kind);
    s.t_ps = e.t_ps;
    m_node_open[node_key(e)] = std::move(s);
}

void RunRecorder::node_complete(const TraceEvent& e) {
    const auto it = m_node_open.find(node_key(e));
    if (it == m_node_open.end()) return;
    const NodeStart& s = it->second;
    NodeDone d;
    d.node = e.node ? *e.node : std::string();
    d.id = e.detail && !e.detail->empty() ? *e.detail : s.detail;
    d.kind = e.stage ? e.stage : "";
    d.cmd = s.cmd;
    d.request = is_request(e.kind);
    d.start_ps = s.t_ps;
    d.end_ps = e.t_ps;
    d.source = source_of(node_rec(e), e);
    m_nodes_done.push_back(std::move(d));
    m_node_open.erase(it);
}

// A composite's tiles in flight: +1 when a tile is fed, -1 at its tile_ready.
void RunRecorder::tile_count(const TraceEvent& e) {
    NodeRec& n = node_of(e);
    GroupRec& g = m_groups[n.group_rec];
    if (!g.cmd_known || g.cmd != e.cmd) {
        const CommandName* name = command(n.group, e.cmd);
        g.cmd = e.cmd;
        g.composite = name != nullptr && name->kind == "composite";
        g.cmd_known = true;
    }
    if (!g.composite) return;
    g.in_flight += e.kind == TraceKind::tile_ready ? -1 : 1;
    if (g.tiles == none) g.tiles = series_id(n.group, m_tiles_name);
    sample(m_tile_samples, g.tiles, source_of(n, e), e.t_ps, g.in_flight);
}

bool RunRecorder::in_window(std::uint64_t start_ps, std::uint64_t end_ps) const {
    const std::uint64_t from = m_options.from_ps;
    return m_to > from && start_ps < m_to && (end_ps > from || start_ps >= from);
}

void RunRecorder::cut_at(std::uint64_t t_ps) {
    m_to = std::min(m_to, t_ps);
    m_cut = true;
}

void RunRecorder::widen() {
    m_bin_ps *= 2;
    ++m_bin_shift;
    for (Lane& l : m_lanes) halve(l.busy_bins);
    for (Series& s : m_series) halve(s.bins);
    m_bins_used = (m_bins_used + 1) / 2;
}

void RunRecorder::cover(std::uint64_t last_ps) {
    while (bin_of(last_ps, m_bin_shift) >= m_bin_limit) widen();
    m_bins_used = std::max<std::size_t>(m_bins_used, bin_of(last_ps, m_bin_shift) + 1);
}

void RunRecorder::track_added() {
    const std::size_t tracks = m_lanes.size() + m_series.size();
    while (m_bin_limit > min_bins && tracks * m_bin_limit > bin_budget) m_bin_limit /= 2;
    while (m_bins_used > m_bin_limit) widen();
}

void RunRecorder::slice(const NodeRec& node, NodeLane& lane, std::int64_t cmd, std::int64_t tile,
                        std::int64_t bytes, std::uint64_t start_ps, std::uint64_t end_ps, std::uint32_t source) {
    const std::uint32_t group = node.group, stage = lane.stage;
    cover(end_ps > start_ps ? end_ps - 1 : start_ps);
    if (lane.lane == none) lane.lane = lane_index(group, stage);
    Lane& l = m_lanes[lane.lane];
    ++l.slices;
    l.busy_ps += end_ps - start_ps;
    add_busy(l.busy_bins, m_bin_ps, m_bin_shift, start_ps, end_ps);
    if (!in_window(start_ps, end_ps)) return;
    m_slices.push_back({group, stage, cmd, tile, bytes, start_ps, end_ps, source});
    if (m_slices.size() >= m_slice_room) prune_slices();
}

// The cap: the window ends where the first interval that does not fit
// starts, the (max_slices + 1)-th earliest start of those kept (every
// interval that may be in the window is: what starts later than a time
// found so goes, and more than the cap start before it); every interval
// starting before it stays, whatever order they came in.
void RunRecorder::prune_slices() {
    m_times.clear();
    for (const Slice& s : m_slices) m_times.push_back(s.start_ps);
    cut_at(cap_time(m_times, m_options.max_slices));
    m_slices.erase(std::remove_if(m_slices.begin(), m_slices.end(), [&](const Slice& s) { return s.start_ps >= m_to; }),
                   m_slices.end());
}

void RunRecorder::prune_samples() {
    m_times.clear();
    for (const auto* samples : {&m_tile_samples, &m_counter_samples})
        for (const Sample& x : *samples) m_times.push_back(x.t_ps);
    cut_at(cap_time(m_times, m_sample_cap));
    const auto later = [&](const Sample& x) { return x.t_ps >= m_to; };
    for (auto* samples : {&m_tile_samples, &m_counter_samples})
        samples->erase(std::remove_if(samples->begin(), samples->end(), later), samples->end());
}

void RunRecorder::sample(std::vector<Sample>& detail, std::uint32_t series, std::uint32_t source,
                         std::uint64_t t_ps, std::int64_t value) {
    cover(t_ps);
    Series& s = m_series[series];
    if (s.bins.empty()) {  // (a sample leaves a bin behind)
        s.first = {series, source, t_ps, value};
        s.first_seq = m_samples_total;
    }
    ++m_samples_total;
    const std::size_t b = bin_of(t_ps, m_bin_shift);
    if (s.bins.size() <= b) s.bins.resize(b + 1);
    Bin& bin = s.bins[b];
    bin.max = bin.seen ? std::max(bin.max, value) : value;
    bin.last = value;
    bin.seen = true;
    if (t_ps < m_options.from_ps) {  // the value the window opens with
        s.before = true;
        s.last_before = {series, source, t_ps, value};
        return;
    }
    if (t_ps >= m_to || m_to <= m_options.from_ps) return;
    detail.push_back({series, source, t_ps, value});
    if (m_tile_samples.size() + m_counter_samples.size() >= m_sample_room) prune_samples();
}

}  // namespace obs
}  // namespace npuvp
