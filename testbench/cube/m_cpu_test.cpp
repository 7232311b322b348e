// Bench of M_CPU alone (SPEC §4; seed 001; docs/architecture.md "The cube
// command path"): the block with a stub Fabric (hand-built routes) and stub
// neighbours: a stub IO_CPU that sends CubeRequestMsgs and records the
// answer, stub PE_CPUs that answer a launch after a chosen time (or never),
// stub HBM slices that record the bytes. No NoC, no PE, no platform.
//
// M_CPU overhead_ns = 5 (one transaction at a time, responses included).
// Links (latency only unless said): IO_CPU <-> M_CPU 10 ns each way;
// M_CPU <-> pe0.pe_cpu 3 ns, M_CPU <-> pe1.pe_cpu 7 ns; M_CPU -> HBM slices
// share one 4 ns, 64 GB/s link (6400 B = exactly 100 ns on it); a slice's
// answer to a write comes back over a 6 ns link (n = 0).
// A request sent by IO_CPU at 0 arrives at 10 ns and is dispatched at
// 10 + 5 = 15 ns.
// The whole-platform M_CPU tests are m_cpu_integration_test.cpp.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "modules/cube/m_cpu.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/stub_fabric.h"
#include "testbench/harness/stub_nodes.h"

using namespace npuvp;
using test::ns;

namespace {

MCpuConfig m_cpu_config(std::optional<double> timeout_ns = std::nullopt) {
    MCpuConfig c;
    c.impl = "builtin.m_cpu";
    c.overhead_ns = 5.0;
    c.response_timeout_ns = timeout_ns;
    return c;
}

struct Bench {
    MCpuConfig config;
    std::vector<RecordedEvent> events;
    TraceSink trace;
    RunStatus status;
    MCpu m_cpu;
    test::StubInitiator io{"io_cpu"};
    test::StubInitiator pe_cpu0{"pe0_pe_cpu"}, pe_cpu1{"pe1_pe_cpu"};
    test::StubTarget hbm0{"hbm0"}, hbm1{"hbm1"};
    test::StubFabric fabric;
    test::Wires wires;
    const Route* to_m_cpu = nullptr;           // IO_CPU -> M_CPU
    const Route* pe_to_m_cpu[2] = {nullptr, nullptr};
    Hop* hbm_link = nullptr;

    explicit Bench(MCpuConfig c) : config(std::move(c)), m_cpu("m_cpu", config, 0, 0, trace, status) {
        trace.record_to(&events);
        m_cpu.attach(fabric);
        auto link = [&](RoutedNode& a, RoutedNode& b, double ns_) {
            Hop& h = wires.hop(a.node_id() + "->" + b.node_id(), ns_);
            return &wires.route({&a, &b}, {{&h, 0}});
        };
        to_m_cpu = link(io, m_cpu, 10);
        fabric.set_route(m_cpu, io, *link(m_cpu, io, 10));
        fabric.set_route(m_cpu, pe_cpu0, *link(m_cpu, pe_cpu0, 3));
        fabric.set_route(m_cpu, pe_cpu1, *link(m_cpu, pe_cpu1, 7));
        pe_to_m_cpu[0] = link(pe_cpu0, m_cpu, 3);
        pe_to_m_cpu[1] = link(pe_cpu1, m_cpu, 7);
        fabric.set_node(NodeRole::pe_cpu, 0, 0, 0, pe_cpu0);
        fabric.set_node(NodeRole::pe_cpu, 0, 0, 1, pe_cpu1);
        hbm_link = &wires.hop("m_cpu->hbm", 4.0, 64.0);
        fabric.set_route(m_cpu, hbm0, wires.route({&m_cpu, &hbm0}, {{hbm_link, 0}}));
        fabric.set_route(m_cpu, hbm1, wires.route({&m_cpu, &hbm1}, {{hbm_link, 0}}));
        // A slice's answer to a write comes back over its own 6 ns link.
        fabric.set_route(hbm0, m_cpu, *link(hbm0, m_cpu, 6));
        fabric.set_route(hbm1, m_cpu, *link(hbm1, m_cpu, 6));
        fabric.set_node(NodeRole::hbm_slice, 0, 0, 0, hbm0);
        fabric.set_node(NodeRole::hbm_slice, 0, 0, 1, hbm1);
        fabric.slice_bytes = 1 << 20;
    }

