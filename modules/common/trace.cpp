// sc_spawn needs the dynamic-process API, asked for before any SystemC header.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "modules/common/trace.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <sstream>
#include <utility>

#include <systemc>

#include "modules/common/json_text.h"

namespace npuvp {

const char* to_string(TraceKind kind) {
    switch (kind) {
    case TraceKind::engine_start: return "engine_start";
    case TraceKind::engine_complete: return "engine_complete";
    case TraceKind::inbox_fill: return "inbox_fill";
    case TraceKind::command_submitted: return "command_submitted";
    case TraceKind::wait_begin: return "wait_begin";
    case TraceKind::wait_end: return "wait_end";
    case TraceKind::bank_violation: return "bank_violation";
    case TraceKind::sub_command_dispatched: return "sub_command_dispatched";
    case TraceKind::tile_ready: return "tile_ready";
    case TraceKind::tcm_in_use: return "tcm_in_use";
    case TraceKind::command_complete: return "command_complete";
    case TraceKind::kernel_start: return "kernel_start";
    case TraceKind::kernel_complete: return "kernel_complete";
    case TraceKind::fanout_start: return "fanout_start";
    case TraceKind::fanout_complete: return "fanout_complete";
    case TraceKind::late_response: return "late_response";
    case TraceKind::request_start: return "request_start";
    case TraceKind::request_complete: return "request_complete";
    case TraceKind::control_delivered: return "control_delivered";
    }
    return "";
}

void TraceSink::Held::set(const TraceEvent& e) {
    event = e;
    if (e.peer) peer.assign(*e.peer);
    if (e.detail) detail.assign(*e.detail);
}

// The event, its peer and detail pointing at the held copies (a slot may
// have moved since it was set, when the list grew).
TraceEvent TraceSink::Held::get() const {
    TraceEvent e = event;
    if (e.peer) e.peer = &peer;
    if (e.detail) e.detail = &detail;
    return e;
}

namespace {

void record(std::vector<RecordedEvent>& log, const TraceEvent& e) {
    RecordedEvent r;
    r.t_ps = e.t_ps;
    r.kind = e.kind;
    if (e.node) r.node = *e.node;
    r.cmd = e.cmd;
    r.tile = e.tile;
    if (e.stage) r.stage = e.stage;
    if (e.cause) r.cause = e.cause;
    r.bytes = e.bytes;
    if (e.peer) r.peer = *e.peer;
    if (e.detail) r.detail = *e.detail;
    log.push_back(std::move(r));
}

const std::string& node_of(const TraceEvent& e) {
    static const std::string none;
    return e.node ? *e.node : none;
}

// The lane of a node an event is on: an engine channel (its stage), an
// inbox (its label), or, on PE_SCHEDULER, its simple commands' (their
// dispatch, their waits: the dispatch pass, a process of its own beside
// the feed loop, whose events may fall on one instant with the feed's;
// a simple command's wait names its execution context, a composite's
// "none"); "" for the node's other events.
const char* lane_of(const TraceEvent& e) {
    switch (e.kind) {
    case TraceKind::engine_start:
    case TraceKind::engine_complete:
    case TraceKind::inbox_fill:
        return e.stage ? e.stage : "";
    case TraceKind::sub_command_dispatched:
        return e.detail ? "simple commands" : "";  // (a composite's tile names no command id)
    case TraceKind::wait_begin:
    case TraceKind::wait_end:
    case TraceKind::bank_violation:
        return e.stage && std::strcmp(e.stage, "none") != 0 ? "simple commands" : "";
    default:
        return "";
    }
}

// Appends `v` in decimal.
void append_int(std::string& out, std::int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

void append_json_string(std::string& out, const char* s) {
    // The common case (node ids, stage and kind names) needs no escaping.
    const char* p = s;
    while (*p != 0 && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
    if (*p == 0) {
        out += '"';
        out.append(s, p);
        out += '"';
        return;
    }
    std::ostringstream escaped;
    write_json_string(escaped, s);
    out += escaped.str();
}

}  // namespace

void TraceSink::write(const TraceEvent& e) {
    if (m_clock != nullptr) {
        // A calendar running ahead: kept until release_ahead(), as emitted
        // (a calendar's strings live as long as the run).
        if (m_kept_used == m_kept.size()) m_kept.emplace_back();
        Kept& k = m_kept[m_kept_used++];
        k.event = e;
        k.instant = m_clock->trace_instant();
        k.seq = m_kept_seq++;
        return;
    }
    if (m_log != nullptr) record(*m_log, e);
    if (m_out == nullptr && m_listener == nullptr) return;
    // Outside a running simulation there is no round to sort: straight through.
    const bool hold = m_hold && sc_core::sc_is_running();
    if (!hold) {
        flush();
        deliver(e);
        return;
    }
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    if (m_held_used != 0 && now != m_held_t) flush();
    m_held_t = now;
    if (m_held_used == 0) {
        if (m_flush_event != nullptr) {
            m_flush_event->notify(sc_core::SC_ZERO_TIME);
        } else {
            start_flusher();
            m_held_event.notify(sc_core::SC_ZERO_TIME);
        }
    }
    if (m_held_used == m_held.size()) m_held.emplace_back();
    m_held[m_held_used].set(e);
    ++m_held_used;
}

// To the stream and the listener, in the order they are called.
void TraceSink::deliver(const TraceEvent& e) {
    if (m_listener != nullptr) m_listener->on_trace(e);
    if (m_out != nullptr) write_line(e);
}

// One JSON line (the format of the header comment), formatted by hand into
// a reused buffer: no stream state, no allocation once it has grown.
void TraceSink::write_line(const TraceEvent& e) {
    std::string& out = m_line;
    out.clear();
    out += "{\"t_ps\":";
    append_int(out, static_cast<std::int64_t>(e.t_ps));
    out += ",\"ev\":";
    append_json_string(out, to_string(e.kind));
    out += ",\"node\":";
    append_json_string(out, e.node ? e.node->c_str() : "");
    out += ",\"cmd\":";
    append_int(out, e.cmd);
    out += ",\"tile\":";
    append_int(out, e.tile);
    if (e.stage) {
        out += ",\"stage\":";
        append_json_string(out, e.stage);
    }
    if (e.cause) {
        out += ",\"cause\":";
        append_json_string(out, e.cause);
    }
    if (e.bytes >= 0) {
        out += ",\"bytes\":";
        append_int(out, e.bytes);
    }
    if (e.peer) {
        out += ",\"peer\":";
        append_json_string(out, e.peer->c_str());
    }
    if (e.detail) {
        out += ",\"detail\":";
        append_json_string(out, e.detail->c_str());
    }
    out += "}\n";
    m_out->write(out.data(), static_cast<std::streamsize>(out.size()));
    ++m_events;
}

void TraceSink::start_flusher() {
    if (m_flusher) return;
    m_flusher = true;
    sc_core::sc_spawn_options options;
    options.spawn_method();
    options.set_sensitivity(&m_held_event);
    options.dont_initialize();
    sc_core::sc_spawn([this] { flush_when_over(); }, sc_core::sc_gen_unique_name("npuvp_trace_flush"),
                      &options);
}

// The sink's own flusher: once nothing else is pending at this instant.
void TraceSink::flush_when_over() {
    if (sc_core::sc_pending_activity_at_current_time()) {
        sc_core::next_trigger(sc_core::SC_ZERO_TIME);
        return;
    }
    flush();
}

void TraceSink::flush() {
    if (m_held_used != 0) put_out(m_held_t, true);
}

void TraceSink::release_ahead(std::uint64_t before) {
    flush();
    if (m_kept_used != 0) put_out(before, false);
}

// Delivers, in order: every kept event of a calendar's run ahead
// (run_ahead_of) of an instant before `before`, by instant, node and lane;
// then, `with_held`, the held events of the instant `before` (m_held_t)
// with the kept ones of that instant, by node and lane (a lane's kept
// events first: they were emitted before the kernel reached the instant).
// Each lane's events keep their emitted order.
void TraceSink::put_out(std::uint64_t before, bool with_held) {
    const auto goes_out = [&](const Kept& k) { return k.instant < before || (with_held && k.instant == before); };
    m_out_list.clear();
    bool kept_out = false;
    for (std::size_t i = 0; i < m_kept_used; ++i) {
        const Kept& k = m_kept[i];
        if (goes_out(k)) {
            m_out_list.push_back({k.instant, k.seq, k.event});
            kept_out = true;
        }
    }
    if (with_held)
        for (std::size_t i = 0; i < m_held_used; ++i)
            m_out_list.push_back({m_held_t, (std::uint64_t{1} << 63) | i, m_held[i].get()});
    if (m_out_list.empty()) return;
    // By instant, then kept before held, then emission: integers only.
    std::sort(m_out_list.begin(), m_out_list.end(), [](const Out& x, const Out& y) {
        return x.instant != y.instant ? x.instant < y.instant : x.order < y.order;
    });
    // Then each instant's events by node and lane, stably (an instant holds
    // a handful: an insertion sort, no allocation).
    const auto before_in_instant = [](const Out& x, const Out& y) {
        const int c = node_of(x.event).compare(node_of(y.event));
        if (c != 0) return c < 0;
        // A node with several lanes (PE_DMA's read and write channels, a
        // PE's inboxes): each lane's events keep their order, one lane's
        // after another's by its name.
        return std::strcmp(lane_of(x.event), lane_of(y.event)) < 0;
    };
    for (std::size_t first = 0; first < m_out_list.size();) {
        std::size_t last = first + 1;
        while (last < m_out_list.size() && m_out_list[last].instant == m_out_list[first].instant) ++last;
        if (last - first > 64) {
            std::stable_sort(m_out_list.begin() + static_cast<std::ptrdiff_t>(first),
                             m_out_list.begin() + static_cast<std::ptrdiff_t>(last), before_in_instant);
        } else {
            for (std::size_t i = first + 1; i < last; ++i) {
                const Out x = m_out_list[i];
                std::size_t j = i;
                for (; j > first && before_in_instant(x, m_out_list[j - 1]); --j) m_out_list[j] = m_out_list[j - 1];
                m_out_list[j] = x;
            }
        }
        first = last;
    }
    for (const Out& o : m_out_list) {
        if (!(o.order >> 63) && m_log != nullptr) record(*m_log, o.event);  // (held ones were, when emitted)
        deliver(o.event);
    }
    if (with_held) m_held_used = 0;
    if (kept_out) {
        // The kept events not put out stay, in emission order.
        std::size_t to = 0;
        for (std::size_t from = 0; from < m_kept_used; ++from)
            if (!goes_out(m_kept[from])) m_kept[to++] = m_kept[from];
        m_kept_used = to;
    }
}

}  // namespace npuvp
