// builtin.mesh_noc: a rows × cols 2D mesh of routers, one per PE position of
// pe_layout, router index = row × cols + col (SPEC §3 T5). XY routing: a
// packet first moves along its row (X, the column index) to the destination
// column, then along that column (Y). Each mesh link is a T1 hop with
// bandwidth link_bw_gbs and latency pitch_mm × ns_per_mm + router_latency_ns.
#pragma once

#include <memory>
#include <vector>

#include "modules/common/config.h"
#include "modules/cube/mesh_router.h"
#include "modules/cube/noc.h"

namespace npuvp {

class MeshNoc : public Noc {
public:
    MeshNoc(const sc_core::sc_module_name& name, const NocConfig& noc,
            const PeLayoutConfig& layout, const WireConfig& wire);

    int router_count() const override { return static_cast<int>(m_routers.size()); }
    RoutedNode& router(int index) override { return *m_routers.at(index); }
    std::vector<Link> links() const override;
    std::vector<int> path(int from, int to) const override;

private:
    const NocConfig& m_noc;
    const PeLayoutConfig& m_layout;
    const WireConfig& m_wire;
    std::vector<std::unique_ptr<MeshRouter>> m_routers;
};

}  // namespace npuvp
