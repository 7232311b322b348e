// The seam between a PE's pipeline and its time base (issue 38;
// docs/architecture.md, "The decoupled pipeline").
//
// A PE's pipeline — the scheduler's feed loop, the method stage workers, the
// stage inboxes and PE_DMA — runs on one of two time bases, chosen once per
// PE before the simulation starts:
//  - per stage (the reference mode): the SystemC kernel. A wait is a
//    next_trigger() of the activity's own method, a wake-up an event
//    notification, a round the kernel's delta cycle, a round's end the
//    update phase (the RequestRound, a primitive channel's update());
//  - decoupled: the PE's PipelineCalendar (modules/pe/pipeline_calendar.h),
//    which runs the same activities ahead of the kernel on a local time,
//    with the same rounds and the same results to the picosecond.
//
// PipelineClock is the one place that knows which: model code asks it for
// the time, waits and wakes through it, and never tests the mode itself.
// It is a final class whose calls inline to one predictable branch (the mode
// never changes during a run), so the seam costs no virtual call on the hot
// path (docs/speed.md, "The seam").
#pragma once

#include <cstdint>

#include <systemc>

#include "modules/common/lazy_event.h"
#include "modules/common/request_round.h"
#include "modules/pe/pipeline_calendar.h"

namespace npuvp {

class PipelineClock;
class StageInbox;

// Something a pipeline activity waits for and another part of its PE (or a
// kernel process) signals: a command ready to feed, freed TCM, a completion.
// Per stage it is an event, which any number of kernel processes may also
// wait on (kernel_event()); decoupled, the one activity waiting on it.
class PipelineSignal {
public:
    // The kernel's side: what a kernel process waits on (PE_CPU waits for a
    // completion through it in either mode). Made at its first use.
    sc_core::sc_event& kernel_event() const { return m_event.get(); }

private:
    friend class PipelineClock;
    LazyEvent m_event;
    Activity* m_waiter = nullptr;
};

// State whose changes in a round take effect at the round's end (freed tile
// buffers): per stage a primitive channel's update(), decoupled the
// calendar's end of round.
class PipelineCommit : public sc_core::sc_prim_channel, public RoundCommit {
public:
    explicit PipelineCommit(const char* name) : sc_core::sc_prim_channel(name) {}

private:
    friend class PipelineClock;
    void update() override { commit(); }
};

class PipelineClock final : public RoundService, public VcdClock {
public:
    // Runs on `calendar` from now on (the Decoupler, before the simulation
    // starts); per stage until then.
    void decouple(PipelineCalendar& calendar) {
        m_cal = &calendar;
        if (m_traced) calendar.note_shows();
    }
    // For statistics and checks only (the pipeline line, a test): model
    // code does not ask.
    bool decoupled() const { return m_cal != nullptr; }

    // The pipeline's time: the PE's local time while its calendar runs it,
    // the kernel's otherwise (in ps on the hot paths: sc_time_stamp() and
    // sc_time::from_value() are calls into the library).
    ps_t now_ps() const override { return m_cal ? m_cal->time_ps() : kernel_now(); }
    sc_core::sc_time now() const override { return m_cal ? m_cal->time() : sc_core::sc_time_stamp(); }
    // The kernel's time, and how far the pipeline's is ahead of it: where a
    // transport starts and its delay annotation (temporal decoupling).
    ps_t kernel_ps() const { return m_cal ? m_cal->kernel_ps() : kernel_now(); }
    ps_t offset_ps() const { return m_cal ? m_cal->offset_ps() : 0; }

