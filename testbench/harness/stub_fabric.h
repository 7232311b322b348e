// A stub of the Fabric interface (modules/common/fabric.h) for the IO_CPU and
// M_CPU benches: the routes and nodes a bench lays out by hand, instead of a
// whole Platform. A route or node the block asks for and the bench did not
// give is a SystemC error (the report guard fails the test).
#pragma once

#include <map>
#include <string>
#include <tuple>

#include <systemc>

#include "modules/common/fabric.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp::test {

class StubFabric : public Fabric {
public:
    std::uint64_t slice_bytes = 1 << 20;
    int slices_per_cube = 8;
    int cubes_per_sip = 1;
    std::uint64_t hbm_base_pa = 0;

    void set_route(RoutedNode& from, RoutedNode& to, const Route& route) { m_routes[{&from, &to}] = &route; }
    void set_read_route(RoutedNode& from, RoutedNode& to, const Route& route) {
        m_read_routes[{&from, &to}] = &route;
    }
    void set_node(NodeRole role, int sip, int cube, int pe, RoutedNode& node) {
        m_nodes[{role, sip, cube, pe}] = &node;
    }

    const Route& route(RoutedNode& from, RoutedNode& to) override { return find(m_routes, from, to); }
    const Route& read_route(RoutedNode& from, RoutedNode& to) override {
        return find(m_read_routes, from, to);
    }
    RoutedNode& node(NodeRole role, int sip, int cube, int pe) override {
        if (role == NodeRole::io_cpu) cube = 0;
        if (role == NodeRole::io_cpu || role == NodeRole::m_cpu) pe = 0;
        auto it = m_nodes.find({role, sip, cube, pe});
        if (it == m_nodes.end()) {
            SC_REPORT_ERROR("npuvp/test", ("stub fabric: no node of role " + std::to_string(static_cast<int>(role)) +
                                           " at sip " + std::to_string(sip) + " cube " +
                                           std::to_string(cube) + " pe " + std::to_string(pe))
                                              .c_str());
        }
        return *it->second;
    }
    std::uint64_t hbm_base(int sip, int cube, int slice) const override {
        return hbm_base_pa +
               ((static_cast<std::uint64_t>(sip) * cubes_per_sip + cube) * slices_per_cube + slice) * slice_bytes;
    }
    std::uint64_t hbm_slice_bytes() const override { return slice_bytes; }
    int pes_per_cube() const override { return slices_per_cube; }

private:
    using Key = std::pair<const RoutedNode*, const RoutedNode*>;
    const Route& find(const std::map<Key, const Route*>& table, RoutedNode& from, RoutedNode& to) {
        auto it = table.find({&from, &to});
        if (it == table.end())
            SC_REPORT_ERROR("npuvp/test",
                            ("stub fabric: no route " + from.node_id() + " -> " + to.node_id()).c_str());
        return *it->second;
    }

    // Pointer keys for lookup only, never iterated (docs/architecture.md, Determinism).
    std::map<Key, const Route*> m_routes;
    std::map<Key, const Route*> m_read_routes;
    std::map<std::tuple<NodeRole, int, int, int>, RoutedNode*> m_nodes;
};

}  // namespace npuvp::test
