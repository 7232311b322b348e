// PE_IPCQ (SPEC §5): collective ring-buffer endpoint (slots × slot_bytes);
// its data travels on PE_DMA's vc_comm virtual channel. Attached to its PE's
// mesh router so peers' sends reach it.
#pragma once

#include "modules/common/config.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeIpcq : public RoutedNode {
public:
    // Parameters
    const PeIpcqConfig& config;

    PeIpcq(const sc_core::sc_module_name& name, const PeIpcqConfig& config)
        : RoutedNode(name), config(config) {}
    const char* kind() const override { return "pe_ipcq"; }
};

}  // namespace npuvp
