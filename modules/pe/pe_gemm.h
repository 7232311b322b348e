// PE_GEMM (seed 000 §D1, §D4; SPEC §3 T3): the MAC array. It reads operands
// from and writes results to the register file, never TCM. For an m×k×n tile
//   cycles = ceil(m / rows) · ceil(n / cols) · k + fill_cycles,
//   time   = cycles / freq_ghz,
// holding the PE's accel_slot (shared with PE_MATH) for that time.
#pragma once

#include <cstdint>
#include <memory>

#include "modules/common/config.h"
#include "modules/common/rtl_block.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/pe/compute_worker.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeGemm : public RoutedNode {
public:
    // Parameters
    const PeGemmConfig& config;
    // Ports: the compute slot shared with PE_MATH (seed 000 §D4)
    sc_core::sc_port<sc_core::sc_mutex_if> accel_slot;

    // builtin.pe_gemm: the timing formula above.
    PeGemm(const sc_core::sc_module_name& name, const PeGemmConfig& config, TraceSink& trace,
           RunStatus& status)
        : PeGemm(name, config) {
        adopt_worker(std::make_unique<ComputeWorker>(
            node_id_ref(), StageType::gemm, accel_slot, config.freq_ghz,
            [this](const Stage& s) { return cycles(s.m, s.k, s.n); }, trace, status));
    }
    const char* kind() const override { return "pe_gemm"; }

    std::uint64_t cycles(std::uint64_t m, std::uint64_t k, std::uint64_t n) const {
        const auto ceil_div = [](std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; };
        return ceil_div(m, config.rows) * ceil_div(n, config.cols) * k + config.fill_cycles;
    }
    StageWorker& worker() { return *m_worker; }

    // The block's Verilated RTL when the engine is one (impl: rtl.*,
    // docs/rtl.md); nullptr for the C++ model.
    virtual RtlBlock* rtl() { return nullptr; }

protected:
    // Another implementation of the engine (rtl.pe_gemm) brings its own
    // worker, a ComputeWorker, so that it holds accel_slot, traces and counts
    // busy time exactly as the builtin does; it calls adopt_worker() once,
    // from its constructor.
    PeGemm(const sc_core::sc_module_name& name, const PeGemmConfig& config)
        : RoutedNode(name), config(config), accel_slot("accel_slot") {}
    void adopt_worker(std::unique_ptr<ComputeWorker> worker) {
        m_worker = std::move(worker);
        spawn_worker(*m_worker, "worker");
    }

private:
    std::unique_ptr<ComputeWorker> m_worker;
};

}  // namespace npuvp
