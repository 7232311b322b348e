#include "tlm_sockets/routed_node.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace npuvp {

void require_blocking_context(const char* who) {
    const sc_core::sc_process_handle process = sc_core::sc_get_current_process_handle();
    const bool thread = process.valid() && (process.proc_kind() == sc_core::SC_THREAD_PROC_ ||
                                            process.proc_kind() == sc_core::SC_CTHREAD_PROC_);
    if (thread) return;
    const std::string caller = process.valid() ? std::string("method process ") + process.name()
                                               : std::string("no process (elaboration or update phase)");
    SC_REPORT_ERROR("npuvp/tlm",
                    (std::string(who) + ": b_transport called from " + caller +
                     "; IEEE 1666-2011 §11.1.1.4: b_transport may wait, so only a thread may "
                     "call it (use nb_transport_fw)")
                        .c_str());
}

RoutedNode::RoutedNode(const sc_core::sc_module_name& name)
    : sc_core::sc_module(name), in("in"), out("out"), m_node_id(this->name()) {
    RequestRound::instance();  // SPEC T4: made during elaboration
    in.register_b_transport(this, &RoutedNode::b_transport);
    in.register_nb_transport_fw(this, &RoutedNode::nb_transport_fw);
    in.register_get_direct_mem_ptr(this, &RoutedNode::get_direct_mem_ptr);
    in.register_transport_dbg(this, &RoutedNode::transport_dbg);
    out.register_nb_transport_bw(this, &RoutedNode::nb_transport_bw);
}

int RoutedNode::connect_to(RoutedNode& next) {
    if (ProtocolChecker::enabled()) {
        // Test builds of a run: a base-protocol checker on every binding.
        const std::string binding = node_id() + ".out[" + std::to_string(m_out_bindings) + "] -> " +
                                    next.node_id() + ".in[" + std::to_string(next.m_in_bindings) + "]";
        m_checkers.push_back(
            std::make_unique<ProtocolChecker>(sc_core::sc_gen_unique_name("tlm_check"), binding));
        out.bind(m_checkers.back()->in);
        m_checkers.back()->out.bind(next.in);
    } else {
        out.bind(next.in);
    }
    ++next.m_in_bindings;
    return m_out_bindings++;
}

// One hop of a patterned transfer: the engine hop for its own busy time,
// any other for its bytes; the drain is the longest busy time of them all.
ps_t RoutedNode::reserve_shaped(TransferShape& shape, Hop& hop, ps_t t, std::uint64_t bytes) {
    if (&hop == shape.engine) {
        shape.drain_ps = std::max(shape.drain_ps, hop.has_bandwidth() ? shape.engine_ps : ps_t{0});
        return hop.reserve_for(t, shape.engine_bytes, shape.engine_ps);
    }
    if (hop.has_bandwidth())
        shape.drain_ps = std::max(shape.drain_ps, serialisation_ps(bytes, hop.bytes_per_second()));
    return hop.reserve(t, bytes);
}

ps_t RoutedNode::apply_steps_at(NpuExtension& ext, ps_t delay) {
    const auto& steps = ext.route->steps;
    const ps_t now = ext.base_ps;
    ps_t t = now + delay;
    if (ext.shape != nullptr) {
        const bool tail = ext.path_index == ext.route->path.size();
        while (ext.step_cursor < steps.size() && steps[ext.step_cursor].at == ext.path_index)
            t = reserve_shaped(*ext.shape, *steps[ext.step_cursor++].hop, t, tail ? ext.shape->tail_bytes : ext.bytes);
        return t - now;
    }
    while (ext.step_cursor < steps.size() && steps[ext.step_cursor].at == ext.path_index) {
        t = steps[ext.step_cursor].hop->reserve(t, ext.bytes);
        ++ext.step_cursor;
    }
    return t - now;
}

ps_t RoutedNode::tail(NpuExtension& ext, ps_t delay) {
    // Tail hops, then the drain of T1: done = t + n / min B.
    const Route& route = *ext.route;
    ext.path_index = static_cast<std::uint32_t>(route.path.size());
    delay = apply_steps(ext, delay);
    sc_assert(ext.step_cursor == route.steps.size());
    // A patterned transfer drains for its longest hop (docs/timing.md "DMA transfer patterns").
    return checked_add(delay, ext.shape != nullptr ? ext.shape->drain_ps : route.drain_ps(ext.bytes),
                       "a transfer's time (T1), in ps");
}

