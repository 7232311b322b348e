#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn, before any SystemC header
#include "modules/cube/tlm_memory_adapter.h"

#include <string>

namespace npuvp {

TlmMemoryAdapter::TlmMemoryAdapter(const sc_core::sc_module_name& name, const char* kind,
                                   std::uint64_t size_bytes, int workers,
                                   const ModelFactory& make_model)
    : MemoryTarget(name, kind, 0.0, 0.0, size_bytes), to_model("to_model") {
    m_model = make_model(*this);
    for (int i = 0; i < workers; ++i) {
        sc_core::sc_spawn_options options;
        sc_core::sc_spawn([this] { worker(); }, ("worker_" + std::to_string(i)).c_str(), &options);
    }
}

tlm::tlm_sync_enum TlmMemoryAdapter::accept(int in_id, tlm::tlm_generic_payload& payload,
                                            NpuExtension*, tlm::tlm_phase& phase,
                                            sc_core::sc_time& delay, bool blocking) {
    if (blocking) {
        call_model(payload, delay);
        phase = tlm::BEGIN_RESP;
        return tlm::TLM_COMPLETED;
    }
    // Arrives `delay` from now; a worker takes it then.
    m_queue.emplace(std::make_pair(sc_core::sc_time_stamp() + delay, m_seq++), Request{&payload, in_id});
    m_arrival.notify(delay);
    phase = tlm::END_REQ;  // at its arrival: `delay` stays as it came (§15.2.7)
    return tlm::TLM_UPDATED;
}

void TlmMemoryAdapter::call_model(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const std::uint64_t address = payload.get_address();
    if (address < base() || address - base() >= size_bytes) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    // The model sees its own window from 0, as a memory model expects.
    payload.set_address(address - base());
    to_model->b_transport(payload, delay);
    payload.set_address(address);
    ++m_answered;
}

void TlmMemoryAdapter::worker() {
    for (;;) {
        while (m_queue.empty() || m_queue.begin()->first.first > sc_core::sc_time_stamp()) {
            if (m_queue.empty())
                sc_core::wait(m_arrival);
            else
                sc_core::wait(m_queue.begin()->first.first - sc_core::sc_time_stamp(), m_arrival);
        }
        const Request request = m_queue.begin()->second;
        m_queue.erase(m_queue.begin());
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        call_model(*request.payload, delay);
        // LT: the model's returned delay is honoured here, before the answer.
        sc_core::wait(delay);
        respond(request.in_id, *request.payload, sc_core::SC_ZERO_TIME);
    }
}

}  // namespace npuvp
