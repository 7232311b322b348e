#include "report/timeline_writer.h"

#include <algorithm>
#include <deque>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace npuvp {
namespace obs {
namespace {

const char* const lane_order[] = {"DMA_READ", "DMA_WRITE", "FETCH", "STORE", "GEMM",
                                  "MATH",     "IPCQ_SEND", "IPCQ_RECV", "main", "sub",
                                  "dma",      "other"};
constexpr int lane_order_count = sizeof lane_order / sizeof lane_order[0];

// "sip0.cube0.pe3.pe_dma" -> "sip0.cube0.pe3"; a node outside a PE is its own group.
std::string group_of(const std::string& node) {
    const std::size_t dot = node.rfind('.');
    if (dot != std::string::npos && node.compare(dot + 1, 3, "pe_") == 0) return node.substr(0, dot);
    return node;
}

const PeNodes* find_pe(const Platform& platform, const std::string& id) {
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            for (const PeNodes& pe : cube.pes)
                if (pe.container != nullptr && id == pe.container->name()) return &pe;
    return nullptr;
}

}  // namespace

std::string CommandSpan::main_cause() const {
    std::size_t best = 0;
    for (std::size_t i = 1; i < wait_cause_count; ++i)
        if (waited_ps[i] > (best ? waited_ps[best] : 0)) best = i;
    return best ? to_string(static_cast<WaitCause>(best)) : "";
}

int lane_rank(const std::string& lane) {
    for (int i = 0; i < lane_order_count; ++i)
        if (lane == lane_order[i]) return i;
    return lane_order_count;
}

bool is_context_lane(const std::string& lane) {
    return lane == "main" || lane == "sub" || lane == "dma" || lane == "other";
}

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                static const char hex[] = "0123456789abcdef";
                out += "\\u00";
                out += hex[(c >> 4) & 0xf];
                out += hex[c & 0xf];
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
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

