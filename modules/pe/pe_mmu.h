// PE_MMU (SPEC §5): VA -> PA per DMA access (translate_ns), page map / unmap
// from M_CPU. Attached to its PE's mesh router. Translation lands with the PE
// pipeline issue.
#pragma once

#include "modules/common/config.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeMmu : public RoutedNode {
public:
    // Parameters
    const PeMmuConfig& config;

    PeMmu(const sc_core::sc_module_name& name, const PeMmuConfig& config)
        : RoutedNode(name), config(config) {}
    const char* kind() const override { return "pe_mmu"; }
};

}  // namespace npuvp
