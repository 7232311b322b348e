// The one place that chains pipeline stages (seed 000 §D6 "_pipeline_worker"):
// a worker takes a token from its inbox, does its stage, and puts the token
// into the inbox of the next stage in the token's plan, or completes the tile
// after the last stage. Consecutive stages the same worker handles (a MATH
// epilogue after a MATH epilogue) run on it without re-entering its inbox
// (SPEC §3 T3).
//
// An engine writes its stage in one of two ways (docs/architecture.md, "The
// PE pipeline"; docs/speed.md):
// - MethodStageWorker, for a stage of fixed shape (wait, take a resource, be
//   busy, end): six hooks, run as an SC_METHOD;
// - ThreadStageWorker, for an engine that blocks mid-stage (an RTL engine,
//   clocked until its RTL says done): one hook, process(), run as an
//   SC_THREAD.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "modules/common/fifo_resource.h"
#include "modules/common/request_round.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/common/vcd_value.h"
#include "modules/pe/pipeline_clock.h"
#include "modules/pe/stage_inboxes.h"
#include "modules/pe/tile_token.h"

namespace npuvp {

class Hop;

// A DMA engine's busy time in its parts (docs/outputs.md "What bound a
// layer"): per stage, its route's start-up (the channel's setup and every
// hop's latency), its transfer (the bytes at the route's slowest hop, or a
// pattern's engine time when longer), and the rest, waiting behind transfers
// that reserved a hop first. Transfer and wait are kept per hop too.
struct DmaTimeSplit {
    struct PerHop {
        const Hop* hop = nullptr;
        std::uint64_t transfer_ps = 0, wait_ps = 0;
    };
    std::uint64_t startup_ps = 0, transfer_ps = 0, wait_ps = 0;
    std::vector<PerHop> hops;  // in first-seen order

    // What happened since `before` (an earlier copy of the same engine's).
    DmaTimeSplit since(const DmaTimeSplit& before) const;
    // since()'s hops, appended to `out` (which may hold other hops: a list
    // kept across calls allocates nothing once it has grown).
    void hops_since(const DmaTimeSplit& before, std::vector<PerHop>& out) const;
};

// An engine's busy time so far (PE_CPU's `dma` and `compute` ports: the
// dma_ns and compute_ns of a kernel's response), and a DMA engine's split.
class BusyTime : public virtual sc_core::sc_interface {
public:
    virtual sc_core::sc_time total_busy() const = 0;
    virtual const DmaTimeSplit* time_split() const { return nullptr; }
};

// What every stage worker shares: the chaining loop's bookkeeping (one owner
// per token, hand-off to the next stage's inbox, completion after the last
// stage), statistics and tracing. An engine never derives from it directly:
// it derives from MethodStageWorker or ThreadStageWorker below and writes
// exactly the hooks that base lists.
class StageWorker {
public:
    virtual ~StageWorker() = default;

    // Starts the worker's process, named `name`, under the module being
    // constructed (call from a module constructor): an SC_METHOD for a
    // MethodStageWorker, an SC_THREAD for a ThreadStageWorker (made at its
    // first token).
    virtual void spawn(const char* name) = 0;

    StageType type() const { return m_type; }
    // Whether it holds a token (from taking it to handing it on or completing it).
    bool holding() const { return m_holding; }
    // Statistics: busy time (grant of its resource to done) and stages done.
    sc_core::sc_time busy() const { return sc_core::sc_time::from_value(m_busy_ps); }
    std::uint64_t stages_done() const { return m_stages; }
    // Method mode: how many times the kernel ran step() (each a process
    // activation; docs/speed.md). A thread-mode worker counts 0.
    std::uint64_t activations() const { return m_activations; }

    // Shadow state for the VCD: busy, and the command / tile it works on (-1
    // idle, which the written VCD shows as z: report/vcd_finish.h).
    // (Through `clock`: its PE's PipelineClock, modules/common/vcd_value.h.)
    void add_traces(sc_core::sc_trace_file* tf, const std::string& prefix, VcdClock& clock) const;

    // SPEC T4: who this worker is among the requesters of a round: its PE's
    // rank in (sip, cube, pe) order (set by the platform, 0 for a block
    // alone) and its unit within the engine (a DMA channel's index).
    void set_rank(std::uint32_t node) { m_rank = node; }
    std::uint32_t rank() const { return m_rank; }
    void set_unit(std::uint32_t unit) { m_unit = unit; }
    // The key of a request this worker makes for `token` (docs/timing.md T4).
    RequestKey request_key(const TileToken& token) const;


protected:
    // `inboxes` is its block's port to the PE's stage inboxes: where tokens
    // come from (the inbox of `type`) and go to (the next stage's).
    StageWorker(const std::string& owner_id, StageType type, StageInboxPort& inboxes,
                TraceSink& trace, RunStatus& status)
        : m_owner_id(owner_id),
          m_type(type),
          m_inboxes(inboxes),
          m_trace(trace),
          m_status(status),
          m_origin(&owner_id, to_string(type)) {}

