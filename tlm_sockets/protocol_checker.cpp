#include "tlm_sockets/protocol_checker.h"

#include <cstdlib>
#include <cstring>

namespace npuvp {

ProtocolChecker::ProtocolChecker(const sc_core::sc_module_name& name, std::string binding)
    : sc_module(name), in("in"), out("out"), m_binding(std::move(binding)) {
    in.bind(*this);
    out.bind(*this);
}

bool ProtocolChecker::read_enabled() {
    const char* v = std::getenv("NPUVP_TLM_CHECK");
    s_enabled = v != nullptr && std::strcmp(v, "0") != 0 && *v != '\0';
    return s_enabled != 0;
}

void ProtocolChecker::fail(const std::string& rule) const {
    SC_REPORT_ERROR("npuvp/tlm_check", (m_binding + ": " + rule).c_str());
}

void ProtocolChecker::check_request(const tlm::tlm_generic_payload& p, const char* call) const {
    const std::string at = std::string(call) + ": ";
    if (p.get_data_ptr() == nullptr) fail(at + "data pointer not set (§14.13)");
    if (p.get_data_length() == 0) fail(at + "data length 0 (§14.14)");
    if (p.get_streaming_width() == 0) fail(at + "streaming width 0 (§14.15)");
    if (p.get_byte_enable_ptr() != nullptr && p.get_byte_enable_length() == 0)
        fail(at + "byte enable pointer with length 0 (§14.16)");
    if (p.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
        fail(at + "response status not TLM_INCOMPLETE_RESPONSE on a request (§14.17)");
}

ProtocolChecker::Snapshot ProtocolChecker::snapshot(const tlm::tlm_generic_payload& p) {
    return {p.get_command(), p.get_data_ptr(), p.get_data_length(), p.get_streaming_width()};
}

void ProtocolChecker::check_unchanged(const Snapshot& before, const tlm::tlm_generic_payload& p,
                                      const char* call) const {
    const Snapshot now = snapshot(p);
    if (now.command != before.command || now.data != before.data || now.length != before.length ||
        now.width != before.width)
        fail(std::string(call) +
             ": command, data pointer, data length or streaming width changed by the target "
             "(§14.7)");
}

void ProtocolChecker::check_responded(const tlm::tlm_generic_payload& p, const char* call) const {
    if (p.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
        fail(std::string(call) + ": response without a response status (§14.17)");
}

void ProtocolChecker::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const sc_core::sc_process_handle process = sc_core::sc_get_current_process_handle();
    if (!process.valid() || (process.proc_kind() != sc_core::SC_THREAD_PROC_ &&
                             process.proc_kind() != sc_core::SC_CTHREAD_PROC_))
        fail("b_transport called from " +
             (process.valid() ? "method " + std::string(process.name()) : std::string("no process")) +
             ": only a thread may call it (§11.1.1.4 b)");
    if (m_open.count(&p)) fail("b_transport with a payload in flight on nb_transport here");
    check_request(p, "b_transport");
    const Snapshot before = snapshot(p);
    ++m_transactions;
    out->b_transport(p, delay);
    check_unchanged(before, p, "b_transport");
    check_responded(p, "b_transport");
}

void ProtocolChecker::transition(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase,
                                 bool forward, const sc_core::sc_time& delay) {
    if (!p.has_mm()) fail("nb_transport with a payload that has no memory manager (§14.5 i)");
    else if (p.get_ref_count() == 0) fail("nb_transport with a payload of reference count 0 (§14.5 t)");
    const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
    if (phase != tlm::BEGIN_REQ) {
        auto t = m_times.find(&p);
        if (t != m_times.end() && at < t->second)
            fail("a phase annotated earlier than the one before it on this payload (§15.2.7 c)");
    }
    m_times[&p] = at;
    auto it = m_open.find(&p);
    const bool open = it != m_open.end();
    if (phase == tlm::BEGIN_REQ) {
        if (!forward) fail("BEGIN_REQ on the backward path (§15.2)");
        if (open) fail("BEGIN_REQ for a payload already in flight here (§15.2)");
        if (m_open_request != nullptr)
            fail("BEGIN_REQ before the previous request was ended: request exclusion (§15.2.6)");
        check_request(p, "nb_transport_fw BEGIN_REQ");
        m_open[&p] = State::requested;
        m_snapshots[&p] = snapshot(p);
        m_open_request = &p;
        ++m_transactions;
    } else if (phase == tlm::END_REQ) {
        if (forward) fail("END_REQ on the forward path (§15.2)");
        if (!open || it->second != State::requested) fail("END_REQ without an open request (§15.2)");
        else it->second = State::request_ended;
        if (m_open_request == &p) m_open_request = nullptr;
    } else if (phase == tlm::BEGIN_RESP) {
        if (forward) fail("BEGIN_RESP on the forward path (§15.2)");
        if (!open || it->second == State::responded) {
            fail("BEGIN_RESP without an open request (§15.2)");
            return;
        }
        if (m_open_response != nullptr)
            fail("BEGIN_RESP before the previous response was ended: response exclusion (§15.2.6)");
        check_responded(p, "BEGIN_RESP");
        check_unchanged(m_snapshots[&p], p, "BEGIN_RESP");
        it->second = State::responded;
        if (m_open_request == &p) m_open_request = nullptr;  // BEGIN_RESP ends the request too
        m_open_response = &p;
    } else if (phase == tlm::END_RESP) {
        if (!forward) fail("END_RESP on the backward path (§15.2)");
        if (!open || it->second != State::responded) fail("END_RESP without a response (§15.2)");
        close(p);
    } else {
        fail("a phase the base protocol does not have (§15.2)");
    }
}

void ProtocolChecker::close(const tlm::tlm_generic_payload& p) {
    m_open.erase(&p);
    m_snapshots.erase(&p);
    m_times.erase(&p);
    if (m_open_request == &p) m_open_request = nullptr;
    if (m_open_response == &p) m_open_response = nullptr;
}

tlm::tlm_sync_enum ProtocolChecker::nb_transport_fw(tlm::tlm_generic_payload& p,
                                                    tlm::tlm_phase& phase,
                                                    sc_core::sc_time& delay) {
    transition(p, phase, true, delay);
    const tlm::tlm_phase sent = phase;
    const tlm::tlm_sync_enum answer = out->nb_transport_fw(p, phase, delay);
    if (answer == tlm::TLM_UPDATED) {
        if (sent == tlm::BEGIN_REQ && phase != tlm::END_REQ && phase != tlm::BEGIN_RESP)
            fail("TLM_UPDATED to BEGIN_REQ with a phase other than END_REQ or BEGIN_RESP (§15.2)");
        if (sent == tlm::END_RESP) fail("TLM_UPDATED to END_RESP (§15.2)");
        else transition(p, phase, false, delay);
    } else if (answer == tlm::TLM_COMPLETED) {
        if (sent == tlm::BEGIN_REQ) {
            check_responded(p, "nb_transport_fw TLM_COMPLETED");
            check_unchanged(m_snapshots[&p], p, "nb_transport_fw TLM_COMPLETED");
        }
        close(p);
    } else if (answer == tlm::TLM_ACCEPTED && phase != sent) {
        fail("TLM_ACCEPTED with the phase changed (§15.2)");
    }
    return answer;
}

tlm::tlm_sync_enum ProtocolChecker::nb_transport_bw(tlm::tlm_generic_payload& p,
                                                    tlm::tlm_phase& phase,
                                                    sc_core::sc_time& delay) {
    transition(p, phase, false, delay);
    const tlm::tlm_phase sent = phase;
    const tlm::tlm_sync_enum answer = in->nb_transport_bw(p, phase, delay);
    if (answer == tlm::TLM_UPDATED) {
        if (sent != tlm::BEGIN_RESP || phase != tlm::END_RESP)
            fail("TLM_UPDATED on the backward path other than BEGIN_RESP -> END_RESP (§15.2)");
        close(p);
    } else if (answer == tlm::TLM_COMPLETED) {
        if (sent == tlm::END_REQ) fail("TLM_COMPLETED to END_REQ: the response never came (§15.2)");
        close(p);
    }
    return answer;
}

bool ProtocolChecker::get_direct_mem_ptr(tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi) {
    const sc_dt::uint64 address = p.get_address();
    const bool granted = out->get_direct_mem_ptr(p, dmi);
    if (address < dmi.get_start_address() || address > dmi.get_end_address())
        fail("get_direct_mem_ptr: the DMI range does not contain the address asked for (§11.2.5)");
    if (granted && dmi.get_dmi_ptr() == nullptr) fail("DMI granted without a pointer (§11.2.5)");
    return granted;
}

unsigned int ProtocolChecker::transport_dbg(tlm::tlm_generic_payload& p) {
    const unsigned int length = p.get_data_length();
    const unsigned int n = out->transport_dbg(p);
    if (n > length) fail("transport_dbg returned more bytes than the data length (§11.3.4)");
    return n;
}

void ProtocolChecker::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
    if (start > end) fail("invalidate_direct_mem_ptr with start > end (§11.2.8)");
    in->invalidate_direct_mem_ptr(start, end);
}

}  // namespace npuvp
