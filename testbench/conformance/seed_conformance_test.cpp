// Seed conformance on the whole platform (issue 15): each case is one rule of
// the seed documents where npuvp once departed from them, run on the shipped
// default topology with a kernel launched on pe0. Expected outcomes are
// derived from the seed text and docs/timing.md; none is copied from a run.
//
// default.yaml figures used: PE_MMU pages 64 KiB (0x10000), translate 2 ns;
// HBM slice 6 GiB per PE (pe7's slice starts at 7 * 6 GiB = 0xA80000000).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/workload_loader.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;

namespace {

bool contains(const std::string& text, const std::string& what) {
    return text.find(what) != std::string::npos;
}

struct Run {
    TopologyConfig topo;
    std::ostringstream trace_text;
    TraceSink trace{&trace_text};
    WorkloadConfig workload;
    Platform platform{topo, trace};
    explicit Run(const std::string& yaml, const std::vector<std::string>& sets = {})
        : topo(test::load_shipped("default", sets)), workload(load_workload_text(yaml, "t.yaml", topo)) {}
    void start() {
        WorkloadRun run(platform, workload);
        sc_core::sc_start();
        finished = run.finished();
    }
    // Runs and requires that every kernel finished.
    void run_to_end() {
        start();
        BOOST_REQUIRE_MESSAGE(finished, error());
    }
    bool finished = false;
    const std::string& error() const { return platform.status().error(); }
    // pe0's completion record of command `id` (fails the test if none).
    const PeScheduler::CompletionRecord& done(const std::string& id) {
        for (const auto& c : platform.pe(0, 0, 0).scheduler().completions())
            if (c.command->id == id) return c;
        BOOST_FAIL("no completion of " + id);
        throw std::logic_error("unreachable");
    }
    std::uint64_t hbm_bytes(int pe) { return platform.cube(0, 0).hbm.at(pe)->service_hop()->bytes(); }
};

}  // namespace

// A: seed 000 D1, pe_mmu translates VA -> PA per access. A 256 KiB read at
// VA 0x40000000 with only the first 64 KiB page mapped touches four pages;
// the second, 0x40010000, is unmapped: the run faults there.
BOOST_AUTO_TEST_CASE(mmu_faults_at_the_first_unmapped_page_of_a_dma_read) {
    Run r(R"(
kernels:
  k:
    - dma_read: { bytes: 262144, addr: { va: 0x40000000 } }
mmu: [ { pes: [0], va: 0x40000000, pa: 0, bytes: 0x10000 } ]
launch: [ { kernel: k, pes: [0] } ]
)");
    r.start();
    BOOST_CHECK(!r.finished);
    BOOST_CHECK_MESSAGE(contains(r.error(), "sip0.cube0.pe0.pe_dma: MMU fault: command c0 accesses "
                                            "unmapped virtual address 0x40010000"),
                        r.error());
    BOOST_CHECK_EQUAL(r.hbm_bytes(0), 0u);  // the fault comes before any byte moves
}

// A: a legacy composite of 1 MiB in 64 KiB tiles reads tile i at src + i *
// 64 KiB (docs/timing.md "Tile addresses"): tile 1 reads 0x40010000, unmapped.
BOOST_AUTO_TEST_CASE(mmu_faults_in_a_composite_at_its_first_unmapped_tile) {
    Run r(R"(
kernels:
  k:
    - composite: { op: relu, bytes: 1048576, tile_bytes: 65536, src: { va: 0x40000000 } }
mmu: [ { pes: [0], va: 0x40000000, pa: 0, bytes: 0x10000 } ]
launch: [ { kernel: k, pes: [0] } ]
)");
    r.start();
    BOOST_CHECK(!r.finished);
    BOOST_CHECK_MESSAGE(contains(r.error(), "MMU fault: command c0 accesses unmapped virtual "
                                            "address 0x40010000"),
                        r.error());
    BOOST_CHECK_EQUAL(r.hbm_bytes(0), 65536u);  // tile 0 was read
}

// A: a transfer whose pages map to different targets is split: the first page
// is read from pe0's slice, the second from pe7's, 64 KiB each.
BOOST_AUTO_TEST_CASE(pages_mapped_to_two_slices_are_read_from_both) {
    Run r(R"(
kernels:
  k:
    - dma_read: { bytes: 131072, addr: { va: 0x40000000 } }
mmu:
  - { pes: [0], va: 0x40000000, pa: 0, bytes: 0x10000 }
  - { pes: [0], va: 0x40010000, pa: 0xA80000000, bytes: 0x10000 }
launch: [ { kernel: k, pes: [0] } ]
)");
    r.start();
    BOOST_CHECK_MESSAGE(r.finished, r.error());
    BOOST_CHECK_EQUAL(r.hbm_bytes(0), 65536u);
    BOOST_CHECK_EQUAL(r.hbm_bytes(7), 65536u);
}