ps_t RoutedNode::transport_other(Transaction& txn, ps_t kernel, ps_t local) {
    auto& ext = txn.ext();
    auto& payload = txn.payload();
    const Route& route = *ext.route;
    sc_assert(!route.path.empty() && route.path.front().node == this);
    if (route.direct) {
        // T1 as apply_steps() would do it along the path, in one loop.
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
        return route.reserve_direct(kernel + local, ext.bytes);
    }
    // Through the sockets.
    ext.path_index = 0;
    ext.step_cursor = 0;
    ext.sender = m_request_rank;
    ext.base_ps = kernel;
    const ps_t first = apply_steps(ext, local);
    sc_core::sc_time delay = sc_core::sc_time::from_value(first);
    if (route.path.size() > 1) {
        const int port = route.path.front().out_port;
        tlm::tlm_phase phase = tlm::BEGIN_REQ;
        payload.acquire();  // released at the response (§14.5)
        const tlm::tlm_sync_enum answer = out[port]->nb_transport_fw(payload, phase, delay);
        if (answer != tlm::TLM_COMPLETED) {
            if (phase == tlm::BEGIN_RESP) {
                // Answered at once through the return path: end the response.
                tlm::tlm_phase end = tlm::END_RESP;
                sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
                out[port]->nb_transport_fw(payload, end, zero);
            } else {
                txn.m_pending = true;  // BEGIN_RESP comes on the backward path
                return 0;
            }
        }
        payload.release();
    } else {
        serve(payload, ext, delay);
    }
    if (payload.get_response_status() != tlm::TLM_OK_RESPONSE)
        throw std::runtime_error(node_id() + ": transport to " +
                                 route.path.back().node->node_id() + " failed: " +
                                 payload.get_response_string());
    return tail(ext, delay.value()) - local;
}

[[gnu::hot]] ps_t RoutedNode::transport_walk(Transaction& txn, ps_t kernel, ps_t local) {
    auto& ext = txn.ext();
    auto& payload = txn.payload();
    const Route& route = *ext.route;
    sc_assert(route.path.size() > 1 && route.path.front().node == this);
    ext.path_index = 0;
    ext.step_cursor = 0;
    ext.sender = m_request_rank;
    ext.base_ps = kernel;
    // apply_steps() at each path position, in one pass over the steps (in
    // T1 order, so by position): the time t = kernel + the delay annotation.
    const RouteStep* const first = route.steps.data();
    const RouteStep* const end = first + route.steps.size();
    const RouteStep* step = first;
    const std::uint64_t bytes = ext.bytes;
    ps_t t = kernel + local;
    for (; step != end && step->at == 0; ++step) t = step->hop->reserve(t, bytes);
    payload.acquire();  // released at the response (§14.5), as the socket path does
    const std::uint32_t last = static_cast<std::uint32_t>(route.path.size() - 1);
    // Each transit node as forward() runs it: transit() (where it does
    // anything: no sc_time made for the others), then its steps.
    for (std::uint32_t i = 1; i < last; ++i) {
        RoutedNode& node = *route.path[i].node;
        if (node.has_transit_cost()) {
            ext.path_index = i;
            ext.step_cursor = static_cast<std::uint32_t>(step - first);
            sc_core::sc_time annotated = sc_core::sc_time::from_value(t - kernel);
            node.transit(ext, annotated);
            t = kernel + annotated.value();
        }
        for (; step != end && step->at == i; ++step) t = step->hop->reserve(t, bytes);
    }
    // The target: its steps, then accept() (which serves it).
    ext.path_index = last;
    for (; step != end && step->at == last; ++step) t = step->hop->reserve(t, bytes);
    ext.step_cursor = static_cast<std::uint32_t>(step - first);
    sc_core::sc_time annotated = sc_core::sc_time::from_value(t - kernel);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    const tlm::tlm_sync_enum answer =
        route.path[last].node->accept(route.path[last].in_port, payload, &ext, phase, annotated, false);
    if (answer != tlm::TLM_COMPLETED)
        SC_REPORT_ERROR("npuvp/invariant",
                        (route.path[last].node->node_id() + " did not answer at once on a walked route").c_str());
    payload.release();
    if (payload.get_response_status() != tlm::TLM_OK_RESPONSE)
        throw std::runtime_error(node_id() + ": transport to " +
                                 route.path.back().node->node_id() + " failed: " +
                                 payload.get_response_string());
    // tail(): the tail hops, then the drain of T1.
    t = kernel + annotated.value();
    ext.path_index = last + 1;
    for (; step != end && step->at == last + 1; ++step) t = step->hop->reserve(t, bytes);
    ext.step_cursor = static_cast<std::uint32_t>(step - first);
    sc_assert(step == end);
    return checked_add(t - kernel, route.drain_ps(bytes), "a transfer's time (T1), in ps") - local;
}

