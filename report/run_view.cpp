#include "report/run_view.h"

#include <algorithm>
#include <deque>
#include <map>
#include <sstream>
#include <tuple>

#include "modules/common/json_text.h"
#include "modules/pe/engine_kinds.h"

namespace npuvp {
namespace obs {
namespace {

// The context lanes, shown after the engine lanes (engine_kinds order).
const char* const context_lanes[] = {"main", "sub", "dma", "other"};
constexpr int context_lane_count = sizeof context_lanes / sizeof context_lanes[0];

// "sip0.cube0.pe3.pe_dma" -> "sip0.cube0.pe3"; a node outside a PE is its own group.
std::string group_of(const std::string& node) {
    const std::size_t dot = node.rfind('.');
    if (dot != std::string::npos && node.compare(dot + 1, 3, "pe_") == 0) return node.substr(0, dot);
    return node;
}

const Pe* find_pe(const Platform& platform, const std::string& id) {
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            for (const Pe* pe : cube.pes)
                if (id == pe->name()) return pe;
    return nullptr;
}

// The PEs of a run: those that completed commands (in run.commands() order),
// then launched PEs that completed nothing.
std::vector<std::string> run_pes(const WorkloadRun& run) {
    std::vector<std::string> pes;
    for (const CommandResult& c : run.commands())
        if (std::find(pes.begin(), pes.end(), c.pe) == pes.end()) pes.push_back(c.pe);
    for (const EngineBusy& e : run.engines())
        if (std::find(pes.begin(), pes.end(), e.pe) == pes.end()) pes.push_back(e.pe);
    return pes;
}

const char* lane_of(ExecContext context) {
    return context == ExecContext::none ? "other" : to_string(context);
}

// Source: the PE schedulers' CompletionQueues.
void add_commands(RunView& view, const Platform& platform, const std::vector<std::string>& pes) {
    for (const std::string& id : pes) {
        const Pe* pe = find_pe(platform, id);
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
            view.commands.push_back(s);
        }
    }
}

// Source: the recorded events. One pass; each event kind has its handler,
// and the pairing state (open intervals, tiles in flight) lives here.
class EventPass {
public:
    EventPass(RunView& view, const std::vector<RecordedEvent>& events) : m_view(view) {
        for (const RecordedEvent& e : events)
            if (e.kind == TraceKind::command_submitted) m_names[{group_of(e.node), e.cmd}] = {e.detail, e.stage};
    }

    void run(const std::vector<RecordedEvent>& events) {
        for (const RecordedEvent& e : events) {
            switch (e.kind) {
            case TraceKind::engine_start: engine_start(e); break;
            case TraceKind::engine_complete: engine_complete(e); break;
            case TraceKind::request_start:
            case TraceKind::fanout_start: node_start(e); break;
            case TraceKind::request_complete:
            case TraceKind::fanout_complete: node_complete(e); break;
            case TraceKind::tcm_in_use: tcm_in_use(e); break;
            case TraceKind::inbox_fill: inbox_fill(e); break;
            case TraceKind::sub_command_dispatched:
            case TraceKind::tile_ready: tile_count(e); break;
            default: break;  // read from the model's own records, or not drawn
            }
        }
        for (const auto& [key, starts] : m_open) m_view.unpaired += starts.size();
    }

    // A failed run: every engine interval and node span still open ends at `stop`.
    void close_at(std::uint64_t stop) {
        for (const auto& [key, starts] : m_open)
            for (const RecordedEvent* e : starts)
                m_view.open_engines.push_back(engine_slice(*e, e->bytes, e->t_ps, stop));
        for (const auto& [key, e] : m_node_open) {
            NodeSpan span = node_span(*e, e->detail, e->stage, e->t_ps, stop);
            span.lane = is_request(*e) ? "requests" : "fanouts";
            m_view.open_nodes.push_back(span);
        }
    }

private:
    using Key = std::tuple<std::string, std::string, std::int64_t, std::int64_t>;
    using NodeKey = std::pair<std::string, std::int64_t>;

