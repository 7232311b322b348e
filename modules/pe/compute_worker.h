// The stage worker of a compute engine (PE_GEMM, PE_MATH; seed 000 §D4): it
// holds the PE's accel_slot, shared by GEMM and MATH and granted in request
// order, for the whole compute time of a stage, so at most one compute op
// runs in a PE at a time. Busy time runs from the grant to done (T3).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>

#include "modules/common/rtl_block.h"
#include "modules/pe/stage_worker.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class ComputeWorker : public StageWorker {
public:
    // `cycles` gives a stage's cycle count; the engine runs at `freq_ghz`.
    ComputeWorker(const std::string& owner_id, StageType type, sc_core::sc_port<sc_core::sc_mutex_if>& slot,
                  double freq_ghz, std::function<std::uint64_t(const Stage&)> cycles,
                  TraceSink& trace, RunStatus& status)
        : StageWorker(owner_id, type, trace, status),
          m_slot(slot),
          m_freq_ghz(freq_ghz),
          m_cycles(std::move(cycles)) {}

    // Time of `cycles` at the engine clock, in whole ps (rounded up).
    sc_core::sc_time duration(std::uint64_t cycles) const {
        const double ps = static_cast<double>(cycles) * 1000.0 / m_freq_ghz;
        const double nearest = std::round(ps);
        // An exact quotient (1 GHz, 1.25 GHz ...) stays exact; anything else rounds up.
        return sc_core::sc_time::from_value(static_cast<std::uint64_t>(
            std::fabs(ps - nearest) < 1e-6 ? nearest : std::ceil(ps)));
    }

    // A method (docs/speed.md): the slot is granted in request order, the
    // compute time is known at the grant. An engine that overrides compute()
    // to block mid-stage (an RTL model clocked until it says done) runs as a
    // thread instead: it overrides this to return false.
    bool method_mode() const override { return true; }

protected:
    // Method mode.
    FifoResource* stage_resource(const TileToken&) override {
        if (!m_fifo_slot) {
            // Bound by the platform to the PE's FifoResource; an sc_mutex
            // would not keep request order (SPEC §1).
            m_fifo_slot = dynamic_cast<FifoResource*>(m_slot.get_interface());
            if (!m_fifo_slot)
                SC_REPORT_FATAL("npuvp/invariant",
                                (owner_id() + ": accel_slot is not bound to a FifoResource").c_str());
        }
        return m_fifo_slot;
    }
    bool begin_stage(TileToken& token, sc_core::sc_time& time) override {
        time = duration(m_cycles(token.stage()));
        trace_engine(true, token);
        return true;
    }
    void end_stage(TileToken& token) override {
        record_busy(stage_start());
        trace_engine(false, token);
    }

    // Thread mode: the same stage around a blocking compute().
    void process(TileToken& token) override {
        m_slot->lock();
        const sc_core::sc_time start = sc_core::sc_time_stamp();
        trace_engine(true, token);
        compute(token.stage());
        record_busy(start);
        trace_engine(false, token);
        m_slot->unlock();
    }

    // The stage's work, done while holding the slot: a C++ model waits its
    // cycle count at the engine clock; an RTL engine (impl: rtl.*,
    // docs/rtl.md) clocks its Verilated RTL until the RTL says it is done.
    virtual void compute(const Stage& stage) { sc_core::wait(duration(m_cycles(stage))); }

private:
    sc_core::sc_port<sc_core::sc_mutex_if>& m_slot;
    double m_freq_ghz;
    std::function<std::uint64_t(const Stage&)> m_cycles;
    FifoResource* m_fifo_slot = nullptr;
};

// The module of a compute engine (PE_GEMM, PE_MATH): the accel_slot port and
// the engine's one ComputeWorker. The builtin engine makes a ComputeWorker
// with its timing formula; another implementation (rtl.pe_gemm, docs/rtl.md)
// brings its own, so that it holds accel_slot, traces and counts busy time
// exactly as the builtin does. Each calls adopt_worker() once, from its
// constructor.
class ComputeEngine : public RoutedNode {
public:
    // Ports: the compute slot GEMM and MATH share (seed 000 §D4)
    sc_core::sc_port<sc_core::sc_mutex_if> accel_slot;

    StageWorker& worker() { return *m_worker; }
    // The block's Verilated RTL when the engine is one (docs/rtl.md);
    // nullptr for the C++ model.
    virtual RtlBlock* rtl() { return nullptr; }

protected:
    explicit ComputeEngine(const sc_core::sc_module_name& name)
        : RoutedNode(name), accel_slot("accel_slot") {}
    void adopt_worker(std::unique_ptr<ComputeWorker> worker) {
        m_worker = std::move(worker);
        spawn_worker(*m_worker, "worker");
    }

private:
    std::unique_ptr<ComputeWorker> m_worker;
};

}  // namespace npuvp
