// PE_MATH (seed 000 §D1; SPEC §3 T3): element-wise / reduction / SIMD unit on
// the register file. Holds the PE's accel_slot (shared with PE_GEMM):
//   cycles = ceil(elements · cost(op) / lanes) + fill_cycles.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "modules/common/config.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeMath : public RoutedNode {
public:
    // Parameters
    const PeMathConfig& config;
    // Ports: the compute slot shared with PE_GEMM (seed 000 §D4)
    sc_core::sc_port<sc_core::sc_mutex_if> accel_slot;

    PeMath(const sc_core::sc_module_name& name, const PeMathConfig& config)
        : RoutedNode(name), config(config), accel_slot("accel_slot") {}
    const char* kind() const override { return "pe_math"; }

    std::uint64_t cycles(std::uint64_t elements, const std::string& op) const {
        auto it = config.op_cost.find(op);
        if (it == config.op_cost.end())
            throw std::invalid_argument(node_id() + ": no op_cost for '" + op + "'");
        return static_cast<std::uint64_t>(
                   std::ceil(static_cast<double>(elements) * it->second / config.lanes)) +
               config.fill_cycles;
    }
};

}  // namespace npuvp