    // Traces engine_start (start) or engine_complete and keeps the VCD shadow
    // state in step.
    void trace_engine(bool start, const TileToken& token, std::int64_t bytes = -1,
                      const std::string* peer = nullptr) const {
        if (m_shadowed || m_trace.enabled()) emit_engine(start, token, bytes, peer);
    }
    void record_busy(ps_t start) {
        m_busy_ps += now_ps() - start;
        ++m_stages;
    }
    void record_busy(const sc_core::sc_time& start) { record_busy(start.value()); }
    // The PE's time base (modules/pe/pipeline_clock.h): the pipeline's time
    // (in ps for the hot paths), the kernel's, and how far the pipeline's
    // is ahead of it (a transport's start). Valid in the simulation.
    PipelineClock& clock() const { return *m_clock; }
    sc_core::sc_time now() const { return clock().now(); }
    ps_t now_ps() const { return clock().now_ps(); }
    ps_t kernel_ps() const { return clock().kernel_ps(); }
    ps_t local_offset_ps() const { return clock().offset_ps(); }
    RunStatus& status() { return m_status; }
    const std::string& owner_id() const { return m_owner_id; }
    // Stops the run on an error in `token`'s stage (a target's error
    // response, an Overflow of its times or counts): the diagnosis names
    // this engine (its PE) and the command.
    void fail_stage(const TileToken& token, const std::string& message);
    // Stops the run on an error of this engine, at the pipeline's time.
    void fail(const std::string& message) { m_status.fail(m_owner_id, message, now()); }

private:
    // The chaining, for the two bases' loops only (friends), not for engines.
    friend class MethodStageWorker;
    friend class ThreadStageWorker;
    TokenFifo& inbox(StageType type) const { return m_inboxes[type]; }
    // seed 000 §D6: a token has exactly one owner at a time (checked in
    // every build; the report is out of line).
    void take(TileToken& token) {
        if (token.owner != nullptr) report_ownership("took a token that another stage still owns");
        token.owner = this;
        m_holding = true;
    }
    // After a stage: whether the token's next stage stays here (consecutive
    // stages of this worker's type chain in place), is elsewhere (the token is
    // handed off; put it into that stage's inbox), or the tile is completed.
    enum class Next { here, elsewhere, completed };
    Next advance(TileToken& token);
    bool failed() const { return m_status.failed(); }
    void note_activation() { ++m_activations; }
    void hand_off(TileToken& token) {
        if (token.owner != this) report_ownership("handed off a token it does not own");
        token.owner = nullptr;
        m_holding = false;
    }
    [[gnu::cold]] void report_ownership(const char* what) const;

    // Its PE's time base: the inboxes' (kept at the process's first run,
    // once the port is bound; keep_clock()).
    void keep_clock() { m_clock = &m_inboxes.clock(); }

    const std::string& m_owner_id;
    PipelineClock* m_clock = nullptr;
    StageType m_type;
    StageInboxPort& m_inboxes;
    TraceSink& m_trace;
    RunStatus& m_status;
    bool m_holding = false;
    std::uint32_t m_rank = 0;
    std::uint32_t m_unit = 0;
    ps_t m_busy_ps = 0;
    std::uint64_t m_stages = 0;
    std::uint64_t m_activations = 0;
    void emit_engine(bool start, const TileToken& token, std::int64_t bytes,
                     const std::string* peer) const;
    // engine_start / engine_complete keep these in step with the trace,
    // once the VCD traces them (m_shadowed).
    mutable bool m_shadowed = false;
    mutable TraceOrigin m_origin;  // its engine events' lane
    mutable VcdValue<bool> m_active{false};
    mutable VcdValue<std::int32_t> m_cmd{-1};
    mutable VcdValue<std::int32_t> m_tile{-1};
};

// The base of an engine whose stage is "wait a fixed time, take a resource,
// be busy for a time known at the grant, possibly stretched by stalls" (T3):
// PE_DMA read / write, FETCH, STORE, GEMM, MATH. It runs as an SC_METHOD (no
// stack, no context switch; docs/speed.md): step() calls the hooks below in
// this order for each stage and waits with next_trigger() exactly where a
// thread would call wait(), so the times are those of a thread.
//
// SPEC T4: the resource and the hook begin_stage() (where an engine makes its
// T1 reservations) are not taken while the method runs: the method asks the
// RequestRound, which serves the round's requests in key order at the end
// of the round (serve_round()); the method is woken at the end of its busy
// time. A unit handed over by the resource's release is taken up the same
// way, so a queued worker is not woken for its grant at all.
class MethodStageWorker : public StageWorker, private RoundRequester, private Activity {
public:
    void spawn(const char* name) override;
    // The process body (public for a test harness that spawns it itself).
    void step();
    // A stage begun with defer_end() (below) ends `delay` from now (any
    // process may call it, once per deferred stage).
    void end_stage_after(const sc_core::sc_time& delay);

protected:
    using StageWorker::StageWorker;