tlm::tlm_sync_enum RoutedNode::forward(int id, tlm::tlm_generic_payload& payload,
                                       NpuExtension& ext, tlm::tlm_phase& phase,
                                       sc_core::sc_time& delay, bool blocking) {
    const Route& route = *ext.route;
    ++ext.path_index;
    sc_assert(ext.path_index < route.path.size() && route.path[ext.path_index].node == this);
    if (ext.path_index + 1 < route.path.size()) {
        // A transit node handles the payload when it arrives, then sends it on
        // its outgoing link.
        transit(ext, delay);
        apply_steps(ext, delay);
        const int port = route.path[ext.path_index].out_port;
        if (ProtocolChecker::enabled()) check_decode(payload, ext, port);
        if (!blocking) return out[port]->nb_transport_fw(payload, phase, delay);
        out[port]->b_transport(payload, delay);
        return tlm::TLM_COMPLETED;
    }
    apply_steps(ext, delay);
    return accept(id, payload, &ext, phase, delay, blocking);
}

// Checked runs (NPUVP_TLM_CHECK): the address of a memory transfer decodes,
// here, to the binding its route takes, so the route is the address map's
// path and a payload without the extension would go the same way.
void RoutedNode::check_decode(const tlm::tlm_generic_payload& payload, const NpuExtension& ext,
                              int port) {
    const bool memory = ext.kind == MsgKind::dma_read || ext.kind == MsgKind::dma_write;
    if (!memory || m_decoder == nullptr) return;
    const int decoded = m_decoder->decode(*this, payload.get_address());
    // An address no memory window holds: a route built by hand to a node
    // outside the address map (a test's probe), nothing to compare.
    if (decoded != port && decoded != AddressDecoder::nowhere)
        SC_REPORT_ERROR("npuvp/tlm_check",
                        (node_id() + ": address 0x" + [&] {
                            char hex[17];
                            std::snprintf(hex, sizeof hex, "%llx",
                                          static_cast<unsigned long long>(payload.get_address()));
                            return std::string(hex);
                        }() + " decodes to out[" + std::to_string(decoded) +
                         "] but its route takes out[" + std::to_string(port) + "]")
                            .c_str());
}

tlm::tlm_sync_enum RoutedNode::forward_plain(int id, tlm::tlm_generic_payload& payload,
                                             tlm::tlm_phase& phase, sc_core::sc_time& delay,
                                             bool blocking) {
    const int port = m_decoder ? m_decoder->decode(*this, payload.get_address())
                               : AddressDecoder::nowhere;
    if (port == AddressDecoder::here) return accept(id, payload, nullptr, phase, delay, blocking);
    if (port < 0) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        phase = tlm::BEGIN_RESP;
        return tlm::TLM_COMPLETED;
    }
    if (blocking) {
        out[port]->b_transport(payload, delay);
        return tlm::TLM_COMPLETED;
    }
    const tlm::tlm_sync_enum answer = out[port]->nb_transport_fw(payload, phase, delay);
    if (answer != tlm::TLM_COMPLETED && phase != tlm::BEGIN_RESP)
        m_plain_open.emplace_back(&payload, id);
    return answer;
}

void RoutedNode::b_transport(int id, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    require_blocking_context(name());
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    auto* ext = payload.get_extension<NpuExtension>();
    if (ext != nullptr && ext->route != nullptr) {
        ext->base_ps = sc_core::sc_time_stamp().value();
        forward(id, payload, *ext, phase, delay, true);
    } else {
        forward_plain(id, payload, phase, delay, true);
    }
}

