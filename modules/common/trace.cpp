// sc_spawn needs the dynamic-process API, asked for before any SystemC header.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "modules/common/trace.h"

#include <algorithm>
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

void TraceSink::write(const TraceEvent& e) {
    if (m_listener != nullptr) m_listener->on_trace(e);
    if (m_log != nullptr) {
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
        m_log->push_back(std::move(r));
    }
    if (m_out == nullptr) return;
    // Outside a running simulation there is no round to sort: straight through.
    const bool hold = m_hold && sc_core::sc_is_running();
    if (!hold) flush();
    const std::uint64_t delta = sc_core::sc_delta_count();
    if (m_held_used != 0 && (delta != m_held_delta || e.t_ps != m_held_t)) flush();
    m_held_delta = delta;
    m_held_t = e.t_ps;
    m_line.str(std::string());
    std::ostream& out = m_line;
    out << "{\"t_ps\":" << e.t_ps << ",\"ev\":";
    write_json_string(out, to_string(e.kind));
    out << ",\"node\":";
    write_json_string(out, e.node ? e.node->c_str() : "");
    out << ",\"cmd\":" << e.cmd << ",\"tile\":" << e.tile;
    if (e.stage) {
        out << ",\"stage\":";
        write_json_string(out, e.stage);
    }
    if (e.cause) {
        out << ",\"cause\":";
        write_json_string(out, e.cause);
    }
    if (e.bytes >= 0) out << ",\"bytes\":" << e.bytes;
    if (e.peer) {
        out << ",\"peer\":";
        write_json_string(out, e.peer->c_str());
    }
    if (e.detail) {
        out << ",\"detail\":";
        write_json_string(out, e.detail->c_str());
    }
    out << "}\n";
    ++m_events;
    if (!hold) {
        *m_out << m_line.str();
        return;
    }
    if (m_held_used == 0) m_held_event.notify(sc_core::SC_ZERO_TIME);
    if (m_held_used == m_held.size()) m_held.emplace_back();
    HeldLine& line = m_held[m_held_used++];
    line.node.assign(e.node ? *e.node : std::string());
    line.text.assign(m_line.str());
}

void TraceSink::start_flusher() {
    if (m_flusher) return;
    m_flusher = true;
    sc_core::sc_spawn_options options;
    options.spawn_method();
    options.set_sensitivity(&m_held_event);
    options.dont_initialize();
    sc_core::sc_spawn([this] { flush(); }, sc_core::sc_gen_unique_name("npuvp_trace_flush"), &options);
}

void TraceSink::flush() {
    if (m_held_used == 0 || m_out == nullptr) {
        m_held_used = 0;
        return;
    }
    m_held_order.resize(m_held_used);
    for (std::uint32_t i = 0; i < m_held_used; ++i) m_held_order[i] = i;
    std::stable_sort(m_held_order.begin(), m_held_order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return m_held[a].node < m_held[b].node; });
    for (std::uint32_t i : m_held_order) *m_out << m_held[i].text;
    m_held_used = 0;
}

}  // namespace npuvp
