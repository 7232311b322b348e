// Bench of PE_IPCQ alone (SPEC §5; docs/architecture.md "IPCQ flow control is
// credit based"; docs/timing.md T3 "PE_IPCQ: waits (not busy) until the bytes
// have arrived, then takes them at once"). A stub scheduler feeds IPCQ_RECV
// tokens into the receiver's inbox; bench scripts play the sending peer's
// PE_DMA (reserve ring space, then deliver the bytes), per stage: a credit
// the ring refuses is waited for on the sender's signal, and the bytes are
// delivered through a per-stage clock (a PipelineClock never decoupled).
//
// Ring: 2 slots × 512 B = 1024 B; a message takes whole slots.
#include <boost/test/unit_test.hpp>

#include <deque>
#include <memory>
#include <vector>

#include "modules/pe/pe_ipcq.h"
#include "testbench/harness/pe_block_wiring.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/stub_nodes.h"
#include "testbench/harness/stub_scheduler.h"

using namespace npuvp;
using test::ns;

namespace {

PeIpcqConfig ring_config() {
    PeIpcqConfig c;
    c.impl = "builtin.pe_ipcq";
    c.slots = 2;
    c.slot_bytes = 512;
    return c;
}

struct Bench {
    PeIpcqConfig config = ring_config();
    TraceSink trace;
    RunStatus status;
    PeIpcq ipcq{"pe_ipcq", config, trace, status};
    test::StubScheduler scheduler{"scheduler", 2, trace};

    PipelineClock sender_clock;  // the peer's time base: per stage

