// The decoupled pipeline (platform/decoupler.h, docs/speed.md "The decoupled
// pipeline"): which PEs run decoupled and why the others do not, one case per
// rule; a run that is decoupled gives the times of the timing contract,
// derived by hand; and decoupled runs agree with --per-stage runs on every
// shipped example and on random composite workloads, summary for summary
// (every field but the wall-clock "speed" one).
//
// default.yaml figures used below (as testbench/pe/pipeline_test.cpp): PE_CPU
// overhead 2 ns; scheduler overhead 1 ns; DMA channel 500 ns, 256 GB/s;
// attach links 1 ns, unlimited; HBM port 100 ns, 192 GB/s (one port for reads
// and writes); TCM ports 2 ns, 8192 GB/s; fetch_store <-> tcm link 0 ns,
// 2048 GB/s; fetch_store latency 1 ns; GEMM 128 x 128, fill 128, 1 GHz.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/workload_loader.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/run_npuvp.h"
#include "testbench/harness/vcd_reader.h"

using namespace npuvp;
using namespace npuvp::test;

namespace {

// One in-process run without outputs (so PEs may run decoupled).
struct Run {
    TopologyConfig topo;
    WorkloadConfig wl;
    TraceSink trace;
    Platform platform;
    WorkloadRun run;

    Run(const TopologyConfig& t, const std::string& yaml)
        : topo(t), wl(load_workload_text(yaml, "test.yaml", topo)), platform(topo, trace),
          run(platform, wl) {}

    void start() {
        sc_core::sc_start();
        BOOST_REQUIRE(run.finished());
    }
    const Decoupler::Verdict& verdict(const std::string& pe) const {
        for (const Decoupler::Verdict& v : platform.decoupler().verdicts())
            if (v.pe->name() == pe) return v;
        BOOST_FAIL("no verdict for " << pe);
        return platform.decoupler().verdicts().front();
    }
    CommandResult command(const std::string& id) const {
        for (const CommandResult& c : run.commands())
            if (c.command->id == id) return c;
        BOOST_FAIL("no command " << id);
        return {};
    }
};

void check_per_stage(const Decoupler::Verdict& v, const std::string& why) {
    BOOST_CHECK(!v.decoupled);
    BOOST_CHECK_MESSAGE(v.why.find(why) != std::string::npos,
                        "why '" << v.why << "' does not say '" << why << "'");
}

// Two bf16 128-row tiles (m = 256, k = n = 128), no epilogue, on pe0; operand
// reuse off, so both tokens read their A and B tiles.
const char* const two_tiles_yaml = R"(
name: two_tiles
kernels:
  k:
    - composite: { id: mm, gemm: { m: 256, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, dtype: { in: bf16, out: bf16 }, reuse: none, wait: true }
launch:
  - { kernel: k, pes: [0] }
)";

}  // namespace

BOOST_AUTO_TEST_CASE(decoupled_composite_times_by_hand) {
    // Token t reads 65536 B (A and B tiles) and writes 32768 B (C tile).
    // T1 per hop: t = max(t, free); free = t + n/B; t += L; done = t + n/min B,
    // every hop of a transfer reserved when it starts (so a later transfer
    // queues behind an earlier one's reservation further down its path).
    //   65536 B: channel 256 ns, HBM 341.334 ns, TCM port 8 ns, fetch link 32;
    //   32768 B: channel 128 ns, HBM 170.667 ns, TCM port 4 ns, store link 16.
    // command submitted 2 ns (PE_CPU), started 3 ns (scheduler overhead).
    // READ0  at 3: channel -> 503, attach 504, 505, HBM 505 (free 846.334)
    //        -> 605, TCM write 607; done 607 + 341.334 = 948.334
    // FETCH0 948.334 + 2 + 32 + 1 = 983.334; GEMM0 + 256 = 1239.334
    // READ1  at 948.334 (the channel's next free moment): HBM at 1450.334
    //        (free 1791.668) -> 1550.334, TCM write port (free 1558.334)
    //        -> 1552.334; done + 341.334 = 1893.668
    // STORE0 at 1239.334: TCM write port reserved by READ1 until 1558.334
    //        -> 1560.334; done + 16 + 1 = 1577.334
    // WRITE0 at 1577.334: TCM read 1579.334, channel 2079.334, attach
    //        2080.334, 2081.334, HBM (free since 1791.668; free 2252.001)
    //        -> 2181.334; done + 170.667 = 2352.001
    // FETCH1 1893.668 -> 1928.668; GEMM1 -> 2184.668; STORE1 -> 2203.668
    // WRITE1 when the write channel is free, 2352.001: TCM read 2354.001,
    //        channel 2854.001, attach 2856.001, HBM (free 2252.001) 2956.001;
    //        done + 170.667 = 3126.668 = the command's end
    Run r(load_shipped("default"), two_tiles_yaml);
    r.start();
    BOOST_REQUIRE(r.verdict("sip0.cube0.pe0").decoupled);
    BOOST_CHECK_EQUAL(r.platform.decoupler().decoupled_pes(), 1u);
    BOOST_CHECK_GT(r.platform.decoupler().activities(), 0u);
    const CommandResult mm = r.command("mm");
    BOOST_CHECK_EQUAL(mm.submitted_ps, 2000u);
    BOOST_CHECK_EQUAL(mm.started_ps, 3000u);
    BOOST_CHECK_EQUAL(mm.finished_ps, 3126668u);
    BOOST_CHECK_EQUAL(r.run.makespan_ps(), 3126668u);
}

BOOST_AUTO_TEST_CASE(per_stage_when_asked) {
    TopologyConfig topo = load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);
    platform.decoupler().set_enabled(false);
    const WorkloadConfig wl = load_workload_text(two_tiles_yaml, "test.yaml", topo);
    WorkloadRun run(platform, wl);
    sc_core::sc_start();
    BOOST_REQUIRE(run.finished());
    BOOST_REQUIRE_EQUAL(platform.decoupler().verdicts().size(), 1u);
    check_per_stage(platform.decoupler().verdicts()[0], "--per-stage");
    // The same times as the decoupled case above.
    BOOST_CHECK_EQUAL(run.makespan_ps(), 3126668u);
}