    // The waits of an activity, called from its own process (a method: per
    // stage these are its next_trigger()). Each is the activity's one wait
    // until it runs again.
    // Runs it again `dt` from now (0: in the next round, a delta later).
    void resume_after(ps_t dt, Activity& a) {
        if (m_cal)
            m_cal->at(m_cal->time_ps() + dt, a);
        else
            sc_core::next_trigger(sc_core::sc_time::from_value(dt));
    }
    // Runs it again at `t` (not before now).
    void resume_at(ps_t t, Activity& a) { resume_after(t - now_ps(), a); }
    // Runs it again in the round after `s` is next signalled.
    void resume_on(PipelineSignal& s, Activity& a) {
        if (m_cal)
            s.m_waiter = &a;
        else
            sc_core::next_trigger(s.m_event.get());
    }
    // Runs it again in the round after a token (a free slot) of `inbox`
    // becomes visible. (These three are defined with StageInbox,
    // modules/pe/stage_inboxes.h.)
    void resume_when_readable(StageInbox& inbox, Activity& a);
    void resume_when_writable(StageInbox& inbox, Activity& a);

    // Wakes, from anywhere in a round (a request served, a stage's end known
    // later). `kernel_event` is what the activity's method is statically
    // sensitive to per stage.
    void wake_after(ps_t dt, Activity& a, sc_core::sc_event& kernel_event) {
        if (m_cal)
            m_cal->at(m_cal->time_ps() + dt, a);
        else
            kernel_event.notify(sc_core::sc_time::from_value(dt));
    }
    // `s`'s waiter runs in the next round (per stage: its event is notified
    // for the next delta cycle, which wakes every kernel process on it).
    void signal(PipelineSignal& s) {
        if (!m_cal) {
            s.m_event.notify(sc_core::SC_ZERO_TIME);
        } else if (Activity* a = s.m_waiter) {
            s.m_waiter = nullptr;
            m_cal->schedule(*a);
        }
    }
    // The round's end. RoundService: `requester` is served at the end of this
    // round in key order (SPEC T4), by the RequestRound or the calendar.
    void ask(const RequestKey& key, RoundRequester& requester) override {
        if (m_cal)
            m_cal->ask(key, requester);
        else
            RequestRound::instance().ask(key, requester);
    }
    // VcdClock: a traced value changed while the calendar runs ahead of the
    // kernel reaches the VCD when the kernel gets to its time.
    void show(void* shown, std::uint64_t bits, unsigned size) override {
        if (m_cal != nullptr && m_cal->ahead())
            m_cal->show_later(shown, bits, size);
        else
            apply(shown, bits, size);
    }
    void note_traced() override { m_traced = true; }
    // `c` commits at the end of this round (once however often asked).
    void commit_at_round_end(PipelineCommit& c) {
        if (m_cal)
            m_cal->commit_at_round_end(c);
        else
            c.request_update();
    }

    // An inbox's side of the seam (StageInbox only): a read or a write was
    // made in this round; `other` is the waiter of the other side. Per stage
    // the inbox's update() folds it in and notifies; decoupled the other
    // side's waiter runs in the next round, and the inbox folds the round
    // in at its first access in a later round (round_serial()).
    void inbox_changed(StageInbox& inbox, Activity*& other);
    // Counts the rounds run (decoupled); per stage 0 (the update phase folds).
    std::uint64_t round_serial() const { return m_cal ? m_cal->round_serial() : 0; }

    // Whether a stage may stall (the bank rule, seed 002; a worker's
    // stall_event()): per stage it may; a decoupled PE runs no command that
    // can (Decoupler::plan()), so its workers do not ask.
    bool stages_may_stall() const { return m_cal == nullptr; }

    // Whether an activity may wait for an inbox's slot before its own wait
    // for time is over (the feed loop's shortcut, docs/speed.md "Fifth
    // pass"): only decoupled, where the Decoupler made sure that each inbox
    // has one writer, so a slot freed stays free.
    bool may_wait_for_slot_early() const { return m_cal != nullptr; }

private:
    static ps_t kernel_now() { return sc_core::sc_time_stamp().value(); }

    PipelineCalendar* m_cal = nullptr;
    bool m_traced = false;  // some value of its PE is in the VCD
};

}  // namespace npuvp
