// Bench of MemoryTarget alone (an HBM slice or shared SRAM; SPEC §3 T2,
// docs/timing.md "T2 Memory targets"): stub initiators send along hand-built
// routes whose last step is the target's own port (its service hop). No NoC,
// no PE: the only hops are a 1 ns attach link (no bandwidth) per initiator
// and the port.
//
// Port: latency 100 ns, 192 GB/s (default.yaml's hbm_ctrl). Window: 1 MiB at
// 0x4000'0000. T1: done = t0 + ΣL + ser(n, min B), each hop
// t = max(t, free); free = t + ser(n, B); t += L.
#include <boost/test/unit_test.hpp>

#include "modules/cube/memory_target.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/stub_nodes.h"

using namespace npuvp;
using test::ns;

namespace {

constexpr std::uint64_t base = 0x4000'0000;
constexpr std::uint64_t size = 1 << 20;

struct Bench {
    MemoryTarget hbm{"hbm", "hbm_ctrl", 192.0, 100.0, size};
    test::Wires wires;

    Bench() { hbm.set_base(base); }
    // initiator -(attach 1 ns)-> hbm, then the port (applied by the target, at = 1).
    const Route& route_from(test::StubInitiator& from) {
        Hop& attach = wires.hop(from.node_id() + "->hbm", 1.0);
        return wires.route({&from, &hbm}, {{&attach, 0}, {hbm.service_hop(), 1}});
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(read_costs_port_latency_plus_drain) {
    Bench b;
    test::StubInitiator dma("dma");
    dma.jobs.push_back({0, &b.route_from(dma), MsgKind::dma_read, 65536, base});
    sc_core::sc_start();
    BOOST_REQUIRE_EQUAL(dma.done.size(), 1u);
    BOOST_CHECK(dma.done[0].error.empty());
    // attach 1 + port 100 = 101 ns of latency; drain 65536 B / 192 GB/s =
    // 341.3333 ns -> 341 334 ps (rounded up): done = 442.334 ns.
    BOOST_CHECK_EQUAL(dma.done[0].done_ps, 442334u);
    // The port was busy for the serialisation only; the read counts as read.
    BOOST_CHECK_EQUAL(b.hbm.port().busy_ps(), 341334u);
    BOOST_CHECK_EQUAL(b.hbm.bytes_read(), 65536u);
    BOOST_CHECK_EQUAL(b.hbm.bytes_written(), 0u);
}

BOOST_AUTO_TEST_CASE(second_transfer_queues_behind_the_first_at_the_port) {
    Bench b;
    test::StubInitiator rd("rd"), wr("wr");
    // 19200 B at 192 GB/s = exactly 100 ns of port time. Both start at 0.
    rd.jobs.push_back({0, &b.route_from(rd), MsgKind::dma_read, 19200, base});
    wr.jobs.push_back({0, &b.route_from(wr), MsgKind::dma_write, 19200, base + 4096});
    sc_core::sc_start();
    BOOST_REQUIRE_EQUAL(rd.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(wr.done.size(), 1u);
    // Whichever reserves the port first (T4: the kernel's process order)
    // reaches it at 1 ns: free = 101 ns, t = 101, done = 101 + 100 = 201 ns.
    // The other reaches it at 1 ns too, waits until free = 101 ns, holds it
    // to 201 ns, t = 201 ns, done = 301 ns: exactly one port time later.
    const ps_t first = std::min(rd.done[0].done_ps, wr.done[0].done_ps);
    const ps_t second = std::max(rd.done[0].done_ps, wr.done[0].done_ps);
    BOOST_CHECK_EQUAL(first, ns(201));
    BOOST_CHECK_EQUAL(second, ns(301));
    BOOST_CHECK_EQUAL(b.hbm.port().free_ps(), ns(201));
    // Reads and writes are counted apart.
    BOOST_CHECK_EQUAL(b.hbm.bytes_read(), 19200u);
    BOOST_CHECK_EQUAL(b.hbm.bytes_written(), 19200u);
}

BOOST_AUTO_TEST_CASE(address_outside_the_window_is_an_address_error) {
    Bench b;
    test::StubInitiator dma("dma");
    const Route& r = b.route_from(dma);
    // The last byte of the window, one past it, one before it.
    dma.jobs.push_back({0, &r, MsgKind::dma_read, 64, base + size - 1});
    dma.jobs.push_back({0, &r, MsgKind::dma_read, 64, base + size});
    dma.jobs.push_back({0, &r, MsgKind::dma_write, 64, base - 1});
    sc_core::sc_start();
    BOOST_REQUIRE_EQUAL(dma.done.size(), 3u);
    BOOST_CHECK(dma.done[0].error.empty());
    // Payload addresses are physical and checked against [base, base + size):
    // TLM_ADDRESS_ERROR_RESPONSE makes the initiator's transport() throw.
    BOOST_CHECK_NE(dma.done[1].error.find("failed"), std::string::npos);
    BOOST_CHECK_NE(dma.done[2].error.find("failed"), std::string::npos);
    // Only the accepted transfer is counted.
    BOOST_CHECK_EQUAL(b.hbm.bytes_read(), 64u);
    BOOST_CHECK_EQUAL(b.hbm.bytes_written(), 0u);
}

BOOST_AUTO_TEST_CASE(control_message_takes_latency_and_no_port_time) {
    Bench b;
    test::StubInitiator ctl("ctl"), dma("dma");
    ctl.jobs.push_back({0, &b.route_from(ctl), MsgKind::control, 0, base});
    dma.jobs.push_back({0, &b.route_from(dma), MsgKind::dma_read, 19200, base});
    sc_core::sc_start();
    BOOST_REQUIRE_EQUAL(ctl.done.size(), 1u);
    BOOST_REQUIRE_EQUAL(dma.done.size(), 1u);
    // n = 0: attach 1 + port 100 = 101 ns, no drain, nothing reserved ...
    BOOST_CHECK_EQUAL(ctl.done[0].done_ps, ns(101));
    // ... so the read beside it is not delayed: 1 + 100 + 100 = 201 ns.
    BOOST_CHECK_EQUAL(dma.done[0].done_ps, ns(201));
    BOOST_CHECK_EQUAL(b.hbm.bytes_read(), 19200u);
}
