// The PE pipeline on the whole default platform (SPEC §3 T3, T6; §5; §8):
// overlap, engine exclusivity, feed order, token counts and bytes, reserved-TCM
// back-pressure, the complete_tile invariant, and end-to-end times derived by
// hand from the timing contract and configs/topologies/default.yaml.
//
// default.yaml figures used below: 1 GHz; PE_CPU overhead 2 ns; PE_SCHEDULER
// overhead 1 ns, inbox_depth 2; DMA setup 500 ns, 256 GB/s; attach links 1 ns,
// unlimited; HBM port 100 ns, 192 GB/s; TCM ports 2 ns, 8192 GB/s;
// fetch_store <-> tcm link 0 ns, 2048 GB/s; fetch_store latency 1 ns; intra-PE
// edges 0 mm (0 ns, unlimited); GEMM 128 x 128, fill 128; MATH 512 lanes,
// fill 8, op_cost 1 for bias_add / relu / add / cast; reserved TCM 8 MiB.
// PE0's pe_dma and hbm_ctrl.pe0 both attach to router 0.
//
// Times common to many cases (uncontended, T1: done = t0 + ΣL + ser(n, min B)):
//   DMA_READ  of n B: channel 500 + attach 1 + attach 1 + HBM 100 + TCM write 2
//                     = 604 ns, min B = 192 GB/s   -> 604 + n/192 ns
//   DMA_WRITE of n B: TCM read 2 + channel 500 + 1 + 1 + HBM 100 = 604 ns, 192 GB/s
//   FETCH     of n B: TCM read 2 + link 0, min B 2048, + latency 1 -> 3 + n/2048 ns
//   STORE     of n B: link 0 + TCM write 2, min B 2048, + 1       -> 3 + n/2048 ns
//   65536 B / 192 GB/s = 341.3333 ns -> 341.334 ns (rounded up to whole ps)
//   32768 B / 192 GB/s = 170.6667 ns -> 170.667 ns
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "config/workload_loader.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/trace_reader.h"

using namespace npuvp;
using test::EngineInterval;
using test::TraceLine;

namespace {

const std::string pe0 = "sip0.cube0.pe0";
const std::string dma0 = pe0 + ".pe_dma";
const std::string gemm0 = pe0 + ".pe_gemm";
const std::string math0 = pe0 + ".pe_math";

std::string workload_file(const std::string& name) {
    return std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/" + name + ".yaml";
}

// One whole-platform run: topology (with overrides), workload, trace in memory.
struct Sim {
    TopologyConfig topo;
    WorkloadConfig wl;
    std::ostringstream trace_text;
    TraceSink trace{&trace_text};
    Platform platform;
    WorkloadRun run;
    std::vector<TraceLine> lines;
    std::vector<EngineInterval> intervals;

    Sim(const TopologyConfig& t, WorkloadConfig w)
        : topo(t), wl(std::move(w)), platform(topo, trace), run(platform, wl) {}

    void start() {
        sc_core::sc_start();
        lines = test::parse_trace(trace_text.str());
        intervals = test::engine_intervals(lines);
    }
    // The result of command `id`.
    CommandResult command(const std::string& id) const {
        for (const CommandResult& c : run.commands())
            if (c.command->id == id) return c;
        BOOST_FAIL("no command " << id);
        return {};
    }
};

TopologyConfig topology(const std::vector<std::string>& sets = {}) {
    return test::load_shipped("default", sets);
}

Sim* sim_text(const std::string& yaml, const std::vector<std::string>& sets = {}) {
    const TopologyConfig topo = topology(sets);
    return new Sim(topo, load_workload_text(yaml, "test.yaml", topo));
}

Sim* sim_file(const std::string& name, const std::vector<std::string>& sets = {}) {
    const TopologyConfig topo = topology(sets);
    return new Sim(topo, load_workload_file(workload_file(name), topo));
}

// Intervals of one (cmd, tile), in start order.
std::map<std::pair<std::int64_t, std::int64_t>, std::vector<EngineInterval>> by_token(
    const std::vector<EngineInterval>& all) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<EngineInterval>> out;
    for (const EngineInterval& i : all) out[{i.cmd, i.tile}].push_back(i);
    return out;
}

const EngineInterval* find(const std::vector<EngineInterval>& all, const std::string& stage,
                           std::int64_t tile, std::int64_t cmd = 0) {
    for (const EngineInterval& i : all)
        if (i.stage == stage && i.tile == tile && i.cmd == cmd) return &i;
    return nullptr;
}

