// T1 (SPEC §3) through RoutedNode::transport: hand-built nodes, hops and
// routes; expected times worked out by hand from
//   t = t0; for each hop i: t = max(t, free_i); free_i = t + n/B_i; t += L_i
//   done = t + n / min_i B_i
// GB/s = bytes/ns, so n/B in ns is bytes / (GB/s).
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <systemc>
#include <tlm>

#include "tlm_sockets/hop.h"
#include "tlm_sockets/npu_extension.h"
#include "tlm_sockets/protocol_checker.h"
#include "tlm_sockets/route.h"
#include "tlm_sockets/routed_node.h"

namespace {

using namespace npuvp;
using sc_core::SC_NS;
using sc_core::sc_time;

constexpr ps_t ns(std::uint64_t v) { return v * 1000; }

class Node : public RoutedNode {
public:
    using RoutedNode::RoutedNode;
    const char* kind() const override { return "test_node"; }
};

// A target that records what it sees on arrival (before accepting).
class RecordingTarget : public RoutedNode {
public:
    using RoutedNode::RoutedNode;
    const char* kind() const override { return "test_target"; }

    struct Arrival {
        tlm::tlm_command command;
        std::uint64_t address;
        bool data_ptr_set;
        unsigned data_length;
        unsigned streaming_width;
        bool byte_enable_ptr_set;
        unsigned byte_enable_length;
        tlm::tlm_response_status status;
        ps_t now_ps;
        ps_t delay_ps;  // the annotation when the payload reaches serve()
        std::uint64_t bytes;
    };
    std::vector<Arrival> arrivals;

protected:
    void serve(tlm::tlm_generic_payload& p, NpuExtension& ext, sc_time& delay) override {
        arrivals.push_back({p.get_command(), p.get_address(), p.get_data_ptr() != nullptr,
                            p.get_data_length(), p.get_streaming_width(),
                            p.get_byte_enable_ptr() != nullptr, p.get_byte_enable_length(),
                            p.get_response_status(), sc_core::sc_time_stamp().value(),
                            delay.value(), ext.bytes});
        RoutedNode::serve(p, ext, delay);
    }
};

// Runs jobs one after another through `initiator` (path[0] of each route):
// waits until the job's start, calls transport(), waits once, records.
// Several senders may share one initiator node.
class Sender : public sc_core::sc_module {
public:
    struct Job {
        ps_t start_ps;
        const Route* route;
        std::uint64_t bytes;
        MsgKind kind;
    };
    struct Done {
        ps_t start_ps;
        ps_t delay_ps;
        ps_t done_ps;
    };

    std::vector<Job> jobs;
    std::vector<Done> done;
    std::string error;

    Sender(const sc_core::sc_module_name& name, RoutedNode& initiator)
        : sc_module(name), m_initiator(initiator) {
        SC_THREAD(run);
    }
    SC_HAS_PROCESS(Sender);

private:
    void run() {
        for (const auto& job : jobs) {
            const ps_t now = sc_core::sc_time_stamp().value();
            if (job.start_ps > now) wait(sc_time::from_value(job.start_ps - now));
            m_txn.prepare(job.kind, *job.route, 0x1000, job.bytes);
            sc_time delay;
            try {
                delay = m_initiator.transport(m_txn);
            } catch (const std::exception& e) {
                error = e.what();
                return;
            }
            wait(delay);  // the initiator waits once
            done.push_back({job.start_ps, delay.value(), sc_core::sc_time_stamp().value()});
        }
    }

    RoutedNode& m_initiator;
    Transaction m_txn;
};

// A transit node whose transit traffic costs 5 ns (as M_CPU's and IO_CPU's
// overhead does), counting its transit() calls.
class CostlyTransit : public RoutedNode {
public:
    using RoutedNode::RoutedNode;
    const char* kind() const override { return "test_costly_transit"; }
    bool has_transit_cost() const override { return true; }
    int transits = 0;

protected:
    void transit(NpuExtension&, sc_time& delay) override {
        ++transits;
        delay += sc_time(5, SC_NS);
    }
};

Route make_route(std::vector<PathNode> path, std::vector<RouteStep> steps) {
    Route r;
    r.path = std::move(path);
    r.steps = std::move(steps);
    r.finalise();
    return r;
}

void run_sim() { sc_core::sc_start(); }

}  // namespace

