#include "tlm_sockets/routed_node.h"

#include <stdexcept>

namespace npuvp {

RoutedNode::RoutedNode(const sc_core::sc_module_name& name)
    : sc_core::sc_module(name), in("in"), out("out"), m_node_id(this->name()) {
    RequestRound::instance();  // SPEC T4: made during elaboration
    in.register_b_transport(this, &RoutedNode::b_transport);
    in.register_nb_transport_fw(this, &RoutedNode::nb_transport_fw);
    in.register_get_direct_mem_ptr(this, &RoutedNode::get_direct_mem_ptr);
    in.register_transport_dbg(this, &RoutedNode::transport_dbg);
}

int RoutedNode::connect_to(RoutedNode& next) {
    out.bind(next.in);
    return m_out_bindings++;
}

void RoutedNode::apply_steps(NpuExtension& ext, sc_core::sc_time& delay) {
    const auto& steps = ext.route->steps;
    if (ext.step_cursor >= steps.size() || steps[ext.step_cursor].at != ext.path_index) return;
    const ps_t now = sc_core::sc_time_stamp().value();
    ps_t t = now + delay.value();
    while (ext.step_cursor < steps.size() && steps[ext.step_cursor].at == ext.path_index) {
        t = steps[ext.step_cursor].hop->reserve(t, ext.bytes);
        ++ext.step_cursor;
    }
    delay = sc_core::sc_time::from_value(t - now);
}

sc_core::sc_time RoutedNode::transport(Transaction& txn) {
    auto& ext = txn.ext();
    auto& payload = txn.payload();
    const Route& route = *ext.route;
    sc_assert(!route.path.empty() && route.path.front().node == this);
    if (route.direct) {
        // T1 as apply_steps() would do it along the path, in one loop.
        const ps_t now = sc_core::sc_time_stamp().value();
        ps_t t = now;
        for (const RouteStep& step : route.steps) t = step.hop->reserve(t, ext.bytes);
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
        return sc_core::sc_time::from_value(t - now + serialisation_ps(ext.bytes, route.min_bytes_per_s));
    }
    ext.path_index = 0;
    ext.step_cursor = 0;
    ext.sender = m_request_rank;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    apply_steps(ext, delay);
    if (route.path.size() > 1)
        out[route.path.front().out_port]->b_transport(payload, delay);
    else
        serve(payload, ext, delay);
    if (payload.get_response_status() != tlm::TLM_OK_RESPONSE)
        throw std::runtime_error(node_id() + ": transport to " +
                                 route.path.back().node->node_id() + " failed: " +
                                 payload.get_response_string());
    // Tail hops, then the drain of T1: done = t + n / min B.
    ext.path_index = static_cast<std::uint32_t>(route.path.size());
    apply_steps(ext, delay);
    sc_assert(ext.step_cursor == route.steps.size());
    return delay + sc_core::sc_time::from_value(serialisation_ps(ext.bytes, route.min_bytes_per_s));
}

void RoutedNode::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    auto* ext = payload.get_extension<NpuExtension>();
    if (ext == nullptr || ext->route == nullptr) {
        // A payload from a model that knows nothing of npuvp routes.
        payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    const Route& route = *ext->route;
    ++ext->path_index;
    sc_assert(ext->path_index < route.path.size() && route.path[ext->path_index].node == this);
    if (ext->path_index + 1 < route.path.size()) {
        // A transit node handles the payload when it arrives, then sends it on
        // its outgoing link.
        transit(*ext, delay);
        apply_steps(*ext, delay);
        out[route.path[ext->path_index].out_port]->b_transport(payload, delay);
    } else {
        apply_steps(*ext, delay);
        serve(payload, *ext, delay);
    }
}

void RoutedNode::serve(tlm::tlm_generic_payload& payload, NpuExtension&, sc_core::sc_time&) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

// An approximately-timed initiator may sit on any link: BEGIN_REQ is served
// at once through b_transport and completed in one call (base protocol
// permits TLM_COMPLETED on the forward path).
tlm::tlm_sync_enum RoutedNode::nb_transport_fw(int id, tlm::tlm_generic_payload& payload,
                                               tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
    b_transport(id, payload, delay);
    phase = tlm::BEGIN_RESP;
    return tlm::TLM_COMPLETED;
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
    return delay;
}

}  // namespace npuvp
