// A TLM-2.0 base-protocol checker (IEEE 1666-2011 §14, §15, §11), spliced
// into a binding: initiator.out -> checker.in, checker.out -> target.in. It
// passes every call through unchanged (same payload, phase, delay, return)
// and reports each rule broken as an SC_ERROR of type "npuvp/tlm_check",
// naming the binding and the rule:
//  - b_transport is called from a thread (§11.1.1.4 b: it may wait);
//  - a request's attributes are valid: data pointer set, data length and
//    streaming width non-zero, byte enable length non-zero when a byte enable
//    pointer is set, response status TLM_INCOMPLETE_RESPONSE (§14.17);
//  - the target sets the response status, and leaves command, data pointer,
//    data length and streaming width as they were (§14.7, §14.17);
//  - a payload sent with nb_transport has a memory manager and a reference
//    count above 0 (§14.5), and each phase of it is annotated no earlier than
//    the one before (§15.2.7);
//  - phases follow the base protocol's sequence per payload (§15.2): BEGIN_REQ
//    on a payload not in flight here, END_REQ and BEGIN_RESP only after its
//    BEGIN_REQ, END_RESP only after its BEGIN_RESP, TLM_UPDATED only with
//    END_REQ or BEGIN_RESP on the forward path; and the exclusion rules
//    (§15.2.6): no BEGIN_REQ while an earlier request on this binding has not
//    been ended, no BEGIN_RESP while an earlier response has not;
//  - a response that completes carries a response status (§14.17);
//  - DMI: a granted or refused range contains the address asked for (§11.2);
//    debug: transport_dbg returns no more than the data length (§11.3).
// With it on, RoutedNode also checks at every transit node that a memory
// transfer's address decodes to the binding its route takes.
// Enabled by NPUVP_TLM_CHECK=1 in the environment when the platform is
// elaborated (RoutedNode::connect_to); every ctest entry sets it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <systemc>
#include <tlm>

namespace npuvp {

class ProtocolChecker : public sc_core::sc_module,
                        private tlm::tlm_fw_transport_if<>,
                        private tlm::tlm_bw_transport_if<> {
public:
    tlm::tlm_target_socket<> in;
    tlm::tlm_initiator_socket<> out;

    // `binding` names the binding in reports ("a.out[2] -> b.in").
    ProtocolChecker(const sc_core::sc_module_name& name, std::string binding);

    // Whether NPUVP_TLM_CHECK asks for checkers (read once, at the first
    // call: a test may set it before; inline, since a decoupled DMA asks it
    // on every transfer).
    static bool enabled() { return s_enabled >= 0 ? s_enabled != 0 : read_enabled(); }

    std::uint64_t transactions() const { return m_transactions; }

private:
    static bool read_enabled();
    inline static int s_enabled = -1;  // not read yet

    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) override;
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                       sc_core::sc_time& delay) override;
    tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                       sc_core::sc_time& delay) override;
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi) override;
    unsigned int transport_dbg(tlm::tlm_generic_payload& p) override;
    void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override;

    // What a payload in flight on this binding has done so far.
    enum class State { requested, request_ended, responded };
    struct Snapshot {
        tlm::tlm_command command;
        unsigned char* data;
        unsigned int length;
        unsigned int width;
    };
    void fail(const std::string& rule) const;
    void check_request(const tlm::tlm_generic_payload& p, const char* call) const;
    static Snapshot snapshot(const tlm::tlm_generic_payload& p);
    void check_unchanged(const Snapshot& before, const tlm::tlm_generic_payload& p,
                         const char* call) const;
    void check_responded(const tlm::tlm_generic_payload& p, const char* call) const;
    // The phase transition `phase` of `p` seen here (forward or backward).
    void transition(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase, bool forward,
                    const sc_core::sc_time& delay);
    // The payload's transaction is over on this binding.
    void close(const tlm::tlm_generic_payload& p);

    std::string m_binding;
    std::map<const tlm::tlm_generic_payload*, State> m_open;
    std::map<const tlm::tlm_generic_payload*, Snapshot> m_snapshots;
    std::map<const tlm::tlm_generic_payload*, sc_core::sc_time> m_times;  // last phase's time
    const tlm::tlm_generic_payload* m_open_request = nullptr;   // exclusion rules
    const tlm::tlm_generic_payload* m_open_response = nullptr;
    std::uint64_t m_transactions = 0;
};

}  // namespace npuvp
