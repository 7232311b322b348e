// sc_spawn needs the dynamic-process API, which must be asked for before
// the first SystemC header of this translation unit.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "modules/pe/stage_worker.h"

#include <algorithm>

#include "modules/common/checked.h"
#include "modules/common/sanitizer_catch.h"

namespace npuvp {

DmaTimeSplit DmaTimeSplit::since(const DmaTimeSplit& before) const {
    DmaTimeSplit d;
    d.startup_ps = startup_ps - before.startup_ps;
    d.transfer_ps = transfer_ps - before.transfer_ps;
    d.wait_ps = wait_ps - before.wait_ps;
    hops_since(before, d.hops);
    return d;
}

void DmaTimeSplit::hops_since(const DmaTimeSplit& before, std::vector<PerHop>& out) const {
    for (const PerHop& h : hops) {
        PerHop x = h;
        for (const PerHop& b : before.hops)
            if (b.hop == h.hop) x.transfer_ps -= b.transfer_ps, x.wait_ps -= b.wait_ps;
        if (x.transfer_ps != 0 || x.wait_ps != 0) out.push_back(x);
    }
}

[[gnu::hot]] void InflightCommand::complete_tile(TileToken& token) {
    // seed 000 §D6: exactly one complete_tile per token.
    if (token.completed || completed_tiles >= total_tiles) {
        SC_REPORT_ERROR("npuvp/invariant",
                        ("complete_tile() called twice for tile " +
                         std::to_string(token.plan.tile_id) + " of command " +
                         (command ? command->id : std::string("?")))
                            .c_str());
        return;
    }
    token.completed = true;
    ++completed_tiles;
    m_sink->tile_completed(token);
}

void StageWorker::report_ownership(const char* what) const {
    SC_REPORT_ERROR("npuvp/invariant", (m_owner_id + ": " + what).c_str());
}

[[gnu::hot]] StageWorker::Next StageWorker::advance(TileToken& token) {
    if (++token.stage_idx == token.plan.stages.size()) {
        hand_off(token);
        token.cmd->complete_tile(token);
        return Next::completed;
    }
    if (token.stage().type == m_type) return Next::here;
    hand_off(token);
    return Next::elsewhere;
}

void StageWorker::fail_stage(const TileToken& token, const std::string& message) {
    const std::string& id = token.cmd->command->id;
    fail("command " + (id.empty() ? std::string("(no id)") : id) + ": " + message);
}

void ThreadStageWorker::run() {
    keep_clock();
    TokenFifo& in = inbox(type());
    for (;;) {
        TileToken* token = in.read();
        take(*token);
        for (;;) {
            if (token->cmd->awaits_engine) token->cmd->stage_granted(*token);
            try {
                process(*token);
            } catch (const Overflow& e) {  // checked arithmetic (issue 21): a diagnosis, not a kernel error
                fail_stage(*token, e.what());
            }
            if (failed()) return;  // the run is stopping; leave the token be
            const Next next = advance(*token);
            if (next == Next::here) continue;
            if (next == Next::elsewhere) inbox(token->stage().type).write(token);
            break;
        }
    }
}

RequestKey StageWorker::request_key(const TileToken& token) const {
    static constexpr RequestEngine engine_of[stage_type_count] = {
        RequestEngine::dma_read, RequestEngine::fetch, RequestEngine::gemm, RequestEngine::math,
        RequestEngine::store, RequestEngine::dma_write, RequestEngine::ipcq, RequestEngine::ipcq};
    return {m_rank, static_cast<std::uint32_t>(engine_of[static_cast<std::size_t>(m_type)]),
            token.cmd->seq, token.plan.tile_id, m_unit};
}

[[gnu::hot]] bool MethodStageWorker::kernel_visible() const {
    if (m_phase != Phase::busy) return false;
    const TileToken& token = *m_token;
    return token.stage_idx + 1 == token.plan.stages.size() &&
           token.cmd->completed_tiles + 1 == token.cmd->total_tiles;
}

[[gnu::hot]] void MethodStageWorker::serve_round() {
    if (m_phase == Phase::asked) {
        if (m_resource_known) {
            m_resource = m_fixed_resource;
        } else {
            m_resource = stage_resource(*m_token);
            if (fixed_resource()) {
                m_fixed_resource = m_resource;
                m_resource_known = true;
            }
        }
        if (m_resource) {
            m_waiter.requester = this;  // m_waiter.key: set when it asked
            m_waiter.owner = m_process_name.c_str();
            if (!m_resource->acquire(m_waiter)) {
                m_token->cmd->stage_waits(*m_token, m_resource->basename());
                m_phase = Phase::queued;
                return;  // the release that hands it a unit asks the round again
            }
        }
    } else if (m_phase == Phase::queued) {
        m_resource->acquired(m_waiter);
    } else {
        SC_REPORT_ERROR("npuvp/invariant", (owner_id() + ": served by the round while not asking").c_str());
        return;
    }
    if (m_token->cmd->awaits_engine) m_token->cmd->stage_granted(*m_token);
    m_stage_start = now_ps();
    bool begun = false;
    try {
        begun = begin_stage(*m_token, m_busy_ps);
        // The end of the busy time must be a time (checked arithmetic, issue 21).
        if (begun) checked_add(m_stage_start, m_busy_ps, "the stage's end time, in ps");
    } catch (const std::exception& e) {  // a target's error response, an Overflow: no process to unwind here
        clean_stack_after_catch();
        fail_stage(*m_token, e.what());
        begun = false;
    }
    if (!begun) {
        m_phase = Phase::idle;  // the run is stopping; never woken again
        return;
    }
    if (m_defer_end) {
        m_defer_end = false;
        m_phase = Phase::deferred;  // end_stage_after() sets the end
        return;
    }
    // As a thread's wait(time), also for a zero time (one round). Only the
    // end of a token's last stage can complete its command (the calendar
    // runs that one in step with the kernel). A stage that may stall (the
    // bank rule, seed 002) never runs decoupled (Decoupler::plan()).
    if (!clock().stages_may_stall() || stall_event(*m_token) == nullptr) {
        m_phase = Phase::busy;
        set_may_be_kernel_visible(m_token->stage_idx + 1 == m_token->plan.stages.size());
        clock().wake_after(m_busy_ps, *this, m_grant_event);
    } else {
        m_phase = Phase::check;
        m_remaining = sc_core::sc_time::from_value(m_busy_ps);
        m_grant_event.notify(sc_core::SC_ZERO_TIME);
    }
}

// The method-mode twin of run() + a thread's process(): each `return` after
// next_trigger() is where the thread would wait; the next activation resumes
// at m_phase. Nothing here allocates. The cases are in the order a stage
// usually runs through them (end of a busy time, hand-off, next token,
// pre-delay, prepare, ask), each falling through to the next, so that the
// common path does not go back to the switch between phases.
[[gnu::hot]] void MethodStageWorker::step() {
    note_activation();
    for (;;) {
        switch (m_phase) {
        case Phase::busy:
            set_may_be_kernel_visible(false);
            m_phase = Phase::end;
            [[fallthrough]];
        case Phase::end: {
            end_stage(*m_token);
            if (m_resource) {
                m_resource->release();
                m_resource = nullptr;
            }
            if (failed()) return;  // the run is stopping; leave the token be
            const Next next = advance(*m_token);
            if (next != Next::elsewhere) {
                m_phase = next == Next::here ? Phase::pre : Phase::idle;
                break;
            }
            m_phase = Phase::out;
            [[fallthrough]];
        }
        case Phase::out: {
            TokenFifo& to = inbox(m_token->stage().type);
            if (!to.nb_write(m_token)) {
                clock().resume_when_writable(to, *this);
                return;
            }
            m_token = nullptr;
            m_phase = Phase::idle;
            [[fallthrough]];
        }
        case Phase::idle: {
            TokenFifo& in = inbox(type());
            TileToken* token = nullptr;
            if (!in.nb_read(token)) {
                clock().resume_when_readable(in, *this);
                return;
            }
            take(*token);
            m_token = token;
            m_phase = Phase::pre;
            [[fallthrough]];
        }
        case Phase::pre: {
            const sc_core::sc_time pre = pre_delay(*m_token);
            m_phase = Phase::prepare;
            if (pre != sc_core::SC_ZERO_TIME) {
                clock().resume_after(pre.value(), *this);
                return;
            }
            [[fallthrough]];
        }
        case Phase::prepare:
            if (!prepare_stage(*m_token)) return;  // it waits (woken, it asks again) or the run is stopping
            m_phase = Phase::acquire;
            [[fallthrough]];
        case Phase::acquire:
            // SPEC T4: served at the end of this round, in key order.
            m_phase = Phase::asked;
            m_waiter.event = &m_grant_event;
            m_waiter.key = request_key(*m_token);
            m_waiter.round = &clock();  // a unit handed over later is taken up in its round too
            clock().ask(m_waiter.key, *this);
            return;  // woken by serve_round() through the clock (m_grant_event per stage, spawn())
        case Phase::asked:
        case Phase::queued:
        case Phase::deferred:
            // serve_round() (end_stage_after()) wakes it only once the
            // stage has begun (its end is known).
            return;
        case Phase::check:
        case Phase::stalled_busy:
            if (!step_stalling()) return;
            break;
        case Phase::start:  // the first run (the kernel's initialisation)
            keep_clock();
            m_phase = Phase::idle;
            break;
        }
    }
}

// seed 000 D3.2, D5.1: a token's FETCH from its operand panel begins once
// the token that loads the panel tile has ended its DMA_READ (tile_token.h;
// with one read channel it always has). Until then the method waits for the
// panel's signal and, woken, runs prepare_stage() again.
bool MethodStageWorker::panel_tile_loaded(TileToken& token) {
    if (*token.panel_ready != 0) {
        token.panel_ready = nullptr;
        return true;
    }
    return wait_for(*token.panel_signal);
}

bool MethodStageWorker::wait_for(PipelineSignal& s) {
    clock().resume_on(s, *this);
    return false;
}

bool MethodStageWorker::step_stalling() {
    using sc_core::next_trigger;
    using sc_core::sc_time_stamp;
    if (m_phase == Phase::stalled_busy) {
        m_remaining -= std::min(m_remaining, sc_time_stamp() - m_from);
        m_phase = Phase::check;
    }
    if (m_remaining == sc_core::SC_ZERO_TIME) {
        m_phase = Phase::end;
        return true;
    }
    if (stalled(*m_token)) {
        next_trigger(*stall_event(*m_token));
        return false;
    }
    m_from = sc_time_stamp();
    next_trigger(m_remaining, *stall_event(*m_token));
    m_phase = Phase::stalled_busy;
    return false;
}

void MethodStageWorker::end_stage_after(const sc_core::sc_time& delay) {
    sc_assert(m_phase == Phase::deferred);
    m_phase = Phase::busy;
    clock().wake_after(delay.value(), *this, m_grant_event);
}

void MethodStageWorker::spawn(const char* name) {
    RequestRound::instance();  // made during elaboration
    sc_core::sc_spawn_options options;
    options.spawn_method();
    // What the worker waits for most (serve_round() notifies it at the end
    // of every busy time): statically, which costs the kernel less than a
    // next_trigger(event) per stage.
    options.set_sensitivity(&m_grant_event);
    set_may_be_kernel_visible(false);  // until a busy last stage (serve_round())
    m_process_name = sc_core::sc_spawn([this] { step(); }, name, &options).name();
}

// The thread is made when the first token comes: a thread's stack is a
// memory mapping of its own (two with its guard page), Linux allows 65,530
// a process (issue 38), and a workload may give an engine no token.
// Until then a method watches the inbox; the thread it makes runs in the
// same evaluation phase, when the thread would have woken for the token.
void ThreadStageWorker::spawn(const char* name) {
    sc_core::sc_spawn_options options;
    options.spawn_method();
    sc_core::sc_spawn([this] { start(); }, name, &options);
}

void ThreadStageWorker::start() {
    TokenFifo& in = inbox(type());
    if (in.num_available() == 0) {
        sc_core::next_trigger(in.data_written_event());
        return;
    }
    sc_core::sc_spawn_options options;
    sc_core::sc_spawn([this] { run(); }, "thread", &options);
}

void StageWorker::add_traces(sc_core::sc_trace_file* tf, const std::string& prefix, VcdClock& clock) const {
    m_shadowed = true;
    m_active.trace(tf, prefix + ".busy", false, clock);
    m_cmd.trace(tf, prefix + ".cmd", -1, clock);
    m_tile.trace(tf, prefix + ".tile", -1, clock);
}

void StageWorker::emit_engine(bool start, const TileToken& token, std::int64_t bytes,
                              const std::string* peer) const {
    m_active.set(start);
    m_cmd.set(start ? static_cast<std::int32_t>(token.cmd->seq) : -1);
    m_tile.set(start ? static_cast<std::int32_t>(token.plan.tile_id) : -1);
    if (!m_trace.enabled()) return;  // off: not even the time stamp is read
    m_trace.emit((start ? trace::engine_start : trace::engine_complete)(
                     now_ps(), m_owner_id, static_cast<std::int64_t>(token.cmd->seq),
                     static_cast<std::int64_t>(token.plan.tile_id), to_string(token.stage().type), bytes, peer),
                 m_origin);
}

}  // namespace npuvp