    // The hooks, in the order step() calls them for one stage:
    // 1. a fixed time to wait before anything else (e.g. an MMU translation);
    virtual sc_core::sc_time pre_delay(const TileToken&) { return sc_core::SC_ZERO_TIME; }
    // 2. work after it, before the resource (false: the run has failed, or
    //    the stage waits and the hook arranged to be woken, e.g. with
    //    panel_tile_loaded(); then step() runs it again);
    virtual bool prepare_stage(TileToken&) { return true; }
    // 3. the resource to hold for the stage (granted in request order), if any;
    virtual FifoResource* stage_resource(const TileToken&) { return nullptr; }
    //    An engine whose stage_resource() is the same for every token (the
    //    builtin ones: a DMA channel, the accel slot, none) says so, and it
    //    is asked once.
    virtual bool fixed_resource() const { return false; }
    // 4. at the grant: trace the start, reserve hops; returns the busy time
    //    in ps in `time` (false: the run has failed). (In ps, not sc_time:
    //    sc_time::from_value() is a call into the library, on the hot path.)
    virtual bool begin_stage(TileToken& token, ps_t& time) = 0;
    // 5. an event that may stall the stage (its time does not run while
    //    stalled(token)); nullptr: never stalls;
    virtual const sc_core::sc_event* stall_event(const TileToken&) const { return nullptr; }
    virtual bool stalled(const TileToken&) const { return false; }
    // 6. at the end of the busy time, before the resource is released:
    //    record_busy(stage_start()) and trace the end.
    virtual void end_stage(TileToken& token) = 0;

    // From prepare_stage(): whether `token`'s operand panel tile is loaded
    // (token.panel_ready, tile_token.h); if not, the method waits for the
    // panel's signal.
    [[gnu::cold, gnu::noinline]] bool panel_tile_loaded(TileToken& token);
    // From prepare_stage(), when the stage cannot go on yet (a peer's data,
    // ring credit): step() runs prepare_stage() again in the round after
    // `s` is next signalled. Returns false, for prepare_stage() to return.
    bool wait_for(PipelineSignal& s);

    // The grant time of the stage step() is running.
    ps_t stage_start() const { return m_stage_start; }

    // From begin_stage(): the busy time is not known at the grant (a TLM
    // target that answers later, TlmMemoryAdapter); the engine calls
    // end_stage_after() once it is. The sync path pays nothing for it.
    void defer_end() { m_defer_end = true; }

private:
    // The round's part of a stage: take the resource (or queue for it) and
    // begin the stage, in the update phase, in key order.
    void serve_round() override;
    // Activity (decoupled): the calendar runs step(); a busy stage whose end
    // completes its command's last tile notifies the scheduler's completion
    // process, so it ends only in step with the kernel.
    void activate() override { step(); }
    bool kernel_visible() const override;
    // step()'s phases of a stage that may stall (per stage only; the
    // Decoupler keeps a PE whose commands may stall per stage): false
    // when it waits, true when the stage goes on (m_phase says where).
    [[gnu::noinline]] bool step_stalling();


    // step()'s state: where the method resumes when next triggered.
    enum class Phase { start, idle, pre, prepare, acquire, asked, queued, deferred, busy, check, stalled_busy, end, out };
    Phase m_phase = Phase::start;
    std::string m_process_name;
    TileToken* m_token = nullptr;
    FifoResource* m_resource = nullptr;
    FifoResource::Waiter m_waiter;
    sc_core::sc_event m_grant_event;
    ps_t m_stage_start = 0;
    ps_t m_busy_ps = 0;  // begin_stage_ps()'s busy time of the stage
    FifoResource* m_fixed_resource = nullptr;  // stage_resource(), once asked when fixed_resource()
    bool m_resource_known = false;
    sc_core::sc_time m_remaining;  // what is left of it while it may stall
    sc_core::sc_time m_from;
    bool m_defer_end = false;
};

// The base of an engine that must block in the middle of a stage: an RTL
// engine (clocked until its RTL says done). It runs as an SC_THREAD around
// its one hook, process(). (IPCQ, which waits for ring credit or a peer's
// data before its stage, is a MethodStageWorker: prepare_stage() waits with
// wait_for().)
class ThreadStageWorker : public StageWorker {
public:
    void spawn(const char* name) override;
    // The process body (public for a test harness that spawns it itself).
    void run();

protected:
    using StageWorker::StageWorker;

    // The one hook: does the token's current stage; may wait. Adds its busy
    // interval with record_busy() and traces its start and end with
    // trace_engine().
    virtual void process(TileToken& token) = 0;

private:
    void start();  // makes the thread at the first token (spawn())
};

}  // namespace npuvp
