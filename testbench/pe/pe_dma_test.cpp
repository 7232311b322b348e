// Bench of PE_DMA alone (SPEC §3 T2, T3; §5; docs/timing.md "T2 Memory
// targets", "T3 Engines"): the block with a stub scheduler feeding its
// inboxes, stub routes (StubPeRoutes) to two stub memory targets, the real
// PE_MMU (cheap) and a peer's real PE_IPCQ for the vc_comm channel.
//
// Figures (default.yaml's): DMA channel setup 500 ns, 256 GB/s; memory port
// 100 ns, 192 GB/s; TCM read / write ports 2 ns, 8192 GB/s. No NoC links.
//   DMA_READ : channel (head) -> memory port (service) -> TCM write (tail)
//   DMA_WRITE: TCM read, channel (head) -> memory port (service)
// 19200 B: 75 ns on a channel, 100 ns on a port, 2.344 ns on a TCM port, so
// an uncontended 19200 B transfer takes 500 + 100 + 2 + 100 = 702 ns.
// Memory windows: hbm_a [0, 1 MiB), hbm_b [1 MiB, 2 MiB). MMU pages 4096 B,
// translate_ns 5. The peer's IPCQ ring: 1 slot of 1024 B.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "modules/pe/pe_dma.h"
#include "modules/pe/pe_ipcq.h"
#include "modules/pe/pe_mmu.h"
#include "testbench/harness/pe_block_wiring.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/stub_nodes.h"
#include "testbench/harness/stub_pe_routes.h"
#include "testbench/harness/stub_scheduler.h"

using namespace npuvp;
using test::ns;

namespace {

constexpr std::uint64_t mib = 1 << 20;

PeDmaConfig dma_config(int rd_engines) {
    PeDmaConfig c;
    c.impl = "builtin.pe_dma";
    c.rd_engines = rd_engines;
    c.wr_engines = 1;
    c.setup_ns = 500.0;
    c.bw_gbs = 256.0;
    c.banks_per_transfer = 16;
    return c;
}
PeMmuConfig mmu_config() {
    PeMmuConfig c;
    c.impl = "builtin.pe_mmu";
    c.page_bytes = 4096;
    c.translate_ns = 5.0;
    return c;
}
PeIpcqConfig ring_config() {
    PeIpcqConfig c;
    c.impl = "builtin.pe_ipcq";
    c.slots = 1;
    c.slot_bytes = 1024;
    return c;
}

struct Bench {
    PeDmaConfig config;
    PeTcmConfig tcm_cfg;  // slice_bw_gbs: patterns are tested on the platform (dma_pattern_test)
    PeMmuConfig mmu_cfg = mmu_config();
    PeIpcqConfig ring_cfg = ring_config();
    TraceSink trace;
    RunStatus status;
    PeDma dma;
    PeMmu mmu{"pe_mmu", mmu_cfg};
    PeIpcq own_ipcq{"own_ipcq", ring_cfg, trace, status};
    PeIpcq peer_ipcq{"peer_ipcq", ring_cfg, trace, status};
    IpcqList ipcqs;  // the cube's IPCQs by PE index: own (0), peer (1)
    test::StubScheduler scheduler{"scheduler", 2, trace};
    test::StubScheduler peer_scheduler{"peer_scheduler", 2, trace};
    test::StubTarget hbm_a{"hbm_a"}, hbm_b{"hbm_b"};
    test::StubPeRoutes routes;
    test::Wires wires;

