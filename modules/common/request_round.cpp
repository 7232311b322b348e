#include "modules/common/request_round.h"

#include <algorithm>

namespace npuvp {

RequestRound& RequestRound::instance() {
    // One per simulation, and SystemC runs one simulation per process. It
    // lives as long as the kernel's own objects (never destroyed: a
    // primitive channel must not outlive the kernel's registry of them).
    static RequestRound* round = new RequestRound("npuvp_request_round");
    return *round;
}

RequestRound::RequestRound(const char* name) : sc_core::sc_prim_channel(name) {}

void RequestRound::ask(const RequestKey& key, RoundRequester& requester) {
    if (m_serving_now) {
        SC_REPORT_ERROR("npuvp/invariant", "a request was made while a round was being served");
        return;
    }
    if (m_pending.empty()) request_update();
    m_pending.emplace_back().set(key, m_asked++, requester);
}

void RequestRound::update() {
    // Swap, so that the list served is not the one a requester could add to.
    m_serving.swap(m_pending);
    m_serving_now = true;
    serve_in_key_order(m_serving.data(), m_serving.data() + m_serving.size());
    m_serving_now = false;
    ++m_rounds;
    m_served += m_serving.size();
    m_serving.clear();
}

}  // namespace npuvp
