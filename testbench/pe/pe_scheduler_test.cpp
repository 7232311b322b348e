// Bench of PE_SCHEDULER alone (SPEC §3 T3, T6; §5; §6; docs/architecture.md
// "The PE pipeline", "Schedule semantics"): the block with a stub PE_CPU that
// submits commands over a 1 ns link, the PE's eight inboxes, and stub
// engines (one per stage type, a fixed time per stage) that chain tokens and
// call complete_tile() through the real stage-worker loop. No DMA, no TCM,
// no platform: the dispatch process (contexts), the feed loop (tiles,
// reserved TCM) and the completion process are what is timed.
//
// PE_SCHEDULER overhead_ns 1 (per dispatch and per tile fed), inbox_depth 2,
// bank policy serialize, limit 64. Stub engine times: DMA_READ 100 ns,
// FETCH 10, GEMM 50, STORE 10, DMA_WRITE 100. The PE's home HBM PA: 0x4000.
// PE_CPU sends command i at i ns (it waits 1 ns per send): it arrives at
// i + 1 ns.
#include <boost/test/unit_test.hpp>

#include "modules/pe/pe_scheduler.h"
#include "testbench/harness/pe_block_wiring.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/stub_engines.h"
#include "testbench/harness/stub_nodes.h"
#include "testbench/harness/stub_scheduler.h"

using namespace npuvp;
using test::ns;

namespace {

constexpr std::uint64_t home_pa = 0x4000;

struct Configs {
    PeSchedulerConfig scheduler;
    PeTcmConfig tcm;
    PeDmaConfig dma;
    explicit Configs(std::uint64_t reserved_bytes) {
        scheduler.impl = "builtin.pe_scheduler";
        scheduler.overhead_ns = 1.0;
        scheduler.inbox_depth = 2;
        scheduler.bank_policy = BankPolicy::serialize;
        scheduler.bank_limit = 64;
        tcm.size_bytes = 16 << 20;
        tcm.reserved_bytes = reserved_bytes;
        tcm.banks = 16;
        tcm.bank_interleave_bytes = 8;
        dma.banks_per_transfer = 16;
    }
};

struct Bench {
    Configs configs;
    TraceSink trace;
    RunStatus status;
    PeScheduler scheduler;
    StageInboxes inboxes{"pe", 2, trace};
    test::StubEngines engines{"engines", trace, status};
    test::StubInitiator pe_cpu{"pe_cpu"};
    test::Wires wires;
    const Route* to_scheduler = nullptr;
    Kernel kernel;

    explicit Bench(std::uint64_t reserved_bytes = 8 << 20)
        : configs(reserved_bytes),
          scheduler("pe_scheduler", configs.scheduler, configs.tcm, configs.dma, trace, status) {
        test::wire_pe_scheduler(scheduler, inboxes, home_pa);
        engines.inboxes.bind(inboxes);
        Hop& link = wires.hop("cpu->scheduler", 1.0);
        to_scheduler = &wires.route({&pe_cpu, &scheduler}, {{&link, 0}});
        engines.stage_ns[static_cast<std::size_t>(StageType::dma_read)] = 100;
        engines.stage_ns[static_cast<std::size_t>(StageType::fetch)] = 10;
        engines.stage_ns[static_cast<std::size_t>(StageType::gemm)] = 50;
        engines.stage_ns[static_cast<std::size_t>(StageType::store)] = 10;
        engines.stage_ns[static_cast<std::size_t>(StageType::dma_write)] = 100;
    }
    Command& add(const std::string& id, CommandKind kind) {
        Command& c = kernel.commands.emplace_back(test::make_command(id, kind));
        c.index = static_cast<std::uint32_t>(kernel.commands.size() - 1);
        return c;
    }
    // Submits every command back to back (PE_CPU waits once per send) and runs.
    void run() {
        scheduler.prepare(kernel);
        for (const Command& c : kernel.commands)
            pe_cpu.jobs.push_back({0, to_scheduler, MsgKind::control, 0, 0, &c});
        sc_core::sc_start();
    }
    const PeScheduler::CompletionRecord& record(const std::string& id) const {
        for (const auto& r : scheduler.completions())
            if (r.command->id == id) return r;
        BOOST_FAIL("no completion of " << id);
        return scheduler.completions().front();
    }
};

MemRange tcm(std::uint64_t base, std::uint64_t bytes) { return {MemSpace::tcm, base, bytes}; }

std::size_t cause(WaitCause c) { return static_cast<std::size_t>(c); }

}  // namespace

