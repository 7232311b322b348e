// PE_GEMM (seed 000 §D1, §D4; SPEC §3 T3, docs/timing.md T3): the MAC array.
// It reads operands from and writes results to the register file, never TCM.
// For an m×k×n tile of e-byte operands, with cost_model `array_pass` (SPEC T3
// as the seeds state it)
//   cycles = ceil(m / rows) · ceil(n / cols) · k + fill_cycles,
// and with `dataflow` (the default): K folded onto the rows (columns) an
// m < rows (n < cols) tile leaves idle, and the operands streamed through
// fetch at fetch_bytes_per_cycle,
//   fold   = (m < rows ? rows / m : 1) · (n < cols ? cols / n : 1), at most k
//   array  = ceil(m / rows) · ceil(n / cols) · ceil(k / fold)
//   fetch  = ceil((m·k + k·n) · e / fetch_bytes_per_cycle)
//   cycles = max(array, fetch) + fill_cycles + (fold > 1 ? reducer_cycles : 0),
// which is the array pass for a tile that fills the array (fetch is then
// never the bound: (rows + cols)·k·e ≤ 2048·k for a 128 × 128 array). A
// `gemm` command (not a composite's tile) pays command_cycles more: its
// issue, set-up and completion.
// time = cycles / freq_ghz, holding the PE's accel_slot (shared with PE_MATH).
//
// A composite's tiles fit the TCM, but a `gemm` command's sizes are only
// bounded (docs/limits.md): every product and sum is checked, and one that
// leaves 64 bits is an Overflow naming the PE and command
// (modules/common/checked.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include "modules/common/config.h"
#include "modules/common/checked.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/pe/compute_worker.h"

namespace npuvp {

// The formula above.
inline std::uint64_t gemm_cycles(const PeGemmConfig& c, std::uint64_t m, std::uint64_t k,
                                 std::uint64_t n, std::uint32_t elem_bytes) {
    const std::uint64_t rows = static_cast<std::uint64_t>(c.rows), cols = static_cast<std::uint64_t>(c.cols);
    const std::uint64_t fill = static_cast<std::uint64_t>(c.fill_cycles);
    constexpr const char* what = "a GEMM stage's cycle count";
    const std::uint64_t passes = checked_mul(ceil_div(m, rows), ceil_div(n, cols), what);
    if (c.cost_model != GemmCostModel::dataflow || m == 0 || n == 0 || k == 0 ||
        c.fetch_bytes_per_cycle <= 0)
        return checked_add(checked_mul(passes, k, what), fill, what);
    std::uint64_t fold = (m < rows ? rows / m : 1) * (n < cols ? cols / n : 1);  // <= rows·cols
    fold = std::min(fold, k);
    const std::uint64_t array = checked_mul(passes, ceil_div(k, fold), what);
    const std::uint64_t operand_bytes = checked_mul(
        checked_add(checked_mul(m, k, what), checked_mul(k, n, what), what), elem_bytes, what);
    const std::uint64_t fetch = ceil_div(operand_bytes, static_cast<std::uint64_t>(c.fetch_bytes_per_cycle));
    return checked_add(checked_add(std::max(array, fetch), fill, what),
                       fold > 1 ? static_cast<std::uint64_t>(c.reducer_cycles) : 0, what);
}

// A stage's cycles: the formula above, and command_cycles more for a
// `gemm` command's stage (not a composite's tile). The workload loader
// checks a command's time with it; the engine times every stage with it.
inline std::uint64_t gemm_stage_cycles(const PeGemmConfig& c, std::uint64_t m, std::uint64_t k, std::uint64_t n,
                                       std::uint32_t elem_bytes, bool command) {
    const std::uint64_t cycles = gemm_cycles(c, m, k, n, elem_bytes);
    return command ? checked_add(cycles, static_cast<std::uint64_t>(c.command_cycles), "a GEMM stage's cycle count")
                   : cycles;
}

class PeGemm : public ComputeEngine {
public:
    // Parameters
    const PeGemmConfig& config;

    // builtin.pe_gemm: the timing formula above.
    PeGemm(const sc_core::sc_module_name& name, const PeGemmConfig& config, TraceSink& trace,
           RunStatus& status)
        : PeGemm(name, config) {
        adopt_worker(std::make_unique<ComputeWorker>(
            node_id_ref(), StageType::gemm, inboxes, accel_slot, data_slot(), config.freq_ghz,
            [this](const Stage& s) { return stage_cycles(s); }, trace, status));
    }
    const char* kind() const override { return "pe_gemm"; }

    std::uint64_t cycles(std::uint64_t m, std::uint64_t k, std::uint64_t n,
                         std::uint32_t elem_bytes = 2) const {
        return gemm_cycles(config, m, k, n, elem_bytes);
    }
    std::uint64_t stage_cycles(const Stage& s) const {
        return gemm_stage_cycles(config, s.m, s.k, s.n, s.elem_bytes, s.command);
    }

protected:
    // For another implementation (rtl.pe_gemm), which adopts its own worker.
    PeGemm(const sc_core::sc_module_name& name, const PeGemmConfig& config)
        : ComputeEngine(name), config(config) {}
};

}  // namespace npuvp
