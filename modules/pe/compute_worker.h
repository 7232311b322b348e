// The stage workers of a compute engine (PE_GEMM, PE_MATH; seed 000 §D4):
// each holds the PE's accel_slot, shared by GEMM and MATH and granted in
// request order, for the whole compute time of a stage, so at most one
// compute op runs in a PE at a time. Busy time runs from the grant to done
// (T3).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>

#include "modules/common/checked.h"
#include "modules/common/rtl_block.h"
#include "modules/pe/pe_data.h"
#include "modules/pe/stage_worker.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

// Time of `cycles` at `freq_ghz`, in whole ps (rounded up); beyond 64 bits
// an Overflow naming `what`.
inline ps_t cycles_to_ps(std::uint64_t cycles, double freq_ghz, const char* what = "a stage's time") {
    const double ps = static_cast<double>(cycles) * 1000.0 / freq_ghz;
    const double nearest = std::round(ps);
    // An exact quotient (1 GHz, 1.25 GHz ...) stays exact; anything else rounds up.
    return checked_u64(std::fabs(ps - nearest) < 1e-6 ? nearest : std::ceil(ps), what, "ps");
}

// The PE's compute slot as its engines see it: a FifoResource (request
// order, SPEC §1), bound by the Pe module.
using AccelSlotPort = sc_core::sc_port<FifoResource>;

// The builtin engines' worker: a method (docs/speed.md); the slot is granted
// in request order and the compute time is known at the grant.
class ComputeWorker : public MethodStageWorker {
public:
    // `cycles` gives a stage's cycle count; the engine runs at `freq_ghz`;
    // `data` is its engine's data plane (null unless data mode).
    ComputeWorker(const std::string& owner_id, StageType type, StageInboxPort& inboxes,
                  AccelSlotPort& slot, PeData* const& data, double freq_ghz,
                  std::function<std::uint64_t(const Stage&)> cycles, TraceSink& trace,
                  RunStatus& status)
        : MethodStageWorker(owner_id, type, inboxes, trace, status),
          m_slot(slot),
          m_data(data),
          m_freq_ghz(freq_ghz),
          m_cycles(std::move(cycles)) {}

protected:
    FifoResource* stage_resource(const TileToken&) override { return m_slot.operator->(); }
    bool fixed_resource() const override { return true; }
    [[gnu::hot]] bool begin_stage(TileToken& token, ps_t& time) override {
        // A composite's tiles mostly repeat one shape: keep the last shape's
        // time (`cycles` depends on the shape alone).
        const Stage& stage = token.stage();
        if (!m_known || stage.m != m_last.m || stage.k != m_last.k || stage.n != m_last.n ||
            stage.elements != m_last.elements || stage.elem_bytes != m_last.elem_bytes ||
            stage.op != m_last.op || stage.command != m_last.command) {
            // (known only once timed: an Overflow leaves the shape unknown)
            m_last_ps = cycles_to_ps(m_cycles(stage), m_freq_ghz,
                                     type() == StageType::gemm ? "a GEMM stage's time" : "a MATH stage's time");
            m_known = true;
            m_last.m = stage.m;
            m_last.k = stage.k;
            m_last.n = stage.n;
            m_last.elements = stage.elements;
            m_last.elem_bytes = stage.elem_bytes;
            m_last.op = stage.op;
            m_last.command = stage.command;
        }
        time = m_last_ps;
        trace_engine(true, token);
        return true;
    }
    [[gnu::hot]] void end_stage(TileToken& token) override {
        record_busy(stage_start());
        trace_engine(false, token);
        if (m_data != nullptr) [[unlikely]]
            compute_data(token);
    }

private:
    // Data mode: the stage's function on its bytes, at its modelled end.
    [[gnu::cold, gnu::noinline]] void compute_data(const TileToken& token) {
        try {
            if (type() == StageType::gemm) m_data->gemm(token);
            else m_data->math(token);
        } catch (const std::exception& e) {
            fail("command " + token.cmd->command->id + ": data: " + e.what());
        }
    }