BOOST_AUTO_TEST_CASE(decoupled_with_simple_commands) {
    // A mapped network's sum kernel (docs/models.md): a strided read of the
    // K-split parts, a sum and an epilogue on MATH, a write; each stretch
    // has one writer per inbox (the dispatch pass): decoupled. Its times
    // are the per-stage run's (shipped_examples_agree_*, random_*).
    Run r(load_shipped("default"), R"(
name: simple
kernels:
  k:
    - dma_read: { id: parts, bytes: 24576, addr: { pa: 0x200000 }, pattern: strided, chunks: 6, stride: 8192 }
    - wait: all
    - math: { id: sum, op: add, elements: 4096, dtype: fp32 }
    - math: { id: ep0, op: relu, elements: 1024 }
    - wait: all
    - dma_write: { id: out, bytes: 4096, addr: { pa: 0x300000 } }
launch:
  - { kernel: k, pes: [0] }
)");
    r.start();
    BOOST_CHECK(r.verdict("sip0.cube0.pe0").decoupled);
}

BOOST_AUTO_TEST_CASE(per_stage_when_a_simple_command_shares_an_inbox_with_a_composite) {
    // The composite's tiles enter DMA_READ's inbox from the feed loop, the
    // simple read from the dispatch pass, with no wait between: two writers.
    Run r(load_shipped("default"), R"(
name: simple
kernels:
  k:
    - composite: { id: mm, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 } }
    - dma_read: { id: ld, bytes: 65536, wait: true }
launch:
  - { kernel: k, pes: [0] }
)");
    r.start();
    check_per_stage(r.verdict("sip0.cube0.pe0"),
                    "hands tiles to the DMA_READ inbox from a composite and from its dma_read command ('ld')");
}

BOOST_AUTO_TEST_CASE(per_stage_when_a_fetch_may_stall) {
    // A sub-context FETCH with a TCM access pattern stops while a main
    // command shares its banks (seed 002: main starves sub); one without a
    // pattern cannot stall.
    Run r(load_shipped("default"), R"(
name: simple
kernels:
  k:
    - fetch: { id: f, bytes: 4096, access: { base: 0x800000, count: 16, elem_bytes: 32 }, wait: true }
  plain:
    - fetch: { id: f, bytes: 4096, wait: true }
launch:
  - { kernel: k, pes: [0] }
  - { kernel: plain, pes: [1] }
)");
    r.start();
    check_per_stage(r.verdict("sip0.cube0.pe0"), "has a fetch command ('f') whose TCM accesses may stall");
    BOOST_CHECK(r.verdict("sip0.cube0.pe1").decoupled);
}

BOOST_AUTO_TEST_CASE(decoupled_when_its_events_are_recorded) {
    // Recorded, the PE still runs decoupled; its events reach the trace
    // where the kernel would have put them (TraceSink::release_ahead), with
    // the times derived in decoupled_composite_times_by_hand.
    TopologyConfig topo = load_shipped("default");
    std::ostringstream text;
    TraceSink trace(&text);
    Platform platform(topo, trace);
    const WorkloadConfig wl = load_workload_text(two_tiles_yaml, "test.yaml", topo);
    WorkloadRun run(platform, wl);
    sc_core::sc_start();
    BOOST_REQUIRE(run.finished());
    BOOST_CHECK(platform.decoupler().verdicts().at(0).decoupled);
    BOOST_CHECK_EQUAL(run.makespan_ps(), 3126668u);
    const std::string t = text.str();
    const char* const expected[] = {
        R"({"t_ps":3000,"ev":"engine_start","node":"sip0.cube0.pe0.pe_dma","cmd":0,"tile":0,"stage":"DMA_READ","bytes":65536)",
        R"({"t_ps":948334,"ev":"engine_complete","node":"sip0.cube0.pe0.pe_dma","cmd":0,"tile":0,"stage":"DMA_READ","bytes":65536)",
        R"({"t_ps":948334,"ev":"engine_start","node":"sip0.cube0.pe0.pe_fetch_store","cmd":0,"tile":0,"stage":"FETCH","bytes":65536})",
        R"({"t_ps":983334,"ev":"engine_start","node":"sip0.cube0.pe0.pe_gemm","cmd":0,"tile":0,"stage":"GEMM"})",
        R"({"t_ps":3126668,"ev":"engine_complete","node":"sip0.cube0.pe0.pe_dma","cmd":0,"tile":1,"stage":"DMA_WRITE","bytes":32768)",
        R"({"t_ps":3126668,"ev":"command_complete","node":"sip0.cube0.pe0.pe_scheduler","cmd":0,"tile":-1,"stage":"composite","detail":"mm"})",
    };
    std::size_t at = 0;
    for (const char* line : expected) {
        const std::size_t found = t.find(line, at);
        BOOST_CHECK_MESSAGE(found != std::string::npos, "no line (in this order) " << line);
        if (found != std::string::npos) at = found;
    }
}

BOOST_AUTO_TEST_CASE(decoupled_when_its_signals_are_in_the_vcd) {
    // With its signals in the VCD, the PE still runs decoupled: each value
    // it changes ahead of the kernel reaches the VCD when the kernel gets to
    // the change's time (modules/common/vcd_value.h). The edges are the
    // times derived in decoupled_composite_times_by_hand: GEMM0 983.334 ->
    // 1239.334, GEMM1 1928.668 -> 2184.668; the read channel busy from
    // READ0's grant at 3 to READ1's done at 1893.668 (READ1 starts as READ0
    // ends, at 948.334: one time step, no edge). The file is the per-stage
    // run's, byte for byte.
    {
        std::ofstream out("decoupler_test_vcd.yaml");
        out << two_tiles_yaml;
    }
    const std::string args =
        "--workload decoupler_test_vcd.yaml --vcd-filter 'sip0.cube0.pe0.*' --vcd decoupler_test_vcd";
    const RunResult one = run_npuvp(args + ".decoupled.vcd");
    const RunResult two = run_npuvp(args + ".per_stage.vcd --per-stage");
    BOOST_REQUIRE_EQUAL(one.code, 0);
    BOOST_REQUIRE_EQUAL(two.code, 0);
    BOOST_CHECK_MESSAGE(one.out.find("pipeline 1 of 1 PEs decoupled") != std::string::npos, one.out);
    const std::string vcd = slurp("decoupler_test_vcd.decoupled.vcd");
    BOOST_CHECK(vcd == slurp("decoupler_test_vcd.per_stage.vcd"));
    using Edges = std::vector<std::pair<std::uint64_t, char>>;
    const Edges gemm = vcd_scalar_changes(vcd, "SystemC.sip0.cube0.pe0.pe_gemm.busy");
    const Edges gemm_expected = {{0, '0'}, {983334, '1'}, {1239334, '0'}, {1928668, '1'}, {2184668, '0'}};
    BOOST_CHECK(gemm == gemm_expected);
    const Edges read = vcd_scalar_changes(vcd, "SystemC.sip0.cube0.pe0.pe_dma.rd0.busy");
    const Edges read_expected = {{0, '0'}, {3000, '1'}, {1893668, '0'}};
    BOOST_CHECK(read == read_expected);
}