    explicit Bench(int rd_engines = 1)
        : config(dma_config(rd_engines)), dma("pe_dma", config, tcm_cfg, trace, status) {
        hbm_a.set_port(100.0, 192.0);
        hbm_b.set_port(100.0, 192.0);
        Hop& tcm_read = wires.hop("tcm.read", 2.0, 8192.0);
        Hop& tcm_write = wires.hop("tcm.write", 2.0, 8192.0);
        test::StubTarget* targets[2] = {&hbm_a, &hbm_b};
        for (int t = 0; t < 2; ++t) {
            test::StubTarget& mem = *targets[t];
            for (int ch = 0; ch < dma.channels(DmaDirection::read); ++ch)
                routes.add_dma(DmaDirection::read, ch, t * mib, mib,
                               wires.route({&dma, &mem}, {{&dma.channel_hop(DmaDirection::read, ch), 0},
                                                          {mem.service_hop(), 1},
                                                          {&tcm_write, 2}}));
            routes.add_dma(DmaDirection::write, 0, t * mib, mib,
                           wires.route({&dma, &mem}, {{&tcm_read, 0},
                                                      {&dma.channel_hop(DmaDirection::write, 0), 0},
                                                      {mem.service_hop(), 1}}));
        }
        routes.comm_routes[1] = &wires.route({&dma, &peer_ipcq}, {{&dma.comm_hop(), 0}});
        ipcqs.add(own_ipcq);
        ipcqs.add(peer_ipcq);
        test::wire_pe_dma(dma, routes, mmu, ipcqs, scheduler);
        test::wire_pe_ipcq(own_ipcq, scheduler);
        test::wire_pe_ipcq(peer_ipcq, peer_scheduler);
    }

    void read(ps_t at, const std::string& id, std::uint64_t bytes, MemAddress addr) {
        scheduler.command(at, test::make_command(id, CommandKind::dma_read),
                          {test::stage(StageType::dma_read, bytes)})
            .read_addr = addr;
    }
    void write(ps_t at, const std::string& id, std::uint64_t bytes, MemAddress addr) {
        scheduler.command(at, test::make_command(id, CommandKind::dma_write),
                          {test::stage(StageType::dma_write, bytes)})
            .write_addr = addr;
    }
    void send(ps_t at, const std::string& id, std::uint64_t bytes, int peer) {
        Command c = test::make_command(id, CommandKind::ipcq_send);
        c.peer = peer;
        scheduler.command(at, c, {test::stage(StageType::ipcq_send, bytes)});
    }
};

MemAddress pa(std::uint64_t v) { return {true, false, v}; }
MemAddress va(std::uint64_t v) { return {true, true, v}; }

}  // namespace

BOOST_AUTO_TEST_CASE(dma_read_is_t1_over_channel_memory_port_and_tcm) {
    Bench b;
    std::vector<RecordedEvent> events;
    b.trace.record_to(&events);
    b.read(0, "rd", 65536, pa(0x1000));
    sc_core::sc_start();
    BOOST_CHECK(!b.status.failed());
    // channel 500 + port 100 + TCM write 2 = 602 ns of latency; min B = 192:
    // drain 65536 / 192 = 341.3333 ns -> 341.334 ns: done at 943.334 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("rd"), 943334u);
    // The memory sees the physical address and the modelled bytes at 600 ns
    // (channel + its own port so far).
    BOOST_REQUIRE_EQUAL(b.hbm_a.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.hbm_a.arrivals[0].address, 0x1000u);
    BOOST_CHECK_EQUAL(b.hbm_a.arrivals[0].bytes, 65536u);
    BOOST_CHECK(b.hbm_a.arrivals[0].kind == MsgKind::dma_read);
    BOOST_CHECK_EQUAL(b.hbm_a.arrivals[0].arrival_ps, ns(600));
    // Busy from the grant (0) to done; bytes counted on the read side.
    BOOST_CHECK_EQUAL(b.dma.busy_time(DmaDirection::read).value(), 943334u);
    BOOST_CHECK_EQUAL(b.dma.bytes_moved(DmaDirection::read), 65536u);
    BOOST_CHECK_EQUAL(b.dma.bytes_moved(DmaDirection::write), 0u);
    // The trace marks exactly that interval (T3), naming the target.
    std::vector<const RecordedEvent*> engine;
    for (const RecordedEvent& e : events)
        if (e.node == "pe_dma" && (e.kind == TraceKind::engine_start || e.kind == TraceKind::engine_complete)) engine.push_back(&e);
    BOOST_REQUIRE_EQUAL(engine.size(), 2u);
    BOOST_CHECK(engine[0]->kind == TraceKind::engine_start);
    BOOST_CHECK(engine[1]->kind == TraceKind::engine_complete);
    BOOST_CHECK_EQUAL(engine[0]->t_ps, 0u);
    BOOST_CHECK_EQUAL(engine[1]->t_ps, 943334u);
    BOOST_CHECK_EQUAL(engine[1]->stage, "DMA_READ");
    BOOST_CHECK_EQUAL(engine[1]->bytes, 65536);
    BOOST_CHECK_EQUAL(engine[1]->peer, "hbm_a");
}