// F: seed 002, every wait has a cause. Two MATH commands on two contexts share
// PE_MATH: the second waits for the engine (cause resource, naming it) and
// its context is busy only from when the engine begins it.
//   MATH 512000 relu: ceil(512000 * 1.0 / 512) + 8 fill = 1008 cycles at
//   1 GHz = 1008 ns. PE_CPU issues c0 at 2 ns, c1 at 4 ns (2 ns each);
//   PE_SCHEDULER dispatches after its 1 ns overhead: c0 at 3 ns, on a free
//   engine: starts 3, done 3 + 1008 = 1011. c1 at 5 ns: PE_MATH busy, so it
//   waits (resource) 5 -> 1011 = 1006 ns, starts 1011, done 2019 ns.
BOOST_AUTO_TEST_CASE(a_wait_for_an_engine_two_contexts_share_is_recorded) {
    Run r(R"(
kernels:
  k:
    - math: { op: relu, elements: 512000 }
    - math: { op: relu, elements: 512000, context: sub }
launch: [ { kernel: k, pes: [0] } ]
)");
    r.run_to_end();
    BOOST_REQUIRE_EQUAL(r.platform.pe(0, 0, 0).scheduler().completions().size(), 2u);
    const auto& c0 = r.done("c0");
    const auto& c1 = r.done("c1");
    BOOST_CHECK_EQUAL(c0.started.value(), 3000u);
    BOOST_CHECK_EQUAL(c0.finished.value(), 1011000u);
    BOOST_CHECK_EQUAL(c1.started.value(), 1011000u);
    BOOST_CHECK_EQUAL(c1.finished.value(), 2019000u);
    BOOST_CHECK_EQUAL(c1.waited[static_cast<std::size_t>(WaitCause::resource)].value(), 1006000u);
    BOOST_CHECK(c1.gated_cause == WaitCause::resource);
    // The wait names the engine.
    BOOST_CHECK_MESSAGE(contains(r.trace_text.str(), "\"cause\":\"resource\"") &&
                            contains(r.trace_text.str(), "engine MATH busy"),
                        "no recorded resource wait naming MATH in the trace");
}

// F: the same for the compute slot GEMM and MATH share (seed 000 D4): a MATH
// on sub behind a GEMM on main waits for accel_slot, recorded.
//   GEMM 128^3: ceil(128/128) * ceil(128/128) * 128 + 128 fill = 256 cycles =
//   256 ns: c0 runs 3 -> 259. c1 dispatched at 5 finds PE_MATH free but the
//   slot held: waits (resource) 5 -> 259 = 254 ns, runs 259 -> 259 + 1008 = 1267.
BOOST_AUTO_TEST_CASE(a_wait_for_the_shared_compute_slot_is_recorded) {
    Run r(R"(
kernels:
  k:
    - gemm: { m: 128, k: 128, n: 128 }
    - math: { op: relu, elements: 512000, context: sub }
launch: [ { kernel: k, pes: [0] } ]
)");
    r.run_to_end();
    BOOST_REQUIRE_EQUAL(r.platform.pe(0, 0, 0).scheduler().completions().size(), 2u);
    const auto& c1 = r.done("c1");
    BOOST_CHECK_EQUAL(c1.started.value(), 259000u);
    BOOST_CHECK_EQUAL(c1.finished.value(), 1267000u);
    BOOST_CHECK_EQUAL(c1.waited[static_cast<std::size_t>(WaitCause::resource)].value(), 254000u);
    BOOST_CHECK(contains(r.trace_text.str(), "accel_slot held"));
}