BOOST_AUTO_TEST_CASE(one_calendar_when_two_pes_share_a_memory_port) {
    // pe1 reads its inputs from pe0's HBM slice (PA 0): the port hbm_ctrl.pe0
    // serves both PEs, so they run on one calendar, whose round serves their
    // same-instant requests in key order (pe0 first), as the kernel would.
    // pe2, on its own slice, runs on a calendar of its own.
    // One 128^3 bf16 tile each: READ 65536 B, WRITE 32768 B (figures above).
    // Both commands start at 3 ns and both READs reach the DMA channel then:
    //  pe0 READ  channel 503, attach 504, 505, HBM0 port at 505 (free
    //            846.334) -> 605, TCM 607; done + 341.334 = 948.334
    //  pe1 READ  channel 503, attach 504, link r1->r0 (256 GB/s, 2.5 ns)
    //            506.5, attach 507.5, HBM0 port busy until 846.334 (free
    //            1187.668) -> 946.334, TCM 948.334; done + 341.334 = 1289.668
    //  (served the other way round, pe0's READ would wait for pe1's.)
    //  pe0 FETCH +2 +32 +1 = 983.334, GEMM +256 = 1239.334, STORE +2 +16 +1
    //      = 1258.334, WRITE: TCM read 1260.334, channel 1760.334, attach
    //      1761.334, 1762.334, HBM0 (free since 1187.668) 1862.334;
    //      done + 170.667 = 2033.001
    //  pe1 FETCH 1324.668, GEMM 1580.668, STORE 1599.668, WRITE to its own
    //      slice: 1601.668, 2101.668, 2102.668, 2103.668, HBM1 2203.668;
    //      done + 170.667 = 2374.335
    Run r(load_shipped("default"), R"(
name: shared
kernels:
  own:
    - composite: { id: mine, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, reuse: none, wait: true }
  theirs:
    - composite: { id: foreign, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, reuse: none, src: { pa: 0x0 }, wait: true }
  apart:
    - composite: { id: apart, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, reuse: none, wait: true }
launch:
  - { kernel: own, pes: [0] }
  - { kernel: theirs, pes: [1] }
  - { kernel: apart, pes: [2] }
)");
    r.start();
    const Decoupler::Verdict &pe0 = r.verdict("sip0.cube0.pe0"), &pe1 = r.verdict("sip0.cube0.pe1"),
                             &pe2 = r.verdict("sip0.cube0.pe2");
    BOOST_CHECK(pe0.decoupled);
    BOOST_CHECK(pe1.decoupled);
    BOOST_CHECK(pe2.decoupled);
    BOOST_CHECK_EQUAL(pe0.group, pe1.group);
    BOOST_CHECK_NE(pe0.group, pe2.group);
    BOOST_CHECK_EQUAL(r.command("mine").finished_ps, 2033001u);
    BOOST_CHECK_EQUAL(r.command("foreign").finished_ps, 2374335u);
    // pe2 alone: as pe0 without pe1's read in the way of its write.
    BOOST_CHECK_EQUAL(r.command("apart").started_ps, 3000u);
}

BOOST_AUTO_TEST_CASE(per_stage_when_it_shares_a_hop_with_a_per_stage_pe) {
    // pe0 runs a DMA on its own slice and a FETCH that may stall (per stage); pe1 reads
    // from that slice, so its same-instant requests at hbm_ctrl.pe0 would be
    // ordered by the kernel: per stage too. pe2 is apart.
    Run r(load_shipped("default"), R"(
name: shared
kernels:
  simple:
    - dma_read: { id: rd, bytes: 65536, wait: true }
    - fetch: { id: ld, bytes: 4096, access: { base: 0x800000, count: 16, elem_bytes: 32 }, wait: true }
  theirs:
    - composite: { id: foreign, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, src: { pa: 0x0 }, wait: true }
  apart:
    - composite: { id: apart, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, wait: true }
launch:
  - { kernel: simple, pes: [0] }
  - { kernel: theirs, pes: [1] }
  - { kernel: apart, pes: [2] }
)");
    r.start();
    check_per_stage(r.verdict("sip0.cube0.pe0"), "whose TCM accesses may stall");
    check_per_stage(r.verdict("sip0.cube0.pe1"), "with sip0.cube0.pe0, which runs per stage");
    BOOST_CHECK(r.verdict("sip0.cube0.pe2").decoupled);
}

// Two senders into one IPCQ ring of one 4 KiB slot; pe2 asks for credit
// while pe0's message holds the ring. default.yaml: ipcq_send of 4096 B to
// a neighbour = vc_comm 500 + attach 1 + mesh 2.5 + attach 1 + ser(4096 B,
// 256 GB/s) 16 = 520.5 ns (testbench/golden/host_two_pe/README.md); pe2 is
// pe1's other neighbour in the 2 x 4 mesh.
const char* const ring_credit_yaml = R"(
name: credit
kernels:
  a:
    - ipcq_send: { id: a, peer: 1, bytes: 4096 }
  b:
    - fetch: { id: f, bytes: 2048, wait: true }
    - ipcq_send: { id: b, peer: 1, bytes: 4096 }
  r:
    - ipcq_recv: { id: r1, bytes: 4096, wait: true }
    - ipcq_recv: { id: r2, bytes: 4096, wait: true }
launch:
  - { kernel: a, pes: [0] }
  - { kernel: r, pes: [1] }
  - { kernel: b, pes: [2] }
)";

