// Bench of IO_CPU alone (SPEC §4; ADR-0036; docs/architecture.md "The cube
// command path"): the block with a stub Fabric (hand-built routes) and stub
// M_CPUs, one per cube, that record the CubeRequestMsg and answer it with a
// CubeResponseMsg after a chosen time. No NoC, no PE, no platform.
//
// One SIP, two cubes of two PEs (HBM slices of 1 MiB: a cube is 2 MiB of
// PA). IO_CPU overhead_ns = 2 (one transaction at a time, responses
// included); M_CPU overhead_ns = 5 (only used in the barrier).
// Links (latency only): IO_CPU <-> cube0's M_CPU 10 ns, <-> cube1's 30 ns;
// M_CPU -> PE_CPU: cube0 pe0 3 ns, pe1 9 ns; cube1 pe0 4 ns, pe1 6 ns.
#include <boost/test/unit_test.hpp>

#include "modules/system/io_cpu.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/stub_fabric.h"
#include "testbench/harness/stub_nodes.h"

using namespace npuvp;
using test::ns;

namespace {

struct Bench {
    IoCpuConfig config;
    MCpuConfig m_cpu_config;
    SystemConfig system;
    TraceSink trace;
    RunStatus status;
    IoCpu io;
    test::StubInitiator m_cpu0{"cube0_m_cpu"}, m_cpu1{"cube1_m_cpu"};
    test::StubNode c0_pe0{"c0_pe0"}, c0_pe1{"c0_pe1"}, c1_pe0{"c1_pe0"}, c1_pe1{"c1_pe1"};
    test::StubNode* pe_cpu[2][2] = {{&c0_pe0, &c0_pe1}, {&c1_pe0, &c1_pe1}};
    test::StubFabric fabric;
    test::Wires wires;
    const Route* back[2] = {nullptr, nullptr};  // M_CPU -> IO_CPU
    WorkloadConfig workload;
    // Each stub M_CPU's answer: after `think_ns`, success or not.
    double think_ns[2] = {0, 0};
    bool success[2] = {true, true};
    std::string missing[2];
    std::deque<CubeResponseMsg> answers;

    static IoCpuConfig io_config() {
        IoCpuConfig c;
        c.impl = "builtin.io_cpu";
        c.overhead_ns = 2.0;
        return c;
    }
    static MCpuConfig mc_config() {
        MCpuConfig c;
        c.impl = "builtin.m_cpu";
        c.overhead_ns = 5.0;
        return c;
    }
    static SystemConfig sys_config() {
        SystemConfig s;
        s.sips = 1;
        s.cubes_per_sip = 2;
        return s;
    }

    Bench()
        : config(io_config()), m_cpu_config(mc_config()), system(sys_config()),
          io("io_cpu", config, m_cpu_config, system, 0, trace, status) {
        io.attach(fabric);
        fabric.slice_bytes = 1 << 20;
        fabric.slices_per_cube = 2;
        fabric.cubes_per_sip = 2;
        auto link = [&](RoutedNode& a, RoutedNode& b, double ns_) -> const Route& {
            Hop& h = wires.hop(a.node_id() + "->" + b.node_id(), ns_);
            return wires.route({&a, &b}, {{&h, 0}});
        };
        test::StubInitiator* m_cpus[2] = {&m_cpu0, &m_cpu1};
        const double to_m_cpu[2] = {10, 30};
        const double to_pe[2][2] = {{3, 9}, {4, 6}};
        for (int c = 0; c < 2; ++c) {
            test::StubInitiator& m = *m_cpus[c];
            fabric.set_node(NodeRole::m_cpu, 0, c, 0, m);
            fabric.set_route(io, m, link(io, m, to_m_cpu[c]));
            back[c] = &link(m, io, to_m_cpu[c]);
            for (int p = 0; p < 2; ++p) {
                fabric.set_node(NodeRole::pe_cpu, 0, c, p, *pe_cpu[c][p]);
                fabric.set_route(m, *pe_cpu[c][p], link(m, *pe_cpu[c][p], to_pe[c][p]));
            }
            m.on_arrival = [this, c, &m](const test::Arrival& a) {
                sc_core::wait(sc_core::sc_time::from_value(ns_to_ps(think_ns[c], "think_ns")));
                answers.push_back({static_cast<const CubeRequestMsg*>(a.body), -1, success[c], missing[c]});
                m.send({0, back[c], MsgKind::response, 0, 0, &answers.back()});
            };
        }
    }

