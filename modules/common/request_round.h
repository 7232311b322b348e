// SPEC T4: requests made at one instant are served in causal rounds, and
// within a round by requester, never in the order the kernel happens to run
// the processes that make them.
//
// A round is one evaluation phase of the kernel: everything a process does
// when it runs is in that round, and a hand-off to another process (a token
// into an inbox, a freed slot, a unit passed to a waiter, a completion) is
// seen by it in a later one. A process that wants a shared resource or a T1
// reservation does not take it while it runs: it asks the RequestRound, and
// in the update phase that ends the round the RequestRound serves every
// request of the round in RequestKey order. Nothing in the model then
// depends on process creation order or on the kernel's runnable queue.
//
// A method process asks with ask() and is woken by its own requester (its
// serve_round() notifies the event the method waits on). A thread calls
// in_turn(), which runs its work in the update phase and returns one delta
// later. Serving allocates nothing once the round's list has grown.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <tuple>
#include <type_traits>
#include <vector>

#include <systemc>

namespace npuvp {

// Who asks, in SPEC T4's order: the requester's node (PEs in (sip, cube, pe)
// order first, then M_CPUs, then IO_CPUs; docs/timing.md "T4"), then the
// engine kind, then command id, tile id and, last, the unit of the engine
// (a DMA channel's index) so that no two requesters ever tie.
struct RequestKey {
    std::uint32_t node = 0;
    std::uint32_t engine = 0;
    std::uint64_t cmd = 0;
    std::uint64_t tile = 0;
    std::uint32_t unit = 0;

    friend bool operator<(const RequestKey& a, const RequestKey& b) {
        return std::tie(a.node, a.engine, a.cmd, a.tile, a.unit) <
               std::tie(b.node, b.engine, b.cmd, b.tile, b.unit);
    }
};

// The engine part of a RequestKey: the stage kinds in T4's order, then the
// control processors (a PE_CPU's messages, a fan-out, a host request).
enum class RequestEngine : std::uint32_t {
    dma_read, dma_write, fetch, store, gemm, math, ipcq, control
};

// The key of a control processor's request (PE_CPU, M_CPU, IO_CPU): engine
// `control`. `node` is the asker's rank (RoutedNode::transport_in_turn sets
// it itself).
inline RequestKey control_key(std::uint64_t cmd, std::uint64_t tile, std::uint32_t unit,
                              std::uint32_t node = 0) {
    return {node, static_cast<std::uint32_t>(RequestEngine::control), cmd, tile, unit};
}

// What the RequestRound calls back, in the update phase, in key order.
class RoundRequester {
public:
    virtual void serve_round() = 0;

protected:
    ~RoundRequester() = default;
};

// A request of a round, and how a round's requests are served (by the
// RequestRound in the kernel's update phase, by a PipelineCalendar at a
// round's end): in key order. Keys are unique within a round (the unit
// breaks the last tie); the ask count only makes the sort total.
//
// The key is the asker's own, not a copy: it lives until the request is
// served (a stage worker's waiter, a thread's in_turn() argument). A copy
// would be read back right after the asker wrote it, with wider loads than
// the stores that wrote it, which the store buffer cannot forward: a stall
// on every request (docs/speed.md, "Fifth pass"). For the same reason a
// request is filled in place, member by member (set()).
struct RoundAsk {
    void set(const RequestKey& k, std::uint64_t a, RoundRequester& r) {
        key = &k;
        asked = a;
        requester = &r;
    }
    const RequestKey* key;
    std::uint64_t asked;
    RoundRequester* requester;
};

// Serves [first, last) in key order.
inline void serve_in_key_order(RoundAsk* first, RoundAsk* last) {
    const auto before = [](const RoundAsk& a, const RoundAsk& b) {
        return *a.key < *b.key || (!(*b.key < *a.key) && a.asked < b.asked);
    };
    // A round mostly holds one to three requests: an insertion sort (the
    // order is total, so any sort gives the same) without std::sort's setup.
    const std::size_t n = static_cast<std::size_t>(last - first);
    if (n > 16) {
        std::sort(first, last, before);
    } else {
        for (std::size_t i = 1; i < n; ++i) {
            const RoundAsk a = first[i];
            std::size_t j = i;
            for (; j > 0 && before(a, first[j - 1]); --j) first[j] = first[j - 1];
            first[j] = a;
        }
    }
    for (RoundAsk* a = first; a != last; ++a) a->requester->serve_round();
}

// Who serves a round's requests: the RequestRound (the kernel's update
// phase) or, for a decoupled PE, its PipelineCalendar (the calendar's end of
// round; modules/pe/pipeline_calendar.h). `now()` is the time the
// requests are made at (a decoupled PE's local time).
class RoundService {
public:
    virtual void ask(const RequestKey& key, RoundRequester& requester) = 0;
    virtual sc_core::sc_time now() const = 0;
    virtual std::uint64_t now_ps() const = 0;  // now() in ps

protected:
    ~RoundService() = default;
};

class RequestRound : public sc_core::sc_prim_channel, public RoundService {
public:
    // The simulation's one RequestRound, made on the first call (which must
    // be during elaboration: the platform and every block that asks make it
    // from their constructors).
    static RequestRound& instance();

    // From a process (evaluation phase): serve `requester` at the end of
    // this round, in `key` order among the round's requests (`key` must
    // live until then: RoundAsk).
    void ask(const RequestKey& key, RoundRequester& requester) override;
    sc_core::sc_time now() const override { return sc_core::sc_time_stamp(); }
    std::uint64_t now_ps() const override { return sc_core::sc_time_stamp().value(); }

    // A thread's request: serve_round() runs `work()` (in the update phase)
    // and wakes the thread, which waits in await(). An exception `work()`
    // throws (a target's error response) is kept and rethrown by await(),
    // in the thread, since there is no process to unwind in the update.
    template <class F>
    struct Turn final : RoundRequester {
        explicit Turn(F& work) : work(work) {}
        void serve_round() override {
            try {
                work();
            } catch (...) {
                error = std::current_exception();
            }
            done.notify(sc_core::SC_ZERO_TIME);
        }
        // From the thread: returns a delta after serve_round(), at its time.
        void await() {
            sc_core::wait(done);
            if (error) std::rethrow_exception(error);
        }
        F& work;
        sc_core::sc_event done;
        std::exception_ptr error;
    };

    // From a thread: runs `work()` at the end of this round, in `key` order
    // among the round's requests, and returns one delta later (rethrowing
    // what `work()` threw).
    template <class F>
    void in_turn(const RequestKey& key, F&& work) {
        Turn<std::remove_reference_t<F>> turn(work);
        ask(key, turn);
        turn.await();
    }

    // Statistics: rounds that served a request, and requests served.
    std::uint64_t rounds() const { return m_rounds; }
    std::uint64_t served() const { return m_served; }

private:
    explicit RequestRound(const char* name);
    void update() override;

    std::vector<RoundAsk> m_pending;
    std::vector<RoundAsk> m_serving;
    bool m_serving_now = false;
    std::uint64_t m_asked = 0;
    std::uint64_t m_rounds = 0;
    std::uint64_t m_served = 0;
};

}  // namespace npuvp
