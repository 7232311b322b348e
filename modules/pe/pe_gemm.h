// PE_GEMM (seed 000 §D1, §D4; SPEC §3 T3): the MAC array. It reads operands
// from and writes results to the register file, never TCM. For an m×k×n tile
//   cycles = ceil(m / rows) · ceil(n / cols) · k + fill_cycles,
//   time   = cycles / freq_ghz,
// holding the PE's accel_slot (shared with PE_MATH) for that time.
#pragma once

#include <cstdint>
#include <memory>

#include "modules/common/config.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/pe/compute_worker.h"

namespace npuvp {

class PeGemm : public ComputeEngine {
public:
    // Parameters
    const PeGemmConfig& config;

    // builtin.pe_gemm: the timing formula above.
    PeGemm(const sc_core::sc_module_name& name, const PeGemmConfig& config, TraceSink& trace,
           RunStatus& status)
        : PeGemm(name, config) {
        adopt_worker(std::make_unique<ComputeWorker>(
            node_id_ref(), StageType::gemm, inboxes, accel_slot, config.freq_ghz,
            [this](const Stage& s) { return cycles(s.m, s.k, s.n); }, trace, status));
    }
    const char* kind() const override { return "pe_gemm"; }

    std::uint64_t cycles(std::uint64_t m, std::uint64_t k, std::uint64_t n) const {
        const auto ceil_div = [](std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; };
        return ceil_div(m, config.rows) * ceil_div(n, config.cols) * k + config.fill_cycles;
    }

protected:
    // For another implementation (rtl.pe_gemm), which adopts its own worker.
    PeGemm(const sc_core::sc_module_name& name, const PeGemmConfig& config)
        : ComputeEngine(name), config(config) {}
};

}  // namespace npuvp
