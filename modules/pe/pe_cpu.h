// PE_CPU (seed 000 §D1): runs the kernel program and submits commands to
// PE_SCHEDULER (never to engine queues); overhead_ns per command issued
// (SPEC §3 T3). Attached to its PE's mesh router for launches from M_CPU.
// The program interpreter lands with the PE pipeline issue.
#pragma once

#include "modules/common/config.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeCpu : public RoutedNode {
public:
    // Parameters
    const PeCpuConfig& config;

    PeCpu(const sc_core::sc_module_name& name, const PeCpuConfig& config)
        : RoutedNode(name), config(config) {}
    const char* kind() const override { return "pe_cpu"; }
};

}  // namespace npuvp
