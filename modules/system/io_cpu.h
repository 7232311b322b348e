// IO_CPU, one per SIP (SPEC §2, seed 001): the host's command entry. Linked to
// every M_CPU of its SIP (io_link) and to the IO_CPUs of neighbouring SIPs
// (sip_link). Host-request handling lands with the cube command path; today
// it is a routed node that forwards and accepts messages.
#pragma once

#include "modules/common/config.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class IoCpu : public RoutedNode {
public:
    // Parameters
    const IoCpuConfig& config;

    IoCpu(const sc_core::sc_module_name& name, const IoCpuConfig& config)
        : RoutedNode(name), config(config) {}
    const char* kind() const override { return "io_cpu"; }
};

}  // namespace npuvp
