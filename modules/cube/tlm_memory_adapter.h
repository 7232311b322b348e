// A memory target backed by a TLM-2.0 model that someone else wrote
// (docs/architecture.md, "Plugging in a TLM model"): an adapter that takes the
// place of an hbm_ctrl slice or a shared SRAM through the impl registry and
// drives the model through a plain tlm_utils::simple_initiator_socket with
// b_transport, from its own threads, so the model may call wait() (an LT
// target) or speak the 4-phase protocol behind a simple_target_socket (an
// AT target: the socket turns b_transport into nb_transport calls).
//
// Timing is the model's: the adapter adds no hop of its own (service_hop()
// is none), so a transfer's time is the T1 path up to the adapter, then the
// model's time (what its b_transport waits plus the delay it returns), then
// the tail hops and drain of the route at the initiator.
//
// To npuvp the adapter is a target that answers later: BEGIN_REQ is taken
// at once (TLM_UPDATED, END_REQ); a worker thread calls the model when the
// request arrives (the annotated delay), and BEGIN_RESP goes back on the
// backward path when the model returns. `workers` threads serve requests in
// arrival order (ties in the order they came, which is SPEC T4's), so at most
// that many are in the model at once. A request that comes by b_transport
// (a thread) goes straight to the model.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "modules/cube/memory_target.h"

namespace npuvp {

class TlmMemoryAdapter : public MemoryTarget {
public:
    // The socket the model's target socket is bound to.
    tlm_utils::simple_initiator_socket<TlmMemoryAdapter> to_model;

    // Makes the model as a child of the adapter (its name under the adapter's
    // hierarchy) and binds adapter.to_model to it; the adapter owns it.
    using ModelFactory = std::function<std::unique_ptr<sc_core::sc_module>(TlmMemoryAdapter&)>;

    TlmMemoryAdapter(const sc_core::sc_module_name& name, const char* kind,
                     std::uint64_t size_bytes, int workers, const ModelFactory& make_model);

    Hop* service_hop() override { return nullptr; }  // the model's own timing
    bool answers_at_once() const override { return false; }  // its workers answer later

    // Statistics: transactions the model has answered.
    std::uint64_t model_transactions() const { return m_answered; }

protected:
    tlm::tlm_sync_enum accept(int in_id, tlm::tlm_generic_payload& payload, NpuExtension* ext,
                              tlm::tlm_phase& phase, sc_core::sc_time& delay,
                              bool blocking) override;

private:
    struct Request {
        tlm::tlm_generic_payload* payload;
        int in_id;
    };
    void worker();
    // Checks the window, then runs the model's b_transport (may wait).
    void call_model(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

    std::unique_ptr<sc_core::sc_module> m_model;
    // Requests not yet taken by a worker, by (arrival time, order of coming).
    std::map<std::pair<sc_core::sc_time, std::uint64_t>, Request> m_queue;
    std::uint64_t m_seq = 0;
    sc_core::sc_event m_arrival;
    std::uint64_t m_answered = 0;
};

}  // namespace npuvp