    static bool is_request(const RecordedEvent& e) {
        return e.kind == TraceKind::request_start || e.kind == TraceKind::request_complete;
    }
    // A request pairs by its sequence number; a fan-out by its request id (a
    // kernel launch's fanout_start carries the fan-out number in cmd, its
    // fanout_complete -1).
    static NodeKey node_key(const RecordedEvent& e) {
        return is_request(e) ? NodeKey{e.node + "|requests", e.cmd}
                             : NodeKey{e.node + "|fanouts|" + e.detail, -1};
    }

    // A command's name from its command_submitted, with "#tile" for a composite's tile.
    std::string label(const std::string& group, std::int64_t cmd, std::int64_t tile) const {
        const auto it = m_names.find({group, cmd});
        std::string name = it != m_names.end() && !it->second.first.empty()
                               ? it->second.first
                               : (cmd >= 0 ? "cmd " + std::to_string(cmd) : std::string("-"));
        if (it != m_names.end() && it->second.second == "composite" && tile >= 0)
            name += " #" + std::to_string(tile);
        return name;
    }
    bool is_composite(const std::string& group, std::int64_t cmd) const {
        const auto it = m_names.find({group, cmd});
        return it != m_names.end() && it->second.second == "composite";
    }

    // One engine interval, named from either end's event `e` (a start and
    // its complete share node, stage, cmd and tile).
    EngineSlice engine_slice(const RecordedEvent& e, std::int64_t bytes, std::uint64_t start_ps,
                             std::uint64_t end_ps) const {
        EngineSlice slice;
        slice.group = group_of(e.node);
        slice.lane = e.stage;
        slice.label = label(slice.group, e.cmd, e.tile);
        slice.cmd = e.cmd;
        slice.tile = e.tile;
        slice.bytes = bytes;
        slice.start_ps = start_ps;
        slice.end_ps = end_ps;
        return slice;
    }
    static NodeSpan node_span(const RecordedEvent& start, const std::string& id,
                              const std::string& kind, std::uint64_t start_ps, std::uint64_t end_ps) {
        NodeSpan span;
        span.group = start.node;
        span.label = id;
        if (!kind.empty()) span.label += " (" + kind + ")";
        span.id = id;
        span.kind = kind;
        span.cmd = start.cmd;
        span.start_ps = start_ps;
        span.end_ps = end_ps;
        return span;
    }

    void engine_start(const RecordedEvent& e) { m_open[Key{e.node, e.stage, e.cmd, e.tile}].push_back(&e); }

    // Pairs with the earliest open start of the same node, stage, cmd and tile.
    void engine_complete(const RecordedEvent& e) {
        auto it = m_open.find(Key{e.node, e.stage, e.cmd, e.tile});
        if (it == m_open.end() || it->second.empty()) return;
        const RecordedEvent& s = *it->second.front();
        it->second.pop_front();
        m_view.engines.push_back(engine_slice(e, s.bytes >= 0 ? s.bytes : e.bytes, s.t_ps, e.t_ps));
    }

    void node_start(const RecordedEvent& e) { m_node_open[node_key(e)] = &e; }

    void node_complete(const RecordedEvent& e) {
        const auto it = m_node_open.find(node_key(e));
        if (it == m_node_open.end()) return;
        const RecordedEvent& s = *it->second;
        NodeSpan span = node_span(s, e.detail.empty() ? s.detail : e.detail, e.stage, s.t_ps, e.t_ps);
        span.group = e.node;
        span.lane = is_request(e) ? "requests" : "fanouts";
        m_view.nodes.push_back(span);
        m_node_open.erase(it);
    }

    void tcm_in_use(const RecordedEvent& e) {
        m_view.counters.push_back({"reserved TCM bytes", {group_of(e.node), e.t_ps, e.bytes}});
    }