    // Commands, from the schedulers' CompletionQueues (PE order as run.commands()).
    std::vector<std::string> pes;
    for (const CommandResult& c : run.commands())
        if (std::find(pes.begin(), pes.end(), c.pe) == pes.end()) pes.push_back(c.pe);
    for (const EngineBusy& e : run.engines())  // launched PEs that completed nothing
        if (std::find(pes.begin(), pes.end(), e.pe) == pes.end()) pes.push_back(e.pe);
    for (const std::string& id : pes) {
        const PeNodes* pe = find_pe(platform, id);
        if (pe == nullptr || pe->scheduler == nullptr) continue;
        for (const auto& r : pe->scheduler->completions()) {
            CommandSpan s;
            s.pe = id;
            s.id = r.command->id;
            s.kind = to_string(r.command->kind);
            s.lane = r.command->context == ExecContext::none ? "other" : to_string(r.command->context);
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

    // Names and kinds of commands by (PE, seq), from command_submitted.
    std::map<std::pair<std::string, std::int64_t>, std::pair<std::string, std::string>> names;
    for (const RecordedEvent& e : events)
        if (e.ev == "command_submitted") names[{group_of(e.node), e.cmd}] = {e.detail, e.stage};
    auto label = [&](const std::string& group, std::int64_t cmd, std::int64_t tile) {
        const auto it = names.find({group, cmd});
        std::string name = it != names.end() && !it->second.first.empty()
                               ? it->second.first
                               : (cmd >= 0 ? "cmd " + std::to_string(cmd) : std::string("-"));
        if (it != names.end() && it->second.second == "composite" && tile >= 0)
            name += " #" + std::to_string(tile);
        return name;
    };
    // One engine interval, named from either end's event `e` (a start and
    // its complete share node, stage, cmd and tile).
    auto engine_slice = [&](const RecordedEvent& e, std::int64_t bytes, std::uint64_t start_ps,
                            std::uint64_t end_ps) {
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
    };

    // Engine intervals: pair start and complete FIFO per (node, stage, cmd, tile).
    using Key = std::tuple<std::string, std::string, std::int64_t, std::int64_t>;
    std::map<Key, std::deque<const RecordedEvent*>> open;
    std::map<std::pair<std::string, std::int64_t>, const RecordedEvent*> node_open;
    std::map<std::string, std::int64_t> in_flight;
    for (const RecordedEvent& e : events) {
        if (e.ev == "engine_start") {
            open[Key{e.node, e.stage, e.cmd, e.tile}].push_back(&e);
        } else if (e.ev == "engine_complete") {
            auto it = open.find(Key{e.node, e.stage, e.cmd, e.tile});
            if (it == open.end() || it->second.empty()) continue;
            const RecordedEvent& s = *it->second.front();
            it->second.pop_front();
            view.engines.push_back(engine_slice(e, s.bytes >= 0 ? s.bytes : e.bytes, s.t_ps, e.t_ps));
        } else if (e.ev == "request_start" || e.ev == "fanout_start") {
            // A request pairs by its sequence number; a fan-out by its
            // request id (a kernel launch's fanout_start carries the fan-out
            // number in cmd, its fanout_complete -1).
            node_open[{e.node + (e.ev == "request_start" ? "|requests" : "|fanouts|" + e.detail),
                       e.ev == "request_start" ? e.cmd : -1}] = &e;
        } else if (e.ev == "request_complete" || e.ev == "fanout_complete") {
            const bool req = e.ev == "request_complete";
            const auto it = node_open.find(
                {e.node + (req ? "|requests" : "|fanouts|" + e.detail), req ? e.cmd : -1});
            if (it == node_open.end()) continue;
            NodeSpan span;
            span.group = e.node;
            span.lane = req ? "requests" : "fanouts";
            span.label = e.detail.empty() ? it->second->detail : e.detail;
            if (!e.stage.empty()) span.label += " (" + e.stage + ")";
            span.cmd = it->second->cmd;
            span.id = e.detail.empty() ? it->second->detail : e.detail;
            span.kind = e.stage;
            span.start_ps = it->second->t_ps;
            span.end_ps = e.t_ps;
            view.nodes.push_back(span);
            node_open.erase(it);
        } else if (e.ev == "tcm_in_use") {
            view.counters.push_back({"reserved TCM bytes", {group_of(e.node), e.t_ps, e.bytes}});
        } else if (e.ev == "inbox_fill") {
            view.counters.push_back({e.stage + " fill", {e.node, e.t_ps, e.bytes}});
        } else if (e.ev == "sub_command_dispatched" || e.ev == "tile_ready") {
            const std::string group = group_of(e.node);
            const auto it = names.find({group, e.cmd});
            if (it == names.end() || it->second.second != "composite") continue;
            std::int64_t& n = in_flight[group];
            n += e.ev == "tile_ready" ? -1 : 1;
            view.tiles_in_flight.push_back({group, e.t_ps, n});
        }
    }
    for (const auto& [key, starts] : open) view.unpaired += starts.size();

    for (const std::string& id : pes)
        if (const PeNodes* pe = find_pe(platform, id); pe && pe->cpu)
            for (const auto& k : pe->cpu->runs()) view.kernel_starts.push_back({id, k.start.value()});
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            if (cube.m_cpu)
                for (const auto& f : cube.m_cpu->fanouts())
                    view.fanouts.push_back({cube.m_cpu->node_id_ref(), f.request->id,
                                            to_string(f.request->kind), f.start.value(), f.end.value()});
    if (const IoCpu* host = run.host()) {
        for (const auto& q : host->requests()) {
            RunView::Request r;
            r.node = host->node_id_ref();
            r.id = q.request->id;
            r.kind = to_string(q.request->kind);
            r.issued_ps = q.started ? q.issued.value() : 0;
            r.completed_ps = q.done ? q.completed.value() : 0;
            r.done = q.done;
            // IoCpu::ready: the listed requests, or else the previous one.
            std::vector<std::uint32_t> after = q.request->after;
            if (!q.request->explicit_after && q.request->index > 0) after = {q.request->index - 1};
            for (std::uint32_t i : after)
                for (const auto& other : host->requests())
                    if (other.request->index == i) r.after.push_back(other.request->id);
            view.requests.push_back(r);
        }
    }

    // A failed run: mark it, and keep what was still open at the stop.
    view.failed = !run.finished();
    view.stopped_ps = view.makespan_ps;
    if (view.failed) {
        view.failure = run.diagnosis();
        std::uint64_t stop = std::max<std::uint64_t>(view.makespan_ps, sc_core::sc_time_stamp().value());
        if (!events.empty()) stop = std::max(stop, events.back().t_ps);
        view.stopped_ps = stop;
        for (const auto& [key, starts] : open)
            for (const RecordedEvent* e : starts)
                view.open_engines.push_back(engine_slice(*e, e->bytes, e->t_ps, stop));
        for (const std::string& id : pes) {
            const PeNodes* pe = find_pe(platform, id);
            if (pe == nullptr || pe->scheduler == nullptr) continue;
            const std::size_t first = view.unfinished.size();
            for (const PipelineContext* ctx : pe->scheduler->inflight()) {
                CommandSpan s;
                s.pe = id;
                s.id = ctx->command->id;
                s.kind = to_string(ctx->command->kind);
                s.lane = ctx->context() == ExecContext::none ? "other" : to_string(ctx->context());
                s.seq = ctx->seq;
                s.tiles = ctx->total_tiles;
                s.tiles_done = ctx->completed_tiles;
                s.started = ctx->dispatched;
                s.submitted_ps = ctx->submitted.value();
                s.started_ps = ctx->dispatched ? ctx->started.value() : stop;
                s.finished_ps = stop;
                for (std::size_t i = 0; i < wait_cause_count; ++i) s.waited_ps[i] = ctx->waited[i].value();
                if (!ctx->dispatched && ctx->wait_cause != WaitCause::none)  // the wait still open
                    s.waited_ps[static_cast<std::size_t>(ctx->wait_cause)] += stop - ctx->wait_since.value();
                if (ctx->gated_cause != WaitCause::none) s.gated_cause = to_string(ctx->gated_cause);
                s.gated_by = ctx->gated_by ? static_cast<std::int64_t>(ctx->gated_by->seq) : -1;
                view.unfinished.push_back(s);
            }
            std::sort(view.unfinished.begin() + static_cast<std::ptrdiff_t>(first), view.unfinished.end(),
                      [](const CommandSpan& a, const CommandSpan& b) { return a.seq < b.seq; });
        }
        for (const auto& [key, e] : node_open) {
            NodeSpan span;
            span.group = e->node;
            span.lane = e->ev == "request_start" ? "requests" : "fanouts";
            span.label = e->detail;
            if (!e->stage.empty()) span.label += " (" + e->stage + ")";
            span.id = e->detail;
            span.kind = e->stage;
            span.cmd = e->cmd;
            span.start_ps = e->t_ps;
            span.end_ps = stop;
            view.open_nodes.push_back(span);
        }
    }
    std::sort(view.engines.begin(), view.engines.end(), [](const EngineSlice& a, const EngineSlice& b) {
        const int ra = lane_rank(a.lane), rb = lane_rank(b.lane);
        return std::tie(a.group, ra, a.lane, a.start_ps, a.end_ps, a.cmd, a.tile) <
               std::tie(b.group, rb, b.lane, b.start_ps, b.end_ps, b.cmd, b.tile);
    });
    std::stable_sort(view.nodes.begin(), view.nodes.end(), [](const NodeSpan& a, const NodeSpan& b) {
        return std::tie(a.group, a.lane, a.start_ps) < std::tie(b.group, b.lane, b.start_ps);
    });
    return view;
}

}  // namespace obs

namespace {

struct Lanes {
    std::map<std::string, int> pid;                                  // group -> pid
    std::map<std::pair<std::string, std::string>, int> tid;          // (group, lane) -> tid
};

int lane_tid(const std::string& lane, std::map<std::string, int>& extra) {
    const int rank = obs::lane_rank(lane);
    if (rank < 12) return rank + 1;
    const auto it = extra.find(lane);
    if (it != extra.end()) return it->second;
    const int id = 100 + static_cast<int>(extra.size());
    extra[lane] = id;
    return id;
}

}  // namespace

void write_timeline(std::ostream& out, const obs::RunView& view) {
    using obs::json_string;
    using obs::ps_as_us;
    // Groups and lanes in use, in sorted order.
    std::set<std::string> groups;
    std::set<std::pair<std::string, std::string>> lanes;
    for (const auto& s : view.engines) lanes.insert({s.group, s.lane});
    for (const auto& c : view.commands) lanes.insert({c.pe, c.lane});
    for (const auto& n : view.nodes) lanes.insert({n.group, n.lane});
    for (const auto& s : view.open_engines) lanes.insert({s.group, s.lane});
    for (const auto& c : view.unfinished) lanes.insert({c.pe, c.lane});
    for (const auto& n : view.open_nodes) lanes.insert({n.group, n.lane});
    for (const auto& c : view.tiles_in_flight) groups.insert(c.group);
    for (const auto& c : view.counters) groups.insert(c.count.group);
    for (const auto& l : lanes) groups.insert(l.first);
    Lanes ids;
    int next_pid = 1;
    for (const std::string& g : groups) ids.pid[g] = next_pid++;
    std::map<std::string, int> extra;
    std::set<std::string> extra_names;
    for (const auto& l : lanes)
        if (obs::lane_rank(l.second) >= 12) extra_names.insert(l.second);
    for (const std::string& name : extra_names) lane_tid(name, extra);
    for (const auto& l : lanes) ids.tid[l] = lane_tid(l.second, extra);

    bool first = true;
    auto begin = [&]() -> std::ostream& {
        out << (first ? "\n" : ",\n");
        first = false;
        return out;
    };
    out << "{\"traceEvents\":[";
    for (const auto& [g, pid] : ids.pid) {
        begin() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid
                << ",\"tid\":0,\"args\":{\"name\":" << json_string(g) << "}}";
        begin() << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << pid
                << ",\"tid\":0,\"args\":{\"sort_index\":" << pid << "}}";
    }
    for (const auto& [l, tid] : ids.tid) {
        const int pid = ids.pid.at(l.first);
        const std::string name = obs::is_context_lane(l.second) ? "ctx " + l.second : l.second;
        begin() << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << tid
                << ",\"args\":{\"name\":" << json_string(name) << "}}";
        begin() << "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" << pid
                << ",\"tid\":" << tid << ",\"args\":{\"sort_index\":" << tid << "}}";
    }
    // Engine slices.
    for (const auto& s : view.engines) {
        begin() << "{\"ph\":\"X\",\"cat\":\"engine\",\"name\":" << json_string(s.label)
                << ",\"pid\":" << ids.pid.at(s.group) << ",\"tid\":" << ids.tid.at({s.group, s.lane})
                << ",\"ts\":" << ps_as_us(s.start_ps) << ",\"dur\":" << ps_as_us(s.end_ps - s.start_ps)
                << ",\"args\":{\"cmd\":" << s.cmd << ",\"tile\":" << s.tile << ",\"stage\":"
                << json_string(s.lane) << ",\"bytes\":" << s.bytes << "}}";
    }
    // Command slices on their context lanes (started -> finished).
    for (const auto& c : view.commands) {
        begin() << "{\"ph\":\"X\",\"cat\":\"command\",\"name\":" << json_string(c.id)
                << ",\"pid\":" << ids.pid.at(c.pe) << ",\"tid\":" << ids.tid.at({c.pe, c.lane})
                << ",\"ts\":" << ps_as_us(c.started_ps)
                << ",\"dur\":" << ps_as_us(c.finished_ps - c.started_ps) << ",\"args\":{\"cmd\":"
                << c.seq << ",\"kind\":" << json_string(c.kind) << ",\"tiles\":" << c.tiles
                << ",\"submitted_ns\":" << obs::ps_as_ns(c.submitted_ps)
                << ",\"waited_ns\":" << obs::ps_as_ns(c.started_ps - c.submitted_ps)
                << ",\"cause\":" << json_string(c.main_cause()) << "}}";
    }
    for (const auto& n : view.nodes) {
        begin() << "{\"ph\":\"X\",\"cat\":" << json_string(n.lane) << ",\"name\":"
                << json_string(n.label) << ",\"pid\":" << ids.pid.at(n.group)
                << ",\"tid\":" << ids.tid.at({n.group, n.lane}) << ",\"ts\":" << ps_as_us(n.start_ps)
                << ",\"dur\":" << ps_as_us(n.end_ps - n.start_ps) << ",\"args\":{\"cmd\":" << n.cmd
                << "}}";
    }
    // A failed run: what was open at the stop, as a slice up to the stop
    // (cat "unfinished", name suffixed "(unfinished)"), and a global instant
    // marking the stop with the diagnosis.
    auto unfinished = [&](const std::string& name, const std::string& group, const std::string& lane,
                          std::uint64_t t0) -> std::ostream& {
        return begin() << "{\"ph\":\"X\",\"cat\":\"unfinished\",\"name\":"
                       << json_string(name + " (unfinished)") << ",\"pid\":" << ids.pid.at(group)
                       << ",\"tid\":" << ids.tid.at({group, lane}) << ",\"ts\":" << ps_as_us(t0)
                       << ",\"dur\":" << ps_as_us(view.stopped_ps - std::min(t0, view.stopped_ps))
                       << ",\"args\":{\"unfinished\":true";
    };
    for (const auto& s : view.open_engines)
        unfinished(s.label, s.group, s.lane, s.start_ps)
            << ",\"cmd\":" << s.cmd << ",\"tile\":" << s.tile << ",\"stage\":" << json_string(s.lane)
            << ",\"bytes\":" << s.bytes << "}}";
    for (const auto& c : view.unfinished) {
        std::uint64_t waited = 0;
        for (std::size_t i = 1; i < wait_cause_count; ++i) waited += c.waited_ps[i];
        unfinished(c.started ? c.id : c.id + " waiting", c.pe, c.lane,
                   c.started ? c.started_ps : c.submitted_ps)
            << ",\"cmd\":" << c.seq << ",\"kind\":" << json_string(c.kind) << ",\"tiles\":" << c.tiles
            << ",\"tiles_done\":" << c.tiles_done << ",\"submitted_ns\":" << obs::ps_as_ns(c.submitted_ps)
            << ",\"waited_ns\":" << obs::ps_as_ns(waited) << ",\"cause\":" << json_string(c.main_cause())
            << "}}";
    }
    for (const auto& n : view.open_nodes)
        unfinished(n.label, n.group, n.lane, n.start_ps) << ",\"cmd\":" << n.cmd << "}}";
    if (view.failed && !ids.pid.empty()) {
        begin() << "{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"run\",\"name\":\"run failed\",\"pid\":"
                << ids.pid.begin()->second << ",\"tid\":0,\"ts\":" << ps_as_us(view.stopped_ps)
                << ",\"args\":{\"diagnosis\":" << json_string(view.failure) << "}}";
    }
    // Flows: a token's consecutive stages, then dependency waits. An arrow
    // leaves from the last picosecond of its source slice (the "s" binds to
    // the slice that encloses it in both Perfetto and chrome://tracing, and
    // chrome://tracing draws the arrow from the "s" time): it reads "A ends,
    // then B starts".
    std::uint64_t flow_id = 1;
    auto last_ps = [](std::uint64_t start, std::uint64_t end) { return end > start ? end - 1 : start; };
    auto flow = [&](const char* cat, const std::string& name, const std::string& g0,
                    const std::string& l0, std::uint64_t t0, const std::string& g1,
                    const std::string& l1, std::uint64_t t1) {
        begin() << "{\"ph\":\"s\",\"cat\":\"" << cat << "\",\"name\":" << json_string(name)
                << ",\"id\":" << flow_id << ",\"pid\":" << ids.pid.at(g0)
                << ",\"tid\":" << ids.tid.at({g0, l0}) << ",\"ts\":" << ps_as_us(t0) << "}";
        begin() << "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"" << cat << "\",\"name\":"
                << json_string(name) << ",\"id\":" << flow_id << ",\"pid\":" << ids.pid.at(g1)
                << ",\"tid\":" << ids.tid.at({g1, l1}) << ",\"ts\":" << ps_as_us(t1) << "}";
        ++flow_id;
    };
    {
        std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::vector<const obs::EngineSlice*>>
            tokens;
        for (const auto& s : view.engines) tokens[{s.group, s.cmd, s.tile}].push_back(&s);
        for (auto& [key, path] : tokens) {
            std::stable_sort(path.begin(), path.end(), [](const auto* a, const auto* b) {
                return std::tie(a->start_ps, a->end_ps) < std::tie(b->start_ps, b->end_ps);
            });
            for (std::size_t i = 1; i < path.size(); ++i)
                flow("token", path[i]->label, path[i - 1]->group, path[i - 1]->lane,
                     last_ps(path[i - 1]->start_ps, path[i - 1]->end_ps), path[i]->group,
                     path[i]->lane, path[i]->start_ps);
        }
    }
    // (A command in flight at a failed run's stop counts too: its slice
    // begins at its start, or at its submission while it still waits.)
    auto wait_arrows = [&](const std::vector<obs::CommandSpan>& waiters) {
        for (const auto& c : waiters) {
            if (c.gated_by < 0) continue;
            const obs::CommandSpan* blocker = nullptr;
            for (const auto* list : {&view.commands, &view.unfinished})
                for (const auto& b : *list)
                    if (!blocker && b.pe == c.pe && static_cast<std::int64_t>(b.seq) == c.gated_by) blocker = &b;
            if (!blocker) continue;
            const auto& b = *blocker;
            flow("wait", c.gated_cause + ": " + c.id + " waits for " + b.id, b.pe, b.lane,
                 last_ps(b.started ? b.started_ps : b.submitted_ps, b.finished_ps), c.pe, c.lane,
                 c.started ? c.started_ps : c.submitted_ps);
        }
    };
    wait_arrows(view.commands);
    wait_arrows(view.unfinished);
    // Counters: tiles in flight per PE.
    for (const auto& c : view.tiles_in_flight) {
        begin() << "{\"ph\":\"C\",\"name\":\"tiles in flight\",\"pid\":" << ids.pid.at(c.group)
                << ",\"tid\":0,\"ts\":" << ps_as_us(c.t_ps) << ",\"args\":{\"tiles\":" << c.value
                << "}}";
    }
    for (const auto& c : view.counters) {
        begin() << "{\"ph\":\"C\",\"name\":" << json_string(c.name) << ",\"pid\":"
                << ids.pid.at(c.count.group) << ",\"tid\":0,\"ts\":" << ps_as_us(c.count.t_ps)
                << ",\"args\":{\"value\":" << c.count.value << "}}";
    }
    out << "\n],\"displayTimeUnit\":\"ns\"}\n";
}

}  // namespace npuvp
