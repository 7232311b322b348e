// PE_SCHEDULER (seed 000 §D1–§D3, §D5.1, §D6; SPEC §5): the PE's only
// dispatcher and the only writer of completion state.
//  - SubmissionQueue: commands PE_CPU submits (they arrive over the
//    cpu -> scheduler link); the dispatch process takes them in order.
//  - InflightTable: the InflightCommand of every command submitted and not
//    yet complete.
//  - CompletionQueue: one record per completed command, written only by the
//    completion process (checked at run time).
// Simple commands become one-token commands put straight into their engine's
// inbox (overhead_ns per dispatch). Composites go to the one feed loop, which
// feeds their tiles in submission order, one command's tiles before the next
// command's; for each tile it waits for reserved-TCM space (input buffer, and
// output buffer on a last K-step) and for room in the first stage's inbox,
// adding overhead_ns per tile, while the dispatch process goes on. A tile's
// buffers are freed when the tile completes, after its DMA_WRITE.
#pragma once

#include <cstdint>
#include <array>
#include <deque>
#include <list>
#include <memory>
#include <optional>
#include <vector>

#include "modules/common/config.h"
#include "modules/common/lazy_event.h"
#include "modules/common/run_status.h"
#include "modules/common/timed_inbox.h"
#include "modules/common/trace.h"
#include "modules/common/vcd_value.h"
#include "modules/pe/command.h"
#include "modules/pe/context_scheduler.h"
#include "modules/pe/pipeline_clock.h"
#include "modules/pe/stage_inboxes.h"
#include "modules/pe/stage_worker.h"
#include "modules/pe/tcm_partition.h"
#include "modules/pe/tile_plan.h"
#include "modules/pe/tile_token.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

// What PE_CPU asks of PE_SCHEDULER (its `scheduler` port).
class CommandCompletion : public virtual sc_core::sc_interface {
public:
    // The program PE_CPU will run: sizes the per-command completion state.
    virtual void prepare(const Kernel& kernel) = 0;
    // Whether command `index` of the program has completed; the event is
    // notified whenever one does.
    virtual bool complete(std::uint32_t index) const = 0;
    virtual const sc_core::sc_event& completion_event() const = 0;
};

// Whether an engine could begin a token now (the PE answers for its workers):
// PE_SCHEDULER asks when it dispatches a simple command (seed 002: a wait for
// an engine is a recorded `resource` wait).
class EngineState : public virtual sc_core::sc_interface {
public:
    virtual bool engine_free(StageType type) const = 0;
};

