#include "modules/common/fifo_resource.h"

#include <algorithm>
#include <stdexcept>

namespace npuvp {

FifoResource::FifoResource(const char* name, int capacity)
    : sc_core::sc_object(name), m_capacity(capacity), m_free(capacity) {
    if (capacity < 1) throw std::invalid_argument(std::string(name) + ": capacity must be >= 1");
    RequestRound::instance();  // made during elaboration
}

void FifoResource::note_owner(const char* owner) {
    const sc_core::sc_process_handle me = sc_core::sc_get_current_process_handle();
    const std::string name = owner ? owner : me.valid() ? me.name() : "?";
    auto it = std::find(m_owner_names.begin(), m_owner_names.end(), name);
    if (it == m_owner_names.end()) it = m_owner_names.insert(m_owner_names.end(), name);
    m_in_use.set(m_capacity - m_free);
    m_owner_code.set(static_cast<std::int32_t>(it - m_owner_names.begin()) + 1);
}

void FifoResource::add_traces(sc_core::sc_trace_file* tf, const std::string& prefix, VcdClock& clock) const {
    m_traced = true;
    m_in_use.trace(tf, prefix + ".in_use", m_capacity - m_free, clock);
    m_owner_code.trace(tf, prefix + ".owner", 0, clock);
}

sc_core::sc_event* FifoResource::take_event() {
    if (m_free_events.empty()) {
        m_event_pool.push_back(std::make_unique<sc_core::sc_event>());
        return m_event_pool.back().get();
    }
    sc_core::sc_event* event = m_free_events.back();
    m_free_events.pop_back();
    return event;
}

void FifoResource::enqueue(Waiter& waiter) {
    waiter.granted = false;
    waiter.asked_ps = waiter.round ? waiter.round->now_ps() : sc_core::sc_time_stamp().value();
    m_queue.push_back(&waiter);
}

void FifoResource::acquired(Waiter& waiter) {
    ++m_grants;  // on the grant, not the request: a process still queued is not counted
    note_grant(waiter.owner);
    m_total_wait_ps +=
        (waiter.round ? waiter.round->now_ps() : sc_core::sc_time_stamp().value()) - waiter.asked_ps;
}

int FifoResource::wait() {
    Waiter waiter;
    waiter.event = take_event();
    if (!acquire(waiter)) {
        while (!waiter.granted) sc_core::wait(*waiter.event);
        acquired(waiter);
    }
    m_free_events.push_back(waiter.event);
    return 0;
}

int FifoResource::trywait() {
    if (m_free > 0 && m_queue.empty()) {
        --m_free;
        ++m_grants;
        note_grant(nullptr);
        return 0;
    }
    return -1;
}

int FifoResource::post() {
    if (!m_queue.empty()) {
        // Hand the unit to the oldest waiter: m_free stays as it is, so no
        // process arriving in this delta can take it first. It takes it up
        // in a later round (SPEC T4): at the end of this one, in key order,
        // when the RequestRound serves it, else a delta later.
        Waiter* oldest = m_queue.front();
        m_queue.pop_front();
        oldest->granted = true;
        if (oldest->requester)
            (oldest->round ? *oldest->round : static_cast<RoundService&>(RequestRound::instance()))
                .ask(oldest->key, *oldest->requester);
        else
            oldest->event->notify(sc_core::SC_ZERO_TIME);
        return 0;
    }
    if (m_free == m_capacity) return -1;  // nothing was taken
    ++m_free;
    if (m_traced) note_release();
    return 0;
}

int FifoResource::lock() {
    wait();
    m_owner = sc_core::sc_get_current_process_handle();
    return 0;
}

int FifoResource::trylock() {
    if (trywait() != 0) return -1;
    m_owner = sc_core::sc_get_current_process_handle();
    return 0;
}

int FifoResource::unlock() {
    if (m_capacity != 1 || m_owner != sc_core::sc_get_current_process_handle()) return -1;
    m_owner = sc_core::sc_process_handle();
    return post();
}

}  // namespace npuvp
