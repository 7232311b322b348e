// M_CPU, one per cube (SPEC §4, seed 001): the cube's command processor,
// attached to mesh router `router`. Fan-out and aggregation land with the
// cube command path; today it is a routed node (transit forwarding is what
// RoutedNode does for any path that passes through it).
#pragma once

#include "modules/common/config.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class MCpu : public RoutedNode {
public:
    // Parameters
    const MCpuConfig& config;

    MCpu(const sc_core::sc_module_name& name, const MCpuConfig& config)
        : RoutedNode(name), config(config) {}
    const char* kind() const override { return "m_cpu"; }
};

}  // namespace npuvp
