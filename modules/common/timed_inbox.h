// Messages that arrive over a loosely-timed link: the sender's b_transport
// reaches the target at once with a delay annotation, but the target must act
// only when the message arrives, at now + delay. A TimedInbox keeps them in
// arrival order (ties: in the order they were sent) and hands each to the
// target's process at its arrival time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "modules/common/request_round.h"

namespace npuvp {

template <class T>
class TimedInbox {
public:
    // Called from the sender's b_transport (any process); never waits.
    // `sender` is the sender's T4 rank.
    void push(const T& item, const sc_core::sc_time& delay, std::uint32_t sender = 0) {
        const sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
        auto at = std::upper_bound(m_items.begin() + m_head, m_items.end(), Entry{item, arrival, sender},
                                   [](const Entry& a, const Entry& e) {
                                       return a.arrival < e.arrival ||
                                              (a.arrival == e.arrival && a.sender < e.sender);
                                   });
        m_items.insert(at, Entry{item, arrival, sender});
        arrived().notify(delay);
    }

    // Called from the owner's thread: waits until the earliest message has
    // arrived and takes it.
    T pop() {
        for (;;) {
            if (empty()) {
                sc_core::wait(arrived());
                continue;
            }
            const sc_core::sc_time now = sc_core::sc_time_stamp();
            if (m_items[m_head].arrival > now) {
                sc_core::wait(m_items[m_head].arrival - now, arrived());
                continue;
            }
            T item = m_items[m_head].item;
            pop_front();
            return item;
        }
    }

    // pop() for the owner's method: takes the earliest message into `item`
    // if it has arrived; else returns false and the method runs again when
    // pop() would have woken (call it until it returns false).
    bool pop_ready(T& item) {
        if (empty()) {
            sc_core::next_trigger(arrived());
            return false;
        }
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        if (m_items[m_head].arrival > now) {
            sc_core::next_trigger(m_items[m_head].arrival - now, arrived());
            return false;
        }
        item = m_items[m_head].item;
        pop_front();
        return true;
    }

    // What pop() waits for (a message pushed, at its arrival).
    const sc_core::sc_event& arrived_event() { return arrived(); }

    bool empty() const { return m_head == m_items.size(); }
    std::size_t size() const { return m_items.size() - m_head; }

private:
    struct Entry {
        T item;
        sc_core::sc_time arrival;
        std::uint32_t sender;
    };
    // Made at its first use, in the simulation: an event made during
    // elaboration costs a unique name in the kernel's registry, and most of
    // a large machine's inboxes never see a message (issue 38).
    sc_core::sc_event& arrived() {
        if (!m_arrived) m_arrived = std::make_unique<sc_core::sc_event>();
        return *m_arrived;
    }
    void pop_front() {
        if (++m_head == m_items.size()) {
            m_items.clear();
            m_head = 0;
        } else if (m_head >= 64 && m_head * 2 >= m_items.size()) {
            // An inbox that never empties keeps its size bounded.
            m_items.erase(m_items.begin(), m_items.begin() + static_cast<std::ptrdiff_t>(m_head));
            m_head = 0;
        }
    }
    // A vector from m_head on, not a std::deque: a deque allocates ~600
    // bytes when it is made, and a large machine has three inboxes a PE.
    std::vector<Entry> m_items;
    std::size_t m_head = 0;
    std::unique_ptr<sc_core::sc_event> m_arrived;
};

// A processor that handles one message at a time, each taking `overhead`
// (SPEC T3: M_CPU and IO_CPU add overhead_ns to every transaction, responses
// included). Loosely timed: reserve() returns when a message arriving at `t`
// is done, and books the processor until then.
class SerialProcessor {
public:
    explicit SerialProcessor(sc_core::sc_time overhead) : m_overhead(overhead) {}

    sc_core::sc_time reserve(const sc_core::sc_time& t) {
        m_free = std::max(t, m_free) + m_overhead;
        ++m_handled;
        return m_free;
    }
    // From a thread: books the processor for a message that arrived at
    // `arrival`, in SPEC T4 order among the round's requests (it shares the
    // processor with transit traffic, booked in the round too), and waits
    // until the message is done.
    void wait_in_turn(const RequestKey& key, const sc_core::sc_time& arrival) {
        sc_core::sc_time done;
        RequestRound::instance().in_turn(key, [&] { done = reserve(arrival); });
        sc_core::wait(done - sc_core::sc_time_stamp());
    }
    sc_core::sc_time overhead() const { return m_overhead; }
    std::uint64_t handled() const { return m_handled; }

private:
    sc_core::sc_time m_overhead;
    sc_core::sc_time m_free;
    std::uint64_t m_handled = 0;
};

}  // namespace npuvp