BOOST_AUTO_TEST_CASE(ipcq_partners_share_a_calendar_and_wait_for_credit_by_hand) {
    //   a  (pe0): issued 2, dispatched 3, reserves the whole ring; done
    //      3 + 520.5 = 523.5, when its bytes are in pe1's ring.
    //   r1 (pe1): dispatched 3, waits (not busy) for 4096 B; takes them at
    //      523.5 and frees the slot.
    //   b  (pe2): f is a fetch of 2048 B, 3 -> 7 (TCM read 2 + 1 + 1);
    //      PE_CPU issues b at 7 + 2 = 9, dispatched 10; the ring is full,
    //      so it waits for the credit r1 frees at 523.5, then sends:
    //      523.5 + 520.5 = 1044.
    //   r2 (pe1): issued when r1 completes, 523.5 + 2, dispatched 526.5;
    //      takes b's bytes at 1044.
    // With the default ring (16 slots) b would not wait: 10 + 520.5 = 530.5.
    TopologyConfig topo = load_shipped("default");
    topo.cube.pe_template.ipcq.slots = 1;
    Run r(topo, ring_credit_yaml);
    r.start();
    const Decoupler::Verdict &pe0 = r.verdict("sip0.cube0.pe0"), &pe1 = r.verdict("sip0.cube0.pe1"),
                             &pe2 = r.verdict("sip0.cube0.pe2");
    BOOST_CHECK_MESSAGE(pe0.decoupled, pe0.why);
    BOOST_CHECK_MESSAGE(pe1.decoupled, pe1.why);
    BOOST_CHECK_MESSAGE(pe2.decoupled, pe2.why);
    // Each sender and its peer signal each other: one calendar.
    BOOST_CHECK_EQUAL(pe0.group, pe1.group);
    BOOST_CHECK_EQUAL(pe2.group, pe1.group);
    BOOST_CHECK_EQUAL(r.command("a").finished_ps, 523500u);
    BOOST_CHECK_EQUAL(r.command("r1").finished_ps, 523500u);
    BOOST_CHECK_EQUAL(r.command("b").started_ps, 10000u);
    BOOST_CHECK_EQUAL(r.command("b").finished_ps, 1044000u);
    BOOST_CHECK_EQUAL(r.command("r2").started_ps, 526500u);
    BOOST_CHECK_EQUAL(r.command("r2").finished_ps, 1044000u);
    BOOST_CHECK_EQUAL(r.platform.pe(0, 0, 1).ipcq().bytes_received(), 8192u);
}

BOOST_AUTO_TEST_CASE(per_stage_when_its_ipcq_partner_runs_per_stage) {
    // pe1 receives from pe0 and runs a FETCH that may stall (per stage):
    // pe0's sends would signal a PE on the other time base, so pe0 runs
    // per stage too. pe2 is apart.
    Run r(load_shipped("default"), R"(
name: partner
kernels:
  send:
    - ipcq_send: { id: s, peer: 1, bytes: 4096 }
  recv:
    - fetch: { id: f, bytes: 4096, access: { base: 0x800000, count: 16, elem_bytes: 32 }, wait: true }
    - ipcq_recv: { id: r, bytes: 4096, wait: true }
  apart:
    - composite: { id: apart, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, wait: true }
launch:
  - { kernel: send, pes: [0] }
  - { kernel: recv, pes: [1] }
  - { kernel: apart, pes: [2] }
)");
    r.start();
    check_per_stage(r.verdict("sip0.cube0.pe1"), "whose TCM accesses may stall");
    check_per_stage(r.verdict("sip0.cube0.pe0"), "it exchanges IPCQ data with sip0.cube0.pe1, which runs per stage");
    BOOST_CHECK(r.verdict("sip0.cube0.pe2").decoupled);
    BOOST_CHECK_EQUAL(r.command("r").finished_ps, r.command("s").finished_ps);
}

BOOST_AUTO_TEST_CASE(per_stage_when_an_inbox_has_two_writers) {
    // A `once` epilogue runs on the last token only: that token goes GEMM ->
    // MATH -> STORE, the others GEMM -> STORE, so STORE's inbox is fed by
    // two stages.
    Run r(load_shipped("default"), R"(
name: once
kernels:
  k:
    - composite:
        id: mm
        gemm: { m: 256, k: 128, n: 128 }
        tile: { m: 128, k: 128, n: 128 }
        epilogues: [ { op: relu, scope: once } ]
        wait: true
launch:
  - { kernel: k, pes: [0] }
)");
    r.start();
    check_per_stage(r.verdict("sip0.cube0.pe0"), "inbox from two stages");
}

BOOST_AUTO_TEST_CASE(per_stage_with_two_dma_channels) {
    Run r(load_shipped("default", {"cube.pe_template.components.pe_dma.attrs.rd_engines=2"}), two_tiles_yaml);
    r.start();
    check_per_stage(r.verdict("sip0.cube0.pe0"), "more than one DMA channel");
}

BOOST_AUTO_TEST_CASE(decoupled_when_the_host_launches_it) {
    // host_launch.yaml: the host writes the input, maps it in every PE's
    // MMU, then launches the kernel on all eight PEs, which read pe0's slice
    // and write pe1's through their MMUs: every PE decoupled, all on one
    // calendar (they share hbm_ctrl.pe0's and pe1's ports), and the host's
    // memory requests share those ports too (M_CPU ranks after every PE).
    const TopologyConfig topo = load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);
    const WorkloadConfig wl = load_workload_file(shipped_workload("host_launch"), topo);
    WorkloadRun run(platform, wl);
    sc_core::sc_start();
    BOOST_REQUIRE(run.finished());
    BOOST_REQUIRE_EQUAL(platform.decoupler().verdicts().size(), 8u);
    for (const Decoupler::Verdict& v : platform.decoupler().verdicts()) {
        BOOST_CHECK_MESSAGE(v.decoupled, v.pe->name() << ": " << v.why);
        BOOST_CHECK_EQUAL(v.group, platform.decoupler().verdicts().front().group);
    }
}

namespace {

// pe0..pe3 each run a GEMM on their own slices, launched by the host; with
// `write`, the host first writes 64 KiB into pe0's slice.
std::string host_own_slices_yaml(bool write) {
    return std::string(R"(
name: host_own
kernels:
  k:
    - composite: { id: mm, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, wait: true }
host:
)") + (write ? "  - memory_write: { id: w, pa: 0x0, bytes: 65536 }\n" : "") +
           "  - kernel_launch: { id: go, kernel: k, cubes: [sip0.cube0], target_pe: [0, 1, 2, 3] }\n";
}

std::set<std::size_t> groups_of(const Platform& platform) {
    std::set<std::size_t> groups;
    for (const Decoupler::Verdict& v : platform.decoupler().verdicts()) {
        BOOST_CHECK_MESSAGE(v.decoupled, v.pe->name() << ": " << v.why);
        groups.insert(v.group);
    }
    return groups;
}

}  // namespace

BOOST_AUTO_TEST_CASE(host_launched_pes_apart_keep_their_calendars) {
    // A host launch books nothing a calendar books (its messages are pure
    // latency): four PEs on their own slices, four calendars.
    Run r(load_shipped("default"), host_own_slices_yaml(false));
    r.start();
    BOOST_CHECK_EQUAL(groups_of(r.platform).size(), 4u);
}

BOOST_AUTO_TEST_CASE(host_launched_pes_share_a_calendar_with_the_hosts_traffic) {
    // The host's write shares hbm_ctrl.pe0's port with pe0's DMA: pe0 and
    // every PE the host launches (whose kernel's end sets the host's side
    // going) run on one calendar.
    Run r(load_shipped("default"), host_own_slices_yaml(true));
    r.start();
    BOOST_CHECK_EQUAL(groups_of(r.platform).size(), 1u);
}

