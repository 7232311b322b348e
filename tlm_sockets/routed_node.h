// The base of every topology node: a module with one multi-passthrough
// target socket `in` and one multi-passthrough initiator socket `out`, bound
// along the topology's links by the elaborator.
//
// Transport is loosely timed (SPEC §3 T1) and keeps the TLM-2.0 base protocol
// (docs/architecture.md "TLM-2.0 at every socket"):
// - an npuvp initiator sends with nb_transport_fw(BEGIN_REQ), which any
//   process kind may call (1666 §11.1.2); each node on the path reserves the
//   hops its route assigns to it, adds them to the delay annotation and
//   forwards on the binding the route names; the last node serves it and
//   answers TLM_COMPLETED with the annotated delay. The initiator adds the
//   tail hops and the drain n / min B and waits once;
// - a target that answers later (an adapter in front of a model that waits,
//   TlmMemoryAdapter) returns TLM_UPDATED with END_REQ and sends BEGIN_RESP on
//   the backward path, which the nodes hand back to the initiator
//   (Transaction::pending());
// - b_transport, for a third-party LT initiator, forwards with b_transport
//   and must be called from a thread (checked);
// - a payload without npuvp's extension is routed by its address (the
//   platform's AddressDecoder) and served as a plain memory access.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "modules/common/request_round.h"
#include "tlm_sockets/protocol_checker.h"
#include "tlm_sockets/npu_extension.h"
#include "tlm_sockets/route.h"

namespace npuvp {

class RoutedNode;

// Address decoding for payloads that carry no route (a third-party initiator):
// the platform's address map (platform/address_resolver.h).
class AddressDecoder {
public:
    static constexpr int here = -1;       // `at` is the address's target
    static constexpr int nowhere = -2;    // no target has it, or `at` cannot reach it
    // The `out` binding of `at` toward the target of `address`, or here / nowhere.
    virtual int decode(RoutedNode& at, std::uint64_t address) = 0;

protected:
    ~AddressDecoder() = default;
};

// Reports an SC_ERROR when the calling process may not block (a method, or
// no process: the update phase): IEEE 1666-2011 §11.1.1.4 b, b_transport may
// call wait(). Every b_transport call site in npuvp checks it.
void require_blocking_context(const char* who);

class RoutedNode : public sc_core::sc_module {
public:
    using TargetSocket =
        tlm_utils::multi_passthrough_target_socket<RoutedNode, 32, tlm::tlm_base_protocol_types,
                                                   0, sc_core::SC_ZERO_OR_MORE_BOUND>;
    using InitiatorSocket =
        tlm_utils::multi_passthrough_initiator_socket<RoutedNode, 32,
                                                      tlm::tlm_base_protocol_types, 0,
                                                      sc_core::SC_ZERO_OR_MORE_BOUND>;

    TargetSocket in;
    InitiatorSocket out;

    explicit RoutedNode(const sc_core::sc_module_name& name);

    // The node id: its SystemC hierarchical name (SPEC §2).
    std::string node_id() const { return name(); }
    const std::string& node_id_ref() const { return m_node_id; }

    // The module kind ("pe_dma", "mesh_router", ...), for listings and traces.
    virtual const char* kind() const = 0;

    // The hop this node adds when it is the target of a route (a memory
    // port); nullptr for nodes that only forward or take control messages.
    virtual Hop* service_hop() { return nullptr; }

    // Whether it answers every transport at once (TLM_COMPLETED, nothing
    // left for later). A node that may answer later (TlmMemoryAdapter) says
    // no: a PE whose DMA reaches it is not decoupled (docs/speed.md).
    virtual bool answers_at_once() const { return true; }

    // Whether transit() below does anything: a node that overrides it says
    // so here too (M_CPU, IO_CPU). A walked route (transport_ps())
    // calls transit() only on the nodes that have it; the socket path calls
    // it on every transit node.
    virtual bool has_transit_cost() const { return false; }