// D: seed 002, contexts run concurrently unless a resource or hazard says
// otherwise. A GEMM composite 512x128x512 (tile 128: 16 tokens) fills the
// DMA_READ inbox (depth 2); then a dma_read (dma context) and an independent
// fetch (sub context).
//   Operand reuse off (reuse: none), so each tile's DMA_READ is 128*128*2 (A) + 128*128*2 (B) = 65536 B: the
//   604 ns default DMA route + ser(65536, 192 GB/s) = 341.334 ns = 945.334 ns;
//   tile 0 starts at 3 ns on the one read channel, tiles 1 and 2 wait in the
//   inbox.
//   fetch: PE_CPU issues it at 6 ns, dispatched at 7 ns (1 ns overhead) on an
//   idle FETCH: link t = 7, TCM port + 2 = 9, drain 4096 / 2048 GB/s = 2 ns,
//   + fetch_store latency 1 -> 12 ns. The full DMA_READ inbox does not hold
//   it up (before: it started after the composite's tiles, at ~13 us).
//   dma_read: dispatched at 5 ns into a full inbox, it waits (resource) and
//   takes the first slot that frees (tile 1 leaves at 948.334), ahead of the
//   feeder's tile 3: it starts after tile 2, at 3 + 3 * 945.334 = 2839.002 ns.
//   (It reads 256 MiB into pe0's slice, apart from the composite's A, B and
//   C at the slice's start: a DMA's own range is a hazard range, issue 39.)
BOOST_AUTO_TEST_CASE(a_full_inbox_holds_up_only_its_own_command) {
    Run r(R"(
kernels:
  k:
    - composite: { gemm: { m: 512, k: 128, n: 512 }, tile: { m: 128, k: 128, n: 128 }, reuse: none }
    - dma_read: { bytes: 65536, addr: { pa: 0x10000000 }, writes: [{ tcm: 0x1000000, bytes: 65536 }] }
    - fetch: { bytes: 4096, reads: [{ tcm: 0x1100000, bytes: 4096 }] }
launch: [ { kernel: k, pes: [0] } ]
)");
    r.run_to_end();
    BOOST_CHECK_EQUAL(r.done("c2").started.value(), 7000u);
    BOOST_CHECK_EQUAL(r.done("c2").finished.value(), 12000u);
    BOOST_CHECK_EQUAL(r.done("c1").started.value(), 2839002u);
    BOOST_CHECK_EQUAL(r.done("c1").waited[static_cast<std::size_t>(WaitCause::resource)].value(),
                      2839002u - 5000u);
}

// Issue 16's reproducer (SPEC §6: contexts run concurrently): a composite
// 512^3 GEMM, then a dma_read (dma context), then a 128^3 gemm (main
// context) on pe0. PE_CPU issues them at 2, 4 and 6 ns (1 ns each after
// the 1 ns start); dispatch adds 1 ns. The gemm's context is free and GEMM
// is idle (the composite's first GEMM needs its first tile's DMA_READ and
// FETCH, ~1 us away): it starts at 7 and takes
// (ceil(128/128) * ceil(128/128) * 128 + 128 fill) cycles at 1 GHz = 256 ns:
// done at 263, no wait. The read finds the DMA_READ inbox full of tiles 1
// and 2 (tile 0 is on the channel), waits with cause `resource` for the
// next free slot, ahead of tile 3, and so starts when tile 2 leaves the
// channel: 3 + 3 * 945.334 = 2839.002 ns (each 64 KiB tile read:
// 500 ns setup + 1 + 1 ns attach links + 100 ns port latency + 2 ns TCM
// port + 65536 B / 192 GB/s = 341.334 ns), done 945.334 ns later.
// The read is 256 MiB into pe0's slice, apart from the composite's ranges
// (a DMA's own range is a hazard range, issue 39).
BOOST_AUTO_TEST_CASE(a_simple_command_behind_a_composite_blocks_no_other_context) {
    Run r(R"(
kernels:
  k:
    - composite: { id: comp, gemm: { m: 512, k: 512, n: 512 }, tile: { m: 128, k: 128, n: 128 } }
    - dma_read: { id: rd, bytes: 65536, addr: { pa: 0x10000000 }, writes: [{ tcm: 0x1000000, bytes: 65536 }] }
    - gemm: { id: mm, m: 128, k: 128, n: 128, reads: [{ tcm: 0x1100000, bytes: 4096 }] }
launch: [ { kernel: k, pes: [0] } ]
)");
    r.run_to_end();
    BOOST_CHECK_EQUAL(r.done("mm").submitted.value(), 6000u);
    BOOST_CHECK_EQUAL(r.done("mm").started.value(), 7000u);
    BOOST_CHECK_EQUAL(r.done("mm").finished.value(), 263000u);
    for (std::size_t c = 0; c < wait_cause_count; ++c)
        BOOST_CHECK_EQUAL(r.done("mm").waited[c].value(), 0u);
    BOOST_CHECK_EQUAL(r.done("rd").started.value(), 2839002u);
    BOOST_CHECK_EQUAL(r.done("rd").finished.value(), 2839002u + 945334u);
    BOOST_CHECK_EQUAL(r.done("rd").waited[static_cast<std::size_t>(WaitCause::resource)].value(),
                      2839002u - 5000u);
}

