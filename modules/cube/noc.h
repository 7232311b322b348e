// The interface of a cube NoC (SPEC §3 T5). The mesh is the default impl;
// a crossbar or a ring is another impl of this interface, registered under
// another `impl:` name. The elaborator binds and times the links the NoC
// lists and asks it for the router sequence between two routers.
#pragma once

#include <vector>

#include <systemc>

#include "tlm_sockets/routed_node.h"

namespace npuvp {

class Noc : public sc_core::sc_module {
public:
    // A directed router-to-router link; each direction is its own T1 hop.
    struct Link {
        int from;
        int to;
        double latency_ns;
        double bw_gbs;  // 0 = unlimited
    };

    using sc_core::sc_module::sc_module;

    virtual int router_count() const = 0;
    virtual RoutedNode& router(int index) = 0;
    virtual std::vector<Link> links() const = 0;
    // The routers a packet visits from `from` to `to`, both included.
    virtual std::vector<int> path(int from, int to) const = 0;
};

}  // namespace npuvp
