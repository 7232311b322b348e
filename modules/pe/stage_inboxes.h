// The PE's stage inboxes (SPEC §5 T6; seed 000 §D6): one sc_fifo of
// TileToken* per StageType, of depth inbox_depth, owned by the PE. Two kinds
// of port reach them, both bound by the PE (docs/architecture.md, "The PE
// pipeline"):
//  - PE_SCHEDULER's `inboxes` (sc_fifo_out_if, one per StageType, in
//    StageType order), which feeds tokens in;
//  - every engine block's `inboxes` (StageInboxPort), through which its stage
//    workers take tokens from their own inbox and hand them to the next
//    stage's.
#pragma once

#include <array>
#include <cctype>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "modules/common/trace.h"
#include "modules/common/vcd_value.h"
#include "modules/pe/pipeline_clock.h"
#include "modules/pe/tile_plan.h"
#include "modules/pe/tile_token.h"

namespace npuvp {

class StageInbox;
using TokenFifo = StageInbox;

// What PE_SCHEDULER writes stage inboxes through (its `inboxes` port).
using TokenOutIf = sc_core::sc_fifo_out_if<TileToken*>;

// A stage inbox: an sc_fifo of TileToken* with sc_fifo's semantics (a read
// or write made in a round is seen by the other side in the next one), that
// keeps its fill level in a plain int the VCD can trace (tokens written and
// not yet read). It runs on its PE's PipelineClock (modules/pe/pipeline_clock.h),
// which says how a round's reads and writes take effect:
//  - per stage, at the kernel's update phase, which notifies
//    data_read_event / data_written_event for the waiters of the other side;
//  - decoupled, nothing is committed at the round's end: the inbox remembers
//    the round its reads and writes were made in (PipelineClock::round_serial())
//    and the first access of a later round folds them in (settle()), which
//    is what the round-end commit would have done; the one activity waiting
//    on the other side is put into the next round as soon as it is due (at
//    the read or write, or when it starts waiting in a round that has
//    already read or written), which is where the commit would have put it.
class StageInbox final : public sc_core::sc_prim_channel,
                   public sc_core::sc_fifo_in_if<TileToken*>,
                   public sc_core::sc_fifo_out_if<TileToken*> {
public:
    // `owner` is the PE's id; every change of fill is traced as an
    // inbox_fill event (one branch when tracing is off).
    StageInbox(const char* name, int depth, std::string owner, TraceSink& trace, PipelineClock& clock)
        : sc_core::sc_prim_channel(name),
          m_clock(clock),
          m_buf(static_cast<std::size_t>(depth)),
          m_size(depth),
          m_free(depth),
          m_owner(std::move(owner)),
          m_label(name),
          m_trace(trace),
          m_origin(&m_owner, m_label.c_str()) {}

    // sc_fifo_in_if
    void read(TileToken*& token) override {
        while (num_available() == 0) sc_core::wait(data_written_event());
        nb_read(token);
    }
    TileToken* read() override {
        TileToken* token = nullptr;
        read(token);
        return token;
    }
    bool nb_read(TileToken*& token) override {
        if (num_available() == 0) return false;
        ++m_num_read;
        token = m_buf[m_ri];
        if (++m_ri == m_buf.size()) m_ri = 0;
        ++m_free;
        m_clock.inbox_changed(*this, m_writer);  // a writer waiting for a slot sees it in the next round
        traced();
        return true;
    }
    int num_available() const override {
        settle();
        return m_num_readable - m_num_read;
    }
    const sc_core::sc_event& data_written_event() const override { return event(m_data_written); }

    // sc_fifo_out_if
    void write(TileToken* const& token) override {
        while (num_free() == 0) sc_core::wait(data_read_event());
        nb_write(token);
    }
    bool nb_write(TileToken* const& token) override {
        if (num_free() == 0) return false;
        ++m_num_written;
        m_buf[m_wi] = token;
        if (m_num_written > 1) [[unlikely]]
            order_round_writes();
        if (++m_wi == m_buf.size()) m_wi = 0;
        --m_free;
        m_clock.inbox_changed(*this, m_reader);  // the waiting reader sees the token in the next round
        traced();
        return true;
    }
    int num_free() const override {
        settle();
        return m_size - m_num_readable - m_num_written;
    }
    const sc_core::sc_event& data_read_event() const override { return event(m_data_read); }

    const char* kind() const override { return "npuvp::StageInbox"; }
    // Tokens written and not yet read (this round's included).
    int fill() const { return m_size - m_free; }
    // Its fill level in the VCD as `name` (through `clock`: the PE's).
    void trace_fill(sc_core::sc_trace_file* tf, const std::string& name, VcdClock& clock) const {
        m_fill.trace(tf, name, fill(), clock);
    }

    // The pipeline's time base (shared by the PE's inboxes, workers and feed loop).
    PipelineClock& clock() const { return m_clock; }

private:
    friend class PipelineClock;
    void traced() const {
        if (m_fill.traced()) m_fill.set(fill());
        if (m_trace.enabled()) emit_fill();
    }
    // (Out of line, so that traced() stays small enough to inline where the
    // trace is off.)
    [[gnu::noinline]] void emit_fill() const {
        m_trace.emit(trace::inbox_fill(m_clock.now_ps(), m_owner, m_label.c_str(), fill()), m_origin);
    }
    // SPEC T4: tokens written in one round (a delta cycle) by two writers
    // (PE_SCHEDULER's feed loop and dispatch pass, on a PE that mixes a
    // composite and a simple command in one stretch, which runs per stage)
    // are queued in (command sequence, tile) order, not in the order the
    // kernel happened to run the writers: the token just written (at m_wi)
    // moves back past this round's tokens that come after it.
    [[gnu::noinline]] void order_round_writes() {
        std::size_t at = m_wi;
        for (int k = 1; k < m_num_written; ++k) {
            const std::size_t before = at == 0 ? m_buf.size() - 1 : at - 1;
            const TileToken& a = *m_buf[before];
            const TileToken& b = *m_buf[at];
            if (a.cmd->seq < b.cmd->seq || (a.cmd->seq == b.cmd->seq && a.plan.tile_id <= b.plan.tile_id)) break;
            std::swap(m_buf[before], m_buf[at]);
            at = before;
        }
    }
    // sc_fifo::update().
    // An event nobody has asked for has no waiter: it is not notified.
    void update() override {
        if (m_num_read > 0 && m_data_read) m_data_read->notify(sc_core::SC_ZERO_TIME);
        if (m_num_written > 0 && m_data_written) m_data_written->notify(sc_core::SC_ZERO_TIME);
        fold();
    }
    // Made at the first wait on it, in the simulation: an event made during
    // elaboration costs a unique name in the kernel's registry, and 16 per
    // PE were 80 MB and 0.6 s of a 16,384-PE machine that waits on none
    // (issue 38; the decoupled pipeline never does).
    static const sc_core::sc_event& event(std::unique_ptr<sc_core::sc_event>& slot) {
        if (!slot) slot = std::make_unique<sc_core::sc_event>();
        return *slot;
    }
    // Decoupled: the reads and writes of an earlier round take effect (per
    // stage the serial stays 0 and update() folds).
    void settle() const {
        const std::uint64_t serial = m_clock.round_serial();
        if (m_round != serial) {
            fold();
            m_round = serial;
        }
    }
    void fold() const {
        m_num_readable = m_size - m_free;
        m_num_read = 0;
        m_num_written = 0;
    }

    PipelineClock& m_clock;
    std::vector<TileToken*> m_buf;
    std::size_t m_ri = 0, m_wi = 0;
    int m_size;
    int m_free;
    // What the other side sees, and this round's reads and writes (mutable:
    // settle() folds a past round's in when the inbox is next looked at).
    mutable int m_num_readable = 0;
    mutable int m_num_read = 0;
    mutable int m_num_written = 0;
    mutable std::uint64_t m_round = 0;  // decoupled: the round of m_num_read / m_num_written
    mutable std::unique_ptr<sc_core::sc_event> m_data_read;  // see event()
    mutable std::unique_ptr<sc_core::sc_event> m_data_written;
    // Decoupled: the one activity waiting on each side.
    Activity* m_reader = nullptr;
    Activity* m_writer = nullptr;
    mutable VcdValue<std::int32_t> m_fill{0};  // the VCD's fill()
    std::string m_owner;
    std::string m_label;
    TraceSink& m_trace;
    mutable TraceOrigin m_origin;  // its fill events' lane
};

// PipelineClock's inbox side (modules/pe/pipeline_clock.h).
inline void PipelineClock::inbox_changed(StageInbox& inbox, Activity*& other) {
    if (!m_cal) {
        inbox.request_update();
    } else if (other != nullptr) {
        m_cal->next_round(*other);
        other = nullptr;
    }
}
// (The caller has just found the inbox empty / full, in this round.) One
// waiter per side when decoupled: a decoupled PE has one reader and one
// writer per inbox (Decoupler::plan()).
inline void PipelineClock::resume_when_readable(StageInbox& inbox, Activity& a) {
    if (!m_cal)
        sc_core::next_trigger(inbox.data_written_event());
    else if (inbox.m_num_written > 0)
        m_cal->next_round(a);  // written in this round: readable in the next
    else
        inbox.m_reader = &a;
}
inline void PipelineClock::resume_when_writable(StageInbox& inbox, Activity& a) {
    if (!m_cal)
        sc_core::next_trigger(inbox.data_read_event());
    else if (inbox.m_num_read > 0)
        m_cal->next_round(a);  // read in this round: a slot in the next
    else
        inbox.m_writer = &a;
}

// What an engine block's stage workers reach the PE's inboxes through: the
// inbox of each StageType. (sc_fifo's own in / out ports allow one reader
// and one writer per FIFO; an inbox has several of each: the scheduler and
// every worker write it, a DMA direction's channels all read theirs.)
class StageInboxesIf : public virtual sc_core::sc_interface {
public:
    virtual TokenFifo& inbox(StageType type) = 0;
};

// An engine block's port to the PE's stage inboxes (its `inboxes`), shared by
// its workers. At the end of elaboration it keeps the eight inboxes it is
// bound to, so that taking and handing off a token (the hot path) is an
// index, not a virtual call.
class StageInboxPort : public sc_core::sc_port<StageInboxesIf> {
public:
    explicit StageInboxPort(const char* name) : sc_core::sc_port<StageInboxesIf>(name) {}

