// Bench of builtin.mesh_noc alone (SPEC §3 T5, docs/timing.md "T5 Cube NoC"):
// the mesh lists its links and XY paths; the bench times them as the
// elaborator does (one hop per directed link, bound router to router) and
// sends payloads from stub initiators to stub targets attached to routers.
//
// Mesh: 2 rows x 4 columns, router index = row · 4 + col:
//     r0 r1 r2 r3
//     r4 r5 r6 r7
// Link latency = pitch_mm 1.5 × ns_per_mm 2.0 + router_latency_ns 1.0 = 4 ns,
// link_bw_gbs 64 (6400 B = exactly 100 ns). Attach links: 1 ns, no bandwidth.
#include <boost/test/unit_test.hpp>

#include <map>
#include <set>

#include "modules/cube/mesh_noc.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/stub_nodes.h"

using namespace npuvp;
using test::ns;

namespace {

struct Bench {
    NocConfig noc_config;
    PeLayoutConfig layout;
    WireConfig wire;
    MeshNoc noc;
    test::Wires wires;
    std::map<std::pair<int, int>, Hop*> link_hops;  // (from, to) -> its hop

    static NocConfig noc_cfg() {
        NocConfig c;
        c.impl = "builtin.mesh_noc";
        c.link_bw_gbs = 64.0;
        c.router_latency_ns = 1.0;
        return c;
    }
    static PeLayoutConfig layout_cfg() {
        PeLayoutConfig l;
        l.rows = 2;
        l.cols = 4;
        l.pitch_mm = 1.5;
        return l;
    }

    Bench() : noc_config(noc_cfg()), layout(layout_cfg()), wire{2.0}, noc("noc", noc_config, layout, wire) {
        for (const Noc::Link& l : noc.links())
            link_hops[{l.from, l.to}] = &wires.hop("r" + std::to_string(l.from) + "->r" + std::to_string(l.to),
                                                    l.latency_ns, l.bw_gbs);
    }