class PeScheduler : public RoutedNode,
                    public CompletionSink,
                    public BankMonitor,
                    public CommandCompletion {
public:
    // Parameters
    const PeSchedulerConfig& config;

    // Ports: the PE's stage inboxes, bound in StageType order (a simple
    // command's one token, a composite's tiles, go to their first stage's).
    sc_core::sc_port<TokenOutIf, stage_type_count> inboxes;
    // The engines' state (optional: unbound, every engine counts as free).
    sc_core::sc_port<EngineState, 1, sc_core::SC_ZERO_OR_MORE_BOUND> engines;

    struct CompletionRecord {
        const Command* command;
        std::uint64_t seq;
        std::uint64_t tiles;
        sc_core::sc_time submitted;  // arrival at the scheduler
        sc_core::sc_time started;    // dispatched: first token handed to an engine
        sc_core::sc_time finished;
        sc_core::sc_time waited[wait_cause_count];  // submitted -> started, by cause
        WaitCause gated_cause;   // the last cause it waited for (none: never waited)
        std::int64_t gated_by;   // seq of the command it waited for last, or -1
    };

    PeScheduler(const sc_core::sc_module_name& name, const PeSchedulerConfig& config,
                const PeTcmConfig& tcm, const PeDmaConfig& dma, TraceSink& trace,
                RunStatus& status);
    const char* kind() const override { return "pe_scheduler"; }

    // Elaboration: the PA of the PE's own HBM slice, which DMA sides a
    // workload leaves out default to (SPEC §3 T2).
    void set_home_pa(std::uint64_t home_pa) { m_home_pa = home_pa; }
    // Where the shared-SRAM window starts: a composite's physical addresses
    // from there on are `sram` ranges for hazards, below it `hbm` ones.
    void set_sram_base(std::uint64_t sram_base) { m_sram_base = sram_base; }

    // CommandCompletion
    void prepare(const Kernel& kernel) override;
    bool complete(std::uint32_t index) const override { return m_complete.at(index) != 0; }
    const sc_core::sc_event& completion_event() const override { return m_completed.kernel_event(); }

    // Read-only views for reports.
    const std::vector<CompletionRecord>& completions() const { return m_completions; }
    const std::vector<InflightCommand*>& inflight() const { return m_inflight; }
    std::uint64_t reserved_peak() const { return m_reserved_peak; }
    std::uint64_t tiles_fed() const { return m_tiles_fed; }
    // Activations of the feed loop and of the completion process (both
    // SC_METHODs; docs/speed.md).
    std::uint64_t activations() const { return m_activations; }
    const ReservedTcm& reserved() const { return m_reserved; }

    // Its feed loop and the freeing of tile buffers run on the PE's
    // PipelineClock (the inboxes' it is bound to; docs/architecture.md "The
    // decoupled pipeline"): decoupled when the clock is.
    bool decoupled() const { return m_clock->decoupled(); }

    // VCD: tiles in flight, reserved-TCM bytes in use, and per context
    // (main / sub / dma) the dispatch sequence number of the running command
    // (-1 idle, which the written VCD shows as z: report/vcd_finish.h).
    // (Through `clock`: its PE's PipelineClock, modules/common/vcd_value.h.)
    void add_traces(sc_core::sc_trace_file* tf, VcdClock& clock) const;

    // BankMonitor (seed 002: main starves sub)
    bool sub_stalled(const InflightCommand& sub) const override {
        return m_context_scheduler.sub_stalled(sub);
    }
    const sc_core::sc_event& bank_event() const override { return m_bank_event.kernel_event(); }

protected:
    // Keeps the inboxes its port is bound to, and their clock.
    void end_of_elaboration() override;
    // A submission from PE_CPU; it arrives after the link delay.
    void serve(tlm::tlm_generic_payload& payload, NpuExtension& ext,
               sc_core::sc_time& delay) override;

private:
    void receive_step();
    void dispatch_step();
    void dispatch(InflightCommand& cmd);
    void report_bank_violation(const InflightCommand& cmd, const std::string& violation);
    void dispatch_to_engine(InflightCommand& cmd);
    // A tile of an earlier command is due in the inbox `cmd` goes to, now.
    bool feed_writes_now(const InflightCommand& cmd) const;
    void add_composite_ranges(InflightCommand& cmd) const;
    void add_dma_range(InflightCommand& cmd) const;
    void note_wait(InflightCommand& cmd, const WaitInfo& wait);
    // The feed loop, as a method (docs/speed.md): one activation per wait of
    // the seed's _feed_loop (next command, TCM space, the per-tile overhead,
    // room in the first stage's inbox).
    void feed_step();
    // One per stage type: writes the simple commands' tokens that found the
    // stage's inbox full, oldest first, as slots free (a method).
    void drain_blocked(std::size_t type);
    void record_completions();
    void tile_completed(TileToken& token) override;
    void stage_waits(TileToken& token, const char* resource) override;
    void stage_granted(TileToken& token) override;

    // The pipeline's time: a decoupled PE's local time while its calendar
    // runs it, else the kernel's.
    sc_core::sc_time now() const { return m_clock->now(); }
    // seed 000 §D5.1: the buffers of tiles completed in a round are freed at
    // its end (SPEC T4: a freed buffer is a hand-off, which the feeder sees
    // in the next round, whatever the order the round's processes ran in).
    void free_buffers();

    TileToken& take_token();
    void start_command(InflightCommand& cmd);
    void build_simple_plan(const Command& command, TilePlan& plan) const;

    TraceSink& m_trace;
    TraceOrigin m_origin;  // the lane "" of its feed loop's events (tile counts, reserved TCM)
    RunStatus& m_status;
    const sc_core::sc_time m_overhead;  // overhead_ns, per dispatch and per tile fed
    ReservedTcm m_reserved;

    TimedInbox<const Command*> m_submissions;  // SubmissionQueue
    // One per dispatched command, stable addresses (a list, not a deque: a
    // deque allocates when it is made, and most PEs of a large machine get
    // no command).
    std::list<InflightCommand> m_commands;
    std::vector<InflightCommand*> m_inflight;  // InflightTable
    std::vector<CompletionRecord> m_completions;  // CompletionQueue
    std::vector<char> m_complete;               // by command index
    ContextScheduler m_context_scheduler;
    std::vector<InflightCommand*> m_waiting;  // simple commands not yet dispatched, in order
    // Scratch of the dispatch pass: a member, not a local of a thread that
    // never returns (whose heap memory LeakSanitizer would report at exit).
    std::vector<InflightCommand*> m_waiting_before;
    InflightCommand* m_dispatching = nullptr;  // dispatched, its overhead running
    // It waits for the feed loop's tile due in its inbox at this instant
    // (feed_writes_now()), until the feed loop has tried it (m_fed).
    bool m_dispatch_waits_feed = false;
    PipelineSignal m_fed;
    // The events are made at their first use (LazyEvent), in the simulation.
    PipelineSignal m_reschedule;  // a dispatch pass is due (a command arrived or completed)
    PipelineSignal m_bank_event;  // (per stage only: nothing stalls decoupled)
    std::list<InflightCommand*> m_pending_feeds;
    PipelineSignal m_feed_ready;  // a composite to feed
    enum class FeedPhase { next_command, next_tile, alloc, slot, overhead, write };
    FeedPhase m_feed_phase = FeedPhase::next_command;
    std::optional<TilePlanner> m_planner;  // of the command being fed
    TileToken* m_feed_token = nullptr;
    bool m_feed_first = false;
    ps_t m_feed_due_ps = 0;  // decoupled, FeedPhase::slot: when the tile's overhead ends
    ps_t m_feed_write_ps = 0;  // FeedPhase::overhead: when it ends (the tile's write)
    // Simple commands' tokens dispatched while their first stage's inbox was
    // full, by stage type: they take the next free slots before the feeder's
    // tiles do, and dispatch goes on with other contexts meanwhile. Made with
    // the method that drains them (drain_blocked()) at a type's first such
    // token: most PEs never have one.
    struct Blocked {
        Blocked(PeScheduler& s, std::size_t type) : drain(s, type) {}
        std::deque<TileToken*> tokens;
        sc_core::sc_event added;  // per stage: the drain method's static sensitivity
        PipelineSignal drained;
        struct Drain final : Activity {
            Drain(PeScheduler& s, std::size_t type) : owner(s), type(type) { set_may_be_kernel_visible(false); }
            void activate() override { owner.drain_blocked(type); }
            PeScheduler& owner;
            std::size_t type;
        } drain;  // the drain as an activity of the clock
    };
    std::array<std::unique_ptr<Blocked>, stage_type_count> m_blocked;
    bool blocked(std::size_t type) const { return m_blocked[type] && !m_blocked[type]->tokens.empty(); }
    void block(std::size_t type, TileToken& token);
    std::vector<InflightCommand*> m_done;
    sc_core::sc_event m_done_event;  // record_completions()'s static sensitivity
    PipelineSignal m_completed;  // commands completed (PE_CPU waits on its kernel event too)
    PipelineSignal m_tcm_freed;
    sc_core::sc_process_handle m_completion_process;
    // Buffers of the tiles completed this round, freed at its end.
    struct BufferFrees final : PipelineCommit {
        explicit BufferFrees(PeScheduler& s)
            : PipelineCommit(sc_core::sc_gen_unique_name("buffer_frees")), owner(s) {}
        void commit() override { owner.free_buffers(); }
        PeScheduler& owner;
    };
    BufferFrees m_buffer_frees{*this};
    std::vector<std::uint64_t> m_freeing;
    // The time base, the inboxes (what `inboxes` is bound to: written
    // directly, without the port's virtual call), and the feed loop as an
    // activity of the clock.
    struct FeedActivity final : Activity {
        // Never kernel-visible: a fed tile completes nothing.
        explicit FeedActivity(PeScheduler& s) : owner(s) { set_may_be_kernel_visible(false); }
        void activate() override { owner.feed_step(); }
        PeScheduler& owner;
    };
    PipelineClock* m_clock = nullptr;
    std::array<StageInbox*, stage_type_count> m_inbox{};
    FeedActivity m_feed{*this};
    // The dispatch pass (dispatch_step()) as an activity of the clock.
    struct DispatchActivity final : Activity {
        // A dispatch completes nothing: a command's end is its last stage's.
        explicit DispatchActivity(PeScheduler& s) : owner(s) { set_may_be_kernel_visible(false); }
        void activate() override { owner.dispatch_step(); }
        PeScheduler& owner;
    };
    DispatchActivity m_dispatch{*this};

    std::vector<std::unique_ptr<TileToken>> m_tokens;  // the pool
    std::vector<TileToken*> m_free_tokens;
    std::uint64_t m_home_pa = 0;
    std::uint64_t m_sram_base = UINT64_MAX;
    std::uint64_t m_next_seq = 0;
    std::uint64_t m_tiles_fed = 0;
    std::uint64_t m_activations = 0;
    std::uint64_t m_panel_buf = 0;  // the operand panel of the command being fed
    // Operand panels followed token by token (tile_token.h), on a PE with
    // more than one read channel. With one, DMA_READs and FETCHes keep the
    // feed order: a panel tile is loaded before a token uses it, and the
    // panel_last token fetches last. Pooled: made once, reused.
    struct Panel {
        std::uint64_t buf = 0;
        std::uint64_t users = 0;  // its tokens fed and not yet completed
        bool all_fed = false;     // its panel_last token was fed
        std::vector<std::uint8_t> loaded;  // by ki: its loader's DMA_READ has ended
        PipelineSignal signal;    // a tile of it was loaded
    };
    bool m_track_panels = false;
    bool m_feed_panels = false;  // the command being fed: m_track_panels, or B resident in TCM
    Panel* m_feed_panel = nullptr;  // of the command being fed
    std::vector<std::unique_ptr<Panel>> m_panel_pool;
    std::vector<Panel*> m_free_panels;
    void join_panel(TileToken& token, const InflightCommand& cmd);
    // At its token's completion: true when that frees the panel's buffer.
    bool leave_panel(TileToken& token);
    std::uint64_t m_reserved_peak = 0;
    // VCD shadow state
    std::int32_t m_tiles_in_flight = 0;
    std::uint64_t m_reserved_in_use = 0;
    std::int32_t m_running[exec_context_count] = {-1, -1, -1};
    // The VCD's copies of the three above (set only when traced).
    mutable VcdValue<std::int32_t> m_vcd_tiles_in_flight{0};
    mutable VcdValue<std::uint64_t> m_vcd_reserved_in_use{0};
    mutable VcdValue<std::int32_t> m_vcd_running[exec_context_count]{
        VcdValue<std::int32_t>{-1}, VcdValue<std::int32_t>{-1}, VcdValue<std::int32_t>{-1}};
    void show_tiles() {
        if (!m_vcd_tiles_in_flight.traced()) return;
        m_vcd_tiles_in_flight.set(m_tiles_in_flight);
        m_vcd_reserved_in_use.set(m_reserved_in_use);
    }
    void show_running(std::size_t context) { m_vcd_running[context].set(m_running[context]); }
};

}  // namespace npuvp