BOOST_AUTO_TEST_CASE(reads_queue_on_one_channel_while_a_write_runs_beside) {
    Bench b(1);
    b.read(0, "rd_a", 19200, pa(0x1000));
    b.read(0, "rd_b", 19200, pa(0x2000));
    b.write(0, "wr", 19200, pa(mib + 0x1000));
    sc_core::sc_start();
    // rd_a: channel from 0, done at 702 ns (see the header).
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("rd_a"), ns(702));
    // rd_b waits for the one read channel (held from start to done, T3):
    // granted at 702, channel 702 -> 1202, port (free since 600) -> 1302,
    // TCM -> 1304, drain -> 1404 ns. Never two reads on one channel.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("rd_b"), ns(1404));
    // wr on its own channel at the same time (READ ∥ WRITE): TCM read 0 -> 2,
    // channel 2 -> 502, hbm_b's port 502 -> 602, drain -> 702 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("wr"), ns(702));
    BOOST_CHECK_EQUAL(b.dma.channel(DmaDirection::read, 0).grants(), 2u);
    BOOST_CHECK_EQUAL(b.dma.busy_time(DmaDirection::read).value(), ns(1404));  // 702 + 702
    BOOST_CHECK_EQUAL(b.dma.bytes_moved(DmaDirection::write), 19200u);
    BOOST_REQUIRE_EQUAL(b.hbm_b.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.hbm_b.arrivals[0].address, mib + 0x1000);
}

BOOST_AUTO_TEST_CASE(two_read_channels_run_together_and_meet_at_the_port) {
    Bench b(2);
    b.read(0, "rd_a", 19200, pa(0x1000));
    b.read(0, "rd_b", 19200, pa(0x2000));
    sc_core::sc_start();
    std::vector<ps_t> done{b.scheduler.completed_at("rd_a"), b.scheduler.completed_at("rd_b")};
    std::sort(done.begin(), done.end());
    // Each channel is its own hop: both reach hbm_a's port at 500 ns. The
    // first holds it 500..600 (done 702 ns); the second starts there at 600,
    // + 100 = 700, TCM (free since 602.344) -> 702, drain -> 802 ns.
    BOOST_CHECK_EQUAL(done[0], ns(702));
    BOOST_CHECK_EQUAL(done[1], ns(802));
    BOOST_CHECK_EQUAL(b.dma.channel(DmaDirection::read, 0).grants(), 1u);
    BOOST_CHECK_EQUAL(b.dma.channel(DmaDirection::read, 1).grants(), 1u);
}

BOOST_AUTO_TEST_CASE(virtual_address_costs_the_translation_first) {
    Bench b;
    b.mmu.map(0x10000, 0x2000, 5 * 4096);  // [0x10040, 0x14b40) lies in it
    b.read(0, "rd", 19200, va(0x10040));
    sc_core::sc_start();
    BOOST_CHECK(!b.status.failed());
    // translate_ns 5, then the 702 ns transfer: done at 707 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("rd"), ns(707));
    // The payload carries the physical address (0x2000 + 0x40).
    BOOST_REQUIRE_EQUAL(b.hbm_a.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.hbm_a.arrivals[0].address, 0x2040u);
    // The translation is not channel busy time: 702 ns from the grant at 5.
    BOOST_CHECK_EQUAL(b.dma.busy_time(DmaDirection::read).value(), ns(702));
}

