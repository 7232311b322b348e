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

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "modules/common/request_round.h"
#include "modules/common/vcd_value.h"

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
        std::uint64_t asked_ps = 0;  // when it queued
        // A requester served by the RequestRound (SPEC T4): a unit handed to
        // it is taken up in the round's update, in key order, instead of
        // waking `event`.
        RoundRequester* requester = nullptr;
        RequestKey key;
        // Who serves the requester's rounds, and at what time it asks: a
        // decoupled PE's calendar; nullptr: the RequestRound, the kernel's time.
        RoundService* round = nullptr;
        // The holder's name for the VCD (default: the current process's).
        const char* owner = nullptr;
    };

    // For a requester that the RequestRound serves (a method stage worker;
    // call from its serve_round()): takes a unit now (true), or queues
    // `waiter` (false). When a unit is handed over, `granted` turns true and
    // the RequestRound serves waiter.requester again (or, without one,
    // `event` is notified a delta later); it then calls acquired(waiter). The
    // same queue as wait(), so threads and methods are served in one request
    // order.
    bool acquire(Waiter& waiter) {
        if (m_free > 0 && m_queue.empty()) {
            --m_free;
            ++m_grants;
            note_grant(waiter.owner);
            return true;
        }
        enqueue(waiter);
        return false;
    }
    void acquired(Waiter& waiter);
    // post() without the virtual call, for npuvp's own workers.
    void release() {
        if (!m_queue.empty() || m_free == m_capacity) {
            FifoResource::post();  // a waiter takes the unit over (or nothing was taken)
            return;
        }
        ++m_free;
        if (m_traced) note_release();
    }

    // For a thread: takes a unit in T4 order among the requests of this
    // round (RequestRound::in_turn) and waits for it if none is free.
    // `on_queued()` runs when it queues (to record the wait) and
    // `on_granted()` when it gets the unit, both in the round's update, in
    // key order (as a method worker's begin_stage(); e.g. to trace the
    // start). Returns a delta after the grant, at the grant's time, and
    // rethrows what on_granted() threw.
    template <class Q, class G>
    int wait(const RequestKey& key, Q&& on_queued, G&& on_granted) {
        Waiter waiter;
        // When a unit is handed over by post(), the round serves this turn.
        auto take_up = [&] {
            acquired(waiter);
            on_granted();
        };
        RequestRound::Turn<decltype(take_up)> taker(take_up);
        waiter.event = &taker.done;
        waiter.requester = &taker;
        waiter.key = key;
        // Served in the update phase, where there is no current process: the
        // VCD's holder is this thread.
        const sc_core::sc_process_handle me = sc_core::sc_get_current_process_handle();
        waiter.owner = me.valid() ? me.name() : nullptr;
        bool got = false;
        RequestRound::instance().in_turn(key, [&] {
            got = acquire(waiter);
            if (got)
                on_granted();
            else
                on_queued();
        });
        if (!got) taker.await();
        return 0;
    }
    int wait(const RequestKey& key) {
        return wait(key, [] {}, [] {});
    }
    // lock() in T4 order (capacity 1); as wait(key, on_queued, on_granted).
    template <class Q, class G>
    int lock(const RequestKey& key, Q&& on_queued, G&& on_granted) {
        wait(key, on_queued, on_granted);
        m_owner = sc_core::sc_get_current_process_handle();
        return 0;
    }

    // sc_semaphore_if and sc_mutex_if, for code written against those
    // interfaces: a request takes a unit at once, in the order the kernel
    // runs the callers — not SPEC T4's order. npuvp's own models use the
    // keyed wait() / lock() above or acquire().
    int wait() override;      // blocks until a unit is granted; returns 0
    int trywait() override;   // takes a unit only if free and nobody waits; -1 otherwise
    int post() override;      // returns a unit (to the oldest waiter, if any)
    int get_value() const override { return m_free; }

    // (capacity 1): lock/unlock by the owning process only
    int lock() override;
    int trylock() override;
    int unlock() override;    // -1 if the calling process is not the owner

    const char* kind() const override { return "npuvp::FifoResource"; }

    // Statistics: units granted, and the time spent waiting for them.
    std::uint64_t grants() const { return m_grants; }
    sc_core::sc_time total_wait() const { return sc_core::sc_time::from_value(m_total_wait_ps); }

    // VCD: units in use, and the holder of the unit granted last (0 when all
    // are free; else 1 + the index of the holding process in owner_names(),
    // in order of first grant).
    // Its values reach the file through `clock` (modules/common/vcd_value.h).
    void add_traces(sc_core::sc_trace_file* tf, const std::string& prefix,
                    VcdClock& clock = VcdClock::kernel()) const;
    const std::vector<std::string>& owner_names() const { return m_owner_names; }

private:
    sc_core::sc_event* take_event();
    void enqueue(Waiter& waiter);
    void note_grant(const char* owner) {
        if (m_traced) note_owner(owner);  // the owner's name costs a lookup: only for the VCD
    }
    void note_owner(const char* owner);
    void note_release() {
        m_in_use.set(m_capacity - m_free);
        if (m_free == m_capacity) m_owner_code.set(0);
    }

    // The waiters in request order, a vector read from its head. An idle
    // resource holds no allocation (a std::deque holds ~600 bytes from its
    // construction: 40 MB over a 16,384-PE machine's resources, issue 38).
    class WaiterQueue {
    public:
        bool empty() const { return m_head == m_items.size(); }
        std::size_t size() const { return m_items.size() - m_head; }
        Waiter* front() const { return m_items[m_head]; }
        void push_back(Waiter* waiter) { m_items.push_back(waiter); }
        void pop_front() {
            if (++m_head == m_items.size()) {
                m_items.clear();
                m_head = 0;
            } else if (m_head >= 32 && 2 * m_head >= m_items.size()) {  // never drained: compact
                m_items.erase(m_items.begin(), m_items.begin() + static_cast<std::ptrdiff_t>(m_head));
                m_head = 0;
            }
        }

    private:
        std::vector<Waiter*> m_items;
        std::size_t m_head = 0;
    };

    int m_capacity;
    int m_free;
    WaiterQueue m_queue;
    std::vector<std::unique_ptr<sc_core::sc_event>> m_event_pool;
    std::vector<sc_core::sc_event*> m_free_events;
    sc_core::sc_process_handle m_owner;  // capacity-1 mutex use only
    std::uint64_t m_grants = 0;
    std::uint64_t m_total_wait_ps = 0;
    mutable VcdValue<std::int32_t> m_in_use{0};
    mutable VcdValue<std::int32_t> m_owner_code{0};
    std::vector<std::string> m_owner_names;
    mutable bool m_traced = false;
};

}  // namespace npuvp