BOOST_AUTO_TEST_CASE(three_hop_route_uncontended) {
    Node a("a"), r("r");
    RecordingTarget t("t");
    const int a_r = a.connect_to(r);
    const int r_t = r.connect_to(t);
    Hop h0("a->r", ns(10), 100.0);  // head hop, applied by the initiator a
    Hop h1("r->t", ns(4), 25.0);    // link hop, applied by the sending node r
    Hop h2("t.svc", ns(20), 50.0);  // the target's service hop, applied by t
    const Route route = make_route({{&a, a_r}, {&r, r_t}, {&t, -1}},
                                   {{&h0, 0}, {&h1, 1}, {&h2, 2}});
    Sender s("s", a);
    s.jobs = {{ns(5), &route, 1000, MsgKind::dma_write}};
    run_sim();

    // n = 1000 B, t0 = 5 ns.
    // h0: L=10, B=100 -> n/B=10: t=5,  free0=15, t=15
    // h1: L=4,  B=25  -> n/B=40: t=15, free1=55, t=19
    // h2: L=20, B=50  -> n/B=20: t=19, free2=39, t=39
    // done = 39 + n/minB = 39 + 1000/25 = 79 ns  (= t0 + ΣL 34 + 40)
    BOOST_TEST(s.error == "");
    BOOST_TEST(route.latency_ps == ns(34));
    BOOST_TEST(route.min_bw_gbs == 25.0);
    BOOST_REQUIRE_EQUAL(s.done.size(), 1u);
    BOOST_TEST(s.done[0].delay_ps == ns(74));
    BOOST_TEST(s.done[0].done_ps == ns(79));
    BOOST_TEST(h0.free_ps() == ns(15));
    BOOST_TEST(h1.free_ps() == ns(55));
    BOOST_TEST(h2.free_ps() == ns(39));
    // The target sees the annotation with its own service hop already added
    // (it is a b_transport target: it adds to the delay, does not wait).
    BOOST_REQUIRE_EQUAL(t.arrivals.size(), 1u);
    BOOST_TEST(t.arrivals[0].now_ps == ns(5));
    BOOST_TEST(t.arrivals[0].delay_ps == ns(34));
    BOOST_TEST(h0.bytes() == 1000u);
    BOOST_TEST(h1.busy_ps() == ns(40));
}

BOOST_AUTO_TEST_CASE(tail_hop_applied_by_initiator_after_return) {
    Node a("a");
    RecordingTarget t("t");
    const int a_t = a.connect_to(t);
    Hop link("a->t", ns(3), 100.0);
    Hop svc("t.svc", ns(7), 40.0);
    Hop tail("a.tcm_wr", ns(2), 20.0);  // at == path.size(): after the target returns
    const Route route =
        make_route({{&a, a_t}, {&t, -1}}, {{&link, 0}, {&svc, 1}, {&tail, 2}});
    Sender s("s", a);
    s.jobs = {{0, &route, 400, MsgKind::dma_read}};
    run_sim();

    // n = 400 B, t0 = 0.
    // link: L=3, B=100 -> 4 ns:  free=4,  t=3
    // svc:  L=7, B=40  -> 10 ns: free=13, t=10   (the target sees delay 10)
    // tail: L=2, B=20  -> 20 ns: free=30, t=12
    // done = 12 + 400/20 = 32 ns
    BOOST_TEST(s.error == "");
    BOOST_REQUIRE_EQUAL(t.arrivals.size(), 1u);
    BOOST_TEST(t.arrivals[0].delay_ps == ns(10));
    BOOST_REQUIRE_EQUAL(s.done.size(), 1u);
    BOOST_TEST(s.done[0].done_ps == ns(32));
    BOOST_TEST(tail.free_ps() == ns(30));
}