    Bench() { test::wire_pe_ipcq(ipcq, scheduler); }
    // A peer's PE_DMA asking for ring space: waits (on its credit signal,
    // as PE_DMA's IPCQ_SEND worker does) until the ring grants it.
    void reserve(std::uint64_t bytes, PipelineSignal& credit) {
        while (!ipcq.reserve(bytes, credit)) sc_core::wait(credit.kernel_event());
    }
    void deliver(std::uint64_t bytes) { ipcq.deliver(bytes, sender_clock); }
    // A peer that asks at `at` for the ring space of one message of
    // `bytes`, notes when it got it (in `*reserved`, when given), and
    // delivers the message then.
    void send(const char* name, ps_t at, std::uint64_t bytes, ps_t* reserved = nullptr) {
        PipelineSignal& credit = credits.emplace_back();
        senders.push_back(std::make_unique<test::Script>(name, [this, at, bytes, reserved, &credit] {
            test::wait_until(at);
            reserve(bytes, credit);
            if (reserved) *reserved = test::now_ps();
            deliver(bytes);
        }));
    }
    std::deque<PipelineSignal> credits;
    std::vector<std::unique_ptr<test::Script>> senders;
    void receive(ps_t at, const std::string& id, std::uint64_t bytes) {
        scheduler.command(at, test::make_command(id, CommandKind::ipcq_recv),
                          {test::stage(StageType::ipcq_recv, bytes)});
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(footprint_is_whole_slots) {
    Bench b;
    BOOST_CHECK_EQUAL(b.ipcq.capacity(), 1024u);   // 2 × 512
    BOOST_CHECK_EQUAL(b.ipcq.footprint(1), 512u);  // one byte still takes a slot
    BOOST_CHECK_EQUAL(b.ipcq.footprint(512), 512u);
    BOOST_CHECK_EQUAL(b.ipcq.footprint(513), 1024u);
    sc_core::sc_start();
}

BOOST_AUTO_TEST_CASE(receive_completes_when_the_last_byte_is_delivered) {
    Bench b;
    // The receive of 1024 B is fed at 0 ns; the peer reserves the ring at
    // 100 ns and delivers 512 B at 150 ns and 512 B at 200 ns.
    b.receive(0, "recv", 1024);
    PipelineSignal credit;
    test::Script peer("peer", [&] {
        test::wait_until(ns(100));
        b.reserve(1024, credit);
        test::wait_until(ns(150));
        b.deliver(512);
        test::wait_until(ns(200));
        b.deliver(512);
    });
    sc_core::sc_start();
    BOOST_CHECK(!b.status.failed());
    // 512 B at 150 ns are not enough: the receive takes the data at 200 ns,
    // at once (T3: taking is immediate) ...
    BOOST_REQUIRE_EQUAL(b.scheduler.completions.size(), 1u);
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("recv"), ns(200));
    // ... and the 200 ns it waited are not busy time.
    BOOST_CHECK_EQUAL(b.ipcq.receiver().busy().value(), 0u);
    BOOST_CHECK_EQUAL(b.ipcq.receiver().stages_done(), 1u);
    BOOST_CHECK_EQUAL(b.ipcq.bytes_received(), 1024u);
}

BOOST_AUTO_TEST_CASE(full_ring_holds_the_sender_until_a_receive_frees_it) {
    Bench b;
    ps_t second_reserved = 0;
    // First message: 600 B = 2 slots = the whole ring, reserved and delivered at 0.
    b.send("first", 0, 600);
    // Second message: 100 B (1 slot), asked for at 10 ns: no credit left.
    b.send("second", ns(10), 100, &second_reserved);
    // Receives fed at 50 ns (600 B) and 60 ns (100 B).
    b.receive(ns(50), "recv600", 600);
    b.receive(ns(60), "recv100", 100);
    sc_core::sc_start();
    // The 600 B receive takes its data when fed (50 ns) and frees both slots:
    // the second sender's credit comes at 50 ns, not at 10 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("recv600"), ns(50));
    BOOST_CHECK_EQUAL(second_reserved, ns(50));
    // Its 100 B were delivered at 50 ns: the receive fed at 60 ns takes them at once.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("recv100"), ns(60));
    BOOST_CHECK_EQUAL(b.ipcq.bytes_received(), 700u);
}

BOOST_AUTO_TEST_CASE(one_receive_of_several_messages_frees_all_their_slots) {
    Bench b;
    // Two messages of 100 B, one slot each: the ring is full at 0 ns.
    b.send("a", 0, 100);
    b.send("b", 0, 100);
    // A third message of 600 B (both slots), asked for at 10 ns.
    ps_t c_reserved = 0;
    b.send("c", ns(10), 600, &c_reserved);
    // One receive of 200 B at 50 ns reads both small messages to their end:
    // both their slots are free, so c's 600 B fit at 50 ns. (Freeing only
    // the one slot 200 B would fill left c waiting for ever.) The receive
    // of 600 B fed at 60 ns takes c's data at once.
    b.receive(ns(50), "recv200", 200);
    b.receive(ns(60), "recv600", 600);
    sc_core::sc_start();
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("recv200"), ns(50));
    BOOST_CHECK_EQUAL(c_reserved, ns(50));
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("recv600"), ns(60));
    BOOST_CHECK_EQUAL(b.ipcq.bytes_received(), 800u);
    BOOST_CHECK_EQUAL(b.ipcq.bytes_held(), 0u);
}

BOOST_AUTO_TEST_CASE(a_message_read_in_parts_frees_the_slots_the_reads_pass) {
    Bench b;
    // One message of 1024 B (both slots); a second of 100 B asked for at
    // 10 ns waits. A receive of 600 B at 50 ns reads past the first slot
    // (512 B) but not the second: one slot is free, and the 100 B fit then.
    // A receive of the other 424 B at 60 ns frees the second slot.
    ps_t second_reserved = 0;
    b.send("first", 0, 1024);
    b.send("second", ns(10), 100, &second_reserved);
    b.receive(ns(50), "recv600", 600);
    b.receive(ns(60), "recv424", 424);
    sc_core::sc_start();
    BOOST_CHECK_EQUAL(second_reserved, ns(50));
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("recv424"), ns(60));
    // The 100 B are still held: nobody received them.
    BOOST_CHECK_EQUAL(b.ipcq.bytes_held(), 512u);
}
