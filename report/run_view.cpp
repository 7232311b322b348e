#include "report/run_view.h"

#include <charconv>

#include <algorithm>
#include <iomanip>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "modules/common/json_text.h"
#include "modules/pe/engine_kinds.h"

namespace npuvp {
namespace obs {
namespace {

// The context lanes, shown after the engine lanes (engine_kinds order).
const char* const context_lanes[] = {"main", "sub", "dma", "other"};
constexpr int context_lane_count = sizeof context_lanes / sizeof context_lanes[0];

// The platform's PEs by id, made once per view (a lookup per PE of the run:
// a scan of every PE per lookup was quadratic on 16,384 PEs).
using PeIndex = std::unordered_map<std::string_view, const Pe*>;  // lookup only
PeIndex index_pes(const Platform& platform) {
    PeIndex index;
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            for (const Pe* pe : cube.pes) index.emplace(pe->name(), pe);
    return index;
}

const Pe* find_pe(const PeIndex& index, const std::string& id) {
    const auto it = index.find(id);
    return it == index.end() ? nullptr : it->second;
}

// The PEs of a run: those that completed commands (in run.commands() order),
// then launched PEs that completed nothing.
std::vector<std::string> run_pes(const WorkloadRun& run) {
    std::vector<std::string> pes;
    std::unordered_set<std::string> seen;  // lookup only
    for (const CommandResult& c : run.commands())
        if (seen.insert(c.pe).second) pes.push_back(c.pe);
    for (const EngineBusy& e : run.engines())
        if (seen.insert(e.pe).second) pes.push_back(e.pe);
    return pes;
}

const char* lane_of(ExecContext context) {
    return context == ExecContext::none ? "other" : to_string(context);
}

// Source: the PE schedulers' CompletionQueues.
void add_commands(RunView& view, const PeIndex& index, const std::vector<std::string>& pes) {
    for (const std::string& id : pes) {
        const Pe* pe = find_pe(index, id);
        if (pe == nullptr) continue;
        for (const auto& r : pe->scheduler().completions()) {
            CommandSpan s;
            s.pe = id;
            s.id = r.command->id;
            s.kind = to_string(r.command->kind);
            s.lane = lane_of(r.command->context);
            s.seq = r.seq;
            s.tiles = r.tiles;
            s.submitted_ps = r.submitted.value();
            s.started_ps = r.started.value();
            s.finished_ps = r.finished.value();
            for (std::size_t i = 0; i < wait_cause_count; ++i) s.waited_ps[i] = r.waited[i].value();
            if (r.gated_cause != WaitCause::none) s.gated_cause = to_string(r.gated_cause);
            s.gated_by = r.gated_by;
            // "sip0.cube0.pe3" sending to PE 5 of its cube: "sip0.cube0.pe5".
            if (r.command->kind == CommandKind::ipcq_send)
                s.peer = id.substr(0, id.rfind('.') + 1) + "pe" + std::to_string(r.command->peer);
            view.commands.push_back(s);
        }
    }
}

// Source: the recorder (what the events of the run left).
class RecorderPass {
public:
    RecorderPass(RunView& view, const RunRecorder& recorder)
        : m_view(view), m_rec(recorder), m_ranks(recorder.source_ranks()) {}