BOOST_AUTO_TEST_CASE(two_transfers_contend_for_one_hop) {
    Node a("a"), b("b"), r("r");
    RecordingTarget t("t");
    const int a_r = a.connect_to(r);
    const int b_r = b.connect_to(r);
    const int r_t = r.connect_to(t);
    Hop ha("a->r", ns(2), 100.0);
    Hop hb("b->r", ns(2), 100.0);
    Hop shared("r->t", ns(3), 10.0);
    const Route from_a = make_route({{&a, a_r}, {&r, r_t}, {&t, -1}}, {{&ha, 0}, {&shared, 1}});
    const Route from_b = make_route({{&b, b_r}, {&r, r_t}, {&t, -1}}, {{&hb, 0}, {&shared, 1}});
    Sender sa("sa", a), sb("sb", b);
    sa.jobs = {{0, &from_a, 500, MsgKind::dma_write}};
    sb.jobs = {{0, &from_b, 500, MsgKind::dma_write}};
    run_sim();

    // Both start at 0 with n = 500 B; which reserves first is the order the
    // kernel runs the two processes (deterministic, T4), so check by rank.
    // first:  own link L=2,B=100 (5 ns): t=2; shared L=3,B=10 (50 ns): t=2,
    //         free=52, t=5; done = 5 + 500/10 = 55 ns
    // second: own link: t=2; shared: t=max(2,52)=52, free=102, t=55;
    //         done = 55 + 50 = 105 ns: exactly the first's n/B = 50 ns later
    BOOST_TEST(sa.error == "");
    BOOST_TEST(sb.error == "");
    BOOST_REQUIRE_EQUAL(sa.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(sb.done.size(), 1u);
    const ps_t first = std::min(sa.done[0].done_ps, sb.done[0].done_ps);
    const ps_t second = std::max(sa.done[0].done_ps, sb.done[0].done_ps);
    BOOST_TEST(first == ns(55));
    BOOST_TEST(second == ns(105));
    BOOST_TEST(second - first == serialisation_ps(500, 10.0));
    BOOST_TEST(shared.free_ps() == ns(102));
    BOOST_TEST(ha.free_ps() == ns(5));
    BOOST_TEST(hb.free_ps() == ns(5));
}

BOOST_AUTO_TEST_CASE(back_to_back_transfers_from_one_initiator) {
    Node a("a");
    RecordingTarget t("t");
    const int a_t = a.connect_to(t);
    Hop link("a->t", ns(6), 8.0);
    const Route route = make_route({{&a, a_t}, {&t, -1}}, {{&link, 0}});
    Sender s("s", a);
    s.jobs = {{0, &route, 800, MsgKind::dma_write}, {0, &route, 800, MsgKind::dma_write}};
    run_sim();

    // n = 800 B, L=6, B=8 -> n/B = 100 ns.
    // 1st at 0: free=100, t=6, done = 6 + 100 = 106 ns
    // 2nd starts at 106 (the initiator waited): t=max(106,100)=106, free=206,
    //     done = 106 + 6 + 100 = 212 ns (the hop was already free again)
    BOOST_REQUIRE_EQUAL(s.done.size(), 2u);
    BOOST_TEST(s.done[0].done_ps == ns(106));
    BOOST_TEST(s.done[1].done_ps == ns(212));
    BOOST_TEST(link.free_ps() == ns(206));
}

namespace {

// Two initiators a and c into r1 -> r2 -> t; a transfer from c ends at r2,
// one from a goes on to t. The hops (latency, bandwidth) each run uses.
struct MiddleHopNet {
    Node a{"a"}, c{"c"}, r1{"r1"}, r2{"r2"};
    RecordingTarget t{"t"};
    int a_r1 = a.connect_to(r1), c_r1 = c.connect_to(r1), r1_r2 = r1.connect_to(r2),
        r2_t = r2.connect_to(t);
    struct Hops {
        Hop h0{"a->r1", ns(2), 200.0}, hc{"c->r1", ns(1), 1000.0}, h1{"r1->r2", ns(5), 20.0},
            h2{"r2->t", ns(3), 40.0};
    };
    // The earlier transfer's route c -> r1 -> r2 and the later one's
    // a -> r1 -> r2 -> t over `h`.
    std::pair<Route, Route> routes(Hops& h, bool direct = false) {
        std::pair<Route, Route> r{
            make_route({{&c, c_r1}, {&r1, r1_r2}, {&r2, -1}}, {{&h.hc, 0}, {&h.h1, 1}}),
            make_route({{&a, a_r1}, {&r1, r1_r2}, {&r2, r2_t}, {&t, -1}},
                       {{&h.h0, 0}, {&h.h1, 1}, {&h.h2, 2}})};
        r.first.direct = r.second.direct = direct;
        return r;
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(middle_hop_still_busy_from_earlier_transfer) {
    MiddleHopNet net;
    MiddleHopNet::Hops h;
    const auto [earlier, later] = net.routes(h);
    Sender sc("sc", net.c), sa("sa", net.a);
    sc.jobs = {{0, &earlier, 2000, MsgKind::dma_write}};
    sa.jobs = {{ns(10), &later, 400, MsgKind::dma_write}};
    run_sim();

    // earlier, n=2000 at 0: hc L=1,B=1000 (2 ns): free=2, t=1;
    //   h1 L=5,B=20 (100 ns): t=1, free1=101, t=6; done = 6 + 2000/20 = 106 ns
    // later, n=400 at 10: h0 L=2,B=200 (2 ns): t=10, free0=12, t=12;
    //   h1 (20 ns): t=max(12,101)=101, free1=121, t=106;
    //   h2 L=3,B=40 (10 ns): t=106, free2=116, t=109;
    //   done = 109 + 400/20 = 129 ns (uncontended it would be 10+10+20 = 40)
    BOOST_TEST(sc.error == "");
    BOOST_TEST(sa.error == "");
    BOOST_REQUIRE_EQUAL(sc.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(sa.done.size(), 1u);
    BOOST_TEST(sc.done[0].done_ps == ns(106));
    BOOST_TEST(sa.done[0].done_ps == ns(129));
    BOOST_TEST(h.h0.free_ps() == ns(12));
    BOOST_TEST(h.h1.free_ps() == ns(121));
    BOOST_TEST(h.h2.free_ps() == ns(116));
}

// Route::direct (issue 16: a PE-internal route reserved without a TLM
// call) gives what the socket path gives. The scenario above run twice on
// twin hops, once through the sockets and once with both routes direct:
// the same done times (106 and 129 ns) and hop states; the direct run's
// target sees nothing, the socket run's target serves the later transfer.
BOOST_AUTO_TEST_CASE(direct_route_reserves_as_the_socket_path_does) {
    MiddleHopNet net;
    MiddleHopNet::Hops via_tlm, direct;
    const auto tlm_routes = net.routes(via_tlm);
    const auto direct_routes = net.routes(direct, true);
    Sender sc("sc", net.c), sa("sa", net.a), dc("dc", net.c), da("da", net.a);
    sc.jobs = {{0, &tlm_routes.first, 2000, MsgKind::dma_write}};
    sa.jobs = {{ns(10), &tlm_routes.second, 400, MsgKind::dma_write}};
    dc.jobs = {{0, &direct_routes.first, 2000, MsgKind::dma_write}};
    da.jobs = {{ns(10), &direct_routes.second, 400, MsgKind::dma_write}};
    run_sim();
    BOOST_REQUIRE_EQUAL(sc.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(sa.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(dc.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(da.done.size(), 1u);
    BOOST_TEST(sc.done[0].done_ps == ns(106));
    BOOST_TEST(sa.done[0].done_ps == ns(129));
    BOOST_TEST(dc.done[0].done_ps == sc.done[0].done_ps);
    BOOST_TEST(da.done[0].done_ps == sa.done[0].done_ps);
    for (auto [x, y] : {std::pair{&via_tlm.h0, &direct.h0}, std::pair{&via_tlm.hc, &direct.hc},
                        std::pair{&via_tlm.h1, &direct.h1}, std::pair{&via_tlm.h2, &direct.h2}}) {
        BOOST_TEST(x->free_ps() == y->free_ps());
        BOOST_TEST(x->bytes() == y->bytes());
    }
    BOOST_TEST(net.t.arrivals.size() == 1u);  // the socket run's later transfer only
}

// A walked route (RoutedNode::transport_ps() on a Route::walkable route:
// nodes, steps and the target's accept() without the socket calls,
// docs/architecture.md "Where TLM payloads flow") calls transit() on the
// nodes that have a transit cost and gives the socket path's times. a -> m (5 ns transit) -> r -> t, on twin nodes and hops:
// once through the sockets, once walked. n = 1000 B, t0 = 0:
//   h0 a->m:  L=10, B=100 -> 10 ns: free=10, t=10
//   m's transit: t = 15
//   h1 m->r:  L=4,  B=25  -> 40 ns: free=55, t=19
//   r: no transit cost
//   h2 r->t:  L=2,  B=50  -> 20 ns: free=39, t=21
//   svc t:    L=20, B=50  -> 20 ns: free=41, t=41 (the target sees 41)
//   done = 41 + n / min B = 41 + 1000/25 = 81 ns
BOOST_AUTO_TEST_CASE(walked_route_pays_each_transit_cost) {
    // A checked run (ctest sets NPUVP_TLM_CHECK=1) walks through the
    // sockets: unset before the first binding reads it.
    unsetenv("NPUVP_TLM_CHECK");
    Node a1("a1"), r1("r1"), a2("a2"), r2("r2");
    CostlyTransit m1("m1"), m2("m2");
    RecordingTarget t1("t1"), t2("t2");
    auto build = [](Node& a, CostlyTransit& m, Node& r, RecordingTarget& t, Hop& h0, Hop& h1, Hop& h2,
                    Hop& svc) {
        const int a_m = a.connect_to(m);
        const int m_r = m.connect_to(r);
        const int r_t = r.connect_to(t);
        return make_route({{&a, a_m}, {&m, m_r}, {&r, r_t}, {&t, -1}},
                          {{&h0, 0}, {&h1, 1}, {&h2, 2}, {&svc, 3}});
    };
    Hop s0("s0", ns(10), 100.0), s1("s1", ns(4), 25.0), s2("s2", ns(2), 50.0), ssvc("ssvc", ns(20), 50.0);
    Hop w0("w0", ns(10), 100.0), w1("w1", ns(4), 25.0), w2("w2", ns(2), 50.0), wsvc("wsvc", ns(20), 50.0);
    Route via_sockets = build(a1, m1, r1, t1, s0, s1, s2, ssvc);
    const Route walked = build(a2, m2, r2, t2, w0, w1, w2, wsvc);
    // The route decides: every node answers at once, so both are walkable;
    // one made unwalkable (as a route to a target that answers later is)
    // goes through the sockets.
    BOOST_TEST(walked.walkable);
    via_sockets.walkable = false;
    Sender s("s", a1), w("w", a2);
    s.jobs = {{0, &via_sockets, 1000, MsgKind::dma_write}};
    w.jobs = {{0, &walked, 1000, MsgKind::dma_write}};
    run_sim();
    BOOST_TEST(!ProtocolChecker::enabled());
    BOOST_TEST(s.error == "");
    BOOST_TEST(w.error == "");
    BOOST_REQUIRE_EQUAL(s.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(w.done.size(), 1u);
    BOOST_TEST(s.done[0].done_ps == ns(81));
    BOOST_TEST(w.done[0].done_ps == ns(81));
    BOOST_TEST(m1.transits == 1);
    BOOST_TEST(m2.transits == 1);
    BOOST_REQUIRE_EQUAL(t1.arrivals.size(), 1u);
    BOOST_REQUIRE_EQUAL(t2.arrivals.size(), 1u);
    BOOST_TEST(t1.arrivals[0].delay_ps == ns(41));
    BOOST_TEST(t2.arrivals[0].delay_ps == ns(41));
    for (auto [x, y] : {std::pair{&s0, &w0}, std::pair{&s1, &w1}, std::pair{&s2, &w2}, std::pair{&ssvc, &wsvc}})
        BOOST_TEST(x->free_ps() == y->free_ps());
    BOOST_TEST(w1.free_ps() == ns(55));
    BOOST_TEST(w2.free_ps() == ns(39));
    BOOST_TEST(wsvc.free_ps() == ns(41));
}

BOOST_AUTO_TEST_CASE(control_message_reserves_nothing) {
    Node a("a"), r("r");
    RecordingTarget t("t");
    const int a_r = a.connect_to(r);
    const int r_t = r.connect_to(t);
    Hop h0("a->r", ns(10), 100.0);
    Hop wire("r->t", ns(5), 0.0);  // no bandwidth: pure latency
    const Route route = make_route({{&a, a_r}, {&r, r_t}, {&t, -1}}, {{&h0, 0}, {&wire, 1}});
    // Two processes share initiator a: a data transfer at 0, a control
    // message at 2 ns while h0 is still busy.
    Sender data("data", a), control("control", a);
    data.jobs = {{0, &route, 1000, MsgKind::dma_write}};
    control.jobs = {{ns(2), &route, 0, MsgKind::control}};
    run_sim();

    // data, n=1000 at 0: h0 L=10,B=100 (10 ns): free0=10, t=10;
    //   wire L=5, no B: t=15, keeps no busy-until; done = 15 + 1000/100 = 25 ns
    // control, n=0 at 2: h0: no max(t, free0), no reservation: t=12;
    //   wire: t=17; done = 17 + 0 = 17 ns (finishes before the data)
    BOOST_TEST(route.min_bw_gbs == 100.0);
    BOOST_REQUIRE_EQUAL(data.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(control.done.size(), 1u);
    BOOST_TEST(data.done[0].done_ps == ns(25));
    BOOST_TEST(control.done[0].done_ps == ns(17));
    BOOST_TEST(h0.free_ps() == ns(10));  // unchanged by the control message
    BOOST_TEST(h0.bytes() == 1000u);
    BOOST_TEST(wire.free_ps() == 0u);
    BOOST_TEST(wire.busy_ps() == 0u);
    BOOST_TEST(h0.transfers() == 2u);
}

BOOST_AUTO_TEST_CASE(directions_are_separate_hops) {
    Node u("u"), v("v");
    const int u_v = u.connect_to(v);
    const int v_u = v.connect_to(u);
    Hop uv("u->v", ns(5), 10.0);
    Hop vu("v->u", ns(5), 10.0);
    const Route forward = make_route({{&u, u_v}, {&v, -1}}, {{&uv, 0}});
    const Route backward = make_route({{&v, v_u}, {&u, -1}}, {{&vu, 0}});
    Sender su("su", u), sv("sv", v);
    su.jobs = {{0, &forward, 1000, MsgKind::dma_write}};
    sv.jobs = {{0, &backward, 1000, MsgKind::dma_write}};
    run_sim();

    // Each direction alone: L=5, B=10, n=1000 -> 100 ns: done = 5 + 100 = 105 ns.
    // Had they shared one hop, the second would end at 205 ns.
    BOOST_REQUIRE_EQUAL(su.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(sv.done.size(), 1u);
    BOOST_TEST(su.done[0].done_ps == ns(105));
    BOOST_TEST(sv.done[0].done_ps == ns(105));
    BOOST_TEST(uv.free_ps() == ns(100));
    BOOST_TEST(vu.free_ps() == ns(100));
}

BOOST_AUTO_TEST_CASE(serialisation_rounds_up_to_whole_ps) {
    Node a("a");
    RecordingTarget t("t");
    const int a_t = a.connect_to(t);
    Hop link("a->t", ns(1), 3.0);
    const Route route = make_route({{&a, a_t}, {&t, -1}}, {{&link, 0}});
    Sender s("s", a);
    s.jobs = {{0, &route, 1, MsgKind::dma_write}};
    run_sim();

    // n = 1 B at 3 GB/s = 333.33 ps -> 334 ps (never before the last byte).
    // free = 334 ps; done = L 1000 ps + 334 ps = 1334 ps.
    BOOST_TEST(serialisation_ps(1, 3.0) == 334u);
    BOOST_REQUIRE_EQUAL(s.done.size(), 1u);
    BOOST_TEST(link.free_ps() == 334u);
    BOOST_TEST(s.done[0].done_ps == 1334u);
    // An exact quotient stays exact: 21 B at 0.7 GB/s = 30 ns exactly (in
    // double arithmetic 30000.000000000004 ps, which must not become 30001).
    BOOST_TEST(serialisation_ps(21, 0.7) == 30000u);
    BOOST_TEST(serialisation_ps(1000, 100.0) == 10000u);
    BOOST_TEST(serialisation_ps(0, 100.0) == 0u);
    BOOST_TEST(serialisation_ps(1000, 0.0) == 0u);
    // Both sides of the 64-bit fast path (bytes * 1e12 fits 64 bits up to
    // ~18.4 MB): 18 MB at 3 GB/s = 6 ms exactly; 20 MB at 3 GB/s =
    // 6 666 666.666.. ns -> 6 666 666 667 ps; 1 TB at 1 GB/s = 1000 s.
    BOOST_TEST(serialisation_ps(18000000, 3.0) == 6000000000ull);
    BOOST_TEST(serialisation_ps(20000000, 3.0) == 6666666667ull);
    BOOST_TEST(serialisation_ps(1000000000000ull, 1.0) == 1000000000000000ull);
}

BOOST_AUTO_TEST_CASE(base_protocol_payload_and_response) {
    Node a("a"), r("r");
    RecordingTarget t("t");
    const int a_r = a.connect_to(r);
    const int r_t = r.connect_to(t);
    Hop h0("a->r", ns(1), 0.0);
    const Route route = make_route({{&a, a_r}, {&r, r_t}, {&t, -1}}, {{&h0, 0}});
    Sender s("s", a);
    s.jobs = {{0, &route, 4096, MsgKind::dma_read}, {ns(10), &route, 64, MsgKind::dma_write}};
    run_sim();

    BOOST_TEST(s.error == "");  // transport() throws unless TLM_OK_RESPONSE came back
    BOOST_REQUIRE_EQUAL(s.done.size(), 2u);
    BOOST_REQUIRE_EQUAL(t.arrivals.size(), 2u);
    BOOST_TEST(t.arrivals[0].command == tlm::TLM_READ_COMMAND);
    BOOST_TEST(t.arrivals[1].command == tlm::TLM_WRITE_COMMAND);
    for (const auto& arrival : t.arrivals) {
        BOOST_TEST(arrival.address == 0x1000u);
        BOOST_TEST(arrival.data_ptr_set);
        BOOST_TEST(arrival.data_length > 0u);
        BOOST_TEST(arrival.streaming_width == arrival.data_length);
        BOOST_TEST(!arrival.byte_enable_ptr_set);
        BOOST_TEST(arrival.byte_enable_length == 0u);
        BOOST_TEST(arrival.status == tlm::TLM_INCOMPLETE_RESPONSE);
    }
    BOOST_TEST(t.arrivals[0].bytes == 4096u);  // the modelled size rides in the extension
}

namespace {

// Drives a node's `out` socket directly, as a foreign model would.
class RawDriver : public sc_core::sc_module {
public:
    tlm::tlm_response_status foreign_status = tlm::TLM_INCOMPLETE_RESPONSE;
    tlm::tlm_response_status b_status = tlm::TLM_INCOMPLETE_RESPONSE;
    tlm::tlm_response_status nb_status = tlm::TLM_INCOMPLETE_RESPONSE;
    tlm::tlm_sync_enum nb_result = tlm::TLM_ACCEPTED;
    tlm::tlm_phase nb_phase = tlm::BEGIN_REQ;
    ps_t b_delay_ps = 0;
    ps_t nb_delay_ps = 0;

    RawDriver(const sc_core::sc_module_name& name, RoutedNode& from, int port,
              const Route& route)
        : sc_module(name), m_from(from), m_port(port), m_route(route) {
        SC_THREAD(run);
    }
    SC_HAS_PROCESS(RawDriver);

private:
    void run() {
        // A payload without the npuvp extension.
        std::uint64_t word = 0;
        tlm::tlm_generic_payload foreign;
        foreign.set_command(tlm::TLM_WRITE_COMMAND);
        foreign.set_address(0x40);
        foreign.set_data_ptr(reinterpret_cast<unsigned char*>(&word));
        foreign.set_data_length(sizeof(word));
        foreign.set_streaming_width(sizeof(word));
        foreign.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time delay;
        m_from.out[m_port]->b_transport(foreign, delay);
        foreign_status = foreign.get_response_status();

        // The same route by b_transport, then (after the hops are free
        // again) by nb_transport_fw: same delay. Going straight to the
        // socket skips transport()'s head steps and drain, so the route
        // has no step at position 0.
        Transaction txn;
        txn.prepare(MsgKind::dma_write, m_route, 0x80, 600);
        delay = sc_core::SC_ZERO_TIME;
        m_from.out[m_port]->b_transport(txn.payload(), delay);
        b_status = txn.payload().get_response_status();
        b_delay_ps = delay.value();
        wait(sc_time(1, sc_core::SC_US));

        txn.prepare(MsgKind::dma_write, m_route, 0x80, 600);
        delay = sc_core::SC_ZERO_TIME;
        nb_phase = tlm::BEGIN_REQ;
        txn.payload().acquire();  // a payload in nb_transport is referenced (§14.5)
        nb_result = m_from.out[m_port]->nb_transport_fw(txn.payload(), nb_phase, delay);
        txn.payload().release();
        nb_status = txn.payload().get_response_status();
        nb_delay_ps = delay.value();
    }

    RoutedNode& m_from;
    int m_port;
    const Route& m_route;
};

}  // namespace

BOOST_AUTO_TEST_CASE(foreign_payload_error_and_nb_transport_completes) {
    Node a("a"), r("r");
    RecordingTarget t("t");
    const int a_r = a.connect_to(r);
    const int r_t = r.connect_to(t);
    Hop h1("r->t", ns(4), 30.0);
    Hop svc("t.svc", ns(6), 60.0);
    const Route route = make_route({{&a, a_r}, {&r, r_t}, {&t, -1}}, {{&h1, 1}, {&svc, 2}});
    RawDriver driver("driver", a, a_r, route);
    run_sim();

    // n = 600: h1 L=4,B=30 (20 ns), svc L=6,B=60 (10 ns). At the target,
    // uncontended: delay = 4 + 6 = 10 ns (the drain is transport()'s, not
    // the socket's). The nb call comes 1 us later, when both hops are free.
    // A payload without npuvp's extension is routed by its address; these
    // nodes have no address decoder (no platform), so no target has 0x40.
    BOOST_TEST(driver.foreign_status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    BOOST_TEST(driver.b_status == tlm::TLM_OK_RESPONSE);
    BOOST_TEST(driver.b_delay_ps == ns(10));
    BOOST_TEST(driver.nb_result == tlm::TLM_COMPLETED);
    BOOST_TEST(driver.nb_phase == tlm::BEGIN_RESP);
    BOOST_TEST(driver.nb_status == tlm::TLM_OK_RESPONSE);
    BOOST_TEST(driver.nb_delay_ps == driver.b_delay_ps);
    BOOST_TEST(t.arrivals.size() == 2u);  // the foreign payload never reached serve()
}