    // The inbox of `type`, and their PE's time base; valid from the end of
    // elaboration on.
    TokenFifo& operator[](StageType type) const { return *m_inbox[static_cast<std::size_t>(type)]; }
    PipelineClock& clock() const { return *m_clock; }

protected:
    void end_of_elaboration() override {
        sc_core::sc_port<StageInboxesIf>::end_of_elaboration();
        for (std::size_t i = 0; i < stage_type_count; ++i)
            m_inbox[i] = &(*this)->inbox(static_cast<StageType>(i));
        m_clock = &m_inbox[0]->clock();
    }

private:
    std::array<TokenFifo*, stage_type_count> m_inbox{};
    PipelineClock* m_clock = nullptr;
};

// The eight inboxes, made under the module being constructed and named
// after their stage (dma_read_inbox, fetch_inbox, ...), and the time base
// the PE's pipeline runs on (per stage until the Decoupler decouples it).
// The PE owns one; a bench without a PE owns its own.
class StageInboxes : public StageInboxesIf {
public:
    // `owner` is the PE's id (the inbox_fill events' node).
    StageInboxes(const std::string& owner, int depth, TraceSink& trace) {
        for (std::size_t i = 0; i < stage_type_count; ++i) {
            std::string name = to_string(static_cast<StageType>(i));
            for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            name += "_inbox";
            m_fifos[i] = std::make_unique<StageInbox>(name.c_str(), depth, owner, trace, m_clock);
        }
    }

    TokenFifo& inbox(StageType type) override { return fifo(type); }
    StageInbox& fifo(StageType type) const { return *m_fifos[static_cast<std::size_t>(type)]; }
    PipelineClock& clock() { return m_clock; }

private:
    PipelineClock m_clock;
    std::array<std::unique_ptr<StageInbox>, stage_type_count> m_fifos;
};

}  // namespace npuvp