    void run() {
        const DetailOptions& options = m_rec.options();
        RunView::Detail& d = m_view.detail;
        d.from_ps = options.from_ps;
        const RunRecorder::Window window = m_rec.window();
        d.to_ps = window.to_ps;
        d.cut = window.cut;
        d.max_slices = options.max_slices;
        d.samples = m_rec.samples_total();
        d.bin_ps = m_rec.bin_ps();
        d.bins = m_rec.bins_used();
        // The intervals in the window (sort_view() puts them in order: no
        // two are alike in every field it sorts by).
        m_view.engines.reserve(m_rec.slices().size());
        for (const RunRecorder::Slice& s : m_rec.slices()) {
            if (!in_window(s.start_ps, s.end_ps)) continue;
            m_view.engines.push_back(engine_slice(s.group, s.lane, s.cmd, s.tile, s.bytes, s.start_ps, s.end_ps));
        }
        d.slices_kept = m_view.engines.size();
        for (const RunRecorder::Lane& l : m_rec.lanes()) {
            m_view.lane_totals.push_back({text(l.group), text(l.lane), l.slices, l.busy_ps});
            d.occupancy.push_back({text(l.group), text(l.lane), l.busy_bins});
            d.slices += l.slices;
        }
        samples();
        const auto& done = m_rec.nodes_done();
        for (const std::size_t i : trace_order(done.size(), [&](std::size_t i) {
                 return std::optional<Place>({done[i].end_ps, done[i].source});
             })) {
            const RunRecorder::NodeDone& n = done[i];
            NodeSpan span = node_span(n.node, n.id, n.kind, n.cmd, n.start_ps, n.end_ps);
            span.lane = n.request ? "requests" : "fanouts";
            m_view.nodes.push_back(span);
        }
        for (const auto& [key, starts] : m_rec.engines_open()) m_view.unpaired += starts.size();
        d.complete = d.slices_kept == d.slices && d.samples_kept == d.samples;
        std::sort(m_view.lane_totals.begin(), m_view.lane_totals.end(),
                  [](const RunView::LaneTotal& a, const RunView::LaneTotal& b) {
                      return std::make_tuple(a.group, lane_rank(a.lane), a.lane) <
                             std::make_tuple(b.group, lane_rank(b.lane), b.lane);
                  });
        std::sort(d.occupancy.begin(), d.occupancy.end(),
                  [](const RunView::Detail::Occupancy& a, const RunView::Detail::Occupancy& b) {
                      return std::make_tuple(a.group, lane_rank(a.lane), a.lane) <
                             std::make_tuple(b.group, lane_rank(b.lane), b.lane);
                  });
    }

    // A failed run: every engine interval and node span still open ends at
    // `stop`, in order of node, stage, command and tile (then as they began).
    void close_at(std::uint64_t stop) {
        using Open = std::pair<const RunRecorder::OpenKey*, const RunRecorder::OpenStart*>;
        const auto engines_open = m_rec.engines_open();
        std::vector<Open> open;
        for (const auto& [key, starts] : engines_open)
            for (const auto& s : starts) open.push_back({&key, &s});
        std::stable_sort(open.begin(), open.end(), [&](const Open& a, const Open& b) {
            return std::tie(text(a.first->node), text(a.first->stage), a.first->cmd, a.first->tile) <
                   std::tie(text(b.first->node), text(b.first->stage), b.first->cmd, b.first->tile);
        });
        for (const auto& [key, s] : open)
            m_view.open_engines.push_back(engine_slice(m_rec.group_of_node(key->node), key->stage, key->cmd,
                                                       key->tile, s->bytes, s->t_ps, stop));
        for (const auto& [key, n] : m_rec.nodes_open()) {
            NodeSpan span = node_span(n.node, n.detail, n.stage, n.cmd, n.t_ps, stop);
            span.lane = n.request ? "requests" : "fanouts";
            m_view.open_nodes.push_back(span);
        }
    }

private:
    const std::string& text(std::uint32_t id) const { return m_rec.text(id); }

    // Where an event is in the trace (T4): its time, then its source's rank
    // (node, lane); then the order it came in, which is the trace's for one
    // source (RunRecorder).
    struct Place {
        std::uint64_t t_ps;
        std::uint32_t source;
    };
    // The indices 0 .. n - 1 that `place(i)` gives a place, in trace order.
    template <typename PlaceOf>
    std::vector<std::size_t> trace_order(std::size_t n, PlaceOf place) const {
        struct Key {
            std::uint64_t t_ps;
            std::uint32_t rank;
            std::size_t index;
        };
        std::vector<Key> keys;
        keys.reserve(n);
        for (std::size_t i = 0; i < n; ++i)
            if (const std::optional<Place> p = place(i)) keys.push_back({p->t_ps, m_ranks[p->source], i});
        const auto before = [](const Key& a, const Key& b) {
            return std::tie(a.t_ps, a.rank, a.index) < std::tie(b.t_ps, b.rank, b.index);
        };
        // Nearly in order as they came (a calendar's events come in time
        // order; only an instant's sources, or calendars that ran one after
        // the other, are out of it): by insertion, unless that moves many.
        const std::size_t budget = 8 * keys.size() + 64;
        std::size_t moves = 0;
        for (std::size_t i = 1; i < keys.size() && moves <= budget; ++i) {
            const Key k = keys[i];
            std::size_t j = i;
            for (; j > 0 && before(k, keys[j - 1]) && ++moves <= budget; --j) keys[j] = keys[j - 1];
            keys[j] = k;
        }
        if (moves > budget) std::sort(keys.begin(), keys.end(), before);
        std::vector<std::size_t> order(keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].index;
        return order;
    }