    // Binds out -> next.in and returns the index of the new `out` binding, which
    // routes use as PathNode::out_port. Elaboration only. With NPUVP_TLM_CHECK
    // set, a ProtocolChecker sits on the binding (same indices, same times).
    int connect_to(RoutedNode& next);
    int out_bindings() const { return m_out_bindings; }
    int in_bindings() const { return m_in_bindings; }

    // Elaboration: where payloads without npuvp's extension are routed.
    void set_address_decoder(AddressDecoder* decoder) { m_decoder = decoder; }

    // Initiator side: sends `txn` along its route (txn.prepare() first) and
    // returns the whole T1 delay from kernel + `local` to `done`, drain
    // included. Does not wait: the caller waits once. Throws
    // std::runtime_error if the target answered with an error response.
    // `kernel` is the kernel's time (sc_time_stamp()) and `local` how far the
    // initiator's local time is ahead of it (temporal decoupling,
    // docs/architecture.md "The decoupled pipeline"): the transfer starts
    // then, and the payload's delay annotation starts at `local`.
    // The route decides how: a direct route (inside a PE) reserves its steps
    // with no payload; a walkable one (Route::walkable, and no transfer
    // pattern) is walked node by node without the socket calls — each
    // node's transit(), its route steps and the last node's accept() in the
    // order nb_transport_fw runs them, with the same delay annotations, so
    // the same times and side effects; any other route (a target that may
    // answer later, a pattern, a checker on every binding when
    // NPUVP_TLM_CHECK is set) goes through the sockets with nb_transport_fw.
    // When the target answers later, txn.pending() is set and the returned
    // time means nothing: done_event() fires at `done`, after
    // transport_done(txn) has run.
    // (Inline: a DMA stage's hot path goes straight to the walk.)
    ps_t transport_ps(Transaction& txn, ps_t kernel, ps_t local = 0) {
        const NpuExtension& ext = txn.ext();
        const Route& route = *ext.route;
        if (route.walkable && !route.direct && ext.shape == nullptr && !ProtocolChecker::enabled())
            return transport_walk(txn, kernel, local);
        return transport_other(txn, kernel, local);
    }
    // The same from the kernel's time, as an sc_time (a thread, a test).
    sc_core::sc_time transport(Transaction& txn) {
        return sc_core::sc_time::from_value(transport_ps(txn, sc_core::sc_time_stamp().value()));
    }

    // SPEC T4: this node's rank among requesters (modules/common/node_env.h;
    // set by the platform, 0 for a node alone).
    void set_request_rank(std::uint32_t rank) { m_request_rank = rank; }
    std::uint32_t request_rank() const { return m_request_rank; }
    // From a thread: transport_ps(txn) in T4 order among the requests of this
    // round (RequestRound::in_turn): returns a delta later, at the same time,
    // with the delay from now to done. `key.node` is set to this node's rank.
    // A target that answers later is waited for here (then returns zero).
    sc_core::sc_time transport_in_turn(Transaction& txn, RequestKey key);

protected:
    // Called on a node the payload passes through (not its last) when the
    // payload arrives, before the node's outgoing hops; a node with a
    // processing cost for transit traffic (M_CPU, IO_CPU) adds it to the delay
    // here, and returns true from has_transit_cost(). Must not wait.
    virtual void transit(NpuExtension& ext, sc_core::sc_time& delay) {}

    // Called on the last node of a path, with the delay accumulated so far.
    // The default accepts the payload (TLM_OK_RESPONSE). Must not wait.
    virtual void serve(tlm::tlm_generic_payload& payload, NpuExtension& ext,
                       sc_core::sc_time& delay);

