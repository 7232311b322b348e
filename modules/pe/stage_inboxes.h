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

#include <systemc>

#include "modules/common/trace.h"
#include "modules/pe/tile_plan.h"
#include "modules/pe/tile_token.h"

namespace npuvp {

using TokenFifo = sc_core::sc_fifo<TileToken*>;

// What PE_SCHEDULER writes stage inboxes through (its `inboxes` port).
using TokenOutIf = sc_core::sc_fifo_out_if<TileToken*>;

// A stage inbox that keeps its fill level in a plain int the VCD can trace
// (tokens written and not yet read).
class CountingFifo : public TokenFifo {
public:
    // `owner` is the PE's id; every change of fill is traced as an
    // inbox_fill event (one branch when tracing is off).
    CountingFifo(const char* name, int depth, std::string owner, TraceSink& trace)
        : TokenFifo(name, depth), m_owner(std::move(owner)), m_label(name), m_trace(trace) {}
    using TokenFifo::read;
    void read(TileToken*& token) override {
        TokenFifo::read(token);
        --m_fill;
        emit();
    }
    void write(TileToken* const& token) override {
        TokenFifo::write(token);
        ++m_fill;
        emit();
    }
    bool nb_read(TileToken*& token) override {
        if (!TokenFifo::nb_read(token)) return false;
        --m_fill;
        emit();
        return true;
    }
    bool nb_write(TileToken* const& token) override {
        if (!TokenFifo::nb_write(token)) return false;
        ++m_fill;
        emit();
        return true;
    }
    const int& fill() const { return m_fill; }

private:
    void emit() {
        if (m_trace.enabled())
            m_trace.emit(trace::inbox_fill(sc_core::sc_time_stamp().value(), m_owner, m_label.c_str(),
                                           m_fill));
    }

    int m_fill = 0;
    std::string m_owner;
    std::string m_label;
    TraceSink& m_trace;
};

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

    // The inbox of `type`; valid from the end of elaboration on.
    TokenFifo& operator[](StageType type) const { return *m_inbox[static_cast<std::size_t>(type)]; }

protected:
    void end_of_elaboration() override {
        sc_core::sc_port<StageInboxesIf>::end_of_elaboration();
        for (std::size_t i = 0; i < stage_type_count; ++i)
            m_inbox[i] = &(*this)->inbox(static_cast<StageType>(i));
    }

private:
    std::array<TokenFifo*, stage_type_count> m_inbox{};
};

// The eight inboxes, made under the module being constructed and named
// after their stage (dma_read_inbox, fetch_inbox, ...). The PE owns one; a
// bench without a PE owns its own.
class StageInboxes : public StageInboxesIf {
public:
    // `owner` is the PE's id (the inbox_fill events' node).
    StageInboxes(const std::string& owner, int depth, TraceSink& trace) {
        for (std::size_t i = 0; i < stage_type_count; ++i) {
            std::string name = to_string(static_cast<StageType>(i));
            for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            name += "_inbox";
            m_fifos[i] = std::make_unique<CountingFifo>(name.c_str(), depth, owner, trace);
        }
    }

    TokenFifo& inbox(StageType type) override { return fifo(type); }
    CountingFifo& fifo(StageType type) const { return *m_fifos[static_cast<std::size_t>(type)]; }

private:
    std::array<std::unique_ptr<CountingFifo>, stage_type_count> m_fifos;
};

}  // namespace npuvp