    bool in_window(std::uint64_t start_ps, std::uint64_t end_ps) const {
        const RunView::Detail& d = m_view.detail;
        return d.to_ps > d.from_ps && start_ps < d.to_ps && (end_ps > d.from_ps || start_ps >= d.from_ps);
    }
    bool in_window(std::uint64_t t_ps) const {
        return t_ps >= m_view.detail.from_ps && t_ps < m_view.detail.to_ps;
    }

    // Counter samples in the window; each track's bins; and, for a window
    // that starts later than 0, each track's last sample before it first.
    void samples() {
        RunView::Detail& d = m_view.detail;
        std::vector<const RunRecorder::Series*> before;
        for (const RunRecorder::Series& s : m_rec.series()) {
            d.counters.push_back({text(s.group), text(s.name), s.bins});
            if (s.before && d.to_ps > d.from_ps) before.push_back(&s);
        }
        std::sort(d.counters.begin(), d.counters.end(),
                  [](const RunView::Detail::Range& a, const RunView::Detail::Range& b) {
                      return std::tie(a.group, a.name) < std::tie(b.group, b.name);
                  });
        // By time; tracks at one time as they began in the trace.
        std::sort(before.begin(), before.end(), [&](const auto* a, const auto* b) {
            return std::make_tuple(a->last_before.t_ps, a->first.t_ps, m_ranks[a->first.source], a->first_seq) <
                   std::make_tuple(b->last_before.t_ps, b->first.t_ps, m_ranks[b->first.source], b->first_seq);
        });
        const auto& series = m_rec.series();
        auto tile = [&](const RunRecorder::Sample& x) {
            m_view.tiles_in_flight.push_back({text(series[x.series].group), x.t_ps, x.value});
        };
        auto counter = [&](const RunRecorder::Sample& x) {
            const RunRecorder::Series& s = series[x.series];
            m_view.counters.push_back({text(s.name), {text(s.group), x.t_ps, x.value}});
        };
        m_view.tiles_in_flight.reserve(before.size() + m_rec.tile_samples().size());
        m_view.counters.reserve(before.size() + m_rec.counter_samples().size());
        for (const auto* s : before) {
            if (text(s->name) == "tiles in flight") tile(s->last_before);
            else counter(s->last_before);
        }
        std::uint64_t kept = 0;
        for (const auto* samples : {&m_rec.tile_samples(), &m_rec.counter_samples()}) {
            const std::vector<std::size_t> order = trace_order(samples->size(), [&](std::size_t i) {
                const RunRecorder::Sample& x = (*samples)[i];
                return in_window(x.t_ps) ? std::optional<Place>({x.t_ps, x.source}) : std::nullopt;
            });
            for (const std::size_t i : order) {
                if (samples == &m_rec.tile_samples()) tile((*samples)[i]);
                else counter((*samples)[i]);
            }
            kept += order.size();
        }
        d.samples_kept = kept;
    }

    // A command's name from its command_submitted, with "#tile" for a composite's tile.
    std::string label(std::uint32_t group, std::int64_t cmd, std::int64_t tile) const {
        const RunRecorder::CommandName* c = m_rec.command(group, cmd);
        std::string name = c != nullptr && !c->id.empty()
                               ? c->id
                               : (cmd >= 0 ? "cmd " + std::to_string(cmd) : std::string("-"));
        if (c != nullptr && c->kind == "composite" && tile >= 0) name += " #" + std::to_string(tile);
        return name;
    }