tlm::tlm_sync_enum RoutedNode::nb_transport_fw(int id, tlm::tlm_generic_payload& payload,
                                               tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    // END_RESP: an initiator ends a response this node sent; every node
    // completes the responses it forwards at once, so nothing is left open.
    if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
    if (phase != tlm::BEGIN_REQ) {
        SC_REPORT_ERROR("npuvp/tlm", (node_id() + ": nb_transport_fw with a phase other than "
                                                  "BEGIN_REQ or END_RESP")
                                         .c_str());
        return tlm::TLM_COMPLETED;
    }
    auto* ext = payload.get_extension<NpuExtension>();
    const tlm::tlm_sync_enum answer =
        ext != nullptr && ext->route != nullptr ? forward(id, payload, *ext, phase, delay, false)
                                                : forward_plain(id, payload, phase, delay, false);
    if (answer == tlm::TLM_COMPLETED) phase = tlm::BEGIN_RESP;
    return answer;
}

tlm::tlm_sync_enum RoutedNode::nb_transport_bw(int, tlm::tlm_generic_payload& payload,
                                               tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    // END_REQ: the target has taken the request; its response follows.
    if (phase != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
    auto* ext = payload.get_extension<NpuExtension>();
    if (ext != nullptr && ext->route != nullptr) {
        const Route& route = *ext->route;
        --ext->path_index;
        sc_assert(ext->path_index < route.path.size() && route.path[ext->path_index].node == this);
        if (ext->path_index == 0) {
            Transaction& txn = *ext->txn;
            txn.m_pending = false;
            payload.release();
            ext->base_ps = sc_core::sc_time_stamp().value();
            if (payload.get_response_status() == tlm::TLM_OK_RESPONSE)
                delay = sc_core::sc_time::from_value(tail(*ext, delay.value()));
            txn.m_done = sc_core::sc_time_stamp() + delay;
            if (!txn.m_done_event) txn.m_done_event = std::make_unique<sc_core::sc_event>();
            txn.m_done_event->notify(delay);
            transport_done(txn);
            return tlm::TLM_COMPLETED;
        }
        tlm::tlm_phase begin = tlm::BEGIN_RESP;
        in[route.path[ext->path_index].in_port]->nb_transport_bw(payload, begin, delay);
        return tlm::TLM_COMPLETED;
    }
    auto it = std::find_if(m_plain_open.begin(), m_plain_open.end(),
                           [&](const auto& open) { return open.first == &payload; });
    if (it == m_plain_open.end()) {
        SC_REPORT_ERROR("npuvp/tlm", (node_id() + ": BEGIN_RESP for a payload this node never "
                                                  "forwarded")
                                         .c_str());
        return tlm::TLM_COMPLETED;
    }
    const int from = it->second;
    m_plain_open.erase(it);
    tlm::tlm_phase begin = tlm::BEGIN_RESP;
    const tlm::tlm_sync_enum answer = in[from]->nb_transport_bw(payload, begin, delay);
    (void)answer;  // an END_RESP that follows is absorbed by nb_transport_fw
    return tlm::TLM_COMPLETED;
}

tlm::tlm_sync_enum RoutedNode::accept(int, tlm::tlm_generic_payload& payload, NpuExtension* ext,
                                      tlm::tlm_phase& phase, sc_core::sc_time& delay, bool) {
    if (ext != nullptr)
        serve(payload, *ext, delay);
    else
        serve_plain(payload, delay);
    phase = tlm::BEGIN_RESP;
    return tlm::TLM_COMPLETED;
}

void RoutedNode::respond(int in_id, tlm::tlm_generic_payload& payload,
                         const sc_core::sc_time& delay) {
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time annotated = delay;
    in[in_id]->nb_transport_bw(payload, phase, annotated);
}

void RoutedNode::serve(tlm::tlm_generic_payload& payload, NpuExtension&, sc_core::sc_time&) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void RoutedNode::serve_plain(tlm::tlm_generic_payload& payload, sc_core::sc_time&) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

bool RoutedNode::get_direct_mem_ptr(int, tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    dmi.allow_none();  // no DMI: every access must be timed
    return false;
}

unsigned int RoutedNode::transport_dbg(int, tlm::tlm_generic_payload&) { return 0; }

sc_core::sc_time RoutedNode::transport_in_turn(Transaction& txn, RequestKey key) {
    key.node = m_request_rank;
    sc_core::sc_time delay;
    RequestRound::instance().in_turn(key, [&] { delay = transport(txn); });
    if (!txn.pending()) return delay;
    // A target that answers later: wait for its BEGIN_RESP (this is a thread).
    sc_core::wait(txn.done_event());
    return sc_core::SC_ZERO_TIME;
}

}  // namespace npuvp
