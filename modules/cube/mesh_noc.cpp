#include "modules/cube/mesh_noc.h"

#include <string>

namespace npuvp {

MeshNoc::MeshNoc(const sc_core::sc_module_name& name, const NocConfig& noc,
                 const PeLayoutConfig& layout, const WireConfig& wire)
    : Noc(name), m_noc(noc), m_layout(layout), m_wire(wire) {
    const int count = layout.rows * layout.cols;
    m_routers.reserve(count);
    for (int i = 0; i < count; ++i)
        m_routers.push_back(std::make_unique<MeshRouter>(("r" + std::to_string(i)).c_str()));
}

std::vector<Noc::Link> MeshNoc::links() const {
    const double latency = m_layout.pitch_mm * m_wire.ns_per_mm + m_noc.router_latency_ns;
    std::vector<Link> links;
    const int rows = m_layout.rows;
    const int cols = m_layout.cols;
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const int here = r * cols + c;
            if (c + 1 < cols) {
                links.push_back({here, here + 1, latency, m_noc.link_bw_gbs});
                links.push_back({here + 1, here, latency, m_noc.link_bw_gbs});
            }
            if (r + 1 < rows) {
                links.push_back({here, here + cols, latency, m_noc.link_bw_gbs});
                links.push_back({here + cols, here, latency, m_noc.link_bw_gbs});
            }
        }
    }
    return links;
}

std::vector<int> MeshNoc::path(int from, int to) const {
    const int cols = m_layout.cols;
    int row = from / cols;
    int col = from % cols;
    const int to_row = to / cols;
    const int to_col = to % cols;
    std::vector<int> routers{from};
    while (col != to_col) {  // X first
        col += to_col > col ? 1 : -1;
        routers.push_back(row * cols + col);
    }
    while (row != to_row) {  // then Y
        row += to_row > row ? 1 : -1;
        routers.push_back(row * cols + col);
    }
    return routers;
}

}  // namespace npuvp