    EngineSlice engine_slice(std::uint32_t group, std::uint32_t lane, std::int64_t cmd, std::int64_t tile,
                             std::int64_t bytes, std::uint64_t start_ps, std::uint64_t end_ps) const {
        EngineSlice slice;
        slice.group = text(group);
        slice.lane = text(lane);
        slice.label = label(group, cmd, tile);
        slice.cmd = cmd;
        slice.tile = tile;
        slice.bytes = bytes;
        slice.start_ps = start_ps;
        slice.end_ps = end_ps;
        return slice;
    }

    static NodeSpan node_span(const std::string& node, const std::string& id, const std::string& kind,
                              std::int64_t cmd, std::uint64_t start_ps, std::uint64_t end_ps) {
        NodeSpan span;
        span.group = node;
        span.label = id;
        if (!kind.empty()) span.label += " (" + kind + ")";
        span.id = id;
        span.kind = kind;
        span.cmd = cmd;
        span.start_ps = start_ps;
        span.end_ps = end_ps;
        return span;
    }

    RunView& m_view;
    const RunRecorder& m_rec;
    std::vector<std::uint32_t> m_ranks;  // RunRecorder::source_ranks()
};

// Source: PE_CPU's kernel runs.
void add_kernel_starts(RunView& view, const PeIndex& index, const std::vector<std::string>& pes) {
    for (const std::string& id : pes)
        if (const Pe* pe = find_pe(index, id))
            for (const auto& k : pe->cpu().runs()) view.kernel_starts.push_back({id, k.start.value()});
}

// Source: M_CPU's fan-outs.
void add_fanouts(RunView& view, const Platform& platform) {
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            if (cube.m_cpu)
                for (const auto& f : cube.m_cpu->fanouts())
                    view.fanouts.push_back({cube.m_cpu->node_id_ref(), f.request->id,
                                            to_string(f.request->kind), f.start.value(), f.end.value()});
}

// Source: IO_CPU's requests, in workload order.
void add_requests(RunView& view, const IoCpu& host) {
    for (const auto& q : host.requests()) {
        RunView::Request r;
        r.node = host.node_id_ref();
        r.id = q.request->id;
        r.kind = to_string(q.request->kind);
        r.issued_ps = q.started ? q.issued.value() : 0;
        r.completed_ps = q.done ? q.completed.value() : 0;
        r.done = q.done;
        r.device = q.request->device_after;
        // What it waits for (IoCpu::host): the listed requests, or else the
        // previous one; a request's index is its place in requests().
        std::vector<std::uint32_t> after = q.request->after;
        if (!q.request->explicit_after && q.request->index > 0) after = {q.request->index - 1};
        for (std::uint32_t i : after) r.after.push_back(host.requests().at(i).request->id);
        view.requests.push_back(r);
    }
}

// A command in flight at PE_SCHEDULER when the run stopped at `stop`.
CommandSpan unfinished_span(const std::string& pe, const InflightCommand& cmd, std::uint64_t stop) {
    CommandSpan s;
    s.pe = pe;
    s.id = cmd.command->id;
    s.kind = to_string(cmd.command->kind);
    s.lane = lane_of(cmd.context());
    s.seq = cmd.seq;
    s.tiles = cmd.total_tiles;
    s.tiles_done = cmd.completed_tiles;
    s.started = cmd.dispatched;
    s.submitted_ps = cmd.submitted.value();
    s.started_ps = cmd.dispatched ? cmd.started.value() : stop;
    s.finished_ps = stop;
    for (std::size_t i = 0; i < wait_cause_count; ++i) s.waited_ps[i] = cmd.waited[i].value();
    if (!cmd.dispatched && cmd.wait_cause != WaitCause::none)  // the wait still open
        s.waited_ps[static_cast<std::size_t>(cmd.wait_cause)] += stop - cmd.wait_since.value();
    if (cmd.gated_cause != WaitCause::none) s.gated_cause = to_string(cmd.gated_cause);
    s.gated_by = cmd.gated_by ? static_cast<std::int64_t>(cmd.gated_by->seq) : -1;
    return s;
}

// Source: the PE schedulers' commands in flight, per PE in seq order.
void add_unfinished(RunView& view, const PeIndex& index, const std::vector<std::string>& pes) {
    for (const std::string& id : pes) {
        const Pe* pe = find_pe(index, id);
        if (pe == nullptr) continue;
        const std::size_t first = view.unfinished.size();
        for (const InflightCommand* cmd : pe->scheduler().inflight())
            view.unfinished.push_back(unfinished_span(id, *cmd, view.stopped_ps));
        std::sort(view.unfinished.begin() + static_cast<std::ptrdiff_t>(first), view.unfinished.end(),
                  [](const CommandSpan& a, const CommandSpan& b) { return a.seq < b.seq; });
    }
}

// Engine slices by group, lane (in lane_rank order), start, end, command,
// tile, bytes: slices alike in all of these are alike (their labels come
// from them), so the order does not depend on the order they came in. The
// group's and the lane's order are worked out once per distinct name, and
// the slices sorted through a vector of small keys: comparing the strings
// in every comparison was most of the time a --timeline took on a run of
// 100,000 slices.
void sort_engines(std::vector<EngineSlice>& engines) {
    // Each distinct name's place: groups by name, lanes by (lane_rank, name).
    std::map<std::string_view, std::uint32_t> groups, lane_order;
    for (const EngineSlice& s : engines) groups.emplace(s.group, 0), lane_order.emplace(s.lane, 0);
    std::uint32_t next = 0;
    for (auto& [name, rank] : groups) rank = next++;
    std::set<std::pair<int, std::string_view>> ranked;
    for (const auto& [lane, unused] : lane_order) ranked.emplace(lane_rank(std::string(lane)), lane);
    next = 0;
    for (const auto& [rank, lane] : ranked) lane_order[lane] = next++;
    struct Key {
        std::uint32_t group, lane;
        std::uint64_t start, end;
        std::int64_t cmd, tile, bytes;
        std::uint32_t index;
    };
    std::vector<Key> keys;
    keys.reserve(engines.size());
    for (std::size_t i = 0; i < engines.size(); ++i) {
        const EngineSlice& s = engines[i];
        keys.push_back({groups.at(s.group), lane_order.at(s.lane), s.start_ps, s.end_ps, s.cmd, s.tile, s.bytes,
                        static_cast<std::uint32_t>(i)});
    }
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
        return std::tie(a.group, a.lane, a.start, a.end, a.cmd, a.tile, a.bytes, a.index) <
               std::tie(b.group, b.lane, b.start, b.end, b.cmd, b.tile, b.bytes, b.index);
    });
    std::vector<EngineSlice> sorted;
    sorted.reserve(engines.size());
    for (const Key& k : keys) sorted.push_back(std::move(engines[k.index]));
    engines = std::move(sorted);
}

void sort_view(RunView& view) {
    sort_engines(view.engines);
    std::stable_sort(view.nodes.begin(), view.nodes.end(), [](const NodeSpan& a, const NodeSpan& b) {
        return std::tie(a.group, a.lane, a.start_ps) < std::tie(b.group, b.lane, b.start_ps);
    });
}

}  // namespace