namespace {

// A host launch of one composite on virtual addresses on pe0, with the
// host's `mmu` lines given: the rules on MMU state.
std::string host_va_yaml(const std::string& host) {
    return R"(
name: host_va
kernels:
  k:
    - composite: { id: mm, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, src: { va: 0x40000000 }, dst: { va: 0x40100000 }, wait: true }
host:
)" + host + "  - kernel_launch: { id: go, kernel: k, cubes: [sip0.cube0], target_pe: [0] }\n";
}

}  // namespace

BOOST_AUTO_TEST_CASE(per_stage_when_a_virtual_operand_is_not_mapped) {
    // Only the source is mapped: the write would fault, and a fault must
    // stop the run at the kernel's time.
    Run r(load_shipped("default"),
          host_va_yaml("  - mmu_map: { id: map, cubes: [sip0.cube0], target_pe: [0], va: 0x40000000, pa: 0x0, bytes: 0x100000 }\n"));
    sc_core::sc_start();
    check_per_stage(r.verdict("sip0.cube0.pe0"), "no mapping covers");
}

BOOST_AUTO_TEST_CASE(per_stage_when_the_host_maps_while_it_may_run) {
    // The map is sent at t = 0 beside the launch (after: []): the kernel may
    // translate before it arrives.
    Run r(load_shipped("default"),
          host_va_yaml("  - mmu_map: { id: map, cubes: [sip0.cube0], target_pe: [0], va: 0x40000000, pa: 0x0, bytes: 0x200000 }\n"
                       "  - memory_write: { id: w, pa: 0x0, bytes: 4096, after: [] }\n"));
    sc_core::sc_start();
    check_per_stage(r.verdict("sip0.cube0.pe0"), "the host maps its MMU ('map') while it may run a kernel ('go')");
}

BOOST_AUTO_TEST_CASE(per_stage_when_the_host_unmaps) {
    Run r(load_shipped("default"),
          host_va_yaml("  - mmu_map: { id: map, cubes: [sip0.cube0], target_pe: [0], va: 0x40000000, pa: 0x0, bytes: 0x200000 }\n") +
              "  - mmu_unmap: { id: unmap, cubes: [sip0.cube0], target_pe: [0], va: 0x40000000, bytes: 0x200000 }\n");
    r.start();
    check_per_stage(r.verdict("sip0.cube0.pe0"), "unmaps pages of its MMU");
}

BOOST_AUTO_TEST_CASE(decoupled_when_the_map_precedes_the_launch) {
    // The same kernel, its operands mapped before the launch is sent.
    Run r(load_shipped("default"),
          host_va_yaml("  - mmu_map: { id: map, cubes: [sip0.cube0], target_pe: [0], va: 0x40000000, pa: 0x0, bytes: 0x200000 }\n"));
    r.start();
    BOOST_CHECK_MESSAGE(r.verdict("sip0.cube0.pe0").decoupled, r.verdict("sip0.cube0.pe0").why);
}

// --- decoupled and per-stage runs agree ----------------------------------

namespace {

// A summary without its "speed" line (wall-clock figures, and which PEs ran
// decoupled: the one field that differs by design).
std::string summary_without_speed(const std::string& path) {
    std::string s = slurp(path);
    const std::size_t at = s.find("\n  \"speed\": ");
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, path << " has no speed line");
    s.erase(at, s.find('\n', at + 1) - at);
    return s;
}

struct Agreement {
    int code = 0;
    std::uint64_t decoupled_pes = 0;
};

// Runs `args` twice, decoupled and --per-stage, and checks both give the same
// exit code, output and summary. Returns the decoupled run's PE count.
// The files a recorded run writes, by suffix.
const char* const recorded_outputs[] = {"trace.jsonl", "timeline.json", "svg", "report.json", "vcd"};

std::vector<std::string> run_recorded(const std::string& args, const std::string& prefix) {
    std::string with = args;
    with += " --trace " + prefix + ".trace.jsonl --timeline " + prefix + ".timeline.json --svg " + prefix +
            ".svg --report " + prefix + ".report.json --vcd " + prefix + ".vcd";
    run_npuvp(with);
    std::vector<std::string> out;
    for (const char* suffix : recorded_outputs) {
        const std::string file = prefix + "." + suffix;
        out.push_back(std::filesystem::exists(file) ? slurp(file) : std::string());
        std::filesystem::remove(file);
    }
    return out;
}

// Runs `args` twice, decoupled and --per-stage, and checks both give the same
// exit code, output and summary; then twice more with every recorded output
// (--trace, --timeline, --svg, --report, --vcd), which must be the same bytes.
// Returns the decoupled run's PE count.
Agreement check_agree(const std::string& args, const std::string& tag) {
    const std::string a = "decoupler_test_" + tag + ".decoupled.json";
    const std::string b = "decoupler_test_" + tag + ".per_stage.json";
    const RunResult one = run_npuvp(args + " --summary " + a);
    const RunResult two = run_npuvp(args + " --per-stage --summary " + b);
    BOOST_CHECK_EQUAL(one.code, two.code);
    BOOST_CHECK_EQUAL(without_speed_line(one.out), without_speed_line(two.out));
    BOOST_CHECK_MESSAGE(summary_without_speed(a) == summary_without_speed(b),
                        tag << ": the summaries differ (" << a << ", " << b << ")");
    const YAML::Node sa = YAML::LoadFile(a), sb = YAML::LoadFile(b);
    BOOST_CHECK_EQUAL(sb["speed"]["decoupled_pes"].as<std::uint64_t>(), 0u);
    Agreement out;
    out.code = one.code;
    out.decoupled_pes = sa["speed"]["decoupled_pes"].as<std::uint64_t>();
    std::filesystem::remove(a);
    std::filesystem::remove(b);
    // Recorded: the same file names both times (the outputs name no file).
    const std::string prefix = "decoupler_test_" + tag + ".recorded";
    const std::vector<std::string> rec_one = run_recorded(args, prefix);
    const std::vector<std::string> rec_two = run_recorded(args + " --per-stage", prefix);
    for (std::size_t i = 0; i < std::size(recorded_outputs); ++i)
        BOOST_CHECK_MESSAGE(rec_one[i] == rec_two[i], tag << ": the " << recorded_outputs[i]
                                                          << " differs between decoupled and per stage");
    return out;
}

struct Example {
    const char* workload;
    const char* extra;
    bool decouples;  // at least one PE runs decoupled on the default topology
};

