// The one place that chains pipeline stages (seed 000 §D6 "_pipeline_worker"):
// a worker takes a token from its inbox, does its stage (process(), the only
// thing an engine implements), and puts the token into the inbox of the next
// stage in the token's plan, or completes the tile after the last stage.
// Consecutive stages the same worker handles (a MATH epilogue after a MATH
// epilogue) run on it without re-entering its inbox (SPEC §3 T3).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <systemc>

#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/pe/tile_token.h"

namespace npuvp {

using TokenFifo = sc_core::sc_fifo<TileToken*>;

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
    const int& fill() const { return m_fill; }

private:
    void emit() {
        m_trace.emit({sc_core::sc_time_stamp().value(), "inbox_fill", &m_owner, -1, -1,
                      m_label.c_str(), nullptr, m_fill});
    }

    int m_fill = 0;
    std::string m_owner;
    std::string m_label;
    TraceSink& m_trace;
};

// The PE's stage inboxes, indexed by StageType; owned by the PE (its
// elaborator), shared by every worker of the PE.
using StageInboxes = std::array<TokenFifo*, stage_type_count>;

class StageWorker {
public:
    StageWorker(const std::string& owner_id, StageType type, TraceSink& trace, RunStatus& status)
        : m_owner_id(owner_id), m_type(type), m_trace(trace), m_status(status) {}
    virtual ~StageWorker() = default;

    // Elaboration: where tokens come from and go to.
    void connect(const StageInboxes& inboxes) { m_inboxes = &inboxes; }

    // The worker's process body (spawned by its module).
    void run();

    StageType type() const { return m_type; }
    // Statistics: busy time (grant of its resource to done) and stages done.
    sc_core::sc_time busy() const { return m_busy; }
    std::uint64_t stages_done() const { return m_stages; }

    // Shadow state for the VCD: busy, and the command / tile it works on (-1 idle).
    void add_traces(sc_core::sc_trace_file* tf, const std::string& prefix) const;

protected:
    // Does the token's current stage; may wait. Adds its busy interval with
    // record_busy() and traces its start and end with trace_engine().
    virtual void process(TileToken& token) = 0;
    // Whether this worker also runs stages of type `next` (chaining in place).
    virtual bool handles(StageType next) const { return next == m_type; }

    // Traces engine_start (start) or engine_complete and keeps the VCD shadow
    // state in step.
    void trace_engine(bool start, const TileToken& token, std::int64_t bytes = -1,
                      const std::string* peer = nullptr) const;
    void record_busy(const sc_core::sc_time& start) {
        m_busy += sc_core::sc_time_stamp() - start;
        ++m_stages;
    }
    RunStatus& status() { return m_status; }
    const std::string& owner_id() const { return m_owner_id; }

private:
    void take(TileToken& token);
    void hand_off(TileToken& token);

    const std::string& m_owner_id;
    StageType m_type;
    TraceSink& m_trace;
    RunStatus& m_status;
    const StageInboxes* m_inboxes = nullptr;
    sc_core::sc_time m_busy;
    std::uint64_t m_stages = 0;
    // engine_start / engine_complete keep these in step with the trace.
    mutable bool m_active = false;
    mutable std::int32_t m_cmd = -1;
    mutable std::int32_t m_tile = -1;
};

// Starts `worker.run()` as a thread process named `name` under the module
// being constructed (call from a module constructor).
void spawn_worker(StageWorker& worker, const char* name);

}  // namespace npuvp