// H: seed 002, main starves sub: the worst case is main + sub. A sub fetch
// of 65536 B and a main GEMM 128^3 on the same banks (both access patterns
// start at bank 0 with stride 128 = 16 banks * 8 B: one bank, 10 times).
//   fetch alone: TCM read port 2 ns + link 0 ns, drain 65536 / 2048 GB/s =
//   32 ns, + fetch_store latency 1 = 35 ns. GEMM: 128 + 128 fill = 256 ns.
//   fetch dispatched at 3 ns; GEMM at 5 ns (PE_CPU 4 + 1) and it begins at
//   once: the fetch stalls from 5 (not from the dispatch decision at 4) to
//   261, then finishes its last 33 ns: 294 ns, 291 = 256 + 35 ns of sub time.
//   With a 10 ns scheduler overhead: fetch 12 ns, GEMM dispatched 12 -> 22,
//   runs 22 -> 278; the fetch runs 10 ns, stalls 22 -> 278, ends at 303.
BOOST_AUTO_TEST_CASE(main_starving_sub_costs_main_plus_sub) {
    Run r(R"(
kernels:
  k:
    - fetch: { bytes: 65536, access: { base: 0x840000, stride: 128, count: 10, elem_bytes: 8 } }
    - gemm: { m: 128, k: 128, n: 128, access: { base: 0x800000, stride: 128, count: 10, elem_bytes: 8 } }
launch: [ { kernel: k, pes: [0] } ]
)");
    r.run_to_end();
    const auto& c0 = r.done("c0");
    const auto& c1 = r.done("c1");
    BOOST_CHECK_EQUAL(c1.started.value(), 5000u);
    BOOST_CHECK_EQUAL(c1.finished.value(), 261000u);
    BOOST_CHECK_EQUAL(c0.started.value(), 3000u);
    BOOST_CHECK_EQUAL(c0.finished.value(), 294000u);
}

BOOST_AUTO_TEST_CASE(main_starving_sub_with_a_slow_scheduler) {
    Run r(R"(
kernels:
  k:
    - fetch: { bytes: 65536, access: { base: 0x840000, stride: 128, count: 10, elem_bytes: 8 } }
    - gemm: { m: 128, k: 128, n: 128, access: { base: 0x800000, stride: 128, count: 10, elem_bytes: 8 } }
launch: [ { kernel: k, pes: [0] } ]
)", {"cube.pe_template.components.pe_scheduler.attrs.overhead_ns=10"});
    r.run_to_end();
    const auto& c0 = r.done("c0");
    BOOST_CHECK_EQUAL(c0.started.value(), 12000u);
    BOOST_CHECK_EQUAL(c0.finished.value(), 303000u);
}

// E: seed 002, RAW / WAR / WAW apply to every command, composites included.
// A 1 MiB dma_write to HBM 0 (declaring what it writes), then a composite
// whose src is HBM 0: its operand range [0, +64 KiB) is read after c0 writes
// it, so it waits (dependency, RAW) until c0 completes.
//   c0: dispatched at 3 ns, DMA_WRITE over the 604 ns default route +
//   ser(1 MiB, 192 GB/s) = 5461.334 -> done at 3 + 6065.334 = 6068.334 ns.
//   c1: submitted at 4 ns, waits RAW 4 -> 6068.334 = 6064.334 ns; its first
//   tile is fed after the 1 ns overhead: started 6069.334 ns (before: 5 ns).
BOOST_AUTO_TEST_CASE(a_composite_waits_for_a_hazard_with_an_earlier_command) {
    Run r(R"(
kernels:
  k:
    - dma_write: { bytes: 1048576, addr: { pa: 0 }, writes: [{ hbm: 0, bytes: 1048576 }] }
    - composite: { op: relu, bytes: 65536, tile_bytes: 65536, src: { pa: 0 }, dst: { pa: 0x100000 } }
launch: [ { kernel: k, pes: [0] } ]
)");
    r.run_to_end();
    const auto& c0 = r.done("c0");
    const auto& c1 = r.done("c1");
    BOOST_CHECK_EQUAL(c0.finished.value(), 6068334u);
    BOOST_CHECK_EQUAL(c1.started.value(), 6069334u);
    BOOST_CHECK_EQUAL(c1.waited[static_cast<std::size_t>(WaitCause::dependency)].value(), 6064334u);
    BOOST_CHECK(contains(r.trace_text.str(), "RAW on hbm [0x0, +0x10000) with c0"));
}

