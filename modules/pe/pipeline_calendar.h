// The decoupled pipeline (SPEC §9; docs/speed.md "The decoupled pipeline";
// docs/timing.md "T4"): a PE's method stage workers and its scheduler's feed
// loop and dispatch pass (through its PipelineClock, the one seam) run off
// a calendar of their own instead of the SystemC kernel's event queue, with
// the loosely-timed TLM-2.0 idea of temporal decoupling: the PE runs ahead of
// the kernel on a local time, and its transports carry that local time as
// their delay annotation.
//
// The calendar keeps the kernel's semantics exactly (every result is that of
// the per-stage mode, to the picosecond): an instant is a sequence of
// rounds (SPEC T4), a wake-up for a later time starts that time's first
// round, a hand-off (a token into an inbox, a freed slot, a granted unit)
// belongs to the next round, requests made in a round are served at its end
// in RequestKey order, and an inbox's reads and writes take effect at the
// round's end, as an sc_fifo's do in the update phase.
//
// The kernel is the judge of when the PE may run ahead: the platform's
// Decoupler (platform/decoupler.h) runs each calendar in step with the
// kernel's delta cycles while other processes act at the same instant, and
// alone (rounds, then later instants) while the kernel has nothing to do
// before the next time it has something pending. An activity that would
// notify a kernel process (the completion of a command) runs only in step.
// Only a PE whose pipeline nobody else touches is decoupled (docs/speed.md
// lists the conditions); any other PE runs per stage on the kernel.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>

#include "modules/common/append_list.h"
#include "modules/common/request_round.h"
#include "modules/common/trace.h"
#include "modules/common/vcd_value.h"
#include "tlm_sockets/hop.h"

namespace npuvp {

// Something the calendar runs: a method stage worker, the feed loop, the
// dispatch pass.
class Activity {
public:
    virtual void activate() = 0;
    // Whether activating it now may notify a kernel process (a command's
    // last tile completes): then it runs only in a real delta cycle.
    virtual bool kernel_visible() const { return false; }
    // Whether kernel_visible() needs asking at all: an activity that knows
    // when it cannot be visible (a stage worker before its token's last
    // stage, the feed loop) keeps this false then, and the calendar makes
    // no virtual call for it.
    bool may_be_kernel_visible() const { return m_may_be_visible; }

protected:
    ~Activity() = default;
    void set_may_be_kernel_visible(bool may) { m_may_be_visible = may; }

private:
    bool m_may_be_visible = true;
};

// State whose changes in a round take effect at the round's end (an inbox's
// reads and writes, freed tile buffers): the update phase of the per-stage
// mode, the calendar's end of round when decoupled.
class RoundCommit {
public:
    virtual void commit() = 0;

protected:
    ~RoundCommit() = default;

private:
    friend class PipelineCalendar;
    bool m_commit_asked = false;
};

class PipelineCalendar final : public RoundService, public TraceClock {
public:
    // `wake` is notified (one delta later) when a kernel process hands the
    // calendar work: the Decoupler's process is sensitive to it.
    explicit PipelineCalendar(sc_core::sc_event& wake) : m_wake(wake) {}

    // The pipeline's time: the local time while the calendar runs the PE,
    // the kernel's otherwise (a kernel process of the PE asking). The hot
    // paths use the integer ps (sc_time::from_value() and sc_time_stamp()
    // are calls into the library); the sc_time forms are for the rest.
    ps_t time_ps() const { return m_running ? m_now : sc_core::sc_time_stamp().value(); }
    sc_core::sc_time time() const {
        return m_running ? sc_core::sc_time::from_value(m_now) : sc_core::sc_time_stamp();
    }
    // The kernel's time (read once per run of the calendar: the kernel's
    // time does not move while the calendar runs).
    ps_t kernel_ps() const { return m_running ? m_kernel : sc_core::sc_time_stamp().value(); }
    // How far the local time is ahead of the kernel's (the delay annotation
    // a transport starts with).
    ps_t offset_ps() const { return m_running ? m_now - m_kernel : 0; }
    sc_core::sc_time offset() const { return sc_core::sc_time::from_value(offset_ps()); }
    bool running() const { return m_running; }
    // Counts the rounds run (each end_round()): what a StageInbox compares
    // to tell this round's reads and writes from an earlier round's.
    std::uint64_t round_serial() const { return m_serial; }

