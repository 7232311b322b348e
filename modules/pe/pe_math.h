// PE_MATH (seed 000 §D1, §D4; SPEC §3 T3): element-wise / reduction / SIMD unit
// on the register file. For `elements` of `op`
//   cycles = ceil(elements · cost(op) / lanes) + fill_cycles,
// with `lanes` for 8- and 16-bit elements and `lanes_32bit` for 32-bit ones
// (CALIBRATION: 8 or 4 elements per cycle per lane group); a `math` command
// (not a composite's epilogue) pays command_cycles more,
// holding the PE's accel_slot (shared with PE_GEMM). Consecutive MATH stages
// of one token (an epilogue after an epilogue) run here without re-entering
// the inbox, each taking the slot in turn.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "modules/common/config.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/pe/compute_worker.h"

namespace npuvp {

// The formula above, for an op in op_cost; beyond 64 bits an Overflow.
inline std::uint64_t math_cycles(const PeMathConfig& c, std::uint64_t elements, const std::string& op,
                                 std::uint32_t elem_bytes = 2) {
    const double cost = c.op_cost.at(op);
    const int lanes = elem_bytes >= 4 && c.lanes_32bit > 0 ? c.lanes_32bit : c.lanes;
    constexpr const char* what = "a MATH stage's cycle count";
    return checked_add(checked_u64(std::ceil(static_cast<double>(elements) * cost / lanes), what, "cycles"),
                       static_cast<std::uint64_t>(c.fill_cycles), what);
}

// A stage's cycles: the formula above, and command_cycles more for a
// `math` command's stage (not a composite's epilogue). The workload loader
// checks a command's time with it; the engine times every stage with it.
inline std::uint64_t math_stage_cycles(const PeMathConfig& c, std::uint64_t elements, const std::string& op,
                                       std::uint32_t elem_bytes, bool command) {
    const std::uint64_t cycles = math_cycles(c, elements, op, elem_bytes);
    return command ? checked_add(cycles, static_cast<std::uint64_t>(c.command_cycles), "a MATH stage's cycle count")
                   : cycles;
}

class PeMath : public ComputeEngine {
public:
    // Parameters
    const PeMathConfig& config;

    // builtin.pe_math: the timing formula above.
    PeMath(const sc_core::sc_module_name& name, const PeMathConfig& config, TraceSink& trace,
           RunStatus& status)
        : PeMath(name, config) {
        adopt_worker(std::make_unique<ComputeWorker>(
            node_id_ref(), StageType::math, inboxes, accel_slot, data_slot(), config.freq_ghz,
            [this](const Stage& s) { return stage_cycles(s); }, trace, status));
    }
    const char* kind() const override { return "pe_math"; }

    // The workload loader has checked every op against op_cost.
    std::uint64_t cycles(std::uint64_t elements, const std::string& op,
                         std::uint32_t elem_bytes = 2) const {
        check_op(op);
        return math_cycles(config, elements, op, elem_bytes);
    }
    std::uint64_t stage_cycles(const Stage& s) const {
        check_op(s.op);
        return math_stage_cycles(config, s.elements, s.op, s.elem_bytes, s.command);
    }

private:
    void check_op(const std::string& op) const {
        if (config.op_cost.find(op) == config.op_cost.end())
            throw std::invalid_argument(node_id() + ": no op_cost for '" + op + "'");
    }

protected:
    // For another implementation (an RTL MATH block), which adopts its own worker.
    PeMath(const sc_core::sc_module_name& name, const PeMathConfig& config)
        : ComputeEngine(name), config(config) {}
};

}  // namespace npuvp