// A GEMM composite with bias + ReLU per output tile, K in one step: every
// token writes, so DMA_WRITE(t-1) and compute(t) can meet. Operand reuse off
// (reuse: none): the cases below derive times with both operands read by
// every token.
const char* const overlap_yaml = R"(
name: overlap
kernels:
  k:
    - composite:
        id: mm
        gemm: { m: 256, k: 128, n: 512 }
        tile: { m: 128, k: 128, n: 128 }
        dtype: { in: bf16, out: bf16 }
        epilogues:
          - { op: bias_add, scope: per_output_tile }
          - { op: relu, scope: per_output_tile }
        reuse: none
        wait: true
launch:
  - { kernel: k, pes: [0] }
)";

// One 128^3 bf16 tile on pe0, no epilogue, wait: true.
const char* const one_tile_yaml = R"(
name: one_tile
kernels:
  k:
    - composite: { id: mm, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, dtype: { in: bf16, out: bf16 }, wait: true }
launch:
  - { kernel: k, pes: [0] }
)";

}  // namespace

BOOST_AUTO_TEST_CASE(overlap_dma_read_of_next_tile_runs_during_compute) {
    // 2 x 4 output tiles, Kt = 1: 8 tokens, each DMA_READ (128·128 + 128·128)·2
    // = 65536 B -> FETCH -> GEMM -> MATH bias_add -> MATH relu -> STORE 32768 B
    // -> DMA_WRITE 32768 B.
    //
    // Per token, relative to the end R_t of its DMA_READ:
    //   FETCH   2 + 65536/2048 + 1 = 35 ns           [R_t,       R_t + 35]
    //   GEMM    1·1·128 + 128 = 256 cycles = 256 ns [R_t + 35,  R_t + 291]
    //   MATH    ceil(16384·1/512) + 8 = 40 ns, x2   [R_t + 291, R_t + 371]
    // The feeder puts tile 0 in the DMA_READ inbox at 3 ns (PE_CPU 2 + scheduler
    // 1) and tiles 1 and 2 at 4 and 5 ns (depth 2), then blocks; the channel
    // takes the next tile the moment it is done with one, so DMA_READ(t+1)
    // runs [R_t, R_t + 945.334] (604 + 341.334): it contains all of GEMM(t)
    // (DMA-bound: 945 ns of read against 371 ns of compute per token).
    //   STORE   arrives at the TCM write port at R_t + 371, but DMA_READ(t+1),
    //           which started at R_t, has already reserved that port as its
    //           tail hop for [R_t + 602, R_t + 610] (65536/8192 = 8 ns): T1
    //           t = max(t, free) -> R_t + 610, + 2 latency + 16 drain
    //           (32768/2048) + 1 fetch_store latency = R_t + 629 (not R_t + 390:
    //           reservations are made in the order transfers start).
    //   DMA_WRITE 32768 B from R_t + 629: TCM read 2, channel 500, 1, 1 ->
    //           HBM at R_t + 1133, free since R_t + 843.334 (DMA_READ(t+1)
    //           held it from R_t + 502) -> + 100 + 170.667 = R_t + 1403.667.
    // DMA_WRITE(t) reaches the HBM port at R_t + 1133 .. 1303.667, before
    // DMA_READ(t+2) does (R_t + 1447.334), so reads are never delayed:
    // R_{t+1} = R_t + 945.334, and GEMM(t+1) = [R_t + 980.334, R_t + 1236.334]
    // lies inside DMA_WRITE(t) = [R_t + 629, R_t + 1403.667].
    // First token: R_0 = 3 + 604 + 341.334 = 948.334 ns; R_1 = 1893.668 ns.
    std::unique_ptr<Sim> sim(sim_text(overlap_yaml));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    const auto& all = sim->intervals;
    const EngineInterval* r0 = find(all, "DMA_READ", 0);
    const EngineInterval* r1 = find(all, "DMA_READ", 1);
    BOOST_REQUIRE(r0 && r1);
    BOOST_CHECK_EQUAL(r0->start_ps, 3000u);
    BOOST_CHECK_EQUAL(r0->end_ps, 948334u);
    BOOST_CHECK_EQUAL(r1->start_ps, 948334u);
    BOOST_CHECK_EQUAL(r1->end_ps, 1893668u);
    const EngineInterval* w0 = find(all, "DMA_WRITE", 0);
    const EngineInterval* s0 = find(all, "STORE", 0);
    BOOST_REQUIRE(w0 && s0);
    BOOST_CHECK_EQUAL(s0->start_ps, 948334u + 371000u);
    BOOST_CHECK_EQUAL(s0->end_ps, 948334u + 629000u);
    BOOST_CHECK_EQUAL(w0->start_ps, 948334u + 629000u);
    BOOST_CHECK_EQUAL(w0->end_ps, 948334u + 1403667u);
    // The last token has no DMA_READ after it: its STORE takes 19 ns.
    const EngineInterval* s7 = find(all, "STORE", 7);
    BOOST_REQUIRE(s7);
    BOOST_CHECK_EQUAL(s7->end_ps - s7->start_ps, 19000u);

    int read_during_gemm = 0, write_during_compute = 0;
    for (std::int64_t t = 0; t < 8; ++t) {
        const EngineInterval* gemm = find(all, "GEMM", t);
        BOOST_REQUIRE(gemm);
        if (const EngineInterval* next_read = find(all, "DMA_READ", t + 1)) {
            BOOST_CHECK_MESSAGE(next_read->overlaps(*gemm), "DMA_READ(" << t + 1 << ") ∥ GEMM(" << t << ")");
            read_during_gemm += next_read->overlaps(*gemm);
        }
        if (t == 0) continue;
        const EngineInterval* prev_write = find(all, "DMA_WRITE", t - 1);
        BOOST_REQUIRE(prev_write);
        bool meets = false;
        for (const EngineInterval& i : all)
            if (i.tile == t && (i.stage == "GEMM" || i.stage == "MATH") && prev_write->overlaps(i))
                meets = true;
        BOOST_CHECK_MESSAGE(meets, "DMA_WRITE(" << t - 1 << ") ∥ compute(" << t << ")");
        write_during_compute += meets;
    }
    BOOST_CHECK_EQUAL(read_during_gemm, 7);
    BOOST_CHECK_EQUAL(write_during_compute, 7);
}