// Every shipped example (cli_examples_test checks the list is complete).
const Example examples[] = {
    {"double_buffer_pipelined", "", true},
    {"double_buffer_rolled", "", true},
    {"elementwise_relu", "", true},
    {"gemm_all_pes", "", true},
    {"gemm_bias_relu", "", true},
    {"gemm_bias_relu_data", "", false},  // data mode: every PE runs per stage
    {"gemm_int8_small", "", true},
    {"host_launch", "", true},
    {"host_two_cubes", "", false},
    {"host_watchdog", "--set cube.m_cpu.attrs.response_timeout_ns=100000", true},
    {"ipcq_exchange", "", true},
    {"mmu_fault", "", false},
    {"mmu_va", "", true},
    {"mnist_mlp", "", true},
    {"mnist_mlp_opbyop", "", true},
    {"simple_commands", "", true},
};

void check_examples(const std::string& topology) {
    // The list is every shipped example.
    std::size_t shipped = 0;
    for (const auto& f : std::filesystem::directory_iterator(std::string(NPUVP_SOURCE_DIR) + "/configs/workloads")) {
        if (f.path().extension() != ".yaml") continue;
        ++shipped;
        const std::string name = f.path().stem().string();
        BOOST_CHECK_MESSAGE(std::any_of(std::begin(examples), std::end(examples),
                                        [&](const Example& e) { return name == e.workload; }),
                            name << " is not in the list of examples");
    }
    BOOST_CHECK_EQUAL(shipped, std::size(examples));
    for (const Example& e : examples) {
        if (topology != "two_sip" && std::string(e.workload) == "host_two_cubes") continue;
        const Agreement r = check_agree("--topology " + shipped_topology(topology) + " --workload " +
                                            shipped_workload(e.workload) + " " + e.extra,
                                        topology + "_" + e.workload);
        if (topology == "default")
            BOOST_CHECK_MESSAGE((r.decoupled_pes > 0) == e.decouples,
                                e.workload << ": " << r.decoupled_pes << " PEs decoupled");
    }
}

// A random workload of composites on `pes` PEs of `cubes` cubes: GEMM and
// single-op forms, every dtype, epilogues of every scope, clipped edges,
// waits; some PEs read another PE's slice, so that decoupled and per-stage
// PEs run side by side. std::mt19937 is the same sequence everywhere; only
// its raw output is used (the distributions are implementation-defined).
// One kernel `name` of composites: GEMM and single-op forms, every dtype,
// epilogues of every scope, clipped edges, waits; some read pe0's slice
// (`foreign`), or, with a `va` window (2 MiB), take both operands through
// the MMU.
void random_kernel(std::ostringstream& y, std::mt19937& rng, const std::string& name, std::uint64_t va) {
    auto pick = [&](std::initializer_list<int> xs) {
        return *(xs.begin() + rng() % xs.size());
    };
    const char* dtypes[] = {"int8", "bf16", "fp32"};
    const char* ops[] = {"relu", "bias_add", "add", "gelu", "exp"};
    const char* scopes[] = {"per_output_tile", "per_k_tile", "once"};
    y << "  " << name << ":\n";
    // One family of composites per kernel, as a real kernel has (tiles
    // of one shape of chain: without epilogue, with per-output-tile or
    // per-K-step epilogues, single-op); now and then a mix, whose stage
    // inboxes get tiles from two stages (a PE that runs per stage).
    const bool mixed = rng() % 6 == 0;
    const int family = static_cast<int>(rng() % 4);
    const int commands = 1 + static_cast<int>(rng() % 3);
    for (int c = 0; c < commands; ++c) {
        const int form = mixed ? static_cast<int>(rng() % 4) : family;
        const bool wait = rng() % 2 == 0;
        const bool foreign = rng() % 8 == 0;  // reads pe0's slice
        y << "    - composite:\n        id: c" << c << "\n";
        if (form == 3) {
            const int elem = 2;
            const int tile = pick({2048, 4096, 16384, 65536});
            const int bytes = tile * (1 + static_cast<int>(rng() % 6)) + elem * pick({0, 0, 96});
            y << "        op: " << ops[rng() % 5] << "\n        bytes: " << bytes
              << "\n        tile_bytes: " << tile << "\n";
        } else {
            y << "        gemm: { m: " << pick({64, 128, 200, 256, 384}) << ", k: "
              << pick({64, 128, 256, 320}) << ", n: " << pick({64, 128, 192, 256}) << " }\n"
              << "        tile: { m: " << pick({32, 64, 128}) << ", k: " << pick({32, 64, 128})
              << ", n: " << pick({64, 128}) << " }\n"
              << "        dtype: { in: " << dtypes[rng() % 3] << ", out: " << dtypes[rng() % 3]
              << " }\n";
            const int epilogues = form == 0 ? 0 : 1 + static_cast<int>(rng() % 2);
            if (epilogues > 0) {
                y << "        epilogues:\n";
                for (int e = 0; e < epilogues; ++e)
                    y << "          - { op: " << ops[rng() % 5] << ", scope: "
                      << (mixed && rng() % 3 == 0 ? scopes[2] : scopes[form - 1]) << " }\n";
            }
        }
        // Every operand fits 1 MiB (384 x 320 fp32 A + 320 x 256 B; a
        // single op's 393 KiB): source at the VA window's start, result
        // 1 MiB in.
        if (va)
            y << "        src: { va: " << va << " }\n        dst: { va: " << va + 0x100000 << " }\n";
        else if (foreign)
            y << "        src: { pa: 0x0 }\n";
        if (wait) y << "        wait: true\n";
    }
    // Now and then a stretch of simple commands, as a mapped network's
    // sum and layout kernels have (a plain or strided DMA read, a MATH or
    // GEMM on TCM, a DMA write): after a `wait: all` they run decoupled,
    // without one their inbox may also take a composite's tiles (per stage).
    if (rng() % 3 == 0) {
        if (rng() % 3 != 0) y << "    - wait: all\n";
        const int simple = 1 + static_cast<int>(rng() % 3);
        const std::uint64_t at = va ? va + 0x100000 : 0x200000;  // inside the PE's window
        const char* addr = va ? "va" : "pa";
        for (int c = 0; c < simple; ++c) {
            const bool wait = rng() % 2 == 0;
            const std::string tail = wait ? ", wait: true }\n" : " }\n";
            switch (rng() % 5) {
            case 0:
                y << "    - dma_read: { id: s" << c << ", bytes: " << 4096 * pick({1, 4, 16})
                  << ", addr: { " << addr << ": " << at << " }" << tail;
                break;
            case 1:  // a strided read (a pattern: physical addresses only)
                if (va) {
                    y << "    - math: { id: s" << c << ", op: " << ops[rng() % 5] << ", elements: "
                      << pick({256, 4096, 31360}) << tail;
                } else {
                    y << "    - dma_read: { id: s" << c << ", bytes: 24576, addr: { pa: " << at
                      << " }, pattern: strided, chunks: 6, stride: 8192" << tail;
                }
                break;
            case 2:
                y << "    - math: { id: s" << c << ", op: " << ops[rng() % 5] << ", elements: "
                  << pick({256, 4096, 31360}) << tail;
                break;
            case 3:
                y << "    - gemm: { id: s" << c << ", m: " << pick({64, 128}) << ", k: " << pick({64, 128})
                  << ", n: " << pick({64, 128}) << tail;
                break;
            default:
                y << "    - dma_write: { id: s" << c << ", bytes: " << 4096 * pick({1, 4, 16})
                  << ", addr: { " << addr << ": " << at + 0x40000 << " }" << tail;
                break;
            }
        }
    }
    if (rng() % 2 == 0) y << "    - wait: all\n";
}