// E, the other way round: a dma_read declaring it reads the composite's
// output waits for the composite (its derived write range [dst, + 64 KiB)).
BOOST_AUTO_TEST_CASE(a_command_after_a_composite_waits_for_its_output) {
    Run r(R"(
kernels:
  k:
    - composite: { op: relu, bytes: 65536, tile_bytes: 65536, src: { pa: 0 }, dst: { pa: 0x100000 } }
    - dma_read: { bytes: 4096, addr: { pa: 0x100000 }, reads: [{ hbm: 0x100000, bytes: 4096 }] }
launch: [ { kernel: k, pes: [0] } ]
)");
    r.run_to_end();
    const auto& c0 = r.done("c0");
    const auto& c1 = r.done("c1");
    // RAW: c1 starts once c0 has completed (its start is c0's completion plus
    // the 1 ns dispatch overhead).
    BOOST_CHECK_EQUAL(c1.started.value(), c0.finished.value() + 1000u);
    BOOST_CHECK(contains(r.trace_text.str(), "RAW on hbm [0x100000, +0x1000) with c0"));
}

// seed 000 D2 (PE_SCHEDULER is the only writer of completion state, from its
// completion process) and D6 (a token has one owner at a time; exactly one
// complete_tile per token), together, on a long random workload: 400
// commands of every kind but IPCQ, on random contexts with overlapping TCM
// ranges (so hazards, context and engine waits all occur), with composites
// in between, on four PEs. The model checks both invariants on every event
// and reports a break as a SystemC error, which fails this test (report
// guard); the test adds what can be seen from outside: every command of
// every PE completes exactly once, and every tile fed is a tile completed.
// The generator is a fixed-seed std::mt19937 taken modulo (no distribution
// objects, whose output is implementation-defined): the same workload on
// every machine.
BOOST_AUTO_TEST_CASE(single_writer_and_one_owner_hold_on_a_long_random_workload) {
    std::mt19937 rng(20261203u);
    auto pick = [&](std::uint32_t n) { return static_cast<std::uint32_t>(rng() % n); };
    auto tcm = [&](std::uint32_t bytes) {
        // 32 slots of 64 KiB in the allocatable region: ranges collide often.
        const std::uint64_t base = 0x800000 + std::uint64_t{pick(32)} * 0x10000;
        std::ostringstream r;
        r << "[{ tcm: " << base << ", bytes: " << bytes << " }]";
        return r.str();
    };
    const char* const contexts[] = {"main", "sub"};
    std::ostringstream yaml;
    yaml << "kernels:\n  k:\n";
    const int commands = 400;
    int composites = 0;
    for (int i = 0; i < commands; ++i) {
        yaml << "    - ";
        switch (pick(7)) {
        case 0: yaml << "dma_read: { bytes: 4096, writes: " << tcm(4096) << " }"; break;
        case 1: yaml << "dma_write: { bytes: 4096, reads: " << tcm(4096) << " }"; break;
        case 2:
            yaml << "gemm: { m: 64, k: 64, n: 64, context: " << contexts[pick(2)]
                 << ", reads: " << tcm(8192) << ", writes: " << tcm(8192) << " }";
            break;
        case 3:
            yaml << "math: { op: relu, elements: " << 512 * (1 + pick(8)) << ", context: "
                 << contexts[pick(2)] << ", writes: " << tcm(4096) << " }";
            break;
        case 4: yaml << "fetch: { bytes: 2048, context: sub, reads: " << tcm(2048) << " }"; break;
        case 5: yaml << "store: { bytes: 2048, context: sub, writes: " << tcm(2048) << " }"; break;
        default:
            ++composites;
            if (pick(2))
                yaml << "composite: { op: relu, bytes: 16384, tile_bytes: 4096 }";
            else
                yaml << "composite: { gemm: { m: 256, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 } }";
        }
        yaml << "\n";
    }
    yaml << "launch: [ { kernel: k, pes: [0, 1, 2, 3] } ]\n";
    BOOST_TEST_MESSAGE(composites << " composites among " << commands << " commands");
    BOOST_REQUIRE_GT(composites, 20);

    Run r(yaml.str());
    r.run_to_end();
    for (int pe = 0; pe < 4; ++pe) {
        const PeScheduler& s = r.platform.pe(0, 0, pe).scheduler();
        BOOST_TEST_CONTEXT("pe" << pe) {
            BOOST_CHECK_EQUAL(s.completions().size(), static_cast<std::size_t>(commands));
            std::vector<int> seen(commands, 0);
            std::uint64_t tiles = 0;
            for (const auto& c : s.completions()) {
                ++seen.at(c.command->index);
                if (c.command->kind == CommandKind::composite) tiles += c.tiles;
                BOOST_CHECK(c.started >= c.submitted && c.finished >= c.started);
            }
            BOOST_CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
            BOOST_CHECK_EQUAL(s.tiles_fed(), tiles);
        }
    }
}