    void inbox_fill(const RecordedEvent& e) {
        m_view.counters.push_back({e.stage + " fill", {e.node, e.t_ps, e.bytes}});
    }

    // A composite's tiles in flight: +1 when a tile is fed, -1 at its tile_ready.
    void tile_count(const RecordedEvent& e) {
        const std::string group = group_of(e.node);
        if (!is_composite(group, e.cmd)) return;
        std::int64_t& n = m_in_flight[group];
        n += e.kind == TraceKind::tile_ready ? -1 : 1;
        m_view.tiles_in_flight.push_back({group, e.t_ps, n});
    }

    RunView& m_view;
    // Names and kinds of commands by (PE, seq), from command_submitted.
    std::map<std::pair<std::string, std::int64_t>, std::pair<std::string, std::string>> m_names;
    std::map<Key, std::deque<const RecordedEvent*>> m_open;
    std::map<NodeKey, const RecordedEvent*> m_node_open;
    std::map<std::string, std::int64_t> m_in_flight;
};

// Source: PE_CPU's kernel runs.
void add_kernel_starts(RunView& view, const Platform& platform, const std::vector<std::string>& pes) {
    for (const std::string& id : pes)
        if (const Pe* pe = find_pe(platform, id))
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
        // IoCpu::ready: the listed requests, or else the previous one.
        std::vector<std::uint32_t> after = q.request->after;
        if (!q.request->explicit_after && q.request->index > 0) after = {q.request->index - 1};
        for (std::uint32_t i : after)
            for (const auto& other : host.requests())
                if (other.request->index == i) r.after.push_back(other.request->id);
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
void add_unfinished(RunView& view, const Platform& platform, const std::vector<std::string>& pes) {
    for (const std::string& id : pes) {
        const Pe* pe = find_pe(platform, id);
        if (pe == nullptr) continue;
        const std::size_t first = view.unfinished.size();
        for (const InflightCommand* cmd : pe->scheduler().inflight())
            view.unfinished.push_back(unfinished_span(id, *cmd, view.stopped_ps));
        std::sort(view.unfinished.begin() + static_cast<std::ptrdiff_t>(first), view.unfinished.end(),
                  [](const CommandSpan& a, const CommandSpan& b) { return a.seq < b.seq; });
    }
}

void sort_view(RunView& view) {
    std::sort(view.engines.begin(), view.engines.end(), [](const EngineSlice& a, const EngineSlice& b) {
        const int ra = lane_rank(a.lane), rb = lane_rank(b.lane);
        return std::tie(a.group, ra, a.lane, a.start_ps, a.end_ps, a.cmd, a.tile) <
               std::tie(b.group, rb, b.lane, b.start_ps, b.end_ps, b.cmd, b.tile);
    });
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

std::string json_string(const std::string& text) {
    std::ostringstream out;
    write_json_string(out, text);
    return out.str();
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

RunView build_view(const WorkloadRun& run, const Platform& platform,
                   const std::vector<RecordedEvent>& events) {
    RunView view;
    view.makespan_ps = run.makespan_ps();
    const std::vector<std::string> pes = run_pes(run);
    add_commands(view, platform, pes);
    EventPass pass(view, events);
    pass.run(events);
    add_kernel_starts(view, platform, pes);
    add_fanouts(view, platform);
    if (const IoCpu* host = run.host()) add_requests(view, *host);

    // A failed run: mark it, and keep what was still open at the stop.
    view.failed = !run.finished();
    view.stopped_ps = view.makespan_ps;
    if (view.failed) {
        view.failure = run.diagnosis();
        std::uint64_t stop = std::max<std::uint64_t>(view.makespan_ps, sc_core::sc_time_stamp().value());
        if (!events.empty()) stop = std::max(stop, events.back().t_ps);
        view.stopped_ps = stop;
        pass.close_at(stop);
        add_unfinished(view, platform, pes);
    }
    sort_view(view);
    return view;
}

}  // namespace obs
}  // namespace npuvp