    // Stub PE_CPU `pe`: at the launch's barrier + exec_ns, answers with
    // `result` (never, if exec_ns < 0).
    std::deque<PeResponseMsg> answers;
    void pe_answers(int pe, double exec_ns, ResultData result, ps_t late_at = 0) {
        test::StubInitiator& cpu = pe == 0 ? pe_cpu0 : pe_cpu1;
        cpu.on_arrival = [this, &cpu, pe, exec_ns, result, late_at](const test::Arrival& a) {
            const auto& launch = *static_cast<const LaunchMsg*>(a.body);
            test::wait_until(late_at ? late_at : launch.start_ps + ns_to_ps(exec_ns, "exec_ns"));
            answers.push_back({launch.fanout, pe, result});
            cpu.send({0, pe_to_m_cpu[pe], MsgKind::response, 0, 0, &answers.back()});
        };
    }

    // IO_CPU's request for this cube, sent at 0.
    HostRequest request;
    Kernel kernel;
    CubeRequestMsg msg;
    ResultData parent;
    void send(HostRequestKind kind, MsgKind msg_kind) {
        request.kind = kind;
        request.id = "req";
        msg.request = &request;
        msg.kernel = &kernel;
        msg.reply_to = &io;
        msg.parent = &parent;
        io.jobs.push_back({0, to_m_cpu, msg_kind, 0, 0, &msg});
    }
    const CubeResponseMsg* answer() const {
        return io.arrivals.empty() ? nullptr : static_cast<const CubeResponseMsg*>(io.arrivals.back().body);
    }
};

ResultData result(double exec, double dma, double compute) {
    ResultData r;
    r.pe_exec_ns = exec;
    r.dma_ns = dma;
    r.compute_ns = compute;
    return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(kernel_launch_stamps_the_barrier_and_merges_with_max) {
    Bench b(m_cpu_config());
    b.request.target_pe = {0, 1};
    b.send(HostRequestKind::kernel_launch, MsgKind::kernel_launch);
    b.pe_answers(0, 100, result(100, 30, 50));
    b.pe_answers(1, 200, result(200, 10, 60));
    sc_core::sc_start();
    BOOST_CHECK(!b.status.failed());
    // Dispatch at 15 ns; barrier (seed 001 D6.3) = 15 + max(3, 7) = 22 ns, the
    // same for both PEs; the launches reach them at 18 and 22 ns (n = 0).
    BOOST_REQUIRE_EQUAL(b.pe_cpu0.arrivals.size(), 1u);
    BOOST_REQUIRE_EQUAL(b.pe_cpu1.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.pe_cpu0.arrivals[0].arrival_ps, ns(18));
    BOOST_CHECK_EQUAL(b.pe_cpu1.arrivals[0].arrival_ps, ns(22));
    BOOST_CHECK_EQUAL(static_cast<const LaunchMsg*>(b.pe_cpu0.arrivals[0].body)->start_ps, ns(22));
    BOOST_CHECK_EQUAL(static_cast<const LaunchMsg*>(b.pe_cpu1.arrivals[0].body)->start_ps, ns(22));
    // pe0 answers at 22 + 100 = 122, arriving at 125, handled 125 + 5 = 130;
    // pe1 at 22 + 200 = 222, arriving at 229, handled at 234: all answered.
    // The response goes back at 234 ns and reaches IO_CPU at 244 ns.
    BOOST_REQUIRE_EQUAL(b.io.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.io.arrivals[0].arrival_ps, ns(244));
    BOOST_REQUIRE(b.answer());
    BOOST_CHECK(b.answer()->success);
    BOOST_CHECK_EQUAL(b.answer()->src_pe, -1);
    // D6.5: max over the PEs, field by field (not the slower PE's record).
    BOOST_CHECK_EQUAL(b.parent.pe_exec_ns, 200.0);
    BOOST_CHECK_EQUAL(b.parent.dma_ns, 30.0);
    BOOST_CHECK_EQUAL(b.parent.compute_ns, 60.0);
    BOOST_REQUIRE_EQUAL(b.m_cpu.fanouts().size(), 1u);
    BOOST_CHECK_EQUAL(b.m_cpu.fanouts()[0].start.value(), ns(15));
    BOOST_CHECK_EQUAL(b.m_cpu.fanouts()[0].end.value(), ns(234));
    BOOST_CHECK_EQUAL(b.m_cpu.fanouts()[0].target_start_ps, ns(22));
    // IO request + two responses: three transactions through the processor.
    BOOST_CHECK_EQUAL(b.m_cpu.transactions(), 3u);
}

BOOST_AUTO_TEST_CASE(given_barrier_passes_through_unchanged) {
    Bench b(m_cpu_config());
    b.request.target_pe = {1};
    b.msg.has_start = true;
    b.msg.target_start_ps = ns(500);
    b.send(HostRequestKind::kernel_launch, MsgKind::kernel_launch);
    b.pe_answers(1, 0, result(1, 1, 1));
    sc_core::sc_start();
    // D6.3: a given target_start_ns is not re-stamped (15 + 7 = 22 would be).
    BOOST_REQUIRE_EQUAL(b.pe_cpu1.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(static_cast<const LaunchMsg*>(b.pe_cpu1.arrivals[0].body)->start_ps, ns(500));
    // pe1 answers at 500, arriving at 507, handled at 512; back at IO_CPU at 522.
    BOOST_REQUIRE_EQUAL(b.io.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.io.arrivals[0].arrival_ps, ns(522));
}

BOOST_AUTO_TEST_CASE(memory_write_spanning_two_slices_one_destination_each) {
    Bench b(m_cpu_config());
    // 12800 B from 6400 B below the 1 MiB slice boundary: 6400 B to slice 0,
    // 6400 B to slice 1 (D5: one destination per slice the range touches).
    b.msg.pa = (1 << 20) - 6400;
    b.msg.bytes = 12800;
    b.send(HostRequestKind::memory_write, MsgKind::dma_write);
    sc_core::sc_start();
    BOOST_REQUIRE_EQUAL(b.hbm0.arrivals.size(), 1u);
    BOOST_REQUIRE_EQUAL(b.hbm1.arrivals.size(), 1u);
    // Physical addresses, never rewritten; the bytes split at the boundary.
    BOOST_CHECK_EQUAL(b.hbm0.arrivals[0].address, (1u << 20) - 6400);
    BOOST_CHECK_EQUAL(b.hbm0.arrivals[0].bytes, 6400u);
    BOOST_CHECK_EQUAL(b.hbm1.arrivals[0].address, 1u << 20);
    BOOST_CHECK_EQUAL(b.hbm1.arrivals[0].bytes, 6400u);
    BOOST_CHECK(b.hbm0.arrivals[0].kind == MsgKind::dma_write);
    // Both dispatched at 15 ns (the channel serialises the dispatch only).
    // Slice 0: link at 15 (free 115), +4 = 19 ns there, drain 100 -> 104 ns.
    // Slice 1: link busy until 115 (free 215), 119 ns there, drain -> 204 ns.
    BOOST_CHECK_EQUAL(b.hbm0.arrivals[0].arrival_ps, ns(19));
    BOOST_CHECK_EQUAL(b.hbm1.arrivals[0].arrival_ps, ns(119));
    // xfer_ns = the longest drain (204 ns).
    // seed 001 D5.4, D8: the fan-out waits for both slices' answers. Slice 0
    // is done at 15 + 104 = 119 ns, its answer arrives at 119 + 6 = 125 and is
    // handled at 125 + 5 = 130 (D9); slice 1 is done at 15 + 204 = 219, its
    // answer arrives at 225 and is handled at 230. The response leaves at
    // 230 ns and reaches IO_CPU at 240 ns.
    BOOST_CHECK_EQUAL(b.parent.xfer_ns, 204.0);
    BOOST_REQUIRE_EQUAL(b.m_cpu.fanouts().size(), 1u);
    BOOST_CHECK_EQUAL(b.m_cpu.fanouts()[0].destinations, 2);
    BOOST_CHECK_EQUAL(b.m_cpu.fanouts()[0].end.value(), ns(230));
    BOOST_REQUIRE_EQUAL(b.io.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.io.arrivals[0].arrival_ps, ns(240));
    BOOST_CHECK_EQUAL(b.m_cpu.dma_channel(true).grants(), 2u);
    BOOST_CHECK_EQUAL(b.m_cpu.dma_channel(false).grants(), 0u);
    // The request and the two answers went through the processor.
    BOOST_CHECK_EQUAL(b.m_cpu.transactions(), 3u);
}

BOOST_AUTO_TEST_CASE(memory_answers_arriving_together_each_cost_the_overhead) {
    Bench b(m_cpu_config());
    // A read over two slices, each with its own 8 ns, 64 GB/s read route, so
    // the two transfers run side by side and finish together.
    Hop& back0 = b.wires.hop("hbm0->m_cpu", 8.0, 64.0);
    Hop& back1 = b.wires.hop("hbm1->m_cpu", 8.0, 64.0);
    b.fabric.set_read_route(b.m_cpu, b.hbm0, b.wires.route({&b.m_cpu, &b.hbm0}, {{&back0, 0}}));
    b.fabric.set_read_route(b.m_cpu, b.hbm1, b.wires.route({&b.m_cpu, &b.hbm1}, {{&back1, 0}}));
    b.msg.pa = (1 << 20) - 6400;
    b.msg.bytes = 12800;
    b.send(HostRequestKind::memory_read, MsgKind::dma_read);
    sc_core::sc_start();
    BOOST_CHECK(!b.status.failed());
    // Both dispatched at 15 ns, both drains 8 + 100 = 108 ns: done at 123 ns.
    // A read's data is its answer (it came back within the drain): both
    // answers arrive at 123 ns; M_CPU handles one at a time (D9): 128, 133.
    // The response leaves at 133 ns and reaches IO_CPU at 143 ns — not at
    // 15 + xfer_ns + 10 = 133 ns, as when the answers were not collected.
    BOOST_CHECK_EQUAL(b.parent.xfer_ns, 108.0);
    BOOST_REQUIRE_EQUAL(b.m_cpu.fanouts().size(), 1u);
    BOOST_CHECK_EQUAL(b.m_cpu.fanouts()[0].end.value(), ns(133));
    BOOST_REQUIRE_EQUAL(b.io.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.io.arrivals[0].arrival_ps, ns(143));
    BOOST_CHECK_EQUAL(b.m_cpu.transactions(), 3u);
}

// seed 001 D1: M_CPU does no routing or address decoding of its own: the
// destination node of a slice and the route to it are whatever the fabric
// (the platform's address resolver and router) says. Here the fabric says
// that slice 1 is hbm0, reached over a 40 ns link of its own: the second
// piece goes there, at 15 + 40 = 55 ns, not to hbm1 over the shared link.
BOOST_AUTO_TEST_CASE(destinations_and_routes_come_from_the_fabric) {
    Bench b(m_cpu_config());
    Hop& odd = b.wires.hop("m_cpu->hbm0 (odd)", 40.0);
    b.fabric.set_node(NodeRole::hbm_slice, 0, 0, 1, b.hbm0);
    b.fabric.set_route(b.m_cpu, b.hbm0, b.wires.route({&b.m_cpu, &b.hbm0}, {{&odd, 0}}));
    b.msg.pa = (1 << 20) - 6400;
    b.msg.bytes = 12800;
    b.send(HostRequestKind::memory_write, MsgKind::dma_write);
    sc_core::sc_start();
    BOOST_CHECK(b.hbm1.arrivals.empty());
    BOOST_REQUIRE_EQUAL(b.hbm0.arrivals.size(), 2u);
    // Both pieces on the fabric's route: 15 + 40 ns (latency only), the
    // second's address the physical one, never rewritten.
    BOOST_CHECK_EQUAL(b.hbm0.arrivals[0].arrival_ps, ns(55));
    BOOST_CHECK_EQUAL(b.hbm0.arrivals[1].arrival_ps, ns(55));
    BOOST_CHECK_EQUAL(b.hbm0.arrivals[1].address, 1u << 20);
}

BOOST_AUTO_TEST_CASE(memory_read_takes_the_read_route_of_each_slice) {
    Bench b(m_cpu_config());
    // The data of a read comes back hbm -> M_CPU: the fabric's read_route,
    // here its own 8 ns, 64 GB/s link (the write route's link is unused).
    Hop& back = b.wires.hop("hbm0->m_cpu", 8.0, 64.0);
    b.fabric.set_read_route(b.m_cpu, b.hbm0, b.wires.route({&b.m_cpu, &b.hbm0}, {{&back, 0}}));
    b.msg.pa = 0x1000;
    b.msg.bytes = 6400;
    b.send(HostRequestKind::memory_read, MsgKind::dma_read);
    sc_core::sc_start();
    BOOST_REQUIRE_EQUAL(b.hbm0.arrivals.size(), 1u);
    BOOST_CHECK(b.hbm0.arrivals[0].kind == MsgKind::dma_read);
    // Dispatched at 15 ns: 15 + 8 = 23 ns at the slice, drain 100 ns ->
    // xfer_ns = 108, done at 123 ns. The data is the slice's answer: handled
    // at 123 + 5 = 128 (D8, D9); the response reaches IO_CPU at 138.
    BOOST_CHECK_EQUAL(b.hbm0.arrivals[0].arrival_ps, ns(23));
    BOOST_CHECK_EQUAL(b.parent.xfer_ns, 108.0);
    BOOST_REQUIRE_EQUAL(b.io.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.io.arrivals[0].arrival_ps, ns(138));
    BOOST_CHECK_EQUAL(back.bytes(), 6400u);
    BOOST_CHECK_EQUAL(b.hbm_link->transfers(), 0u);  // the write direction is untouched
    BOOST_CHECK_EQUAL(b.m_cpu.dma_channel(false).grants(), 1u);
}

BOOST_AUTO_TEST_CASE(watchdog_names_the_silent_pe_and_a_late_answer_is_ignored) {
    Bench b(m_cpu_config(1000.0));
    b.request.target_pe = {0, 1};
    b.send(HostRequestKind::kernel_launch, MsgKind::kernel_launch);
    b.pe_answers(0, 100, result(100, 30, 50));
    b.pe_answers(1, 0, result(900, 900, 900), ns(2000));  // answers at 2000 ns: too late
    sc_core::sc_start();
    // Dispatch at 15 ns, watchdog 1000 ns: the fan-out ends at 1015 ns
    // without pe1, answers success = false, naming it; IO_CPU has it at 1025.
    BOOST_REQUIRE_EQUAL(b.io.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.io.arrivals[0].arrival_ps, ns(1025));
    BOOST_REQUIRE(b.answer());
    BOOST_CHECK(!b.answer()->success);
    BOOST_CHECK_EQUAL(b.answer()->missing, "sip0.cube0.pe1");
    BOOST_REQUIRE_EQUAL(b.m_cpu.fanouts().size(), 1u);
    BOOST_CHECK_EQUAL(b.m_cpu.fanouts()[0].end.value(), ns(1015));
    // Only pe0's result is merged.
    BOOST_CHECK_EQUAL(b.parent.pe_exec_ns, 100.0);
    // pe1's answer (sent 2000, arriving 2007, handled 2012) is traced as
    // late_response and changes nothing.
    auto late = std::find_if(b.events.begin(), b.events.end(),
                             [](const RecordedEvent& e) { return e.kind == TraceKind::late_response; });
    BOOST_REQUIRE(late != b.events.end());
    BOOST_CHECK_EQUAL(late->t_ps, ns(2012));
    BOOST_CHECK_EQUAL(late->peer, "sip0.cube0.pe1");
    BOOST_CHECK_EQUAL(b.parent.pe_exec_ns, 100.0);
    BOOST_CHECK_EQUAL(b.io.arrivals.size(), 1u);
}

BOOST_AUTO_TEST_CASE(transit_is_handled_one_at_a_time_with_overhead) {
    Bench b(m_cpu_config());
    test::StubInitiator a1("a1"), a2("a2");
    test::StubTarget far("far");
    // a -> M_CPU (10 ns) -> far (10 ns): M_CPU is a transit node.
    auto via_m_cpu = [&](test::StubInitiator& a) {
        Hop& in = b.wires.hop(a.node_id() + "->m_cpu", 10.0);
        Hop& out = b.wires.hop("m_cpu->far." + a.node_id(), 10.0);
        return &b.wires.route({&a, &b.m_cpu, &far}, {{&in, 0}, {&out, 1}});
    };
    a1.jobs.push_back({0, via_m_cpu(a1), MsgKind::control, 0, 0x40});
    a2.jobs.push_back({0, via_m_cpu(a2), MsgKind::control, 0, 0x80});
    sc_core::sc_start();
    BOOST_REQUIRE_EQUAL(far.arrivals.size(), 2u);
    std::vector<ps_t> at{far.arrivals[0].arrival_ps, far.arrivals[1].arrival_ps};
    std::sort(at.begin(), at.end());
    // Both reach M_CPU at 10 ns (D4): the first is handled 10..15, the second
    // 15..20 (one at a time); + 10 ns on: at far at 25 and 30 ns.
    BOOST_CHECK_EQUAL(at[0], ns(25));
    BOOST_CHECK_EQUAL(at[1], ns(30));
    // Forwarded unchanged: the addresses are the senders'.
    std::vector<std::uint64_t> addr{far.arrivals[0].address, far.arrivals[1].address};
    std::sort(addr.begin(), addr.end());
    BOOST_CHECK(addr == (std::vector<std::uint64_t>{0x40, 0x80}));
    // Nothing was handed to M_CPU's own inbox.
    BOOST_CHECK(b.m_cpu.fanouts().empty());
}