BOOST_AUTO_TEST_CASE(simple_commands_dispatch_after_overhead_into_their_engine) {
    Bench b;
    b.add("load", CommandKind::dma_read).bytes = 4096;  // no address: the home slice
    Command& mm = b.add("mm", CommandKind::gemm);
    mm.m = mm.k = mm.n = 128;
    b.run();
    BOOST_CHECK(!b.status.failed());
    BOOST_REQUIRE_EQUAL(b.scheduler.completions().size(), 2u);
    // load: arrives 1, dispatched 1 + 1 = 2 ns into DMA_READ's inbox, engine
    // 2..102, completed at 102 ns.
    BOOST_CHECK_EQUAL(b.record("load").submitted.value(), ns(1));
    BOOST_CHECK_EQUAL(b.record("load").started.value(), ns(2));
    BOOST_CHECK_EQUAL(b.record("load").finished.value(), ns(102));
    // mm (main) does not wait for load (dma): arrives 2, dispatched at 3,
    // GEMM 3..53.
    BOOST_CHECK_EQUAL(b.record("mm").started.value(), ns(3));
    BOOST_CHECK_EQUAL(b.record("mm").finished.value(), ns(53));
    // A simple command is a one-token context of one stage (its kind's).
    const auto* load = b.engines.find("load", 0, StageType::dma_read);
    BOOST_REQUIRE(load);
    BOOST_CHECK_EQUAL(load->start_ps, ns(2));
    // The DMA side the workload left out is the PE's own HBM slice (T2).
    BOOST_CHECK(load->read_addr.given && !load->read_addr.is_va);
    BOOST_CHECK_EQUAL(load->read_addr.value, home_pa);
    BOOST_CHECK(b.scheduler.complete(0) && b.scheduler.complete(1));
    BOOST_CHECK(b.scheduler.inflight().empty());
}

BOOST_AUTO_TEST_CASE(one_context_runs_its_commands_in_order_one_at_a_time) {
    Bench b;
    b.add("load_a", CommandKind::dma_read).bytes = 4096;
    b.add("load_b", CommandKind::dma_read).bytes = 4096;
    b.run();
    // load_a: 1 -> 2 -> 102. load_b (same dma context) arrives at 2 and
    // waits for the context until load_a completes at 102; dispatched at
    // 102 + 1 = 103, done at 203 ns.
    BOOST_CHECK_EQUAL(b.record("load_a").finished.value(), ns(102));
    BOOST_CHECK_EQUAL(b.record("load_b").started.value(), ns(103));
    BOOST_CHECK_EQUAL(b.record("load_b").finished.value(), ns(203));
    // The wait is recorded with its cause: 2 .. 102 = 100 ns of context.
    BOOST_CHECK_EQUAL(b.record("load_b").waited[cause(WaitCause::context)].value(), ns(100));
    BOOST_CHECK(b.record("load_b").gated_cause == WaitCause::context);
    BOOST_CHECK_EQUAL(b.record("load_b").gated_by, 0);
}

BOOST_AUTO_TEST_CASE(read_after_write_waits_for_the_writer_with_cause_dependency) {
    Bench b;
    Command& load = b.add("load", CommandKind::dma_read);
    load.bytes = 4096;
    load.writes = {tcm(0x800000, 4096)};  // AllocatableTCM: above the 8 MiB reserved
    Command& mm = b.add("mm", CommandKind::gemm);
    mm.m = mm.k = mm.n = 128;
    mm.reads = {tcm(0x800400, 1024)};  // inside what load writes: RAW
    Command& other = b.add("other", CommandKind::math);
    other.op = "relu";
    other.elements = 64;
    other.context = ExecContext::sub;  // its own context, no hazard
    other.reads = {tcm(0x802000, 64)};
    b.engines.stage_ns[static_cast<std::size_t>(StageType::math)] = 20;
    b.run();
    // mm (main) could run beside load (dma) but reads what load writes: it
    // waits until load completes at 102, then 103 .. 153.
    BOOST_CHECK_EQUAL(b.record("mm").started.value(), ns(103));
    BOOST_CHECK_EQUAL(b.record("mm").finished.value(), ns(153));
    BOOST_CHECK_EQUAL(b.record("mm").waited[cause(WaitCause::dependency)].value(), ns(100));
    BOOST_CHECK(b.record("mm").gated_cause == WaitCause::dependency);
    // other, later in program order but independent, overtakes mm: arrives
    // 3, dispatched 4, MATH 4 .. 24.
    BOOST_CHECK_EQUAL(b.record("other").started.value(), ns(4));
    BOOST_CHECK_EQUAL(b.record("other").finished.value(), ns(24));
}