    // The last node's answer to BEGIN_REQ: by default serve() and
    // TLM_COMPLETED. A target that answers later returns TLM_UPDATED with
    // `phase` = END_REQ and calls respond() once it is done. `blocking`: the
    // request came by b_transport (a thread that may wait here; the answer
    // must then be TLM_COMPLETED).
    // `ext` is nullptr for a payload without npuvp's extension (then the
    // default calls serve_plain()).
    virtual tlm::tlm_sync_enum accept(int in_id, tlm::tlm_generic_payload& payload,
                                      NpuExtension* ext, tlm::tlm_phase& phase,
                                      sc_core::sc_time& delay, bool blocking);
    // Sends BEGIN_RESP for a payload accept() left pending, on the `in`
    // binding it came in on.
    void respond(int in_id, tlm::tlm_generic_payload& payload, const sc_core::sc_time& delay);

    // A payload without npuvp's extension, at the target its address decodes
    // to: the default answers TLM_ADDRESS_ERROR_RESPONSE (only memory targets
    // hold addresses).
    virtual void serve_plain(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

    // Initiator side: an asynchronous answer to `txn` has arrived; done_at()
    // and the payload's response status are set. Runs in the process that
    // sent BEGIN_RESP (or the update phase): must not wait.
    virtual void transport_done(Transaction&) {}

private:
    // transport_ps()'s ways: a walk, and the rest (a direct route's
    // reservation, else the sockets).
    ps_t transport_walk(Transaction& txn, ps_t kernel, ps_t local);
    ps_t transport_other(Transaction& txn, ps_t kernel, ps_t local);
    void b_transport(int id, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& payload,
                                       tlm::tlm_phase& phase, sc_core::sc_time& delay);
    tlm::tlm_sync_enum nb_transport_bw(int id, tlm::tlm_generic_payload& payload,
                                       tlm::tlm_phase& phase, sc_core::sc_time& delay);
    // The forward path of a payload with npuvp's extension, arrived on `in`
    // binding `id` (b_transport or nb_transport_fw with BEGIN_REQ).
    tlm::tlm_sync_enum forward(int id, tlm::tlm_generic_payload& payload, NpuExtension& ext,
                               tlm::tlm_phase& phase, sc_core::sc_time& delay, bool blocking);
    // The same for a payload without it: by address.
    tlm::tlm_sync_enum forward_plain(int id, tlm::tlm_generic_payload& payload,
                                     tlm::tlm_phase& phase, sc_core::sc_time& delay,
                                     bool blocking);
    void check_decode(const tlm::tlm_generic_payload& payload, const NpuExtension& ext, int port);
    // The initiator's end of a transport: the tail hops and the drain; returns
    // the delay to `done`.
    static ps_t tail(NpuExtension& ext, ps_t delay);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
    unsigned int transport_dbg(int id, tlm::tlm_generic_payload& payload);

    // Applies the route steps assigned to path position ext.path_index:
    // the delay annotation in ps in, the new one out.
    static ps_t apply_steps(NpuExtension& ext, ps_t delay) {
        const auto& steps = ext.route->steps;
        if (ext.step_cursor >= steps.size() || steps[ext.step_cursor].at != ext.path_index)
            return delay;
        return apply_steps_at(ext, delay);
    }
    static ps_t apply_steps_at(NpuExtension& ext, ps_t delay);
    static ps_t reserve_shaped(TransferShape& shape, Hop& hop, ps_t t, std::uint64_t bytes);
    // The same on the payload's sc_time annotation (a transit or target node).
    static void apply_steps(NpuExtension& ext, sc_core::sc_time& delay) {
        const ps_t before = delay.value();
        const ps_t after = apply_steps(ext, before);
        if (after != before) delay = sc_core::sc_time::from_value(after);
    }

    std::string m_node_id;
    int m_out_bindings = 0;
    int m_in_bindings = 0;
    AddressDecoder* m_decoder = nullptr;
    std::vector<std::unique_ptr<ProtocolChecker>> m_checkers;  // one per `out` binding, when checking
    // Plain (extension-less) payloads this node forwarded that are still
    // open downstream, with the `in` binding each came on (for BEGIN_RESP).
    std::vector<std::pair<tlm::tlm_generic_payload*, int>> m_plain_open;
    std::uint32_t m_request_rank = 0;
};

}  // namespace npuvp