BOOST_AUTO_TEST_CASE(dma_read_parallel_to_write_never_two_reads_on_one_channel) {
    // gemm_bias_relu.yaml: 64 tokens, 16 output tiles; rd_engines = wr_engines = 1.
    std::unique_ptr<Sim> sim(sim_file("gemm_bias_relu"));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    const auto reads = test::with_stage(sim->intervals, "DMA_READ", dma0);
    const auto writes = test::with_stage(sim->intervals, "DMA_WRITE", dma0);
    BOOST_CHECK_EQUAL(reads.size(), 64u);
    BOOST_CHECK_EQUAL(writes.size(), 16u);
    // Sorted by start: no overlap iff each ends before (or as) the next starts.
    for (std::size_t i = 1; i < reads.size(); ++i)
        BOOST_CHECK_LE(reads[i - 1].end_ps, reads[i].start_ps);
    for (std::size_t i = 1; i < writes.size(); ++i)
        BOOST_CHECK_LE(writes[i - 1].end_ps, writes[i].start_ps);
    int parallel = 0;
    for (const auto& r : reads)
        for (const auto& w : writes) parallel += r.overlaps(w);
    BOOST_CHECK_GT(parallel, 0);
    // The read channel is never idle while tiles wait: 64 back-to-back reads,
    // the first starting at 3 ns. The default reuse keeps an A row panel
    // (docs/timing.md "Operand reuse"): the 16 tokens of the first N pass
    // read A and B, 65536 B in 604 + 341.334 = 945.334 ns; the other 48 only
    // B, 32768 B in 604 + 170.667 = 774.667 ns, or up to one write's HBM port
    // time (32768 B / 192 GB/s = 170.667 ns) more when a DMA_WRITE reserved
    // the port first.
    BOOST_CHECK_EQUAL(reads.front().start_ps, 3000u);
    std::size_t both = 0;
    for (std::size_t i = 0; i < reads.size(); ++i) {
        if (i > 0) BOOST_CHECK_EQUAL(reads[i].start_ps, reads[i - 1].end_ps);
        const std::uint64_t d = reads[i].end_ps - reads[i].start_ps;
        if (d == 945334u) {
            ++both;
        } else {
            BOOST_CHECK_GE(d, 774667u);
            BOOST_CHECK_LE(d, 774667u + 170667u);
        }
    }
    BOOST_CHECK_EQUAL(both, 16u);
}