BOOST_AUTO_TEST_CASE(composite_feeds_one_token_per_tile_room_for_one_tile_serialises) {
    // 256 × 128 × 128 GEMM in 128³ bf16 tiles: 2 tokens, each DMA_READ
    // (128·128 + 128·128)·2 = 65536 B -> FETCH -> GEMM -> STORE 32768 B ->
    // DMA_WRITE (T6). Reserved TCM 98304 B = one tile's 65536 + 32768.
    Bench b(98304);
    Command& mm = b.add("mm", CommandKind::composite);
    mm.composite.m = 256;
    mm.composite.k = mm.composite.n = 128;
    mm.composite.tm = mm.composite.tk = mm.composite.tn = 128;
    mm.composite.d_in = mm.composite.d_out = 2;
    mm.composite.ops = {{"gemm", EpilogueScope::per_output_tile}};
    b.run();
    BOOST_CHECK(!b.status.failed());
    // Tile 0: arrives 1, buffers at 1, overhead -> fed at 2; stages 2..102
    // (read), ..112 (fetch), ..162 (gemm), ..172 (store), ..272 (write).
    // Tile 1 cannot get its buffers until tile 0 completes and frees them at
    // 272: fed at 273, done at 273 + 270 = 543 ns.
    const auto* r1 = b.engines.find("mm", 1, StageType::dma_read);
    BOOST_REQUIRE(r1);
    BOOST_CHECK_EQUAL(r1->start_ps, ns(273));
    BOOST_CHECK_EQUAL(b.record("mm").tiles, 2u);
    BOOST_CHECK_EQUAL(b.record("mm").started.value(), ns(2));
    BOOST_CHECK_EQUAL(b.record("mm").finished.value(), ns(543));
    BOOST_CHECK_EQUAL(b.scheduler.tiles_fed(), 2u);
    BOOST_CHECK_EQUAL(b.scheduler.reserved_peak(), 98304u);
    // The stage bytes of T6.
    const auto* g0 = b.engines.find("mm", 0, StageType::gemm);
    BOOST_REQUIRE(g0);
    BOOST_CHECK_EQUAL(g0->start_ps, ns(112));
    BOOST_CHECK_EQUAL(b.scheduler.reserved().in_use(), 0u);  // all freed
}

BOOST_AUTO_TEST_CASE(composite_with_room_for_two_tiles_overlaps_them) {
    Bench b(2 * 98304);
    Command& mm = b.add("mm", CommandKind::composite);
    mm.composite.m = 256;
    mm.composite.k = mm.composite.n = 128;
    mm.composite.tm = mm.composite.tk = mm.composite.tn = 128;
    mm.composite.d_in = mm.composite.d_out = 2;
    mm.composite.ops = {{"gemm", EpilogueScope::per_output_tile}};
    b.run();
    // Tile 1 gets its buffers at once: fed at 2 + 1 = 3 and read when the
    // DMA_READ engine is free (102 .. 202): DMA_READ(1) ∥ GEMM(0) (112..162).
    // Then fetch 202..212, gemm 212..262, store 262..272, and DMA_WRITE
    // after tile 0's (172..272): 272..372 ns.
    const auto* r1 = b.engines.find("mm", 1, StageType::dma_read);
    const auto* w1 = b.engines.find("mm", 1, StageType::dma_write);
    BOOST_REQUIRE(r1 && w1);
    BOOST_CHECK_EQUAL(r1->start_ps, ns(102));
    BOOST_CHECK_EQUAL(w1->start_ps, ns(272));
    BOOST_CHECK_EQUAL(b.record("mm").finished.value(), ns(372));
    BOOST_CHECK_EQUAL(b.scheduler.reserved_peak(), 2u * 98304u);
}

BOOST_AUTO_TEST_CASE(feed_loop_waits_for_room_in_a_full_inbox) {
    // 768 × 128 × 128 in 128³ tiles: 6 tokens; reserved TCM (8 MiB) is no
    // limit. The first stage's inbox holds 2 (inbox_depth) and the stub
    // DMA_READ engine takes one token per 100 ns.
    Bench b;
    std::vector<RecordedEvent> events;
    b.trace.record_to(&events);
    Command& mm = b.add("mm", CommandKind::composite);
    mm.composite.m = 768;
    mm.composite.k = mm.composite.n = 128;
    mm.composite.tm = mm.composite.tk = mm.composite.tn = 128;
    mm.composite.d_in = mm.composite.d_out = 2;
    mm.composite.ops = {{"gemm", EpilogueScope::per_output_tile}};
    b.run();
    std::vector<ps_t> fed;  // sub_command_dispatched: a tile's overhead is done
    for (const RecordedEvent& e : events)
        if (e.kind == TraceKind::sub_command_dispatched) fed.push_back(e.t_ps);
    // Arrival at 1; tile 0 fed at 2 and taken by the engine at once; tiles
    // 1, 2 at 3, 4 fill the inbox; tile 3's overhead ends at 5 but its write
    // waits until the engine takes tile 1 at 102. Tile 4's overhead then ends
    // at 103 and it waits for 202 (tile 2 taken); tile 5: 203.
    const std::vector<ps_t> expected{ns(2), ns(3), ns(4), ns(5), ns(103), ns(203)};
    BOOST_CHECK_EQUAL_COLLECTIONS(fed.begin(), fed.end(), expected.begin(), expected.end());
    // DMA_READ back to back from 2 ns: the last read 502 .. 602, then
    // FETCH 10, GEMM 50, STORE 10, DMA_WRITE 100: done at 772 ns.
    BOOST_CHECK_EQUAL(b.record("mm").tiles, 6u);
    BOOST_CHECK_EQUAL(b.record("mm").finished.value(), ns(772));
}
