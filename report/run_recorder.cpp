#include "report/run_recorder.h"

#include <algorithm>
#include <tuple>

namespace npuvp {
namespace obs {
namespace {

// Busy time of [start, end) added to the bins it overlaps.
void add_busy(std::vector<std::uint64_t>& bins, std::uint64_t bin_ps, std::uint64_t start, std::uint64_t end) {
    if (end <= start) return;
    const std::size_t last = static_cast<std::size_t>((end - 1) / bin_ps);
    if (bins.size() <= last) bins.resize(last + 1, 0);
    for (std::size_t b = static_cast<std::size_t>(start / bin_ps); b <= last; ++b) {
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

}  // namespace

bool RunRecorder::OpenKey::operator<(const OpenKey& o) const {
    return std::tie(node, stage, cmd, tile) < std::tie(o.node, o.stage, o.cmd, o.tile);
}

RunRecorder::RunRecorder(const DetailOptions& options)
    : m_options(options),
      m_to(options.to_ps),
      m_sample_cap(options.max_slices > open_end / counter_samples_per_slice
                       ? open_end
                       : options.max_slices * counter_samples_per_slice) {
    m_tcm_name = intern("reserved TCM bytes");
    m_tiles_name = intern("tiles in flight");
    if (m_options.max_slices == 0) cut_at(m_options.from_ps);  // no tile detail at all
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
    if (added) m_series.push_back({group, name, {}, false, {}});
    return it->second;
}

RunRecorder::Lane& RunRecorder::lane(std::uint32_t group, std::uint32_t lane) {
    const std::uint64_t key = static_cast<std::uint64_t>(group) << 32 | lane;
    const auto [it, added] = m_lane_index.try_emplace(key, static_cast<std::uint32_t>(m_lanes.size()));
    if (added) m_lanes.push_back({group, lane, 0, 0, {}});
    return m_lanes[it->second];
}

const RunRecorder::CommandName* RunRecorder::command(std::uint32_t group, std::int64_t cmd) const {
    const auto it = m_names.find({group, cmd});
    return it == m_names.end() ? nullptr : &it->second;
}

void RunRecorder::on_trace(const TraceEvent& e) {
    ++m_events;
    m_last_ps = e.t_ps;
    switch (e.kind) {
    case TraceKind::engine_start: engine_start(e); break;
    case TraceKind::engine_complete: engine_complete(e); break;
    case TraceKind::request_start:
    case TraceKind::fanout_start: node_start(e); break;
    case TraceKind::request_complete:
    case TraceKind::fanout_complete: node_complete(e); break;
    case TraceKind::command_submitted: command_submitted(e); break;
    case TraceKind::tcm_in_use:
        sample(m_counter_samples, series_id(m_group[node_id(e.node)], m_tcm_name), e.t_ps, e.bytes);
        break;
    case TraceKind::inbox_fill: {
        const std::uint32_t inbox = stage_id(e.stage);
        auto it = m_fill_name.find(inbox);
        if (it == m_fill_name.end()) it = m_fill_name.emplace(inbox, intern(m_text[inbox] + " fill")).first;
        sample(m_counter_samples, series_id(node_id(e.node), it->second), e.t_ps, e.bytes);
        break;
    }
    case TraceKind::sub_command_dispatched:
    case TraceKind::tile_ready: tile_count(e); break;
    default: break;  // read from the model's own records, or not drawn
    }
}

void RunRecorder::command_submitted(const TraceEvent& e) {
    m_names[{m_group[node_id(e.node)], e.cmd}] = {e.detail ? *e.detail : std::string(), e.stage ? e.stage : ""};
}

void RunRecorder::engine_start(const TraceEvent& e) {
    m_open[{node_id(e.node), stage_id(e.stage), e.cmd, e.tile}].push_back({e.t_ps, e.bytes});
}

// Pairs with the earliest open start of the same node, stage, command and tile.
void RunRecorder::engine_complete(const TraceEvent& e) {
    const std::uint32_t node = node_id(e.node), stage = stage_id(e.stage);
    const auto it = m_open.find({node, stage, e.cmd, e.tile});
    if (it == m_open.end()) return;
    const OpenStart s = it->second.front();
    it->second.erase(it->second.begin());
    if (it->second.empty()) m_open.erase(it);
    slice(node, stage, e.cmd, e.tile, s.bytes >= 0 ? s.bytes : e.bytes, s.t_ps, e.t_ps);
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
    m_nodes_done.push_back(std::move(d));
    m_node_open.erase(it);
}

// A composite's tiles in flight: +1 when a tile is fed, -1 at its tile_ready.
void RunRecorder::tile_count(const TraceEvent& e) {
    const std::uint32_t group = m_group[node_id(e.node)];
    const CommandName* name = command(group, e.cmd);
    if (name == nullptr || name->kind != "composite") return;
    std::int64_t& n = m_in_flight[group];
    n += e.kind == TraceKind::tile_ready ? -1 : 1;
    sample(m_tile_samples, series_id(group, m_tiles_name), e.t_ps, n);
}

bool RunRecorder::in_window(std::uint64_t start_ps, std::uint64_t end_ps) const {
    const std::uint64_t from = m_options.from_ps;
    return m_to > from && start_ps < m_to && (end_ps > from || start_ps >= from);
}

void RunRecorder::cut_at(std::uint64_t t_ps) {
    m_to = std::min(m_to, t_ps);
    m_cut = true;
}

void RunRecorder::cover(std::uint64_t last_ps) {
    while (last_ps / m_bin_ps >= max_bins) {
        m_bin_ps *= 2;
        for (Lane& l : m_lanes) halve(l.busy_bins);
        for (Series& s : m_series) halve(s.bins);
        m_bins_used = (m_bins_used + 1) / 2;
    }
    m_bins_used = std::max<std::size_t>(m_bins_used, static_cast<std::size_t>(last_ps / m_bin_ps) + 1);
}

void RunRecorder::slice(std::uint32_t node, std::uint32_t stage, std::int64_t cmd, std::int64_t tile,
                        std::int64_t bytes, std::uint64_t start_ps, std::uint64_t end_ps) {
    const std::uint32_t group = m_group[node];
    cover(end_ps > start_ps ? end_ps - 1 : start_ps);
    Lane& l = lane(group, stage);
    ++l.slices;
    l.busy_ps += end_ps - start_ps;
    add_busy(l.busy_bins, m_bin_ps, start_ps, end_ps);
    if (!in_window(start_ps, end_ps)) return;
    // The cap: the window ends where the first interval that does not fit
    // starts. Intervals that started before that and end later are still
    // kept: they were in flight when the cap was reached, so few.
    if (!m_cut && m_slices_kept >= m_options.max_slices) {
        cut_at(start_ps);
        return;
    }
    m_slices.push_back({group, stage, cmd, tile, bytes, start_ps, end_ps});
    ++m_slices_kept;
}

void RunRecorder::sample(std::vector<Sample>& detail, std::uint32_t series, std::uint64_t t_ps,
                         std::int64_t value) {
    ++m_samples_total;
    cover(t_ps);
    Series& s = m_series[series];
    const std::size_t b = static_cast<std::size_t>(t_ps / m_bin_ps);
    if (s.bins.size() <= b) s.bins.resize(b + 1);
    Bin& bin = s.bins[b];
    bin.max = bin.seen ? std::max(bin.max, value) : value;
    bin.last = value;
    bin.seen = true;
    if (t_ps < m_options.from_ps) {  // the value the window opens with
        s.before = true;
        s.last_before = {series, t_ps, value};
        return;
    }
    if (t_ps >= m_to || m_to <= m_options.from_ps) return;
    if (m_samples_kept >= m_sample_cap) {
        cut_at(t_ps);
        return;
    }
    detail.push_back({series, t_ps, value});
    ++m_samples_kept;
}

}  // namespace obs
}  // namespace npuvp