BOOST_AUTO_TEST_CASE(unmapped_virtual_address_stops_the_run_naming_it) {
    Bench b;
    b.read(ns(100), "bad", 19200, va(0x90000));
    sc_core::sc_start();
    // Fed at 100 ns, translated (and found unmapped) at 105 ns: the run stops.
    BOOST_REQUIRE(b.status.failed());
    BOOST_CHECK_EQUAL(b.status.error(),
                      "pe_dma: MMU fault: command bad accesses unmapped virtual address 0x90000");
    BOOST_CHECK_EQUAL(b.status.time().value(), ns(105));
    BOOST_CHECK(b.scheduler.completions.empty());
    BOOST_CHECK(b.hbm_a.arrivals.empty());
}

// seed 000 D1: every page a transfer touches is translated.
BOOST_AUTO_TEST_CASE(first_unmapped_page_of_a_transfer_faults_at_its_address) {
    Bench b;
    b.mmu.map(0x10000, 0x2000, 4096);  // only the first page
    b.read(ns(100), "rd", 8192, va(0x10000));
    sc_core::sc_start();
    // Fed at 100 ns, translated at 105 ns: the second page, 0x11000, is unmapped.
    BOOST_REQUIRE(b.status.failed());
    BOOST_CHECK_EQUAL(b.status.error(),
                      "pe_dma: MMU fault: command rd accesses unmapped virtual address 0x11000");
    BOOST_CHECK_EQUAL(b.status.time().value(), ns(105));
    BOOST_CHECK(b.hbm_a.arrivals.empty());  // nothing moved
}

BOOST_AUTO_TEST_CASE(pages_on_two_targets_split_the_transfer) {
    Bench b;
    b.mmu.map(0x10000, 0x2000, 4096);        // -> hbm_a
    b.mmu.map(0x11000, mib + 0x3000, 4096);  // -> hbm_b
    b.read(0, "rd", 8192, va(0x10000));
    sc_core::sc_start();
    BOOST_CHECK(!b.status.failed());
    // One piece per target, each its own route (T1 from the grant at 5 ns):
    //   hbm_a, 4096 B: channel 5 (free 5 + 16 = 21) -> 505; port -> 605;
    //     TCM write 605 (free 605.5) -> 607; done 607 + ser(4096, 192) =
    //     607 + 21.334 = 628.334 ns.
    //   hbm_b, 4096 B: channel busy until 21 (free 37) -> 521; port b -> 621;
    //     TCM write 621 -> 623; done 623 + 21.334 = 644.334 ns.
    // The stage is done with its last piece: 644.334 ns.
    BOOST_REQUIRE_EQUAL(b.hbm_a.arrivals.size(), 1u);
    BOOST_REQUIRE_EQUAL(b.hbm_b.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.hbm_a.arrivals[0].address, 0x2000u);
    BOOST_CHECK_EQUAL(b.hbm_a.arrivals[0].bytes, 4096u);
    BOOST_CHECK_EQUAL(b.hbm_b.arrivals[0].address, mib + 0x3000);
    BOOST_CHECK_EQUAL(b.hbm_b.arrivals[0].bytes, 4096u);
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("rd"), 644334u);
    BOOST_CHECK_EQUAL(b.dma.bytes_moved(DmaDirection::read), 8192u);
    BOOST_CHECK_EQUAL(b.dma.busy_time(DmaDirection::read).value(), 644334u - ns(5));
}

