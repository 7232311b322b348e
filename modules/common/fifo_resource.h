// A counting resource that grants strictly in request order, as the seeds'
// simpy.Resource does (SPEC §1). sc_semaphore and sc_mutex promise no order:
// a process that posts and asks again in the same delta, or a newcomer, may
// overtake processes already waiting. Here a released unit is handed straight
// to the oldest waiter, so nobody overtakes.
//
// Implements sc_semaphore_if (wait/trywait/post/get_value) and, for
// capacity 1, sc_mutex_if (lock/trylock/unlock). No heap allocation in steady
// state: waiter events come from a pool that only grows to the largest queue.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

namespace npuvp {

class FifoResource : public sc_core::sc_semaphore_if,
                     public sc_core::sc_mutex_if,
                     public sc_core::sc_object {
public:
    FifoResource(const char* name, int capacity);

    int capacity() const { return m_capacity; }
    int in_use() const { return m_capacity - m_free; }
    std::size_t queue_length() const { return m_queue.size(); }

    // A place in the queue. A thread's lives on its stack for one wait(); a
    // method process (which cannot block) owns one and its event.
    struct Waiter {
        sc_core::sc_event* event = nullptr;
        bool granted = false;
        sc_core::sc_time asked;
    };

    // For method processes: takes a unit now (true), or queues `waiter`
    // (false), whose `granted` turns true and `event` is notified when a unit
    // is handed over; the method then calls acquired(waiter). The same queue
    // as wait(), so threads and methods are served in one request order.
    bool acquire(Waiter& waiter);
    void acquired(Waiter& waiter);

    // sc_semaphore_if
    int wait() override;      // blocks until a unit is granted; returns 0
    int trywait() override;   // takes a unit only if free and nobody waits; -1 otherwise
    int post() override;      // returns a unit (to the oldest waiter, if any)
    int get_value() const override { return m_free; }

    // sc_mutex_if (capacity 1): lock/unlock by the owning process only
    int lock() override;
    int trylock() override;
    int unlock() override;    // -1 if the calling process is not the owner

    const char* kind() const override { return "npuvp::FifoResource"; }

    // Statistics: units granted, and the time spent waiting for them.
    std::uint64_t grants() const { return m_grants; }
    sc_core::sc_time total_wait() const { return m_total_wait; }

    // VCD: units in use, and the holder of the unit granted last (0 when all
    // are free; else 1 + the index of the holding process in owner_names(),
    // in order of first grant).
    void add_traces(sc_core::sc_trace_file* tf, const std::string& prefix) const;
    const std::vector<std::string>& owner_names() const { return m_owner_names; }

private:
    sc_core::sc_event* take_event();
    void note_grant();

    int m_capacity;
    int m_free;
    std::deque<Waiter*> m_queue;
    std::vector<std::unique_ptr<sc_core::sc_event>> m_event_pool;
    std::vector<sc_core::sc_event*> m_free_events;
    sc_core::sc_process_handle m_owner;  // capacity-1 mutex use only
    std::uint64_t m_grants = 0;
    sc_core::sc_time m_total_wait;
    std::int32_t m_in_use = 0;
    std::int32_t m_owner_code = 0;
    std::vector<std::string> m_owner_names;
    mutable bool m_traced = false;
};

}  // namespace npuvp
