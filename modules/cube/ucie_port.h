// A cube's UCIe port (SPEC §2): attached to one mesh router, linked to the
// UCIe ports of the neighbouring cubes of its SIP. It only forwards.
#pragma once

#include "tlm_sockets/routed_node.h"

namespace npuvp {

class UciePort : public RoutedNode {
public:
    explicit UciePort(const sc_core::sc_module_name& name) : RoutedNode(name) {}
    const char* kind() const override { return "ucie_port"; }
};

}  // namespace npuvp
