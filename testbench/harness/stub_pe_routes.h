// A stub of PeRoutes (modules/pe/pe_routes.h) for the PE-block benches: the
// routes a PE block asks for at run time, laid out by hand with Wires. A DMA
// route is given per (direction, channel) for a window of physical
// addresses; an address outside every window throws std::out_of_range, as
// the platform's resolver does.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <systemc>

#include "modules/pe/pe_routes.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp::test {

class StubPeRoutes : public PeRoutes {
public:
    const Route* fetch_route = nullptr;
    const Route* store_route = nullptr;
    const Route* scheduler_route = nullptr;
    std::map<int, const Route*> comm_routes;  // by peer

    void add_dma(DmaDirection dir, int channel, std::uint64_t lo, std::uint64_t size, const Route& route) {
        m_dma.push_back({dir, channel, lo, size, &route});
    }

    const Route& between(RoutedNode& from, RoutedNode& to) override {
        SC_REPORT_ERROR("npuvp/test", ("stub routes: no route " + from.node_id() + " -> " + to.node_id()).c_str());
        return *fetch_route;
    }
    const Route& to_scheduler() override { return *need(scheduler_route, "to_scheduler"); }
    const Route& dma(DmaDirection dir, int channel, std::uint64_t pa) override {
        for (const Dma& d : m_dma)
            if (d.dir == dir && d.channel == channel && pa >= d.lo && pa - d.lo < d.size) return *d.route;
        throw std::out_of_range("address " + std::to_string(pa) + " is in no memory window");
    }
    const Route& comm(int peer) override {
        auto it = comm_routes.find(peer);
        return *need(it == comm_routes.end() ? nullptr : it->second, "comm");
    }
    const Route& fetch() override { return *need(fetch_route, "fetch"); }
    const Route& store() override { return *need(store_route, "store"); }

private:
    struct Dma {
        DmaDirection dir;
        int channel;
        std::uint64_t lo, size;
        const Route* route;
    };
    const Route* need(const Route* r, const char* what) {
        if (!r) SC_REPORT_ERROR("npuvp/test", (std::string("stub routes: no ") + what + " route").c_str());
        return r;
    }
    std::vector<Dma> m_dma;
};

}  // namespace npuvp::test