// A random workload of composites on `pes` PEs of `cubes` cubes, launched
// directly; some PEs read another PE's slice, so that decoupled PEs share a
// calendar and decoupled and per-stage PEs run side by side. std::mt19937
// is the same sequence everywhere; only its raw output is used (the
// distributions are implementation-defined).
std::string random_workload(std::mt19937& rng, int cubes) {
    std::ostringstream y;
    y << "name: random\nkernels:\n";
    const int kernels = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < kernels; ++k) random_kernel(y, rng, "k" + std::to_string(k), 0);
    std::ostringstream launch;
    launch << "launch:\n";
    int next = 0;
    for (int k = 0; k < kernels; ++k) {
        const int cube = static_cast<int>(rng() % cubes);
        const int count = std::min(1 + static_cast<int>(rng() % 3), 8 - next);
        launch << "  - { kernel: k" << k << ", cube: sip" << cube / 2 << ".cube" << cube % 2 << ", pes: [";
        for (int p = 0; p < count; ++p) launch << (p ? ", " : "") << (next + p) % 8;
        launch << "] }\n";
        next += count;
        if (next >= 8) break;
    }
    // Now and then two more PEs that exchange data through their IPCQ rings
    // after a random stretch of their own: each sends, then receives what
    // the other sent (the two share a calendar, or run per stage together).
    if (next + 1 < 8 && rng() % 2 == 0) {
        const int a = next, b = next + 1, cube = static_cast<int>(rng() % cubes);
        const std::string bytes = std::to_string(4096 * (1 + rng() % 16));  // at most one ring: 16 slots of 4 KiB
        const std::string where = ", cube: sip" + std::to_string(cube / 2) + ".cube" + std::to_string(cube % 2);
        for (const auto& [name, self, peer] : {std::tuple{"xa", a, b}, std::tuple{"xb", b, a}}) {
            random_kernel(y, rng, name, 0);
            y << "    - ipcq_send: { id: tx, peer: " << peer << ", bytes: " << bytes << " }\n"
              << "    - ipcq_recv: { id: rx, bytes: " << bytes << ", wait: true }\n";
            launch << "  - { kernel: " << name << where << ", pes: [" << self << "] }\n";
        }
    }
    return y.str() + launch.str();
}

// A random host-driven workload (as every real program): the host writes an
// input, maps a window in the target PEs' MMUs when a kernel works on
// virtual addresses, launches kernels through IO_CPU and M_CPU on PE lists
// of one or two cubes (a PE may get several kernels, one after another;
// `after` lists let two launches or a map and a launch run at once), reads
// a result back; now and then a direct launch beside it.
std::string random_host_workload(std::mt19937& rng, int cubes) {
    std::ostringstream y;
    y << "name: random_host\nkernels:\n";
    const int kernels = 1 + static_cast<int>(rng() % 3);
    std::vector<bool> va(static_cast<std::size_t>(kernels));
    for (int k = 0; k < kernels; ++k) {
        va[static_cast<std::size_t>(k)] = rng() % 3 == 0;
        // Each kernel its own window: a PE maps each virtual page once.
        random_kernel(y, rng, "k" + std::to_string(k),
                      va[static_cast<std::size_t>(k)] ? 0x40000000u + 0x200000u * static_cast<unsigned>(k) : 0);
    }
    auto cube_name = [](int c) { return "sip" + std::to_string(c / 2) + ".cube" + std::to_string(c % 2); };
    auto pe_list = [&](int count, int first) {
        std::string l = "[";
        for (int p = 0; p < count; ++p) l += (p ? ", " : "") + std::to_string((first + p) % 8);
        return l + "]";
    };
    const bool direct = rng() % 4 == 0 && !va[0];  // (a direct launch's VA would fault: no map yet)
    if (direct) y << "launch:\n  - { kernel: k0, pes: [7] }\n";
    y << "host:\n";
    const std::uint64_t slice = 6ull << 30;  // every shipped topology: 6 GiB HBM slices
    const int src_pe = static_cast<int>(rng() % 8);
    y << "  - memory_write: { id: w_in, pa: " << slice * static_cast<std::uint64_t>(src_pe) << ", bytes: "
      << 4096 * (1 + rng() % 64) << " }\n";
    std::string last = "w_in";
    for (int k = 0; k < kernels; ++k) {
        const int cube = static_cast<int>(rng() % cubes);
        const std::string cube_list =
            cubes > 1 && rng() % 3 == 0 ? cube_name(cube) + ", " + cube_name((cube + 1) % cubes) : cube_name(cube);
        const int count = 1 + static_cast<int>(rng() % 4);
        const std::string pes = rng() % 5 == 0 ? std::string("all") : pe_list(count, static_cast<int>(rng() % 8));
        const bool concurrent = rng() % 4 == 0;  // sent beside the previous request
        if (va[static_cast<std::size_t>(k)]) {
            y << "  - mmu_map: { id: map" << k << ", cubes: [" << cube_list << "], target_pe: " << pes
              << ", va: " << 0x40000000u + 0x200000u * static_cast<unsigned>(k) << ", pa: " << slice * static_cast<std::uint64_t>(rng() % 8) << ", bytes: 0x200000"
              << (concurrent ? ", after: []" : "") << " }\n";
        }
        y << "  - kernel_launch: { id: go" << k << ", kernel: k" << k << ", cubes: [" << cube_list
          << "], target_pe: " << pes << (concurrent && !va[static_cast<std::size_t>(k)] ? ", after: [" + last + "]" : "")
          << " }\n";
        last = "go" + std::to_string(k);
    }
    y << "  - memory_read: { id: r_out, pa: " << slice * static_cast<std::uint64_t>(rng() % 8) << ", bytes: 32768 }\n";
    return y.str();
}