std::string CommandSpan::main_cause() const {
    std::size_t best = 0;
    for (std::size_t i = 1; i < wait_cause_count; ++i)
        if (waited_ps[i] > (best ? waited_ps[best] : 0)) best = i;
    return best ? to_string(static_cast<WaitCause>(best)) : "";
}

int known_lane_count() { return static_cast<int>(engine_kind_count) + context_lane_count; }

int lane_rank(const std::string& lane) {
    if (const EngineKind* kind = find_engine_kind(lane)) return static_cast<int>(kind - engine_kinds);
    for (int i = 0; i < context_lane_count; ++i)
        if (lane == context_lanes[i]) return static_cast<int>(engine_kind_count) + i;
    return known_lane_count();
}

bool is_context_lane(const std::string& lane) {
    for (const char* context : context_lanes)
        if (lane == context) return true;
    return false;
}

std::string detail_note(const RunView::DetailWindow& d) {
    if (d.complete) return "";
    std::ostringstream o;
    o << "tile detail: " << d.slices_kept << " of " << d.slices << " engine intervals and " << d.samples_kept
      << " of " << d.samples << " counter samples";
    if (d.max_slices == 0)
        o << ", none asked for (--detail-slices 0)";
    else if (d.to_ps <= d.from_ps)
        o << ", no window left (the cap of " << d.max_slices << " intervals was reached before it began)";
    else
        o << ", those in " << ps_as_ns(d.from_ps) << " .. "
          << (d.to_ps == open_end ? std::string("the end") : ps_as_ns(d.to_ps)) << " ns"
          << (d.cut ? " (the window ends where the cap of " + std::to_string(d.max_slices) +
                          " intervals was reached)"
                    : std::string(" (--detail-window)"));
    o << "; the whole run is aggregated per engine (occupancy) and per counter (maximum) in bins of "
      << ps_as_ns(d.bin_ps)
      << " ns. For tile detail elsewhere: --detail-window FROM_NS:TO_NS; for more of it: --detail-slices N";
    return o.str();
}