    // from -(attach)-> the mesh's XY path -(attach)-> to; each link applied by
    // the node that sends on it (its path position).
    const Route& route(RoutedNode& from, int from_router, RoutedNode& to, int to_router) {
        std::vector<RoutedNode*> nodes{&from};
        std::vector<RouteStep> steps{{&wires.hop(from.node_id() + "->attach", 1.0), 0}};
        const std::vector<int> routers = noc.path(from_router, to_router);
        for (std::size_t i = 0; i < routers.size(); ++i) {
            nodes.push_back(&noc.router(routers[i]));
            if (i + 1 < routers.size())
                steps.push_back({link_hops.at({routers[i], routers[i + 1]}), static_cast<std::uint32_t>(i + 1)});
        }
        steps.push_back({&wires.hop(to.node_id() + "<-attach", 1.0), static_cast<std::uint32_t>(routers.size())});
        nodes.push_back(&to);
        return wires.route(nodes, steps);
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(xy_routing_goes_along_the_row_first) {
    Bench b;
    BOOST_CHECK_EQUAL(b.noc.router_count(), 8);
    BOOST_CHECK_EQUAL(b.noc.router(6).node_id(), "noc.r6");
    // Corner to corner: X first along row 0 (r0..r3), then down column 3 (r7).
    const std::vector<int> down{0, 1, 2, 3, 7};
    BOOST_CHECK(b.noc.path(0, 7) == down);
    // Back: X first along row 1 (r7..r4), then up column 0 (r0): another path.
    const std::vector<int> up{7, 6, 5, 4, 0};
    BOOST_CHECK(b.noc.path(7, 0) == up);
    // From the lower row to the upper right: X first, then Y.
    const std::vector<int> diag{4, 5, 6, 7, 3};
    BOOST_CHECK(b.noc.path(4, 3) == diag);
    // Same router: no link at all.
    BOOST_CHECK(b.noc.path(5, 5) == std::vector<int>{5});
    sc_core::sc_start();
}

BOOST_AUTO_TEST_CASE(links_are_one_hop_per_direction_between_neighbours) {
    Bench b;
    const std::vector<Noc::Link> links = b.noc.links();
    // Horizontal: 2 rows × 3 neighbour pairs; vertical: 1 × 4 columns; each
    // pair in both directions: (6 + 4) × 2 = 20 directed links.
    BOOST_CHECK_EQUAL(links.size(), 20u);
    std::set<std::pair<int, int>> seen;
    for (const Noc::Link& l : links) {
        // 1.5 mm × 2.0 ns/mm + 1.0 ns router = 4.0 ns; link_bw_gbs 64.
        BOOST_CHECK_CLOSE(l.latency_ns, 4.0, 1e-9);
        BOOST_CHECK_EQUAL(l.bw_gbs, 64.0);
        const int dr = std::abs(l.from / 4 - l.to / 4), dc = std::abs(l.from % 4 - l.to % 4);
        BOOST_CHECK_MESSAGE(dr + dc == 1, "r" << l.from << "->r" << l.to << " are not neighbours");
        BOOST_CHECK_MESSAGE(seen.insert({l.from, l.to}).second, "r" << l.from << "->r" << l.to << " twice");
        BOOST_CHECK_MESSAGE(std::count_if(links.begin(), links.end(),
                                          [&](const Noc::Link& o) { return o.from == l.to && o.to == l.from; }) == 1,
                            "r" << l.from << "->r" << l.to << " has no reverse link");
    }
    sc_core::sc_start();
}

BOOST_AUTO_TEST_CASE(corner_to_corner_transfer_timed_by_hand) {
    Bench b;
    test::StubInitiator src("src");
    test::StubTarget dst("dst");
    src.jobs.push_back({0, &b.route(src, 0, dst, 7), MsgKind::dma_write, 6400});
    sc_core::sc_start();
    BOOST_REQUIRE_EQUAL(src.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(dst.arrivals.size(), 1u);
    // r0 -> r1 -> r2 -> r3 -> r7: 4 links × 4 ns + 2 attach × 1 ns = 18 ns of
    // latency; the target sees the payload at 18 ns (its delay so far) ...
    BOOST_CHECK_EQUAL(dst.arrivals[0].arrival_ps, ns(18));
    // ... and the initiator is done after the drain 6400 B / 64 GB/s = 100 ns.
    BOOST_CHECK_EQUAL(src.done[0].done_ps, ns(118));
    // The routers forward without touching the payload.
    BOOST_CHECK_EQUAL(dst.arrivals[0].bytes, 6400u);
}

BOOST_AUTO_TEST_CASE(shared_link_makes_the_later_transfer_wait_other_direction_free) {
    Bench b;
    test::StubInitiator a("a"), c("c"), d("d");
    test::StubTarget at_r2("at_r2"), at_r1("at_r1");
    // a (r0) -> r2 at 0 ns; c (r1) -> r2 at 2 ns: both cross link r1->r2.
    // d (r2) -> r1 at 0 ns crosses r2->r1, the other direction.
    a.jobs.push_back({0, &b.route(a, 0, at_r2, 2), MsgKind::dma_write, 6400});
    c.jobs.push_back({ns(2), &b.route(c, 1, at_r2, 2), MsgKind::dma_write, 6400});
    d.jobs.push_back({0, &b.route(d, 2, at_r1, 1), MsgKind::dma_write, 6400});
    sc_core::sc_start();
    BOOST_REQUIRE_EQUAL(a.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(c.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(d.done.size(), 1u);
    // a: attach 1 -> r0->r1 at 1 (free 101), +4 = 5 -> r1->r2 at 5 (free 105),
    // +4 = 9 -> attach 10 -> done 10 + 100 = 110 ns.
    BOOST_CHECK_EQUAL(a.done[0].done_ps, ns(110));
    // c: attach 2 + 1 = 3 -> r1->r2 busy until 105: t = 105 (free 205), +4 =
    // 109 -> attach 110 -> done 110 + 100 = 210 ns (100 ns later than alone).
    BOOST_CHECK_EQUAL(c.done[0].done_ps, ns(210));
    // d: r2->r1 is its own hop (T1 directions): 1 + 4 + 1 + 100 = 106 ns.
    BOOST_CHECK_EQUAL(d.done[0].done_ps, ns(106));
}