    // From an activity (the calendar running): run `a` at `t` (a later time:
    // its first round; the current time: the next round).
    void at(ps_t t, Activity& a) {
        if (t > m_now) {
            // A later instant: its first round, as a timed notification.
            // Mostly the latest wake-up so far, with room left: appended
            // in place (push_timed() sorts it in and makes room).
            if (m_thead == m_timed.size()) {
                m_timed.clear();  // nothing pending: start from the front
                m_thead = 0;
                m_timed.append().set(t, a);
            } else if (m_timed.size() != m_timed.capacity()) {
                // Room left: appended, and sorted in from the back (mostly
                // it is the latest, or a step or two from it; among
                // wake-ups at one time the earlier pushed runs first).
                Timed* at = &m_timed.append();
                Timed* const first = m_timed.begin() + m_thead;
                while (at != first && at[-1].time > t) {
                    *at = at[-1];
                    --at;
                }
                at->set(t, a);
            } else {
                push_timed(t, a);  // makes room first
            }
        } else {
            next_round(a);  // a zero wait: the next round, as a delta notification
        }
    }
    void next_round(Activity& a) { m_list.append().set(m_round + 1, a); }
    // RoundService: serve `requester` at the end of this round, in key order.
    void ask(const RequestKey& key, RoundRequester& requester) override {
        if (m_serving_now) return ask_while_serving();
        m_asks.append().set(key, m_seq++, requester);
    }
    sc_core::sc_time now() const override { return time(); }
    // TraceClock: where an event emitted while it runs ahead goes.
    std::uint64_t trace_instant() const override { return m_now; }
    ps_t now_ps() const override { return time_ps(); }
    // commit() at the end of this round (once per round however often asked).
    void commit_at_round_end(RoundCommit& c) {
        if (c.m_commit_asked) return;
        c.m_commit_asked = true;
        m_commits.append() = &c;
    }
    // From anywhere: `a` runs in the next round: the calendar's own if it is
    // running, else the round after the kernel's current delta cycle (a
    // process of this PE handing it work, e.g. a command received).
    void schedule(Activity& a);

    // For the Decoupler.
    bool empty() const { return m_head == m_list.size() && m_thead == m_timed.size(); }
    ps_t next_time() const { return m_head < m_list.size() ? m_now : m_timed[m_thead].time; }
    // Runs the round that the kernel's current delta cycle is at this
    // instant (the kernel's time): everything due in it, then its end.
    void run_in_step();
    // Whether more rounds are due at the kernel's time.
    bool due_now() const { return !empty() && next_time() == sc_core::sc_time_stamp().value(); }
    // The kernel has nothing else to do at this instant: the next round
    // runs in this same delta cycle (a virtual delta cycle).
    void skip_delta() { ++m_sync_offset; }
    // Runs alone, round by round and instant by instant, every round due
    // before `horizon`, and stops before an activity that is kernel_visible()
    // outside the kernel's instant.
    void run_ahead(ps_t horizon);

    // The VCD (modules/common/vcd_value.h): whether a change made now is
    // ahead of the kernel's time; keeps one to show when the kernel gets
    // there; and for the Decoupler, shows those due by the kernel's time
    // `now` and tells when the next is (~0: none). In the order they were
    // made, which is time order: the calendar's time only grows.
    bool ahead() const { return m_running && m_now > m_kernel; }
    // Values of its PEs are in the VCD: the Decoupler runs it ahead in
    // windows, so that few changes wait at once.
    void note_shows() { m_shows = true; }
    bool shows() const { return m_shows; }
    void show_later(void* shown, std::uint64_t bits, unsigned size) {
        m_shown.push_back({m_now, shown, bits, size});
    }
    void show_due(ps_t now) {
        while (m_shown_head < m_shown.size() && m_shown[m_shown_head].time <= now) {
            const Shown& s = m_shown[m_shown_head++];
            VcdClock::apply(s.shown, s.bits, s.size);
        }
        if (m_shown_head == m_shown.size()) {
            m_shown.clear();
            m_shown_head = 0;
        } else if (m_shown_head >= 1024 && 2 * m_shown_head >= m_shown.size()) {
            // Never drained (the calendar keeps running ahead): the shown
            // front goes, so that what is kept is what waits.
            m_shown.erase(m_shown.begin(), m_shown.begin() + static_cast<std::ptrdiff_t>(m_shown_head));
            m_shown_head = 0;
        }
    }
    ps_t next_shown() const { return m_shown_head < m_shown.size() ? m_shown[m_shown_head].time : ~ps_t{0}; }