    HostRequest& add(HostRequestKind kind) {
        HostRequest& r = workload.host.emplace_back();
        r.kind = kind;
        r.index = static_cast<std::uint32_t>(workload.host.size() - 1);
        r.id = "r" + std::to_string(r.index);
        return r;
    }
    void start() {
        workload.kernels["k"].name = "k";
        io.host(workload);
        sc_core::sc_start();
    }
    const CubeRequestMsg& part(test::StubInitiator& m, std::size_t i = 0) {
        return *static_cast<const CubeRequestMsg*>(m.arrivals.at(i).body);
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(kernel_launch_barrier_is_the_slowest_leg_over_every_cube) {
    Bench b;
    HostRequest& r = b.add(HostRequestKind::kernel_launch);
    r.kernel = "k";
    r.cubes = {{0, 0}, {0, 1}};
    r.target_pe = {0, 1};
    b.start();
    BOOST_CHECK(!b.status.failed());
    // Issued at 0, handled 0..2 ns. Legs (ADR-0036 D3): IO_CPU -> M_CPU +
    // M_CPU overhead + slowest M_CPU -> PE_CPU:
    //   cube0 10 + 5 + max(3, 9) = 24 ns; cube1 30 + 5 + max(4, 6) = 41 ns.
    // Barrier = 2 + 41 = 43 ns, one for both cubes.
    BOOST_REQUIRE_EQUAL(b.m_cpu0.arrivals.size(), 1u);
    BOOST_REQUIRE_EQUAL(b.m_cpu1.arrivals.size(), 1u);
    BOOST_CHECK(b.part(b.m_cpu0).has_start);
    BOOST_CHECK_EQUAL(b.part(b.m_cpu0).target_start_ps, ns(43));
    BOOST_CHECK_EQUAL(b.part(b.m_cpu1).target_start_ps, ns(43));
    BOOST_CHECK_EQUAL(b.io.requests()[0].target_start_ps, ns(43));
    // The message to M_CPU is a command: n = 0, arriving at 2 + 10 and 2 + 30 ns.
    BOOST_CHECK_EQUAL(b.m_cpu0.arrivals[0].bytes, 0u);
    BOOST_CHECK(b.m_cpu0.arrivals[0].kind == MsgKind::kernel_launch);
    BOOST_CHECK_EQUAL(b.m_cpu0.arrivals[0].arrival_ps, ns(12));
    BOOST_CHECK_EQUAL(b.m_cpu1.arrivals[0].arrival_ps, ns(32));
    // Both cubes share one parent result (seed 001 D6).
    BOOST_CHECK_EQUAL(b.part(b.m_cpu0).parent, b.part(b.m_cpu1).parent);
    // Answers arrive at 12 + 10 = 22 (handled 22..24) and 32 + 30 = 62
    // (handled 62..64): the request completes at 64 ns.
    const IoCpu::RequestRecord& rec = b.io.requests()[0];
    BOOST_CHECK(rec.done);
    BOOST_CHECK(rec.success);
    BOOST_CHECK_EQUAL(rec.received, 2);
    BOOST_CHECK_EQUAL(rec.completed.value(), ns(64));
    BOOST_CHECK(b.io.all_done());
}

BOOST_AUTO_TEST_CASE(memory_range_is_split_at_the_cube_boundary) {
    Bench b;
    HostRequest& r = b.add(HostRequestKind::memory_write);
    // 3072 B from 1 KiB below the 2 MiB cube boundary.
    r.pa = (2u << 20) - 1024;
    r.bytes = 3072;
    b.start();
    BOOST_REQUIRE_EQUAL(b.m_cpu0.arrivals.size(), 1u);
    BOOST_REQUIRE_EQUAL(b.m_cpu1.arrivals.size(), 1u);
    // Cube 0 gets [2 MiB - 1 KiB, 2 MiB), cube 1 [2 MiB, 2 MiB + 2 KiB).
    BOOST_CHECK_EQUAL(b.part(b.m_cpu0).pa, (2u << 20) - 1024);
    BOOST_CHECK_EQUAL(b.part(b.m_cpu0).bytes, 1024u);
    BOOST_CHECK_EQUAL(b.part(b.m_cpu0).cube, 0);
    BOOST_CHECK_EQUAL(b.part(b.m_cpu1).pa, 2u << 20);
    BOOST_CHECK_EQUAL(b.part(b.m_cpu1).bytes, 2048u);
    BOOST_CHECK_EQUAL(b.part(b.m_cpu1).cube, 1);
    // The host's data does not cross the io_link: the request is a command
    // (n = 0) of kind dma_write (seed 001 D5).
    BOOST_CHECK_EQUAL(b.m_cpu0.arrivals[0].bytes, 0u);
    BOOST_CHECK(b.m_cpu1.arrivals[0].kind == MsgKind::dma_write);
    // Same answer times as any two-cube request: done at 64 ns.
    BOOST_CHECK_EQUAL(b.io.requests()[0].completed.value(), ns(64));
}

BOOST_AUTO_TEST_CASE(requests_run_in_order_unless_after_says_otherwise) {
    Bench b;
    b.think_ns[0] = 100;  // cube0's M_CPU answers 100 ns after arrival
    HostRequest& r0 = b.add(HostRequestKind::mmu_map);
    r0.cubes = {{0, 0}};
    r0.target_pe = {0};
    HostRequest& r1 = b.add(HostRequestKind::mmu_unmap);  // default: after r0
    r1.cubes = {{0, 0}};
    r1.target_pe = {0};
    HostRequest& r2 = b.add(HostRequestKind::mmu_map);  // after: [] -> at once
    r2.cubes = {{0, 1}};
    r2.target_pe = {1};
    b.workload.host[2].explicit_after = true;
    b.start();
    const auto& req = b.io.requests();
    BOOST_REQUIRE_EQUAL(req.size(), 3u);
    // r0 and r2 are issued at 0 and share the processor: r0 0..2, r2 2..4.
    // r0: at cube0 at 12, answer at 112, back at 122, handled 122..124.
    // r2: at cube1 at 34, answer back at 64, handled 64..66.
    // r1 waits for r0 (not for r2): issued at 124, handled 124..126, at cube0
    // at 136, answer at 236, back at 246, handled 246..248.
    BOOST_CHECK_EQUAL(req[0].issued.value(), 0u);
    BOOST_CHECK_EQUAL(req[2].issued.value(), 0u);
    BOOST_CHECK_EQUAL(req[1].issued.value(), ns(124));
    BOOST_CHECK_EQUAL(req[0].completed.value(), ns(124));
    BOOST_CHECK_EQUAL(req[2].completed.value(), ns(66));
    BOOST_CHECK_EQUAL(req[1].completed.value(), ns(248));
    BOOST_CHECK_EQUAL(b.m_cpu1.arrivals.at(0).arrival_ps, ns(34));
}

// SPEC T4: host requests issued at one instant are served in list order.
// Four independent mmu_map requests (after: []) to cube1, all issued at 0:
// IO_CPU's processor (2 ns each) takes r0 at 0..2, r1 2..4, r2 4..6, r3
// 6..8, and each reaches cube1's M_CPU 30 ns after its slot: at 32, 34, 36,
// 38, in list order. (Before the rule, the kernel's process order served
// them last to first.)
BOOST_AUTO_TEST_CASE(requests_of_one_instant_are_served_in_list_order) {
    Bench b;
    for (int i = 0; i < 4; ++i) {
        HostRequest& r = b.add(HostRequestKind::mmu_map);
        r.cubes = {{0, 1}};
        r.target_pe = {1};
        r.explicit_after = true;
    }
    b.start();
    BOOST_REQUIRE_EQUAL(b.m_cpu1.arrivals.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        BOOST_CHECK_EQUAL(b.m_cpu1.arrivals[i].arrival_ps, ns(32 + 2 * i));
        BOOST_CHECK_EQUAL(b.part(b.m_cpu1, i).request->index, i);
    }
}

BOOST_AUTO_TEST_CASE(failed_cube_answer_fails_the_request_naming_the_pes) {
    Bench b;
    b.success[1] = false;
    b.missing[1] = "sip0.cube1.pe1";
    HostRequest& r = b.add(HostRequestKind::kernel_launch);
    r.kernel = "k";
    r.cubes = {{0, 0}, {0, 1}};
    r.target_pe = {0, 1};
    b.start();
    const IoCpu::RequestRecord& rec = b.io.requests()[0];
    // Both cubes answered, so the request is done (at 64 ns as above), but
    // failed, and it names what cube1's M_CPU reported missing.
    BOOST_CHECK(rec.done);
    BOOST_CHECK(!rec.success);
    BOOST_CHECK_EQUAL(rec.missing, "sip0.cube1.pe1");
    BOOST_CHECK_EQUAL(rec.completed.value(), ns(64));
}

BOOST_AUTO_TEST_CASE(a_message_that_is_not_a_response_is_refused) {
    Bench b;
    // Cube 0's M_CPU sends IO_CPU a command instead of a response: IO_CPU
    // answers TLM_COMMAND_ERROR_RESPONSE and the sender's transport() throws.
    CubeResponseMsg bogus;
    b.m_cpu0.jobs.push_back({ns(5), b.back[0], MsgKind::kernel_launch, 0, 0, &bogus});
    b.start();
    BOOST_REQUIRE_EQUAL(b.m_cpu0.done.size(), 1u);
    BOOST_CHECK_NE(b.m_cpu0.done[0].error.find("failed"), std::string::npos);
    BOOST_CHECK(b.io.requests().empty());
}
