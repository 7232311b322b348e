// sc_spawn needs the dynamic-process API, asked for before any SystemC header.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "modules/pe/pe_scheduler.h"

#include <algorithm>

namespace npuvp {

PeScheduler::PeScheduler(const sc_core::sc_module_name& name, const PeSchedulerConfig& config,
                         const PeTcmConfig& tcm, const PeDmaConfig& dma, TraceSink& trace,
                         RunStatus& status)
    : RoutedNode(name),
      config(config),
      inboxes("inboxes"),
      m_trace(trace),
      m_origin(&node_id_ref(), nullptr),
      m_status(status),
      m_overhead(sc_core::sc_time::from_value(ns_to_ps(config.overhead_ns, "pe_scheduler.attrs.overhead_ns"))),
      m_reserved(tcm),
      m_context_scheduler(config, tcm, dma),
      m_track_panels(dma.rd_engines > 1) {
    SC_HAS_PROCESS(PeScheduler);
    // Methods, not threads: a thread's stack is a memory mapping of its own
    // (two with its guard page), and Linux allows 65,530 a process (issue 38).
    SC_METHOD(receive_step);
    SC_METHOD(dispatch_step);
    SC_METHOD(feed_step);
    SC_METHOD(record_completions);
    sensitive << m_done_event;
    dont_initialize();
    m_completion_process = sc_core::sc_get_current_process_handle();
}

void PeScheduler::add_traces(sc_core::sc_trace_file* tf, VcdClock& clock) const {
    m_vcd_tiles_in_flight.trace(tf, node_id_ref() + ".tiles_in_flight", m_tiles_in_flight, clock);
    m_vcd_reserved_in_use.trace(tf, node_id_ref() + ".reserved_tcm_bytes", m_reserved_in_use, clock);
    for (std::size_t c = 0; c < exec_context_count; ++c)
        m_vcd_running[c].trace(tf, node_id_ref() + "." + to_string(static_cast<ExecContext>(c)) + "_cmd",
                               m_running[c], clock);
}

void PeScheduler::prepare(const Kernel& kernel) {
    m_complete.assign(kernel.commands.size(), 0);
    m_completions.reserve(kernel.commands.size());
}

void PeScheduler::serve(tlm::tlm_generic_payload& payload, NpuExtension& ext,
                        sc_core::sc_time& delay) {
    m_submissions.push(static_cast<const Command*>(ext.body), delay);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

[[gnu::hot]] TileToken& PeScheduler::take_token() {
    if (m_free_tokens.empty()) {
        m_tokens.push_back(std::make_unique<TileToken>());
        return *m_tokens.back();
    }
    TileToken* token = m_free_tokens.back();
    m_free_tokens.pop_back();
    return *token;
}

void PeScheduler::end_of_elaboration() {
    RoutedNode::end_of_elaboration();
    for (std::size_t i = 0; i < stage_type_count; ++i) {
        m_inbox[i] = dynamic_cast<StageInbox*>(inboxes[static_cast<int>(i)]);
        if (m_inbox[i] == nullptr)
            SC_REPORT_FATAL("npuvp/invariant", (node_id() + ": inboxes not bound to a PE's StageInbox").c_str());
    }
    m_clock = &m_inbox[0]->clock();
}

void PeScheduler::start_command(InflightCommand& cmd) {
    cmd.started = now();
    // seed 002: main starves sub from when main's engine begins, not from
    // the dispatch decision (sub_stalled() asks `begun`). A decoupled PE
    // runs no sub-context command: nobody waits for the bank event.
    cmd.begun = true;
    m_clock->signal(m_bank_event);
}

void PeScheduler::build_simple_plan(const Command& c, TilePlan& plan) const {
    plan.tile_id = 0;
    plan.mi = plan.ni = plan.ki = 0;
    plan.last_k = plan.last_tile = true;
    plan.in_bytes = plan.out_bytes = 0;  // simple commands use AllocatableTCM, not tile buffers
    // A pooled token may last have carried a composite's operand panel: a
    // simple command neither takes nor frees one.
    plan.panel_bytes = 0;
    plan.panel_last = false;
    plan.stages.resize(1);
    Stage& s = plan.stages[0];
    s = Stage();
    s.command = true;
    s.type = simple_stage(c.kind);
    switch (c.kind) {
    case CommandKind::gemm: s.m = c.m; s.k = c.k; s.n = c.n; s.elem_bytes = c.elem_bytes; break;
    case CommandKind::math: s.elements = c.elements; s.op = c.op; s.elem_bytes = c.elem_bytes; break;
    case CommandKind::composite:
    case CommandKind::wait: break;  // never simple
    default: s.bytes = c.bytes; break;  // DMA, IPCQ, FETCH, STORE
    }
}

// seed 002: RAW / WAR / WAW apply to every command. A composite reads its
// operands A (M·K) and B (K·N) from src and writes C (M·N) to dst (docs/timing.md
// "Tile addresses"), or an operand from its TCM range when resident; a
// legacy one reads and writes total_bytes. On virtual
// addresses only its declared reads / writes count (the loader's ranges are
// physical). Its reserved-TCM tile buffers are the scheduler's own: no
// workload range can lie there (seed 000 D5.1).
void PeScheduler::add_composite_ranges(InflightCommand& cmd) const {
    const CompositeSpec& spec = cmd.command->composite;
    auto range = [&](const MemAddress& at, std::uint64_t bytes) {
        return MemRange{at.value >= m_sram_base ? MemSpace::sram : MemSpace::hbm, at.value, bytes};
    };
    if (spec.a_resident || spec.b_resident) {
        // An operand resident in TCM (a_tcm, b_tcm): its TCM range; the
        // other from memory (B at src_b, or at src when A is resident).
        if (spec.a_resident) cmd.reads.push_back(MemRange{MemSpace::tcm, spec.a_tcm, composite_a_bytes(spec)});
        else if (!cmd.read_addr.is_va) cmd.reads.push_back(range(cmd.read_addr, composite_a_bytes(spec)));
        if (spec.b_resident) cmd.reads.push_back(MemRange{MemSpace::tcm, spec.b_tcm, composite_b_bytes(spec)});
        else if (!cmd.read_b_addr.is_va) cmd.reads.push_back(range(cmd.read_b_addr, composite_b_bytes(spec)));
    } else if (spec.b_separate) {
        if (!cmd.read_addr.is_va) cmd.reads.push_back(range(cmd.read_addr, composite_a_bytes(spec)));
        if (!cmd.read_b_addr.is_va) cmd.reads.push_back(range(cmd.read_b_addr, composite_b_bytes(spec)));
    } else if (!cmd.read_addr.is_va) {
        cmd.reads.push_back(range(cmd.read_addr, composite_source_bytes(spec)));
    }
    if (!cmd.write_addr.is_va) cmd.writes.push_back(range(cmd.write_addr, composite_output_bytes(spec)));
}

// seed 002 (RAW / WAR / WAW on addresses; issue 39 point 5): a simple DMA's
// memory side is what it reads (dma_read) or writes (dma_write), as a
// composite's src / dst are: [addr, + bytes), a strided pattern's whole span.
// Declared `reads` / `writes` add to it. A virtual address is left out, as a
// composite's is (its pages are only known when translated).
void PeScheduler::add_dma_range(InflightCommand& cmd) const {
    const Command& c = *cmd.command;
    const MemAddress& at = c.kind == CommandKind::dma_read ? cmd.read_addr : cmd.write_addr;
    if (at.is_va || c.bytes == 0) return;
    std::uint64_t span = c.bytes;
    if (c.pattern.kind == DmaPatternKind::strided && c.pattern.chunks > 1)
        span = (c.pattern.chunks - 1) * c.pattern.stride + c.bytes / c.pattern.chunks;  // the loader bounded it
    const MemRange range{at.value >= m_sram_base ? MemSpace::sram : MemSpace::hbm, at.value, span};
    (c.kind == CommandKind::dma_read ? cmd.reads : cmd.writes).push_back(range);
}

void PeScheduler::receive_step() {
    const Command* submitted = nullptr;
    while (m_submissions.pop_ready(submitted)) {
        const Command& command = *submitted;
        InflightCommand& cmd = m_commands.emplace_back();
        cmd.reset(*this);
        cmd.command = &command;
        cmd.seq = m_next_seq++;
        cmd.submitted = sc_core::sc_time_stamp();
        const bool composite = command.kind == CommandKind::composite;
        // Every address the command's tokens use is physical or virtual from
        // here: an absent one is the PE's own slice, `own` an offset into it.
        const auto at = [&](const MemAddress& a) {
            return MemAddress{true, a.given && a.is_va, a.resolve(m_home_pa)};
        };
        const MemAddress& src = composite ? command.src : command.addr;
        const MemAddress& dst = composite ? command.dst : command.addr;
        cmd.read_addr = at(src);
        cmd.write_addr = at(dst);
        cmd.read_b_addr = composite && command.src_b.given ? at(command.src_b) : cmd.read_addr;
        cmd.reads = command.reads;
        cmd.writes = command.writes;
        if (composite) add_composite_ranges(cmd);
        else if (command.kind == CommandKind::dma_read || command.kind == CommandKind::dma_write)
            add_dma_range(cmd);
        m_inflight.push_back(&cmd);
        m_trace.emit(trace::command_submitted(cmd.submitted.value(), node_id_ref(),
                                              static_cast<std::int64_t>(cmd.seq),
                                              to_string(command.kind), command.id));
        if (composite) {
            // Behind another composite still being fed, it waits for the feed
            // loop (issue 39: every wait has a cause), naming the one ahead;
            // its turn's hazard check (feed_step()) ends the wait.
            if (!m_pending_feeds.empty()) {
                InflightCommand& ahead = *m_pending_feeds.back();
                note_wait(cmd, ContextScheduler::wait_on(WaitCause::feed, WaitKey::Form::feed_behind, &ahead));
            }
            m_pending_feeds.push_back(&cmd);
            m_clock->signal(m_feed_ready);
        } else {
            cmd.bank_runs = m_context_scheduler.bank_runs(command);
            m_waiting.push_back(&cmd);
            m_clock->signal(m_reschedule);
        }
    }
}

void PeScheduler::note_wait(InflightCommand& cmd, const WaitInfo& wait) {
    // Unchanged: the same words, compared as values (the common case: every
    // pass checks every waiting command again) ...
    if (wait.cause == cmd.wait_cause && wait.key.form != WaitKey::Form::text && wait.key == cmd.wait_key) return;
    // ... or as text (another command of the same id, a text form): only
    // other words are a new wait.
    std::string detail = wait.detail();
    cmd.wait_key = wait.key;
    if (wait.cause == cmd.wait_cause && detail == cmd.wait_detail) return;
    const sc_core::sc_time now = this->now();
    if (cmd.wait_cause != WaitCause::none) {
        cmd.waited[static_cast<std::size_t>(cmd.wait_cause)] += now - cmd.wait_since;
        m_trace.emit(trace::wait_end(now.value(), node_id_ref(), static_cast<std::int64_t>(cmd.seq),
                                     to_string(cmd.context()), to_string(cmd.wait_cause),
                                     cmd.command->id));
    }
    cmd.wait_cause = wait.cause;
    cmd.wait_detail = std::move(detail);
    cmd.wait_since = now;
    if (wait.cause != WaitCause::none) {
        cmd.gated_cause = wait.cause;
        cmd.gated_by = wait.key.other;
    }
    if (wait.cause != WaitCause::none)
        m_trace.emit(trace::wait_begin(now.value(), node_id_ref(), static_cast<std::int64_t>(cmd.seq),
                                       to_string(cmd.context()), to_string(wait.cause),
                                       cmd.wait_detail));
}

// seed 002 (SPEC §6): in each pass, the first waiting command (in program
// order) that may start is dispatched; every other one records why it waits.
// A pass runs whenever a command arrives or completes, and after each
// dispatch's overhead.
void PeScheduler::dispatch_step() {
    if (m_dispatching) {
        InflightCommand& cmd = *m_dispatching;
        // SPEC T4: a tile the feed loop writes into the same inbox at this
        // instant, of an earlier command, goes first, whichever of the two
        // processes the kernel runs first (a PE that mixes them in one
        // stretch runs per stage: Decoupler::plan()). The feed loop
        // signals once it has tried.
        if (feed_writes_now(cmd)) [[unlikely]] {
            m_dispatch_waits_feed = true;
            m_clock->resume_on(m_fed, m_dispatch);
            return;
        }
        m_dispatching = nullptr;
        dispatch_to_engine(cmd);
    }
    InflightCommand* chosen = nullptr;
    std::vector<InflightCommand*>& before = m_waiting_before;
    before.clear();
    for (InflightCommand* cmd : m_waiting) {
        const WaitInfo wait = m_context_scheduler.blocked(*cmd, m_inflight, before);
        note_wait(*cmd, wait);
        if (wait.cause == WaitCause::none && !chosen) {
            chosen = cmd;
            continue;  // later ones still record their cause in this pass
        }
        before.push_back(cmd);
    }
    if (!chosen) {
        m_clock->resume_on(m_reschedule, m_dispatch);
        return;
    }
    if (config.bank_policy == BankPolicy::detect)
        if (auto violation = m_context_scheduler.violation(*chosen, m_inflight))
            report_bank_violation(*chosen, *violation);
    m_waiting.erase(std::find(m_waiting.begin(), m_waiting.end(), chosen));
    dispatch(*chosen);
}

// seed 002, `detect`: on hardware the starved DMA times out the NoC and
// the device resets; here the run stops and says why.
void PeScheduler::report_bank_violation(const InflightCommand& cmd, const std::string& violation) {
    m_trace.emit(trace::bank_violation(m_clock->now_ps(), node_id_ref(), static_cast<std::int64_t>(cmd.seq),
                                       to_string(cmd.context()), violation));
    m_status.fail(node_id(), "TCM bank access limit broken when starting " + cmd.command->id + ": " + violation,
                  m_clock->now());
}

void PeScheduler::dispatch(InflightCommand& cmd) {
    // The command holds its context, resources and banks from here to its
    // completion.
    m_context_scheduler.start(cmd);
    cmd.dispatched = true;
    if (cmd.context() != ExecContext::none) {
        m_running[static_cast<std::size_t>(cmd.context())] = static_cast<std::int32_t>(cmd.seq);
        show_running(static_cast<std::size_t>(cmd.context()));
    }
    m_clock->signal(m_bank_event);
    // seed 000 §D3.1: a simple command goes straight to its engine, after
    // the overhead (dispatch_step() goes on then).
    m_dispatching = &cmd;
    m_clock->resume_after(m_overhead.value(), m_dispatch);
}

bool PeScheduler::feed_writes_now(const InflightCommand& cmd) const {
    // (The tile's stage_idx is set when its overhead ends: its first stage
    // is the inbox it goes to.)
    return m_feed_phase == FeedPhase::overhead && m_feed_write_ps == m_clock->now_ps() &&
           m_feed_token->plan.stages.front().type == simple_stage(cmd.command->kind) && !m_pending_feeds.empty() &&
           m_pending_feeds.front()->seq < cmd.seq;
}

void PeScheduler::dispatch_to_engine(InflightCommand& cmd) {
    TileToken& token = take_token();
    build_simple_plan(*cmd.command, token.plan);
    token.cmd = &cmd;
    token.stage_idx = 0;
    token.completed = false;
    token.owner = nullptr;
    cmd.total_tiles = 1;
    const StageType type = token.stage().type;
    if (engines.size() > 0 && !engines->engine_free(type)) {
        // seed 002: its engine works for another command; it starts when
        // the engine begins it (stage_granted).
        note_wait(cmd, {WaitCause::resource, std::string("engine ") + to_string(type) + " busy"});
        cmd.awaits_engine = true;
    } else {
        start_command(cmd);
    }
    m_trace.emit(trace::sub_command_dispatched(m_clock->now_ps(), node_id_ref(),
                                               static_cast<std::int64_t>(cmd.seq), 0,
                                               to_string(token.stage().type), &cmd.command->id));
    // seed 002: contexts run concurrently; a full inbox holds up only this
    // command, never the dispatch of the others (issue 15 D).
    const auto t = static_cast<std::size_t>(type);
    if (!blocked(t) && m_inbox[t]->nb_write(&token)) return;
    if (!cmd.awaits_engine) {
        note_wait(cmd, {WaitCause::resource, std::string(to_string(type)) + " inbox full"});
        cmd.awaits_engine = true;
    }
    block(t, token);
}

void PeScheduler::block(std::size_t t, TileToken& token) {
    if (!m_blocked[t]) {
        m_blocked[t] = std::make_unique<Blocked>(*this, t);
        sc_core::sc_spawn_options options;
        options.spawn_method();
        options.set_sensitivity(&m_blocked[t]->added);
        options.dont_initialize();
        sc_core::sc_spawn([this, t] { drain_blocked(t); },
                          (std::string("drain_") + to_string(static_cast<StageType>(t))).c_str(),
                          &options);
    }
    m_blocked[t]->tokens.push_back(&token);
    m_clock->wake_after(0, m_blocked[t]->drain, m_blocked[t]->added);
}

void PeScheduler::drain_blocked(std::size_t t) {
    StageInbox& inbox = *m_inbox[t];
    std::deque<TileToken*>& tokens = m_blocked[t]->tokens;
    while (!tokens.empty() && inbox.nb_write(tokens.front())) tokens.pop_front();
    if (tokens.empty()) {
        m_clock->signal(m_blocked[t]->drained);
        return;  // woken by the next block() (per stage: `added`)
    }
    m_clock->resume_when_writable(inbox, m_blocked[t]->drain);
}

// seed 002 (SPEC §6): a simple command dispatched to an engine that another
// command holds (GEMM and MATH share accel_slot; contexts share DMA channels)
// waits with cause `resource`, naming the engine, and starts when it gets it:
// its context is not busy while it waits. A composite's tiles queue at their
// engines as the pipeline does; that is not a wait of the command.
void PeScheduler::stage_waits(TileToken& token, const char* resource) {
    InflightCommand& cmd = *token.cmd;
    if (cmd.command->kind == CommandKind::composite) return;
    note_wait(cmd, {WaitCause::resource, std::string(resource) + " held"});
    cmd.awaits_engine = true;
    // Its engine has not begun after all (its engine was idle at dispatch,
    // the slot it shares is not, e.g. a composite's MATH holds accel_slot):
    // it starves no sub transfer until it has (seed 002, issue 39 point 3).
    if (cmd.begun) {
        cmd.begun = false;
        m_clock->signal(m_bank_event);
    }
}

void PeScheduler::stage_granted(TileToken& token) {
    InflightCommand& cmd = *token.cmd;
    cmd.awaits_engine = false;
    note_wait(cmd, {});
    start_command(cmd);
}

// The cases are in the order a tile runs through them (its overhead, the
// write to the first inbox, the next tile, its buffers), each falling
// through to the next, so that the common path does not go back to the
// switch between phases.
[[gnu::hot]] void PeScheduler::feed_step() {
    ++m_activations;
    for (;;) {
        switch (m_feed_phase) {
        case FeedPhase::overhead: {
            TileToken& token = *m_feed_token;
            InflightCommand& cmd = *m_pending_feeds.front();
            token.cmd = &cmd;
            token.stage_idx = 0;
            token.completed = false;
            token.owner = nullptr;
            if (m_feed_first) start_command(cmd);
            m_feed_first = false;
            ++m_tiles_fed;
            if (m_trace.enabled())
                m_trace.emit(trace::sub_command_dispatched(
                                 now().value(), node_id_ref(), static_cast<std::int64_t>(cmd.seq),
                                 static_cast<std::int64_t>(token.plan.tile_id), to_string(token.stage().type)),
                             m_origin);
            m_feed_phase = FeedPhase::write;
            [[fallthrough]];
        }
        case FeedPhase::write: {
            // A token with no DMA_READ (B resident in TCM, its A tile in a
            // panel) goes in once the token that loads its panel tile has
            // read it. Fed earlier it would wait in FETCH's inbox ahead of
            // its loader, and the inbox could fill with such tokens while
            // their loaders wait behind them (docs/timing.md "Operands
            // resident in TCM").
            if (m_feed_token->panel_ready != nullptr && m_feed_token->stage().type != StageType::dma_read) [[unlikely]] {
                if (*m_feed_token->panel_ready == 0) {
                    m_clock->resume_on(*m_feed_token->panel_signal, m_feed);
                    return;
                }
                m_feed_token->panel_ready = nullptr;
            }
            // Waits while the first stage's inbox is full (back-pressure).
            const auto t = static_cast<std::size_t>(m_feed_token->stage().type);
            // A simple command waiting for this inbox gets the free slots first.
            if (blocked(t)) {
                m_clock->resume_on(m_blocked[t]->drained, m_feed);
                return;
            }
            StageInbox& inbox = *m_inbox[t];
            const bool written = inbox.nb_write(m_feed_token);
            if (m_dispatch_waits_feed) [[unlikely]] {  // (below: the tile has had its turn)
                m_dispatch_waits_feed = false;
                m_clock->signal(m_fed);
            }
            if (!written) {
                m_clock->resume_when_writable(inbox, m_feed);
                return;
            }
            m_feed_token = nullptr;
            m_feed_phase = FeedPhase::next_tile;
            [[fallthrough]];
        }
        case FeedPhase::next_tile: {
            TileToken& token = take_token();
            if (!m_planner->next(token.plan)) {
                m_free_tokens.push_back(&token);
                m_pending_feeds.pop_front();
                m_feed_phase = FeedPhase::next_command;
                break;
            }
            m_feed_token = &token;
            m_feed_phase = FeedPhase::alloc;
            [[fallthrough]];
        }
        case FeedPhase::alloc: {
            // seed 000 §D5.1: input and output buffers of a live tile never
            // overlap; the feeder waits for space (in request order: it is the
            // only allocator) and never holds one buffer while waiting for the other.
            // An operand panel (docs/timing.md "Operand reuse") is taken with
            // the first token that loads it, all or nothing with its buffers.
            TileToken& token = *m_feed_token;
            // (Scalars, not an array: the array's 8-byte stores were read
            // back as one 16-byte load, which the store buffer cannot
            // forward; docs/speed.md, "Fifth pass".)
            const TilePlan& plan = token.plan;
            std::uint64_t panel = 0, in = 0, out = 0;
            const auto take = [this](std::uint64_t bytes, std::uint64_t& addr) {
                if (bytes == 0) return true;
                const auto at = m_reserved.try_alloc(bytes);
                if (!at) return false;
                addr = *at;
                return true;
            };
            const bool got_panel = take(plan.panel_bytes, panel);
            const bool got_in = got_panel && take(plan.in_bytes, in);
            if (!got_in || !take(plan.out_bytes, out)) {
                if (got_panel && plan.panel_bytes) m_reserved.free(panel);
                if (got_in && plan.in_bytes) m_reserved.free(in);
                m_clock->resume_on(m_tcm_freed, m_feed);
                return;
            }
            if (plan.panel_bytes) m_panel_buf = panel;
            token.panel_buf = m_panel_buf;
            if (m_feed_panels) [[unlikely]]
                join_panel(token, *m_pending_feeds.front());
            token.in_buf = in;
            token.out_buf = out;
            m_reserved_peak = std::max(m_reserved_peak, m_reserved.in_use());
            m_reserved_in_use = m_reserved.in_use();
            ++m_tiles_in_flight;
            show_tiles();
            if (m_trace.enabled())
                m_trace.emit(
                    trace::tcm_in_use(now().value(), node_id_ref(), static_cast<std::int64_t>(m_reserved_in_use)),
                    m_origin);
            m_feed_phase = FeedPhase::overhead;
            // Not a command's first tile (whose overhead starts the command
            // when it ends): when the first inbox is full now, the feeder
            // may wait for its slot at once instead of waking at the
            // overhead's end only to find it full, where the clock allows it
            // (decoupled: the feeder is the inbox's only writer, so a slot
            // freed stays free); the write comes at the same time and in
            // the same round either way (docs/speed.md, "Fifth pass"). Not
            // in a recorded run: there the overhead's end is when the tile
            // is dispatched (sub_command_dispatched).
            if (!m_feed_first && !m_trace.enabled() && m_clock->may_wait_for_slot_early()) {
                StageInbox& first = *m_inbox[static_cast<std::size_t>(plan.stages.front().type)];
                if (first.num_free() == 0) {
                    m_feed_due_ps = m_clock->now_ps() + m_overhead.value();
                    m_feed_phase = FeedPhase::slot;
                    m_clock->resume_when_writable(first, m_feed);
                    return;
                }
            }
            m_feed_write_ps = m_clock->now_ps() + m_overhead.value();
            m_clock->resume_after(m_overhead.value(), m_feed);
            return;
        }
        case FeedPhase::slot:
            // The round after a slot was freed; the overhead may still run.
            m_feed_phase = FeedPhase::overhead;
            if (m_clock->now_ps() < m_feed_due_ps) {
                m_clock->resume_at(m_feed_due_ps, m_feed);
                return;
            }
            break;
        case FeedPhase::next_command: {
            if (m_pending_feeds.empty()) {
                m_clock->resume_on(m_feed_ready, m_feed);
                return;
            }
            InflightCommand& cmd = *m_pending_feeds.front();
            // seed 002: an earlier command in flight with a hazard on its
            // ranges holds it back, as any command (issue 15 E).
            const WaitInfo hazard = m_context_scheduler.hazard(cmd, m_inflight);
            note_wait(cmd, hazard);
            if (hazard.cause != WaitCause::none) {
                m_clock->resume_on(m_completed, m_feed);
                return;
            }
            // seed 002: its DMA stages count in the same-bank sum beside the
            // commands running (issue 39 point 4): serialize waits for one of
            // them to complete, detect reports the violation.
            if (auto over = m_context_scheduler.composite_over_limit(cmd, m_inflight)) [[unlikely]] {
                if (config.bank_policy == BankPolicy::serialize) {
                    note_wait(cmd, {WaitCause::bank, *over});
                    m_clock->resume_on(m_completed, m_feed);
                    return;
                }
                note_wait(cmd, {});
                report_bank_violation(cmd, *over);
            }
            // The loader validated the spec; one planner per command, tiles streamed.
            m_planner.emplace(cmd.command->composite);
            // (A command with B resident in TCM has tokens with no DMA_READ:
            // they reach FETCH before the one that loads their panel tile
            // has read it, so its panels are tracked with one read channel too.)
            m_feed_panels = m_track_panels || cmd.command->composite.b_resident;
            cmd.total_tiles = m_planner->total_tiles();
            m_feed_first = true;
            m_feed_phase = FeedPhase::next_tile;
            break;
        }
        }
    }
}

// A token fed (m_feed_panels): if it is of an operand panel, the panel's
// first token takes a pooled Panel; a token of the panel's first pass (an A
// panel's ni = 0, a B panel's mi = 0) loads its tile ki, and its DMA_READ's
// end marks it; a later one uses it, and its FETCH waits for the mark
// (tile_token.h).
void PeScheduler::join_panel(TileToken& token, const InflightCommand& cmd) {
    const TilePlan& plan = token.plan;
    const CompositeSpec& spec = cmd.command->composite;
    if (cmd.command->kind != CommandKind::composite || spec.reuse == OperandReuse::none) return;
    if (plan.panel_bytes != 0) {
        if (m_free_panels.empty()) {
            m_panel_pool.push_back(std::make_unique<Panel>());
            m_free_panels.push_back(m_panel_pool.back().get());
        }
        m_feed_panel = m_free_panels.back();
        m_free_panels.pop_back();
        m_feed_panel->buf = token.panel_buf;
        m_feed_panel->users = 0;
        m_feed_panel->all_fed = false;
        m_feed_panel->loaded.assign((spec.k + spec.tk - 1) / spec.tk, 0);
    }
    Panel& panel = *m_feed_panel;
    ++panel.users;
    if (plan.panel_last) panel.all_fed = true;
    token.panel = &panel;
    token.panel_signal = &panel.signal;
    const bool loads = spec.reuse == OperandReuse::a_panel ? plan.ni == 0 : plan.mi == 0;
    if (loads)
        token.panel_loaded = &panel.loaded.at(plan.ki);
    else
        token.panel_ready = &panel.loaded.at(plan.ki);
}

// seed 000 D5.1: the panel lives until the last of its tokens completes,
// in whatever order they do.
bool PeScheduler::leave_panel(TileToken& token) {
    Panel& panel = *static_cast<Panel*>(token.panel);
    token.panel = nullptr;
    token.panel_loaded = nullptr;
    token.panel_ready = nullptr;
    if (--panel.users != 0 || !panel.all_fed) return false;
    m_freeing.push_back(panel.buf);
    m_free_panels.push_back(&panel);
    return true;
}

[[gnu::hot]] void PeScheduler::tile_completed(TileToken& token) {
    InflightCommand& cmd = *token.cmd;
    if (token.plan.in_bytes) m_freeing.push_back(token.in_buf);
    if (token.plan.out_bytes) m_freeing.push_back(token.out_buf);
    bool panel_freed = false;
    if (token.panel != nullptr) [[unlikely]]
        panel_freed = leave_panel(token);
    else if (token.plan.panel_last)
        m_freeing.push_back(token.panel_buf);
    if (token.plan.in_bytes || token.plan.out_bytes || token.plan.panel_last) {
        --m_tiles_in_flight;
        show_tiles();
        m_clock->commit_at_round_end(m_buffer_frees);
    } else if (panel_freed) {
        m_clock->commit_at_round_end(m_buffer_frees);
    }
    if (cmd.command->kind == CommandKind::composite && m_trace.enabled())
        m_trace.emit(trace::tile_ready(now().value(), node_id_ref(), static_cast<std::int64_t>(cmd.seq),
                                       static_cast<std::int64_t>(token.plan.tile_id)),
                     m_origin);
    token.cmd = nullptr;
    m_free_tokens.push_back(&token);
    if (cmd.completed_tiles == cmd.total_tiles) {
        m_done.push_back(&cmd);
        m_done_event.notify(sc_core::SC_ZERO_TIME);
    }
}

[[gnu::hot]] void PeScheduler::free_buffers() {
    for (std::uint64_t buffer : m_freeing) m_reserved.free(buffer);
    m_freeing.clear();
    m_reserved_in_use = m_reserved.in_use();
    show_tiles();
    if (m_trace.enabled())
        m_trace.emit(trace::tcm_in_use(now().value(), node_id_ref(), static_cast<std::int64_t>(m_reserved_in_use)),
                     m_origin);
    m_clock->signal(m_tcm_freed);
}

void PeScheduler::record_completions() {
    ++m_activations;
    // seed 000 §D2: only PE_SCHEDULER writes completion state, and within it
    // only this process.
    if (sc_core::sc_get_current_process_handle() != m_completion_process) {
        SC_REPORT_ERROR("npuvp/invariant",
                        (node_id() + ": completion state written outside its process").c_str());
        return;
    }
    for (InflightCommand* cmd : m_done) {
        cmd->finished = sc_core::sc_time_stamp();
        cmd->done = true;
        m_complete.at(cmd->command->index) = 1;
        if (cmd->dispatched) {
            m_context_scheduler.finish(*cmd);
            if (cmd->context() != ExecContext::none &&
                m_running[static_cast<std::size_t>(cmd->context())] == static_cast<std::int32_t>(cmd->seq)) {
                m_running[static_cast<std::size_t>(cmd->context())] = -1;
                show_running(static_cast<std::size_t>(cmd->context()));
            }
        }
        CompletionRecord record{cmd->command, cmd->seq, cmd->total_tiles, cmd->submitted,
                                cmd->started, cmd->finished, {}, cmd->gated_cause,
                                cmd->gated_by ? static_cast<std::int64_t>(cmd->gated_by->seq) : -1};
        for (std::size_t c = 0; c < wait_cause_count; ++c) record.waited[c] = cmd->waited[c];
        m_completions.push_back(record);
        m_inflight.erase(std::find(m_inflight.begin(), m_inflight.end(), cmd));
        m_trace.emit(trace::command_complete(cmd->finished.value(), node_id_ref(),
                                             static_cast<std::int64_t>(cmd->seq),
                                             to_string(cmd->command->kind), cmd->command->id));
    }
    m_done.clear();
    m_completed.kernel_event().notify(sc_core::SC_ZERO_TIME);  // PE_CPU waits for it (completion_event())
    m_clock->signal(m_completed);  // the feed loop (per stage: the same event, notified once)
    m_clock->signal(m_reschedule);
    m_clock->signal(m_bank_event);
}

}  // namespace npuvp