std::string fraction_text(std::uint64_t busy_ps, std::uint64_t bin_ps) {
    const std::uint64_t q = (busy_ps * 1000 + bin_ps / 2) / bin_ps;
    std::string frac = std::to_string(q % 1000);
    return std::to_string(q / 1000) + "." + std::string(3 - frac.size(), '0') + frac;
}

std::string fixed(double v, int digits) {
    // std::to_chars rounds as printf's %.*f does (exactly), with no stream.
    char buf[400];  // DBL_MAX in fixed notation is 309 digits, then the fraction
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, std::min(digits, 60));
    return std::string(buf, r.ptr);
}

std::string json_string(const std::string& text) {
    std::string out;
    out.reserve(text.size() + 2);
    append_json_string(out, text);
    return out;
}

std::string xml_text(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default:
            if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out += c;
        }
    }
    return out;
}

RunView build_view(const WorkloadRun& run, const Platform& platform, const RunRecorder& recorder) {
    RunView view;
    view.makespan_ps = run.makespan_ps();
    const std::vector<std::string> pes = run_pes(run);
    const PeIndex index = index_pes(platform);
    add_commands(view, index, pes);
    RecorderPass pass(view, recorder);
    pass.run();
    add_kernel_starts(view, index, pes);
    add_fanouts(view, platform);
    if (const IoCpu* host = run.host()) add_requests(view, *host);

    // A failed run: mark it, and keep what was still open at the stop.
    view.failed = !run.finished();
    view.stopped_ps = view.makespan_ps;
    if (view.failed) {
        view.failure = run.diagnosis();
        std::uint64_t stop = std::max<std::uint64_t>(view.makespan_ps, sc_core::sc_time_stamp().value());
        if (recorder.any_event()) stop = std::max(stop, recorder.last_event_ps());
        view.stopped_ps = stop;
        pass.close_at(stop);
        add_unfinished(view, index, pes);
    }
    sort_view(view);
    return view;
}

RunView build_view(const WorkloadRun& run, const Platform& platform,
                   const std::vector<RecordedEvent>& events, const DetailOptions& options) {
    RunRecorder recorder(options);
    for (const RecordedEvent& r : events) {
        TraceEvent e;
        e.t_ps = r.t_ps;
        e.kind = r.kind;
        e.node = &r.node;
        e.cmd = r.cmd;
        e.tile = r.tile;
        e.stage = r.stage.empty() ? nullptr : r.stage.c_str();
        e.cause = r.cause.empty() ? nullptr : r.cause.c_str();
        e.bytes = r.bytes;
        e.peer = r.peer.empty() ? nullptr : &r.peer;
        e.detail = r.detail.empty() ? nullptr : &r.detail;
        recorder.on_trace(e);
    }
    return build_view(run, platform, recorder);
}

}  // namespace obs
}  // namespace npuvp
