// The base of every topology node: a module with one multi-passthrough
// target socket `in` and one multi-passthrough initiator socket `out`, bound
// along the topology's links by the elaborator.
//
// Transport is loosely timed (SPEC §3 T1): a payload carries its precomputed
// Route; each node on the path reserves the hops the route assigns to it,
// adds them to the b_transport delay annotation and forwards the payload on
// the binding the route names. The last node serves it (serve()). The
// initiator adds the tail hops and the drain n / min B, and waits once.
#pragma once

#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "modules/common/request_round.h"
#include "tlm_sockets/npu_extension.h"
#include "tlm_sockets/route.h"

namespace npuvp {

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

    // Binds out -> next.in and returns the index of the new `out` binding, which
    // routes use as PathNode::out_port. Elaboration only.
    int connect_to(RoutedNode& next);
    int out_bindings() const { return m_out_bindings; }

    // Initiator side: sends `txn` along its route (txn.prepare() first) and
    // returns the whole T1 delay from now to `done`, drain included. Does not
    // wait: the caller waits once. Throws std::runtime_error if the target
    // answered with an error response.
    sc_core::sc_time transport(Transaction& txn);

    // SPEC T4: this node's rank among requesters (modules/common/node_env.h;
    // set by the platform, 0 for a node alone).
    void set_request_rank(std::uint32_t rank) { m_request_rank = rank; }
    std::uint32_t request_rank() const { return m_request_rank; }
    // From a thread: transport(txn) in T4 order among the requests of this
    // round (RequestRound::in_turn): returns a delta later, at the same time,
    // with the delay from now to done. `key.node` is set to this node's rank.
    sc_core::sc_time transport_in_turn(Transaction& txn, RequestKey key);

protected:
    // Called on a node the payload passes through (not its last) when the
    // payload arrives, before the node's outgoing hops; a node with a
    // processing cost for transit traffic (M_CPU, IO_CPU) adds it to the delay
    // here. Must not wait.
    virtual void transit(NpuExtension& ext, sc_core::sc_time& delay) {}

    // Called on the last node of a path, with the delay accumulated so far.
    // The default accepts the payload (TLM_OK_RESPONSE). Must not wait.
    virtual void serve(tlm::tlm_generic_payload& payload, NpuExtension& ext,
                       sc_core::sc_time& delay);

private:
    void b_transport(int id, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& payload,
                                       tlm::tlm_phase& phase, sc_core::sc_time& delay);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
    unsigned int transport_dbg(int id, tlm::tlm_generic_payload& payload);

    // Applies the route steps assigned to path position ext.path_index.
    static void apply_steps(NpuExtension& ext, sc_core::sc_time& delay);

    std::string m_node_id;
    int m_out_bindings = 0;
    std::uint32_t m_request_rank = 0;
};

}  // namespace npuvp