    // Statistics (docs/speed.md): activations run, and of them in step.
    std::uint64_t activations() const { return m_activations; }
    std::uint64_t in_step() const { return m_in_step; }

private:
    // A wake-up at a later instant (its first round). Wake-ups at one time
    // keep the order they were pushed in (the insertion is stable).
    // (Filled in place, member by member: AppendList.)
    struct Timed {
        void set(ps_t t, Activity& a) {
            time = t;
            activity = &a;
        }
        ps_t time;
        Activity* activity;
    };
    // A wake-up at the current instant, in round order (rounds only grow).
    struct Slot {
        void set(std::uint64_t r, Activity& a) {
            round = r;
            activity = &a;
        }
        std::uint64_t round;
        Activity* activity;
    };

    // A VCD value's change made ahead of the kernel (show_later()).
    struct Shown {
        ps_t time;
        void* shown;
        std::uint64_t bits;
        unsigned size;
    };

    void push_timed(ps_t time, Activity& a);
    [[gnu::cold]] void ask_while_serving();
    // Moves to the later instant `t`: its timed wake-ups are round 0.
    // Counts them once (m_due): no wake-up at the current instant is pushed
    // later (at() takes a later time only, and sorts it in after them).
    void advance_to(ps_t t) {
        m_now = t;
        m_round = 0;
        m_list.clear();
        m_head = 0;
        std::size_t due = 0;
        for (std::size_t i = m_thead; i < m_timed.size() && m_timed[i].time == t; ++i) ++due;
        m_due = due;
    }
    // Whether a timed wake-up of the current instant has still to run (it
    // belongs to round 0, before any slot of m_list).
    bool timed_due() const { return m_due != 0; }
    // The round the kernel's delta cycle `delta` is at the instant `now`.
    std::uint64_t round_at(ps_t now, std::uint64_t delta);
    // Runs every activity due at (m_now, m_round); false if it stopped before
    // a kernel-visible one (`check`) and left it and the round's end.
    bool run_round(bool check);
    // A round without requests or commits (about half of them) only counts.
    // Mostly a round has one request and nothing to commit: served here,
    // without the key-order sort (one request is in order) and the call.
    void end_round() {
        ++m_serial;  // from here on, this round's inbox reads and writes are past
        if (m_commits.empty()) {
            if (m_asks.empty()) return;
            if (m_asks.size() == 1) {
                m_serving_now = true;
                m_asks.front().requester->serve_round();
                m_serving_now = false;
                m_asks.clear();
                if (m_commits.empty()) return;  // (a grant commits nothing; were it to, as below)
                serve_and_commit();
                return;
            }
        }
        serve_and_commit();
    }
    void serve_and_commit();

    sc_core::sc_event& m_wake;
    // In time order from m_thead on (a PE has a handful of timed wake-ups
    // at a time, and a new one is mostly the latest: a sorted insertion from
    // the back is cheaper than a heap at that size). Those at m_now are the
    // current instant's round 0: they run from here, not copied to m_list.
    AppendList<Timed> m_timed;
    std::size_t m_thead = 0;
    // How many of them, from m_thead on, are at m_now (round 0's still to run).
    std::size_t m_due = 0;
    // The current instant's rounds after its timed wake-ups, from m_head on.
    AppendList<Slot> m_list;
    std::size_t m_head = 0;
    AppendList<RoundAsk> m_asks;
    AppendList<RoundCommit*> m_commits;
    std::vector<Shown> m_shown;  // from m_shown_head on, in time order
    std::size_t m_shown_head = 0;
    ps_t m_now = 0;                // the local time
    ps_t m_kernel = 0;             // the kernel's time while running
    std::uint64_t m_round = 0;     // the round at m_now being run (or next to run)
    std::uint64_t m_seq = 0;
    std::uint64_t m_serial = 1;
    bool m_running = false;
    bool m_serving_now = false;
    bool m_shows = false;
    // The kernel's delta cycles at m_sync_instant, as rounds:
    // round = delta - m_sync_base + m_sync_offset.
    ps_t m_sync_instant = ~ps_t{0};
    std::uint64_t m_sync_base = 0;
    std::uint64_t m_sync_offset = 0;
    std::uint64_t m_activations = 0;
    std::uint64_t m_in_step = 0;
};

}  // namespace npuvp
