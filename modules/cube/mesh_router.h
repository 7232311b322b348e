// A router of the cube mesh NoC (SPEC §3 T5). It only forwards: its links are the
// T1 hops (link_bw_gbs; pitch_mm × ns_per_mm + router_latency_ns), applied as
// the payload leaves it.
#pragma once

#include "tlm_sockets/routed_node.h"

namespace npuvp {

class MeshRouter : public RoutedNode {
public:
    explicit MeshRouter(const sc_core::sc_module_name& name) : RoutedNode(name) {}
    const char* kind() const override { return "mesh_router"; }
};

}  // namespace npuvp