void check_random(const std::string& topology, int cubes, std::uint32_t seed, int cases, bool host = false) {
    std::mt19937 rng(seed);
    int decoupled_runs = 0;
    for (int i = 0; i < cases; ++i) {
        const std::string tag = topology + (host ? "_random_host_" : "_random_") + std::to_string(seed) + "_" + std::to_string(i);
        const std::string file = "decoupler_test_" + tag + ".yaml";
        {
            std::ofstream out(file);
            out << (host ? random_host_workload(rng, cubes) : random_workload(rng, cubes));
        }
        BOOST_TEST_CONTEXT("workload " << file) {
            const Agreement r =
                check_agree("--topology " + shipped_topology(topology) + " --workload " + file, tag);
            BOOST_CHECK_EQUAL(r.code, 0);
            if (r.decoupled_pes > 0) ++decoupled_runs;
        }
        // The workload file stays (in the build folder) for a failure to be read.
    }
    // The generator makes most PEs eligible: a run where none was decoupled
    // would test nothing.
    BOOST_CHECK_GE(decoupled_runs, cases / 2);
}

}  // namespace

// Ring credit between three PEs on one calendar (the case by hand above):
// every output, decoupled and per stage, the same bytes.
BOOST_AUTO_TEST_CASE(ring_credit_agrees_with_per_stage) {
    const std::string file = "decoupler_test_ring_credit.yaml";
    {
        std::ofstream out(file);
        out << ring_credit_yaml;
        BOOST_REQUIRE(out.good());
    }
    const Agreement r = check_agree("--workload " + file + " --set cube.pe_template.components.pe_ipcq.attrs.slots=1",
                                    "ring_credit");
    BOOST_CHECK_EQUAL(r.code, 0);
    BOOST_CHECK_EQUAL(r.decoupled_pes, 3u);
    std::filesystem::remove(file);
}

// Found by random_composites_agree_on_two_sip: on a PE that mixes a
// composite and a simple command in one stretch (per stage), the feed loop's
// tile and the dispatch pass's command reached the DMA_READ inbox at one
// instant, and which went first followed the kernel's process order, which
// changed with sip1.cube1.pe6 running decoupled. SPEC T4: the earlier
// command's tile goes first. sip1.cube0.pe2: 8192 B tile reads, each 500 +
// 1 + 1 + 100 + 2 + ser(8192 B, 192 GB/s) 42.667 = 646.667 ns, the first at
// 3 ns; s0 (dispatched at 5 ns, when tile 2 is written) finds the inbox
// full of tiles 1 and 2 and starts when tile 2 leaves the channel:
// 3 + 3 x 646.667 = 1943.001 ns, in both modes.
const char* const feed_dispatch_tie_yaml = R"(name: random
kernels:
  k0:
    - composite:
        id: c0
        gemm: { m: 384, k: 320, n: 128 }
        tile: { m: 64, k: 32, n: 64 }
        dtype: { in: bf16, out: int8 }
        epilogues:
          - { op: gelu, scope: per_output_tile }
    - dma_read: { id: s0, bytes: 16384, addr: { pa: 2097152 } }
    - math: { id: s1, op: relu, elements: 256, wait: true }
    - wait: all
  k1:
    - composite:
        id: c0
        op: gelu
        bytes: 4096
        tile_bytes: 4096
    - composite:
        id: c1
        op: gelu
        bytes: 131072
        tile_bytes: 65536
    - composite:
        id: c2
        op: exp
        bytes: 65728
        tile_bytes: 65536
        src: { pa: 0x0 }
    - wait: all
    - gemm: { id: s0, m: 128, k: 128, n: 64, wait: true }
    - gemm: { id: s1, m: 64, k: 128, n: 64, wait: true }
    - gemm: { id: s2, m: 64, k: 64, n: 128 }
  k2:
    - composite:
        id: c0
        gemm: { m: 128, k: 256, n: 192 }
        tile: { m: 64, k: 64, n: 64 }
        dtype: { in: fp32, out: bf16 }
        epilogues:
          - { op: exp, scope: per_output_tile }
    - composite:
        id: c1
        gemm: { m: 256, k: 256, n: 64 }
        tile: { m: 128, k: 64, n: 128 }
        dtype: { in: int8, out: int8 }
        epilogues:
          - { op: exp, scope: per_output_tile }
          - { op: relu, scope: per_output_tile }
launch:
  - { kernel: k0, cube: sip1.cube0, pes: [0, 1, 2] }
  - { kernel: k1, cube: sip1.cube1, pes: [3, 4, 5] }
  - { kernel: k2, cube: sip1.cube1, pes: [6] }
)";

BOOST_AUTO_TEST_CASE(feed_and_dispatch_at_one_instant_agree_with_per_stage) {
    const std::string file = "decoupler_test_feed_dispatch_tie.yaml";
    {
        std::ofstream out(file);
        out << feed_dispatch_tie_yaml;
        BOOST_REQUIRE(out.good());
    }
    const std::string args = "--topology " + shipped_topology("two_sip") + " --workload " + file;
    const Agreement r = check_agree(args, "feed_dispatch_tie");
    BOOST_CHECK_EQUAL(r.code, 0);
    BOOST_CHECK_EQUAL(r.decoupled_pes, 1u);
    for (const char* mode : {"", " --per-stage"}) {
        const RunResult run = run_npuvp(args + mode);
        BOOST_CHECK_MESSAGE(run.out.find("sip1.cube0.pe2    s0          dma_read   dma         1          4.000       1943.001") !=
                                std::string::npos,
                            "mode '" << mode << "': s0 does not start at 1943.001 ns");
    }
    std::filesystem::remove(file);
}

BOOST_AUTO_TEST_CASE(shipped_examples_agree_on_default) { check_examples("default"); }
BOOST_AUTO_TEST_CASE(shipped_examples_agree_on_rngd_pe) { check_examples("rngd_pe"); }
BOOST_AUTO_TEST_CASE(shipped_examples_agree_on_two_sip) { check_examples("two_sip"); }

BOOST_AUTO_TEST_CASE(random_composites_agree_on_default) { check_random("default", 1, 1, 40); }
BOOST_AUTO_TEST_CASE(random_composites_agree_on_two_sip) { check_random("two_sip", 4, 2, 40); }
BOOST_AUTO_TEST_CASE(random_composites_agree_on_rngd_pe) { check_random("rngd_pe", 1, 3, 40); }

BOOST_AUTO_TEST_CASE(random_host_launches_agree_on_default) { check_random("default", 1, 4, 40, true); }
BOOST_AUTO_TEST_CASE(random_host_launches_agree_on_two_sip) { check_random("two_sip", 4, 5, 40, true); }