BOOST_AUTO_TEST_CASE(gemm_and_math_never_overlap_even_in_a_chain) {
    // Compute-bound on purpose so that GEMM and MATH compete for accel_slot:
    // int8 in, bf16 out, tile 512 x 64 x 512 of a 512 x 256 x 1024 GEMM:
    // 1 x 2 output tiles x 4 K-steps = 8 tokens.
    //   DMA_READ (512·64 + 64·512)·1 = 65536 B: 945.334 ns per token;
    //   GEMM 4·4·64 + 128 = 1152 ns; MATH over 512·512 elements:
    //   ceil(262144/512) + 8 = 520 ns per epilogue.
    // Every token runs `add` (per_k_tile); last K-steps also bias_add and relu
    // (per_output_tile); the last token also cast (once).
    std::unique_ptr<Sim> sim(sim_text(R"(
name: chain
kernels:
  k:
    - composite:
        id: chain
        gemm: { m: 512, k: 256, n: 1024 }
        tile: { m: 512, k: 64, n: 512 }
        dtype: { in: int8, out: bf16 }
        epilogues:
          - { op: add, scope: per_k_tile }
          - { op: bias_add, scope: per_output_tile }
          - { op: relu, scope: per_output_tile }
          - { op: cast, scope: once }
        wait: true
launch:
  - { kernel: k, pes: [0] }
)"));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    const auto gemms = test::with_stage(sim->intervals, "GEMM", gemm0);
    const auto maths = test::with_stage(sim->intervals, "MATH", math0);
    BOOST_CHECK_EQUAL(gemms.size(), 8u);
    // 8 add + 2 x (bias_add + relu) + 1 cast.
    BOOST_CHECK_EQUAL(maths.size(), 13u);
    for (const auto& g : gemms) {
        BOOST_CHECK_EQUAL(g.end_ps - g.start_ps, 1152000u);
        for (const auto& m : maths)
            BOOST_CHECK_MESSAGE(!g.overlaps(m), "GEMM tile " << g.tile << " [" << g.start_ps << ", "
                                                             << g.end_ps << ") meets MATH tile "
                                                             << m.tile << " [" << m.start_ps << ", "
                                                             << m.end_ps << ")");
    }
    for (const auto& m : maths) BOOST_CHECK_EQUAL(m.end_ps - m.start_ps, 520000u);
    // MATH stages of one token run back to back on PE_MATH: between two of
    // them no MATH stage of another token (they never re-enter the inbox).
    // Not back to back in time here: PE_MATH releases accel_slot between two
    // stages (pe_math.h), so a GEMM already queued for the slot runs between
    // them (tile 3: add at 8303.334, GEMM(5), bias_add at 9975.334, GEMM(6),
    // relu at 11647.334 ns). In a DMA-bound run they are (one_owner_at_a_time).
    for (std::size_t i = 1; i + 1 < maths.size(); ++i)
        if (maths[i - 1].tile == maths[i + 1].tile)
            BOOST_CHECK_EQUAL(maths[i].tile, maths[i - 1].tile);
    std::map<std::int64_t, std::size_t> per_tile;
    for (const auto& m : maths) ++per_tile[m.tile];
    BOOST_CHECK_EQUAL(per_tile[3], 3u);
    BOOST_CHECK_EQUAL(per_tile[7], 4u);
}

BOOST_AUTO_TEST_CASE(feed_order_no_interleaving) {
    // Two composites issued back to back (no wait between): PE_CPU issues `a`
    // at 2 ns and `b` at 4 ns. `a` has 4 tiles; the feeder puts tiles 0, 1, 2
    // at 3, 4, 5 ns and blocks on the full DMA_READ inbox for tile 3 until
    // ~948 ns, long after `b` was submitted; still every tile of `a` is fed
    // before any tile of `b`.
    std::unique_ptr<Sim> sim(sim_text(R"(
name: two
kernels:
  k:
    - composite: { id: a, gemm: { m: 256, k: 128, n: 256 }, tile: { m: 128, k: 128, n: 128 } }
    - composite: { id: b, gemm: { m: 256, k: 128, n: 256 }, tile: { m: 128, k: 128, n: 128 } }
launch:
  - { kernel: k, pes: [0] }
)"));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    std::vector<const TraceLine*> fed_a, fed_b;
    const TraceLine* submitted_b = nullptr;
    for (const TraceLine& t : sim->lines) {
        if (t.ev == "sub_command_dispatched") (t.cmd == 0 ? fed_a : fed_b).push_back(&t);
        if (t.ev == "command_submitted" && t.cmd == 1) submitted_b = &t;
    }
    BOOST_REQUIRE_EQUAL(fed_a.size(), 4u);
    BOOST_REQUIRE_EQUAL(fed_b.size(), 4u);
    BOOST_REQUIRE(submitted_b);
    BOOST_CHECK_EQUAL(submitted_b->t_ps, 4000u);
    BOOST_CHECK_LT(submitted_b->t_ps, fed_a.back()->t_ps);  // the test means something
    for (const TraceLine* a : fed_a)
        for (const TraceLine* b : fed_b) {
            BOOST_CHECK_LT(a->index, b->index);
            BOOST_CHECK_LE(a->t_ps, b->t_ps);
        }
    for (std::size_t i = 0; i < 4; ++i) {
        BOOST_CHECK_EQUAL(fed_a[i]->tile, static_cast<std::int64_t>(i));
        BOOST_CHECK_EQUAL(fed_b[i]->tile, static_cast<std::int64_t>(i));
    }
    BOOST_CHECK_EQUAL(fed_a[0]->t_ps, 3000u);
    BOOST_CHECK_EQUAL(fed_a[1]->t_ps, 4000u);
    BOOST_CHECK_EQUAL(fed_a[2]->t_ps, 5000u);
}

BOOST_AUTO_TEST_CASE(token_count_and_bytes_clipped_edges) {
    // Without operand reuse (reuse: none; operand_reuse_test derives the same
    // shape with a panel). M = 300, K = 200, N = 130, tile 128, bf16: Mt = 3, Nt = 2, Kt = 2 ->
    // 12 tokens, 6 output tiles. tile_id = (mi·Nt + ni)·Kt + ki.
    //   tile 0  (0,0,0): (128·128 + 128·128)·2 = 65536 B
    //   tile 1  (0,0,1): tk = 72: (128·72 + 72·128)·2 = 36864 B; writes 128·128·2 = 32768
    //   tile 11 (2,1,1): tm = 44, tk = 72, tn = 2: (44·72 + 72·2)·2 = 6624 B;
    //                    writes 44·2·2 = 176 B
    // Totals: reads 2·(Nt·M·K + Mt·K·N) = 2·(2·300·200 + 3·200·130) = 396000 B,
    //         writes M·N·2 = 78000 B.
    std::unique_ptr<Sim> sim(sim_text(R"(
name: clipped
kernels:
  k:
    - composite: { id: c, gemm: { m: 300, k: 200, n: 130 }, tile: { m: 128, k: 128, n: 128 }, reuse: none, wait: true }
launch:
  - { kernel: k, pes: [0] }
)"));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    int read_starts = 0, write_starts = 0;
    for (const TraceLine& t : sim->lines)
        if (t.ev == "engine_start" && t.node == dma0) {
            read_starts += t.stage == "DMA_READ";
            write_starts += t.stage == "DMA_WRITE";
        }
    BOOST_CHECK_EQUAL(read_starts, 12);
    BOOST_CHECK_EQUAL(write_starts, 6);
    const auto& all = sim->intervals;
    BOOST_REQUIRE(find(all, "DMA_READ", 0) && find(all, "DMA_READ", 1) && find(all, "DMA_READ", 11));
    BOOST_CHECK_EQUAL(find(all, "DMA_READ", 0)->bytes, 65536);
    BOOST_CHECK_EQUAL(find(all, "DMA_READ", 1)->bytes, 36864);
    BOOST_CHECK_EQUAL(find(all, "DMA_READ", 11)->bytes, 6624);
    BOOST_CHECK_EQUAL(find(all, "FETCH", 11)->bytes, 6624);
    BOOST_REQUIRE(find(all, "DMA_WRITE", 1) && find(all, "DMA_WRITE", 11));
    BOOST_CHECK(find(all, "DMA_WRITE", 0) == nullptr);  // not a last K-step
    BOOST_CHECK_EQUAL(find(all, "DMA_WRITE", 1)->bytes, 32768);
    BOOST_CHECK_EQUAL(find(all, "DMA_WRITE", 11)->bytes, 176);
    BOOST_CHECK_EQUAL(find(all, "STORE", 11)->bytes, 176);
    const Pe& pe = sim->platform.pe(0, 0, 0);
    BOOST_CHECK_EQUAL(pe.dma().bytes_moved(DmaDirection::read), 396000u);
    BOOST_CHECK_EQUAL(pe.dma().bytes_moved(DmaDirection::write), 78000u);
    BOOST_CHECK_EQUAL(sim->command("c").tiles, 12u);
}

namespace {

// fp32 512 x 256 x 512 in 256^3 tiles: 2 x 2 output tiles, Kt = 1: 4 tokens,
// each in = (256·256 + 256·256)·4 = 524288 B, out = 256·256·4 = 262144 B,
// 786432 B per tile: one fits in 1 MiB (1048576 B), two never do.
const char* const big_tiles_yaml = R"(
name: big
kernels:
  k:
    - composite:
        id: big
        gemm: { m: 512, k: 256, n: 512 }
        tile: { m: 256, k: 256, n: 256 }
        dtype: { in: fp32, out: fp32 }
        wait: true
launch:
  - { kernel: k, pes: [0] }
)";

// Per tile: first stage start .. last stage end.
std::vector<std::pair<std::uint64_t, std::uint64_t>> lifetimes(const Sim& sim) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    for (const auto& [key, stages] : by_token(sim.intervals)) {
        std::uint64_t start = stages.front().start_ps, end = 0;
        for (const auto& s : stages) end = std::max(end, s.end_ps);
        out.push_back({start, end});
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(reserved_tcm_for_one_tile_means_no_overlap) {
    std::unique_ptr<Sim> sim(
        sim_text(big_tiles_yaml, {"cube.pe_template.components.pe_tcm.attrs.reserved_mb=1"}));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    const auto life = lifetimes(*sim);
    BOOST_REQUIRE_EQUAL(life.size(), 4u);
    for (std::size_t i = 0; i < life.size(); ++i)
        for (std::size_t j = i + 1; j < life.size(); ++j)
            BOOST_CHECK(life[i].second <= life[j].first || life[j].second <= life[i].first);
    // Tile t+1 is fed when tile t completes (its DMA_WRITE done frees its
    // buffers; the feeder wakes one delta later) plus the scheduler's 1 ns.
    for (std::size_t t = 1; t < life.size(); ++t)
        BOOST_CHECK_EQUAL(life[t].first, life[t - 1].second + 1000u);
    BOOST_CHECK_EQUAL(sim->platform.pe(0, 0, 0).scheduler().reserved_peak(), 786432u);
}

BOOST_AUTO_TEST_CASE(reserved_tcm_for_many_tiles_overlaps) {
    // 8 MiB holds ten such tiles: the pipeline overlaps them.
    std::unique_ptr<Sim> sim(sim_text(big_tiles_yaml));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    const auto life = lifetimes(*sim);
    BOOST_REQUIRE_EQUAL(life.size(), 4u);
    int overlapping = 0;
    for (std::size_t i = 0; i < life.size(); ++i)
        for (std::size_t j = i + 1; j < life.size(); ++j)
            overlapping += life[i].first < life[j].second && life[j].first < life[i].second;
    BOOST_CHECK_GT(overlapping, 0);
    BOOST_CHECK_GT(sim->platform.pe(0, 0, 0).scheduler().reserved_peak(), 786432u);
}

namespace {

struct CountingSink : CompletionSink {
    int calls = 0;
    void tile_completed(TileToken&) override { ++calls; }
};

}  // namespace

BOOST_AUTO_TEST_CASE(complete_tile_twice_is_reported) {
    CountingSink sink;
    InflightCommand cmd;
    cmd.total_tiles = 2;
    cmd.reset(sink);
    TileToken token;
    token.cmd = &cmd;
    token.plan.tile_id = 5;
    cmd.complete_tile(token);
    BOOST_CHECK_EQUAL(sink.calls, 1);
    BOOST_CHECK_THROW(cmd.complete_tile(token), sc_core::sc_report);
    const auto reports = test::take_reports();
    BOOST_REQUIRE_EQUAL(reports.size(), 1u);
    BOOST_CHECK_EQUAL(reports[0].severity, "error");
    BOOST_CHECK_EQUAL(reports[0].msg_type, "npuvp/invariant");
    BOOST_CHECK(reports[0].message.find("tile 5") != std::string::npos);
    BOOST_CHECK_EQUAL(sink.calls, 1);
    BOOST_CHECK_EQUAL(cmd.completed_tiles, 1u);
}

BOOST_AUTO_TEST_CASE(one_owner_at_a_time) {
    // gemm_bias_relu.yaml, Kt = 4: K-steps 0..2 run DMA_READ, FETCH, GEMM; the
    // last K-step adds MATH bias_add, MATH relu, STORE, DMA_WRITE.
    std::unique_ptr<Sim> sim(sim_file("gemm_bias_relu"));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    const auto tokens = by_token(sim->intervals);
    BOOST_CHECK_EQUAL(tokens.size(), 64u);
    const std::vector<std::string> partial{"DMA_READ", "FETCH", "GEMM"};
    const std::vector<std::string> last{"DMA_READ", "FETCH", "GEMM", "MATH", "MATH", "STORE", "DMA_WRITE"};
    for (const auto& [key, stages] : tokens) {
        std::vector<std::string> names;
        for (const auto& s : stages) names.push_back(s.stage);
        const auto& expected = key.second % 4 == 3 ? last : partial;
        BOOST_CHECK_EQUAL_COLLECTIONS(names.begin(), names.end(), expected.begin(), expected.end());
        // DMA-bound (945 ns of read per 35 + 256 ns of fetch + GEMM): nothing
        // waits for accel_slot, so relu starts the instant bias_add ends.
        if (stages.size() == last.size()) BOOST_CHECK_EQUAL(stages[3].end_ps, stages[4].start_ps);
        for (std::size_t i = 1; i < stages.size(); ++i)
            BOOST_CHECK_MESSAGE(stages[i - 1].end_ps <= stages[i].start_ps,
                                "tile " << key.second << ": " << stages[i - 1].stage << " ends at "
                                        << stages[i - 1].end_ps << " after " << stages[i].stage
                                        << " starts at " << stages[i].start_ps);
    }
}

BOOST_AUTO_TEST_CASE(composite_gemm_end_to_end_makespan_by_hand) {
    // One 128^3 bf16 tile, no epilogue, wait: true.
    //   PE_CPU overhead                   0     -> 2 ns
    //   cpu -> scheduler link (0 mm)      +0    -> 2 ns  (command_submitted)
    //   reserved TCM: 65536 + 32768 B free at once; scheduler overhead +1 -> 3 ns
    //   DMA_READ 65536 B: 604 + 341.334   -> 948.334 ns
    //   FETCH 2 + 32 (65536/2048) + 1     -> 983.334 ns
    //   GEMM 1·1·128 + 128 = 256 cycles   -> 1239.334 ns
    //   STORE 0 + 2 + 16 (32768/2048) + 1 -> 1258.334 ns
    //   DMA_WRITE 32768 B: 604 + 170.667  -> 2033.001 ns
    //   completion (delta cycles only)    -> 2033.001 ns = makespan
    std::unique_ptr<Sim> sim(sim_text(one_tile_yaml));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    const auto& all = sim->intervals;
    BOOST_REQUIRE_EQUAL(all.size(), 5u);
    const std::uint64_t expect[5][2] = {{3000, 948334},     {948334, 983334},   {983334, 1239334},
                                        {1239334, 1258334}, {1258334, 2033001}};
    const char* stages[5] = {"DMA_READ", "FETCH", "GEMM", "STORE", "DMA_WRITE"};
    for (int i = 0; i < 5; ++i) {
        BOOST_CHECK_EQUAL(all[i].stage, stages[i]);
        BOOST_CHECK_EQUAL(all[i].start_ps, expect[i][0]);
        BOOST_CHECK_EQUAL(all[i].end_ps, expect[i][1]);
    }
    const CommandResult mm = sim->command("mm");
    BOOST_CHECK_EQUAL(mm.submitted_ps, 2000u);
    BOOST_CHECK_EQUAL(mm.started_ps, 3000u);
    BOOST_CHECK_EQUAL(mm.finished_ps, 2033001u);
    BOOST_CHECK_EQUAL(sim->run.makespan_ps(), 2033001u);
}

BOOST_AUTO_TEST_CASE(one_tile_costs_two_activations_per_stage) {
    // docs/speed.md: a method-mode stage is one activation when its token
    // arrives and one when its busy time ends (no wait for a free resource,
    // no full output inbox here). The same one-tile composite as above:
    //   every method process runs once at initialisation: per PE, 8 stage
    //   workers (DMA_READ, DMA_WRITE, FETCH, STORE, GEMM, MATH, IPCQ_SEND,
    //   IPCQ_RECV) + the feed loop = 9;
    //   PE0: 5 stages x 2 = 10; the feed loop wakes for the command and at
    //   the end of its 1 ns overhead = 2; the completion process (not run at
    //   initialisation) once = 1.
    std::unique_ptr<Sim> sim(sim_text(one_tile_yaml));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    std::uint64_t pes = 0;
    for (const SipNodes& sip : sim->platform.sips())
        for (const CubeNodes& cube : sip.cubes) pes += cube.pes.size();
    const Platform::WorkCounts work = sim->platform.work_counts();
    BOOST_CHECK_EQUAL(work.tiles, 1u);
    BOOST_CHECK_EQUAL(work.stage_events, 5u);
    BOOST_CHECK_EQUAL(work.activations, pes * 9 + 10 + 2 + 1);
}

BOOST_AUTO_TEST_CASE(simple_commands_finish_times_by_hand) {
    // simple_commands.yaml; each simple command: PE_CPU +2, link 0, scheduler +1.
    //   ld_a: issued 2, dispatched 3; DMA_READ 32768 B: 604 + 170.667
    //         -> 777.667 ns
    //   ld_b: issued 4; both loads are in the dma context, which runs one
    //         command at a time in program order (seed 002), so ld_b waits
    //         (cause: context) until ld_a completes at 777.667, then the
    //         dispatch overhead: 778.667; DMA_READ 774.667 -> 1553.334 ns
    //   wait [ld_a, ld_b] -> 1553.334
    //   mm:  +2 (submitted 1555.334) +1 = 1556.334; GEMM 256 cycles -> 1812.334 ns
    //   wait [mm] -> 1812.334
    //   act: +2 +1 = 1815.334; MATH relu 16384: ceil(16384/512) + 8 = 40 -> 1855.334 ns
    //   wait all -> 1855.334
    //   st:  +2 +1 = 1858.334; DMA_WRITE 32768 B: 604 + 170.667 -> 2633.001 ns
    std::unique_ptr<Sim> sim(sim_file("simple_commands"));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    BOOST_CHECK_EQUAL(sim->command("ld_a").finished_ps, 777667u);
    BOOST_CHECK_EQUAL(sim->command("ld_b").submitted_ps, 4000u);
    BOOST_CHECK_EQUAL(sim->command("ld_b").started_ps, 778667u);
    BOOST_CHECK_EQUAL(sim->command("ld_b").finished_ps, 1553334u);
    BOOST_CHECK_EQUAL(sim->command("mm").submitted_ps, 1555334u);
    BOOST_CHECK_EQUAL(sim->command("mm").finished_ps, 1812334u);
    BOOST_CHECK_EQUAL(sim->command("act").finished_ps, 1855334u);
    BOOST_CHECK_EQUAL(sim->command("st").finished_ps, 2633001u);
    BOOST_CHECK_EQUAL(sim->run.makespan_ps(), 2633001u);
}

BOOST_AUTO_TEST_CASE(mmu_fault_stops_the_run_naming_pe_command_address) {
    std::unique_ptr<Sim> sim(sim_file("mmu_fault"));
    sim->start();
    BOOST_CHECK(!sim->run.finished());
    BOOST_REQUIRE(sim->platform.status().failed());
    const std::string& error = sim->platform.status().error();
    BOOST_TEST_MESSAGE(error);
    BOOST_CHECK(error.find("sip0.cube0.pe0") != std::string::npos);
    BOOST_CHECK(error.find("command ld ") != std::string::npos);
    BOOST_CHECK(error.find("0x80000000") != std::string::npos);
    // Found at 3 ns (dispatch) + 2 ns (translate_ns) = 5 ns.
    BOOST_CHECK_EQUAL(sim->platform.status().time().value(), 5000u);
    BOOST_CHECK(sim->run.diagnosis().find("sip0.cube0.pe0") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(mmu_va_includes_the_translation) {
    // mmu_va.yaml: 64 KiB from VA 0x40010000 -> PA 0x10000 (own HBM slice).
    // Dispatched at 3 ns; PE_MMU translate 2 ns -> channel granted at 5 ns;
    // DMA_READ 604 + 341.334 -> 950.334 ns (= 948.334 for a PA read + 2 ns).
    std::unique_ptr<Sim> sim(sim_file("mmu_va"));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    BOOST_CHECK_EQUAL(sim->command("ld").finished_ps, 950334u);
    BOOST_CHECK_EQUAL(sim->run.makespan_ps(), 950334u);
    const auto reads = test::with_stage(sim->intervals, "DMA_READ", dma0);
    BOOST_REQUIRE_EQUAL(reads.size(), 1u);
    BOOST_CHECK_EQUAL(reads[0].start_ps, 5000u);
    BOOST_CHECK_EQUAL(reads[0].end_ps, 950334u);
}

BOOST_AUTO_TEST_CASE(ipcq_exchange_moves_data_both_ways) {
    // ipcq_exchange.yaml: pe0 -> pe1 and pe1 -> pe0, 65536 B each, at once.
    // send dispatched at 3 ns (PE_CPU 2 + scheduler 1). Route pe0.pe_dma
    // -> r0 -> r1 -> pe1.pe_ipcq: vc_comm hop 500 ns / 256 GB/s, attach 1,
    // mesh 5 mm · 0.1 + 2 = 2.5 ns / 256 GB/s, attach 1: ΣL = 504.5 ns,
    // min B = 256: 65536/256 = 256 ns -> done 3 + 504.5 + 256 = 763.5 ns.
    // pe1 -> pe0 uses the other direction of every link: no contention, same
    // times. Each recv (dispatched at 5 ns) takes the data at 763.5 ns.
    std::unique_ptr<Sim> sim(sim_file("ipcq_exchange"));
    sim->start();
    BOOST_REQUIRE(sim->run.finished());
    for (int p = 0; p < 2; ++p) {
        const std::string dma = "sip0.cube0.pe" + std::to_string(p) + ".pe_dma";
        const auto sends = test::with_stage(sim->intervals, "IPCQ_SEND", dma);
        BOOST_REQUIRE_EQUAL(sends.size(), 1u);
        BOOST_CHECK_EQUAL(sends[0].start_ps, 3000u);
        BOOST_CHECK_EQUAL(sends[0].end_ps, 763500u);
        BOOST_CHECK_EQUAL(sends[0].bytes, 65536);
        BOOST_CHECK_EQUAL(sim->platform.pe(0, 0, p).ipcq().bytes_received(), 65536u);
        BOOST_CHECK_EQUAL(sim->platform.pe(0, 0, 1 - p).dma().comm_bytes(), 65536u);
    }
    BOOST_CHECK_EQUAL(sim->run.makespan_ps(), 763500u);
}
