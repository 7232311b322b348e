// The one place that chains pipeline stages (seed 000 §D6 "_pipeline_worker"):
// a worker takes a token from its inbox, does its stage (process(), the only
// thing an engine implements), and puts the token into the inbox of the next
// stage in the token's plan, or completes the tile after the last stage.
// Consecutive stages the same worker handles (a MATH epilogue after a MATH
// epilogue) run on it without re-entering its inbox (SPEC §3 T3).
//
// Two ways to run a worker (docs/speed.md):
// - a thread (SC_THREAD) around process(), for engines that block in the
//   middle of a stage (IPCQ ring credit, the RTL engine's clock);
// - a method (SC_METHOD, no stack, no context switch) for engines whose stage
//   is "wait a fixed time, take a resource, be busy for a time computed at
//   the grant, possibly stretched by stalls" (T3). Such an engine overrides
//   the stage hooks (pre_delay ... end_stage) and method_mode(); step() runs
//   the hooks as a state machine that waits with next_trigger() exactly where
//   a thread would call wait(), so both give the same times.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <systemc>

#include "modules/common/fifo_resource.h"
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

    // The worker's process body (spawned by its module): run() as a thread,
    // step() as a method when method_mode().
    void run();
    void step();
    virtual bool method_mode() const { return false; }

    StageType type() const { return m_type; }
    // Statistics: busy time (grant of its resource to done) and stages done.
    sc_core::sc_time busy() const { return m_busy; }
    std::uint64_t stages_done() const { return m_stages; }
    // Method mode: how many times the kernel ran step() (each a process
    // activation; docs/speed.md). A thread-mode worker counts 0.
    std::uint64_t activations() const { return m_activations; }

    // Shadow state for the VCD: busy, and the command / tile it works on (-1 idle).
    void add_traces(sc_core::sc_trace_file* tf, const std::string& prefix) const;

protected:
    // Thread mode: does the token's current stage; may wait. Adds its busy
    // interval with record_busy() and traces its start and end with
    // trace_engine().
    virtual void process(TileToken& token);

    // Method mode, in the order step() calls them for one stage:
    // a fixed time to wait before anything else (e.g. an MMU translation);
    virtual sc_core::sc_time pre_delay(const TileToken&) { return sc_core::SC_ZERO_TIME; }
    // work after it, before the resource (false: the run has failed);
    virtual bool prepare_stage(TileToken&) { return true; }
    // the resource to hold for the stage (granted in request order), if any;
    virtual FifoResource* stage_resource(const TileToken&) { return nullptr; }
    // at the grant: trace the start, reserve hops; returns the busy time in
    // `time` (false: the run has failed);
    virtual bool begin_stage(TileToken& token, sc_core::sc_time& time);
    // an event that may stall the stage (its time does not run while
    // stalled(token)); nullptr: never stalls;
    virtual const sc_core::sc_event* stall_event(const TileToken&) const { return nullptr; }
    virtual bool stalled(const TileToken&) const { return false; }
    // at the end of the busy time, before the resource is released.
    virtual void end_stage(TileToken& token);
    // The grant time of the stage step() is running.
    const sc_core::sc_time& stage_start() const { return m_stage_start; }
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
    // After a stage: whether the token's next stage stays here; completes the
    // tile after its last stage. Returns the next stage type otherwise.
    enum class Next { here, elsewhere, completed };
    Next advance(TileToken& token);

    // step()'s state: where the method resumes when next triggered.
    enum class Phase { idle, pre, prepare, acquire, queued, begin, busy, check, stalled_busy, end, out };
    Phase m_phase = Phase::idle;
    TileToken* m_token = nullptr;
    FifoResource* m_resource = nullptr;
    FifoResource::Waiter m_waiter;
    sc_core::sc_event m_grant_event;
    sc_core::sc_time m_stage_start;
    sc_core::sc_time m_remaining;
    sc_core::sc_time m_from;

    const std::string& m_owner_id;
    StageType m_type;
    TraceSink& m_trace;
    RunStatus& m_status;
    const StageInboxes* m_inboxes = nullptr;
    sc_core::sc_time m_busy;
    std::uint64_t m_stages = 0;
    std::uint64_t m_activations = 0;
    // engine_start / engine_complete keep these in step with the trace.
    mutable bool m_active = false;
    mutable std::int32_t m_cmd = -1;
    mutable std::int32_t m_tile = -1;
};

// Starts `worker.run()` as a thread process named `name` under the module
// being constructed (call from a module constructor).
void spawn_worker(StageWorker& worker, const char* name);

}  // namespace npuvp
