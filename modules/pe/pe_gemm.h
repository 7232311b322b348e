// PE_GEMM (seed 000 §D1; SPEC §3 T3): the MAC array. Reads operands from and
// writes results to the register file, never TCM. Holds the PE's accel_slot
// (shared with PE_MATH, FIFO-fair) for the time of each tile:
//   cycles = ceil(m / rows) · ceil(n / cols) · k + fill_cycles,
//   time   = cycles / freq_ghz.
#pragma once

#include <cstdint>

#include "modules/common/config.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeGemm : public RoutedNode {
public:
    // Parameters
    const PeGemmConfig& config;
    // Ports: the compute slot shared with PE_MATH (seed 000 §D4)
    sc_core::sc_port<sc_core::sc_mutex_if> accel_slot;

    PeGemm(const sc_core::sc_module_name& name, const PeGemmConfig& config)
        : RoutedNode(name), config(config), accel_slot("accel_slot") {}
    const char* kind() const override { return "pe_gemm"; }

    std::uint64_t cycles(std::uint64_t m, std::uint64_t k, std::uint64_t n) const {
        const auto ceil_div = [](std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; };
        return ceil_div(m, config.rows) * ceil_div(n, config.cols) * k + config.fill_cycles;
    }
};

}  // namespace npuvp