BOOST_AUTO_TEST_CASE(pages_on_one_target_stay_one_transfer) {
    Bench b;
    b.mmu.map(0x10000, 0x2000, 4096);
    b.mmu.map(0x11000, 0x8000, 4096);  // not contiguous, same target
    b.read(0, "rd", 8192, va(0x10000));
    sc_core::sc_start();
    // One transfer of 8192 B to hbm_a: 5 + 602 + ser(8192, 192) = 5 + 602 +
    // 42.667 = 649.667 ns, as if the pages were contiguous.
    BOOST_REQUIRE_EQUAL(b.hbm_a.arrivals.size(), 1u);
    BOOST_CHECK_EQUAL(b.hbm_a.arrivals[0].bytes, 8192u);
    BOOST_CHECK_EQUAL(b.hbm_a.arrivals[0].address, 0x2000u);
    BOOST_CHECK(b.hbm_b.arrivals.empty());
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("rd"), 649667u);
}

BOOST_AUTO_TEST_CASE(address_outside_every_window_stops_the_run) {
    // PeRoutes::dma() reports this address by throwing std::out_of_range,
    // caught in PE_DMA, which cleans the stack for AddressSanitizer after
    // the catch (modules/common/sanitizer_catch.h).
    Bench b;
    b.write(0, "far", 64, pa(3 * mib));
    sc_core::sc_start();
    BOOST_REQUIRE(b.status.failed());
    BOOST_CHECK_NE(b.status.error().find("pe_dma: command far: "), std::string::npos);
    BOOST_CHECK_NE(b.status.error().find("no memory window"), std::string::npos);
    BOOST_CHECK(b.scheduler.completions.empty());
}

BOOST_AUTO_TEST_CASE(ipcq_send_waits_for_peer_credit_and_moves_over_vc_comm) {
    Bench b;
    // Two 1024 B sends to PE 1 at 0; its ring holds one. The peer receives
    // at 1000 ns and again at 1000 ns (its second receive waits for data).
    b.send(0, "send_a", 1024, 1);
    b.send(0, "send_b", 1024, 1);
    b.peer_scheduler.command(ns(1000), test::make_command("recv_a", CommandKind::ipcq_recv),
                             {test::stage(StageType::ipcq_recv, 1024)});
    b.peer_scheduler.command(ns(1000), test::make_command("recv_b", CommandKind::ipcq_recv),
                             {test::stage(StageType::ipcq_recv, 1024)});
    sc_core::sc_start();
    BOOST_CHECK(!b.status.failed());
    // send_a: credit at once; vc_comm 500 ns + 1024 / 256 = 4 ns: 504 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("send_a"), ns(504));
    // recv_a takes it when fed (1000 ns) and frees the slot; send_b's credit
    // comes then: 1000 + 504 = 1504 ns, and recv_b takes it at once.
    BOOST_CHECK_EQUAL(b.peer_scheduler.completed_at("recv_a"), ns(1000));
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("send_b"), ns(1504));
    BOOST_CHECK_EQUAL(b.peer_scheduler.completed_at("recv_b"), ns(1504));
    // Waiting for credit is not busy time: 2 × 504 ns on vc_comm.
    BOOST_CHECK_EQUAL(b.dma.comm_busy_time().value(), ns(1008));
    BOOST_CHECK_EQUAL(b.dma.comm_bytes(), 2048u);
    // vc_comm is not vc_compute: the read / write channels did nothing.
    BOOST_CHECK_EQUAL(b.dma.bytes_moved(DmaDirection::read) + b.dma.bytes_moved(DmaDirection::write), 0u);
}

BOOST_AUTO_TEST_CASE(ipcq_send_larger_than_the_peer_ring_is_a_run_error) {
    Bench b;
    b.send(ns(10), "huge", 2048, 1);
    sc_core::sc_start();
    // 2048 B can never fit a 1024 B ring: the run stops at once, saying so.
    BOOST_REQUIRE(b.status.failed());
    BOOST_CHECK_EQUAL(b.status.error(),
                      "pe_dma: command huge: ipcq_send of 2048 bytes can never fit the peer's ring of 1024 bytes");
    BOOST_CHECK_EQUAL(b.status.time().value(), ns(10));
    BOOST_CHECK_EQUAL(b.dma.comm_bytes(), 0u);
}