    AccelSlotPort& m_slot;
    PeData* const& m_data;
    double m_freq_ghz;
    std::function<std::uint64_t(const Stage&)> m_cycles;
    bool m_known = false;
    Stage m_last;  // the shape of the last stage timed (its m, k, n, elements, op, elem_bytes, command)
    ps_t m_last_ps = 0;
};

// The worker of a compute engine that blocks while it computes (an RTL
// engine clocked until its RTL says done, docs/rtl.md): a thread that holds
// the slot around compute(), with the builtin's trace and busy accounting.
class BlockingComputeWorker : public ThreadStageWorker {
public:
    // `command` is the engine's per-command fixed cost (docs/timing.md T3),
    // paid after the RTL's cycles by a simple command's stage, holding the slot.
    BlockingComputeWorker(const std::string& owner_id, StageType type, StageInboxPort& inboxes,
                          AccelSlotPort& slot, PeData* const& data, sc_core::sc_time command,
                          TraceSink& trace, RunStatus& status)
        : ThreadStageWorker(owner_id, type, inboxes, trace, status), m_slot(slot), m_data(data), m_command(command) {}

protected:
    void process(TileToken& token) final {
        // SPEC T4: the slot in key order among the round's requests, and the
        // start where the builtin worker's begins (the round's update); held
        // by the other engine: a recorded wait.
        sc_core::sc_time start;
        m_slot->lock(
            request_key(token), [&] { token.cmd->stage_waits(token, m_slot->basename()); },
            [&] {
                if (token.cmd->awaits_engine) token.cmd->stage_granted(token);
                start = sc_core::sc_time_stamp();
                trace_engine(true, token);
            });
        compute(token);
        if (token.stage().command && m_command != sc_core::SC_ZERO_TIME) sc_core::wait(m_command);
        record_busy(start);
        trace_engine(false, token);
        m_slot->unlock();
    }
    // The work of the token's stage (token.stage()), done while holding the
    // slot; may wait.
    virtual void compute(const TileToken& token) = 0;
    // The engine's data plane: null unless data mode.
    PeData* data() const { return m_data; }

private:
    AccelSlotPort& m_slot;
    PeData* const& m_data;
    sc_core::sc_time m_command;
};

// The module of a compute engine (PE_GEMM, PE_MATH): the accel_slot and
// inboxes ports and the engine's one worker. The builtin engine makes a ComputeWorker with its
// timing formula; another implementation (rtl.pe_gemm, docs/rtl.md) brings a
// BlockingComputeWorker, so that it holds accel_slot, traces and counts busy
// time exactly as the builtin does. Each calls adopt_worker() once, from its
// constructor.
class ComputeEngine : public RoutedNode, public BusyTime {
public:
    // Ports: the compute slot GEMM and MATH share (seed 000 §D4), and the
    // PE's stage inboxes (its stage's tokens in, each token out to its next
    // stage's inbox)
    AccelSlotPort accel_slot;
    StageInboxPort inboxes;

    StageWorker& worker() { return *m_worker; }
    const StageWorker& worker() const { return *m_worker; }
    // BusyTime (a kernel response's compute_ns)
    sc_core::sc_time total_busy() const override { return m_worker->busy(); }
    // The block's Verilated RTL when the engine is one (docs/rtl.md);
    // nullptr for the C++ model.
    virtual RtlBlock* rtl() { return nullptr; }
    // Data mode (docs/workload.md "Operand data"): the PE's data plane,
    // set before the simulation starts; null otherwise.
    void set_data(PeData* data) { m_data = data; }

protected:
    explicit ComputeEngine(const sc_core::sc_module_name& name)
        : RoutedNode(name), accel_slot("accel_slot"), inboxes("inboxes") {}
    void adopt_worker(std::unique_ptr<StageWorker> worker) {
        m_worker = std::move(worker);
        m_worker->spawn("worker");
    }
    // What a worker reads its data plane through (set_data() may come after it is made).
    PeData* const& data_slot() const { return m_data; }

private:
    std::unique_ptr<StageWorker> m_worker;
    PeData* m_data = nullptr;
};

}  // namespace npuvp
