// Kernel schedule semantics (SPEC §6, seed 002) on the whole default platform:
// in-order contexts, overlap across contexts, RAW / WAR / WAW hazards and their
// recorded causes, reordering of independent work, shared scheduling resources,
// the cumulative same-bank access limit (serialize and detect), main starving
// sub, and the MNIST example. Every expected time is derived by hand below from
// docs/timing.md and configs/topologies/default.yaml (never copied from a run).
//
// default.yaml figures used: PE_CPU overhead 2 ns before issuing each command,
// cpu -> scheduler link 0 mm (0 ns), so the i-th command (from 0) is submitted
// at 2·(i+1) ns; PE_SCHEDULER overhead 1 ns per dispatch (the dispatch decision
// is taken at once, the command is "started" 1 ns later; only one dispatch at a
// time); the scheduler's waited[cause] runs from submission to the dispatch
// decision (it excludes the 1 ns overhead).
//   DMA_READ of n B from the own HBM slice: channel 500 + attach 1 + attach 1 +
//     HBM 100 + TCM write 2 = 604 ns, min B 192 GB/s -> 604 + n/192 ns.
//     65536 B: 341.3333 -> 341.334 ns (rounded up to whole ps) -> 945.334 ns.
//   GEMM m,k,n: ceil(m/128)·ceil(n/128)·k + 128 cycles at 1 GHz;
//     128 x 128 x 128: 128 + 128 = 256 ns.
//   MATH relu over e elements: ceil(e/512) + 8 cycles; 51200: 100 + 8 = 108 ns.
//   FETCH / STORE of n B: TCM port 2 ns + fetch-store link 0 ns, min B 2048 GB/s,
//     + fetch_store latency 1 ns -> 3 + n/2048 ns; 4096 B: 5 ns; 65536 B: 35 ns.
//   TCM: 16 banks, 8-byte interleave: an access pattern with stride 128 B
//     (= 16 · 8) stays on one bank, its run there = count. A DMA without access
//     counts 1 on each of 16 banks. bank_limit 64.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <memory>
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

namespace {

constexpr std::size_t kContext = static_cast<std::size_t>(WaitCause::context);
constexpr std::size_t kDependency = static_cast<std::size_t>(WaitCause::dependency);
constexpr std::size_t kResource = static_cast<std::size_t>(WaitCause::resource);
constexpr std::size_t kBank = static_cast<std::size_t>(WaitCause::bank);

// One raw trace line's fields that trace_reader.h does not keep.
struct WaitLine {
    std::uint64_t t_ps;
    std::string ev, stage, cause, detail;
    std::int64_t cmd;
};

struct Sim {
    TopologyConfig topo;
    WorkloadConfig wl;
    std::ostringstream trace_text;
    TraceSink trace{&trace_text};
    Platform platform;
    WorkloadRun run;
    std::vector<WaitLine> events;  // wait_begin / wait_end / bank_violation

    Sim(const TopologyConfig& t, WorkloadConfig w)
        : topo(t), wl(std::move(w)), platform(topo, trace), run(platform, wl) {}

    void start() {
        sc_core::sc_start();
        std::istringstream in(trace_text.str());
        std::string line;
        while (std::getline(in, line)) {
            const std::string ev = test::detail::string_field(line, "ev");
            if (ev != "wait_begin" && ev != "wait_end" && ev != "bank_violation") continue;
            events.push_back({static_cast<std::uint64_t>(test::detail::int_field(line, "t_ps", 0)), ev,
                              test::detail::string_field(line, "stage"),
                              test::detail::string_field(line, "cause"),
                              test::detail::string_field(line, "detail"),
                              test::detail::int_field(line, "cmd", -1)});
        }
    }
    CommandResult command(const std::string& id) const {
        for (const CommandResult& c : run.commands())
            if (c.command->id == id) return c;
        BOOST_FAIL("no command " << id);
        return {};
    }
    // The wait_begin events of the command with dispatch sequence `seq`.
    std::vector<WaitLine> wait_begins(std::int64_t seq) const {
        std::vector<WaitLine> out;
        for (const WaitLine& w : events)
            if (w.ev == "wait_begin" && w.cmd == seq) out.push_back(w);
        return out;
    }
};

std::unique_ptr<Sim> sim_text(const std::string& yaml, const std::vector<std::string>& sets = {},
                              const std::string& topology = "default") {
    const TopologyConfig topo = test::load_shipped(topology, sets);
    return std::make_unique<Sim>(topo, load_workload_text(yaml, "schedule_test.yaml", topo));
}

std::string kernel(const std::string& commands) {
    return "name: t\nkernels:\n  k:\n" + commands + "launch:\n  - { kernel: k, pes: [0] }\n";
}

bool overlaps(const CommandResult& a, const CommandResult& b) {
    return a.started_ps < b.finished_ps && b.started_ps < a.finished_ps;
}

std::uint64_t total_wait(const CommandResult& c) {
    std::uint64_t t = 0;
    for (std::size_t i = 0; i < wait_cause_count; ++i) t += c.waited_ps[i];
    return t;
}

}  // namespace

// ---------------------------------------------------------------- 1. contexts

BOOST_AUTO_TEST_CASE(in_order_within_a_context) {
    // g1: submitted 2, started 3, GEMM 256 -> finished 259 ns.
    // g2: submitted 4; main is busy with g1: waits (context) 4 -> 259 = 255 ns;
    //     dispatched at 259, started 260, finished 260 + 256 = 516 ns.
    auto sim = sim_text(kernel(R"(
    - gemm: { id: g1, m: 128, k: 128, n: 128 }
    - gemm: { id: g2, m: 128, k: 128, n: 128 }
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult g1 = sim->command("g1"), g2 = sim->command("g2");
    BOOST_CHECK_EQUAL(g1.started_ps, 3000u);
    BOOST_CHECK_EQUAL(g1.finished_ps, 259000u);
    BOOST_CHECK_EQUAL(g2.submitted_ps, 4000u);
    BOOST_CHECK_EQUAL(g2.started_ps, g1.finished_ps + 1000u);
    BOOST_CHECK_EQUAL(g2.started_ps, 260000u);
    BOOST_CHECK_EQUAL(g2.finished_ps, 516000u);
    BOOST_CHECK_EQUAL(g2.waited_ps[kContext], 255000u);
    BOOST_CHECK_EQUAL(total_wait(g2), 255000u);
    const auto begins = sim->wait_begins(1);
    BOOST_REQUIRE_EQUAL(begins.size(), 1u);
    BOOST_CHECK_EQUAL(begins[0].cause, "context");
    BOOST_CHECK_EQUAL(begins[0].stage, "main");
    BOOST_CHECK_MESSAGE(begins[0].detail.find("g1") != std::string::npos, begins[0].detail);
}

BOOST_AUTO_TEST_CASE(across_contexts_independent_ops_overlap) {
    // ld (dma): submitted 2, started 3, DMA_READ 65536 B 945.334 -> 948.334 ns.
    // mm (main), no shared range: submitted 4, started 5, GEMM 256 -> 261 ns.
    // [3, 948.334] and [5, 261] intersect; neither waits.
    auto sim = sim_text(kernel(R"(
    - dma_read: { id: ld, bytes: 65536, writes: [{ tcm: 0x800000, bytes: 65536 }] }
    - gemm: { id: mm, m: 128, k: 128, n: 128, reads: [{ tcm: 0x820000, bytes: 65536 }] }
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult ld = sim->command("ld"), mm = sim->command("mm");
    BOOST_CHECK_EQUAL(ld.started_ps, 3000u);
    BOOST_CHECK_EQUAL(ld.finished_ps, 948334u);
    BOOST_CHECK_EQUAL(mm.started_ps, 5000u);
    BOOST_CHECK_EQUAL(mm.finished_ps, 261000u);
    BOOST_CHECK(overlaps(ld, mm));
    BOOST_CHECK_EQUAL(total_wait(ld), 0u);
    BOOST_CHECK_EQUAL(total_wait(mm), 0u);
    BOOST_CHECK(sim->events.empty());
}

// ----------------------------------------------------------------- 2. hazards

BOOST_AUTO_TEST_CASE(raw_forces_wait_with_cause) {
    // ld writes tcm [0x800000, +0x10000): 3 -> 948.334 ns. mm reads it: submitted 4,
    // waits (dependency, RAW) 4 -> 948.334 = 944.334 ns; started 949.334,
    // finished 949.334 + 256 = 1205.334 ns.
    auto sim = sim_text(kernel(R"(
    - dma_read: { id: ld, bytes: 65536, writes: [{ tcm: 0x800000, bytes: 65536 }] }
    - gemm: { id: mm, m: 128, k: 128, n: 128, reads: [{ tcm: 0x800000, bytes: 65536 }] }
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult ld = sim->command("ld"), mm = sim->command("mm");
    BOOST_CHECK_EQUAL(ld.finished_ps, 948334u);
    BOOST_CHECK_EQUAL(mm.waited_ps[kDependency], 944334u);
    BOOST_CHECK_EQUAL(total_wait(mm), 944334u);
    BOOST_CHECK_EQUAL(mm.started_ps, 949334u);
    BOOST_CHECK_EQUAL(mm.finished_ps, 1205334u);
    const auto begins = sim->wait_begins(1);
    BOOST_REQUIRE_EQUAL(begins.size(), 1u);
    BOOST_CHECK_EQUAL(begins[0].cause, "dependency");
    BOOST_CHECK_EQUAL(begins[0].t_ps, 4000u);
    BOOST_CHECK_EQUAL(begins[0].detail, "RAW on tcm [0x800000, +0x10000) with ld");
}

BOOST_AUTO_TEST_CASE(war_forces_wait_with_cause) {
    // mm reads tcm [0x800000, +0x10000): 3 -> 259 ns. ld writes it: submitted 4, waits
    // (dependency, WAR) 4 -> 259 = 255 ns; started 260, finished 260 + 945.334
    // = 1205.334 ns.
    auto sim = sim_text(kernel(R"(
    - gemm: { id: mm, m: 128, k: 128, n: 128, reads: [{ tcm: 0x800000, bytes: 65536 }] }
    - dma_read: { id: ld, bytes: 65536, writes: [{ tcm: 0x800000, bytes: 65536 }] }
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult mm = sim->command("mm"), ld = sim->command("ld");
    BOOST_CHECK_EQUAL(mm.finished_ps, 259000u);
    BOOST_CHECK_EQUAL(ld.waited_ps[kDependency], 255000u);
    BOOST_CHECK_EQUAL(total_wait(ld), 255000u);
    BOOST_CHECK_EQUAL(ld.started_ps, 260000u);
    BOOST_CHECK_EQUAL(ld.finished_ps, 1205334u);
    const auto begins = sim->wait_begins(1);
    BOOST_REQUIRE_EQUAL(begins.size(), 1u);
    BOOST_CHECK_EQUAL(begins[0].cause, "dependency");
    BOOST_CHECK_EQUAL(begins[0].detail, "WAR on tcm [0x800000, +0x10000) with mm");
}

BOOST_AUTO_TEST_CASE(waw_forces_wait_with_cause) {
    // ld (dma) writes tcm [0x800000, +0x10000): 3 -> 948.334 ns. st (sub store, 4096 B)
    // writes tcm [0x808000, +0x10000): overlap [0x808000, +0x8000). Submitted 4,
    // waits (dependency, WAW) 944.334 ns; started 949.334, STORE 5 ns ->
    // finished 954.334 ns.
    auto sim = sim_text(kernel(R"(
    - dma_read: { id: ld, bytes: 65536, writes: [{ tcm: 0x800000, bytes: 65536 }] }
    - store: { id: st, bytes: 4096, writes: [{ tcm: 0x808000, bytes: 65536 }] }
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult st = sim->command("st");
    BOOST_CHECK_EQUAL(st.waited_ps[kDependency], 944334u);
    BOOST_CHECK_EQUAL(total_wait(st), 944334u);
    BOOST_CHECK_EQUAL(st.started_ps, 949334u);
    BOOST_CHECK_EQUAL(st.finished_ps, 954334u);
    const auto begins = sim->wait_begins(1);
    BOOST_REQUIRE_EQUAL(begins.size(), 1u);
    BOOST_CHECK_EQUAL(begins[0].cause, "dependency");
    BOOST_CHECK_EQUAL(begins[0].detail, "WAW on tcm [0x808000, +0x8000) with ld");
}

BOOST_AUTO_TEST_CASE(disjoint_ranges_no_hazard_control) {
    // Same shapes as the RAW / WAW cases, ranges disjoint (mm's output in TCM
    // too: tensor-unit ops name on-chip ranges only, seed 002): mm submitted 4, started 5 -> 261; st submitted 6,
    // started 7. No scheduling waits at all.
    // st's STORE is not 5 ns here: T1 reserves a whole route when a transfer
    // starts (docs/timing.md, "Contention"), and ld (started 3) reserved the
    // TCM write port as its tail hop at t = 3 + 500 + 1 + 1 + 100 = 605 with
    // free = 605 + 65536/8192 = 613 ns. st: link (0 ns, 2048 GB/s) t = 7;
    // TCM write port t = max(7, 613) = 613, + 2 = 615; drain 4096/2048 = 2 ->
    // 617; + fetch_store latency 1 -> finished 618 ns.
    auto sim = sim_text(kernel(R"(
    - dma_read: { id: ld, bytes: 65536, addr: { pa: 0x0 }, reads: [{ hbm: 0x0, bytes: 65536 }],
                  writes: [{ tcm: 0x800000, bytes: 65536 }] }
    - gemm: { id: mm, m: 128, k: 128, n: 128, reads: [{ tcm: 0x810000, bytes: 65536 }],
              writes: [{ tcm: 0x830000, bytes: 64 }] }
    - store: { id: st, bytes: 4096, writes: [{ tcm: 0x820000, bytes: 4096 }] }
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    for (const char* id : {"ld", "mm", "st"})
        BOOST_CHECK_MESSAGE(total_wait(sim->command(id)) == 0, id);
    BOOST_CHECK_EQUAL(sim->command("mm").started_ps, 5000u);
    BOOST_CHECK_EQUAL(sim->command("st").started_ps, 7000u);
    BOOST_CHECK_EQUAL(sim->command("st").finished_ps, 618000u);
    BOOST_CHECK(sim->events.empty());
}

// -------------------------------------------------------------- 3. reordering

BOOST_AUTO_TEST_CASE(later_independent_op_runs_before_earlier_dependent_one) {
    // ld writes A (3 -> 948.334); mm reads A: waits RAW, started 949.334;
    // f (sub fetch 4096 B) reads B, independent: submitted 6, started 7,
    // finished 12 ns — long before mm starts.
    auto sim = sim_text(kernel(R"(
    - dma_read: { id: ld, bytes: 65536, writes: [{ tcm: 0x800000, bytes: 65536 }] }
    - gemm: { id: mm, m: 128, k: 128, n: 128, reads: [{ tcm: 0x800000, bytes: 65536 }] }
    - fetch: { id: f, bytes: 4096, reads: [{ tcm: 0x820000, bytes: 4096 }] }
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult mm = sim->command("mm"), f = sim->command("f");
    BOOST_CHECK_LT(f.started_ps, mm.started_ps);
    BOOST_CHECK_EQUAL(f.started_ps, 7000u);
    BOOST_CHECK_EQUAL(f.finished_ps, 12000u);
    BOOST_CHECK_EQUAL(total_wait(f), 0u);
    BOOST_CHECK_EQUAL(mm.started_ps, 949334u);
    // completion order: f before mm
    const auto all = sim->run.commands();
    const auto pos = [&](const std::string& id) {
        return std::find_if(all.begin(), all.end(),
                            [&](const CommandResult& c) { return c.command->id == id; }) -
               all.begin();
    };
    BOOST_CHECK_LT(pos("f"), pos("mm"));
}

// ---------------------------------------------------------------- 4. resource

BOOST_AUTO_TEST_CASE(shared_resource_serialises_main_and_sub) {
    // m (main math relu 51200, vector_engine): 3 -> 3 + 108 = 111 ns.
    // f (sub fetch 4096 B, vector_engine), no shared ranges: submitted 4; main
    // and sub are different contexts, but vector_engine is held by m: waits
    // (resource) 4 -> 111 = 107 ns; started 112, finished 117 ns.
    auto sim = sim_text(kernel(R"(
    - math: { id: m, op: relu, elements: 51200, resources: [vector_engine],
              reads: [{ tcm: 0x800000, bytes: 4096 }] }
    - fetch: { id: f, bytes: 4096, resources: [vector_engine],
               reads: [{ tcm: 0x810000, bytes: 4096 }] }
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult m = sim->command("m"), f = sim->command("f");
    BOOST_CHECK(!overlaps(m, f));
    BOOST_CHECK_EQUAL(m.finished_ps, 111000u);
    BOOST_CHECK_EQUAL(f.waited_ps[kResource], 107000u);
    BOOST_CHECK_EQUAL(total_wait(f), 107000u);
    BOOST_CHECK_EQUAL(f.started_ps, 112000u);
    BOOST_CHECK_EQUAL(f.finished_ps, 117000u);
    const auto begins = sim->wait_begins(1);
    BOOST_REQUIRE_EQUAL(begins.size(), 1u);
    BOOST_CHECK_EQUAL(begins[0].cause, "resource");
    BOOST_CHECK_EQUAL(begins[0].stage, "sub");
    BOOST_CHECK_EQUAL(begins[0].detail, "vector_engine held by m");
}

// --------------------------------------------------------------- 5. bank limit

namespace {

// mm (main GEMM 256 ns) with a run of 30 on bank 0 (stride 128 B = 16 banks x
// 8 B), f (sub fetch 4096 B) with a run of `sub_run` on bank 0, ld (DMA 65536 B,
// no access: 1 on each of banks 0..15). No shared ranges.
std::string bank_kernel(int sub_run) {
    return kernel(R"(
    - gemm: { id: mm, m: 128, k: 128, n: 128,
              access: { base: 0x800000, stride: 128, count: 30, elem_bytes: 8 } }
    - fetch: { id: f, bytes: 4096,
               access: { base: 0x840000, stride: 128, count: )" + std::to_string(sub_run) +
                  R"(, elem_bytes: 8 } }
    - dma_read: { id: ld, bytes: 65536, writes: [{ tcm: 0x880000, bytes: 65536 }] }
)");
}

}  // namespace

BOOST_AUTO_TEST_CASE(bank_limit_30_20_1_runs_concurrently) {
    // mm: 2 -> 3 -> 259. f: submitted 4, no DMA running: started 5; its bank 0
    // is mm's, so it makes no progress until mm completes (main starves sub),
    // then 5 ns: finished 264. ld: submitted 6, bank 0 sum 30 + 20 + 1 = 51 <
    // 64: started 7, finished 7 + 945.334 = 952.334 ns. At 7 all three run.
    auto sim = sim_text(bank_kernel(20));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult mm = sim->command("mm"), f = sim->command("f"), ld = sim->command("ld");
    BOOST_CHECK_EQUAL(mm.started_ps, 3000u);
    BOOST_CHECK_EQUAL(mm.finished_ps, 259000u);
    BOOST_CHECK_EQUAL(f.started_ps, 5000u);
    BOOST_CHECK_EQUAL(f.finished_ps, 264000u);
    BOOST_CHECK_EQUAL(ld.started_ps, 7000u);
    BOOST_CHECK_EQUAL(ld.finished_ps, 952334u);
    BOOST_CHECK(overlaps(mm, f) && overlaps(mm, ld) && overlaps(f, ld));
    BOOST_CHECK_EQUAL(ld.waited_ps[kBank], 0u);
    for (const char* id : {"mm", "f", "ld"})
        BOOST_CHECK_MESSAGE(total_wait(sim->command(id)) == 0, id);
}

BOOST_AUTO_TEST_CASE(bank_limit_30_35_1_is_serialised) {
    // mm 3 -> 259; f started 5, starved by mm until 259, finished 264.
    // ld submitted 6: bank 0 would be 30 + 35 + 1 = 66 >= 64: waits (bank).
    // At 259 mm completes: 35 + 1 = 36 < 64, so ld is dispatched at 259
    // (waited bank 253 ns), started 260, finished 260 + 945.334 = 1205.334 ns.
    // ld never runs while mm does.
    auto sim = sim_text(bank_kernel(35));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult mm = sim->command("mm"), f = sim->command("f"), ld = sim->command("ld");
    BOOST_CHECK_EQUAL(mm.finished_ps, 259000u);
    BOOST_CHECK_EQUAL(f.finished_ps, 264000u);
    BOOST_CHECK_EQUAL(ld.waited_ps[kBank], 253000u);
    BOOST_CHECK_EQUAL(total_wait(ld), 253000u);
    BOOST_CHECK_EQUAL(ld.started_ps, 260000u);
    BOOST_CHECK_EQUAL(ld.finished_ps, 1205334u);
    BOOST_CHECK(!overlaps(mm, ld));
    const auto begins = sim->wait_begins(2);
    BOOST_REQUIRE_EQUAL(begins.size(), 1u);
    BOOST_CHECK_EQUAL(begins[0].cause, "bank");
    BOOST_CHECK_EQUAL(begins[0].stage, "dma");
    BOOST_CHECK_EQUAL(begins[0].detail, "bank 0: main 30 + sub 35 + DMA 1 = 66 >= 64 (mm, f, ld)");
}

BOOST_AUTO_TEST_CASE(bank_limit_30_35_1_reported_under_detect) {
    // Under detect, ld starts at its submission (6 ns) anyway: the violation
    // stops the run at once, before anything has finished.
    auto sim = sim_text(bank_kernel(35),
                        {"cube.pe_template.components.pe_scheduler.attrs.bank_policy=detect"});
    sim->start();
    BOOST_CHECK(!sim->run.finished());
    BOOST_CHECK(sim->platform.status().failed());
    const std::string error = sim->platform.status().error();
    BOOST_CHECK_MESSAGE(error.find("bank 0: main 30 + sub 35 + DMA 1 = 66 >= 64 (mm, f, ld)") !=
                            std::string::npos,
                        error);
    BOOST_CHECK_MESSAGE(error.find("when starting ld") != std::string::npos, error);
    BOOST_CHECK_EQUAL(sim->platform.status().time().value(), 6000u);
    std::size_t violations = 0;
    for (const WaitLine& w : sim->events)
        if (w.ev == "bank_violation") {
            ++violations;
            BOOST_CHECK_EQUAL(w.t_ps, 6000u);
            BOOST_CHECK_EQUAL(w.cmd, 2);
            BOOST_CHECK_EQUAL(w.detail, "bank 0: main 30 + sub 35 + DMA 1 = 66 >= 64 (mm, f, ld)");
        }
    BOOST_CHECK_EQUAL(violations, 1u);
}

// Issue 39 point 4 (seed 002: the sum counts every engine running at once):
// a composite whose tiles run counts as a DMA, 1 on each of banks 0..15, as
// the simple dma_read above. c: 128³ bf16, one tile, apart from the others'
// ranges.
const char* const composite_first = R"(
    - composite: { id: c, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, reuse: none, src: { pa: 0x1000000 }, dst: { pa: 0x2000000 } }
    - gemm: { id: mm, m: 128, k: 128, n: 128, access: { base: 0x800000, stride: 128, count: 30, elem_bytes: 8 } }
    - fetch: { id: f, bytes: 4096, access: { base: 0x840000, stride: 128, count: 35, elem_bytes: 8 } }
)";

BOOST_AUTO_TEST_CASE(a_composites_dma_counts_in_the_bank_sum) {
    // c submitted 2, its tile fed at 3 (it runs to ~2 µs). mm submitted 4:
    // bank 0 = main 30 + DMA 1 = 31: started 5, + 256 -> 261. f submitted 6:
    // 30 + 35 + 1 = 66 >= 64: waits (bank) until mm completes at 261 (then
    // 35 + 1 = 36), dispatched 261, started 262, FETCH 4096 B 2 + 2 + 1 = 5
    // -> 267 (before: it started at 7, beside c's DMA, with no wait).
    auto sim = sim_text(kernel(composite_first));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult mm = sim->command("mm"), f = sim->command("f");
    BOOST_CHECK_EQUAL(mm.finished_ps, 261000u);
    BOOST_CHECK_EQUAL(f.waited_ps[kBank], 255000u);
    BOOST_CHECK_EQUAL(f.started_ps, 262000u);
    BOOST_CHECK_EQUAL(f.finished_ps, 267000u);
    const auto begins = sim->wait_begins(2);
    BOOST_REQUIRE_EQUAL(begins.size(), 1u);
    BOOST_CHECK_EQUAL(begins[0].detail, "bank 0: main 30 + sub 35 + DMA 1 = 66 >= 64 (mm, f, composite c)");
}

BOOST_AUTO_TEST_CASE(a_composites_dma_in_the_bank_sum_is_reported_under_detect) {
    // As above under detect: f starts at 6 anyway and the run stops there.
    auto sim = sim_text(kernel(composite_first),
                        {"cube.pe_template.components.pe_scheduler.attrs.bank_policy=detect"});
    sim->start();
    BOOST_CHECK(sim->platform.status().failed());
    const std::string error = sim->platform.status().error();
    BOOST_CHECK_MESSAGE(error.find("when starting f: bank 0: main 30 + sub 35 + DMA 1 = 66 >= 64 (mm, f, composite c)") !=
                            std::string::npos,
                        error);
    BOOST_CHECK_EQUAL(sim->platform.status().time().value(), 6000u);
}

BOOST_AUTO_TEST_CASE(a_composite_waits_to_start_beside_a_full_bank) {
    // The other order: mm 2 -> 3 -> 259, f started 5 (starved by mm until
    // 259, then 5 ns -> 264); c submitted 6 would make bank 0 66: it waits
    // (bank) until mm completes at 259, its first tile fed 1 ns later
    // (started 260).
    const std::string last = kernel(R"(
    - gemm: { id: mm, m: 128, k: 128, n: 128, access: { base: 0x800000, stride: 128, count: 30, elem_bytes: 8 } }
    - fetch: { id: f, bytes: 4096, access: { base: 0x840000, stride: 128, count: 35, elem_bytes: 8 } }
    - composite: { id: c, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, reuse: none, src: { pa: 0x1000000 }, dst: { pa: 0x2000000 } }
)");
    auto sim = sim_text(last);
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult c = sim->command("c");
    BOOST_CHECK_EQUAL(sim->command("f").finished_ps, 264000u);
    BOOST_CHECK_EQUAL(c.waited_ps[kBank], 253000u);
    BOOST_CHECK_EQUAL(c.started_ps, 260000u);
}

BOOST_AUTO_TEST_CASE(bank_limit_30_20_1_not_reported_under_detect) {
    // The safe sum under detect: same times as under serialize (ld 7 -> 952.334).
    auto sim = sim_text(bank_kernel(20),
                        {"cube.pe_template.components.pe_scheduler.attrs.bank_policy=detect"});
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    BOOST_CHECK_EQUAL(sim->command("ld").finished_ps, 952334u);
    BOOST_CHECK(sim->events.empty());
}

// ------------------------------------------------------ 6. main starves sub

BOOST_AUTO_TEST_CASE(main_starves_sub_on_shared_banks) {
    // M (main GEMM, run 10 on bank 0): 3 -> 259 ns (256).
    // S (sub fetch 65536 B, run 10 on bank 0): own time 2 + 65536/2048 + 1 =
    // 35 ns; started 5 but stalled while M hits bank 0: finished 259 + 35 = 294.
    // Total from M's start: 291 = main 256 + sub 35. Makespan 294 ns.
    auto sim = sim_text(kernel(R"(
    - gemm: { id: M, m: 128, k: 128, n: 128,
              access: { base: 0x800000, stride: 128, count: 10, elem_bytes: 8 } }
    - fetch: { id: S, bytes: 65536,
               access: { base: 0x840000, stride: 128, count: 10, elem_bytes: 8 } }
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult m = sim->command("M"), s = sim->command("S");
    BOOST_CHECK_EQUAL(m.finished_ps, 259000u);
    BOOST_CHECK_EQUAL(s.started_ps, 5000u);
    BOOST_CHECK_EQUAL(s.finished_ps, m.finished_ps + 35000u);
    BOOST_CHECK_EQUAL(s.finished_ps - m.started_ps, 256000u + 35000u);
    BOOST_CHECK_EQUAL(sim->run.makespan_ps(), 294000u);
    BOOST_CHECK_EQUAL(total_wait(s), 0u);  // a stall, not a scheduling wait
}

BOOST_AUTO_TEST_CASE(main_starves_sub_only_once_its_engine_begins) {
    // Issue 39 point 3: M (main GEMM, bank 0) is dispatched while a
    // composite's MATH holds accel_slot; S (sub fetch, bank 0) runs while M
    // waits for the slot, and is not starved: the penalty starts when M's
    // engine begins (seed 002).
    // c (composite 128 x 128 x 256 bf16, one tile, relu): READ 98304 B at 3:
    //   channel 503, attach 505, HBM 605 (port free 505 + 512 = 1017), TCM
    //   607, done + 512 = 1119; FETCH 1119 + 2 + 48 + 1 = 1170; GEMM
    //   ceil(256/128)·128 + 128 = 384 -> 1554; MATH relu over 32768
    //   elements 64 + 8 = 72 -> 1626 (holds accel_slot 1554 -> 1626).
    // st (dma_write 88896 B, reads tcm [0x900000, +128)): started 5, TCM
    //   read 7, channel 507, attach 509, HBM port free at 1017: 1117, done
    //   + 88896/192 = 463 -> 1580.
    // M writes [0x900000, +64) and S [0x900040, +64): WAR with st, both
    //   wait to 1580. M dispatched 1580 (+1); GEMM idle, accel_slot held:
    //   begins at 1626, + 256 = 1882. S dispatched 1581, started 1582, FETCH
    //   65536 B: 2 + 32 + 1 = 35 -> 1617, before M begins: unstalled (it
    //   finished 1882 + 35 = 1917 when M counted from its dispatch).
    auto sim = sim_text(kernel(R"(
    - composite: { id: c, gemm: { m: 128, k: 128, n: 256 }, tile: { m: 128, k: 128, n: 256 }, epilogues: [ { op: relu, scope: per_output_tile } ], reuse: none, src: { pa: 0x0 }, dst: { pa: 0x100000 } }
    - dma_write: { id: st, bytes: 88896, addr: { pa: 0x200000 }, reads: [ { tcm: 0x900000, bytes: 128 } ] }
    - gemm: { id: M, m: 128, k: 128, n: 128, writes: [ { tcm: 0x900000, bytes: 64 } ],
              access: { base: 0x800000, stride: 128, count: 10, elem_bytes: 8 } }
    - fetch: { id: S, bytes: 65536, writes: [ { tcm: 0x900040, bytes: 64 } ],
               access: { base: 0x840000, stride: 128, count: 10, elem_bytes: 8 } }
    - wait: all
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult st = sim->command("st"), m = sim->command("M"), s = sim->command("S");
    BOOST_CHECK_EQUAL(st.finished_ps, 1580000u);
    BOOST_CHECK_EQUAL(m.started_ps, 1626000u);
    BOOST_CHECK_EQUAL(m.finished_ps, 1882000u);
    BOOST_CHECK_EQUAL(m.waited_ps[kResource], 45000u);  // 1581 -> 1626, for accel_slot
    BOOST_CHECK_EQUAL(s.started_ps, 1582000u);
    BOOST_CHECK_EQUAL(s.finished_ps, 1617000u);
}

BOOST_AUTO_TEST_CASE(disjoint_banks_take_max) {
    // As above with S on bank 1 (base 0x840008): S runs 5 -> 40 ns, overlapping
    // M (3 -> 259). Makespan = M's finish, 259 ns (max(main, sub)).
    auto sim = sim_text(kernel(R"(
    - gemm: { id: M, m: 128, k: 128, n: 128,
              access: { base: 0x800000, stride: 128, count: 10, elem_bytes: 8 } }
    - fetch: { id: S, bytes: 65536,
               access: { base: 0x840008, stride: 128, count: 10, elem_bytes: 8 } }
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult m = sim->command("M"), s = sim->command("S");
    BOOST_CHECK_EQUAL(m.finished_ps, 259000u);
    BOOST_CHECK_EQUAL(s.started_ps, 5000u);
    BOOST_CHECK_EQUAL(s.finished_ps, 40000u);
    BOOST_CHECK(overlaps(m, s));
    BOOST_CHECK_EQUAL(sim->run.makespan_ps(), 259000u);
}

// ------------------------------------------------------------------- 7. MNIST

BOOST_AUTO_TEST_CASE(mnist_dma_overlaps_main_and_preload_waits_raw) {
    // rngd_pe.yaml's kernel start-up 2000 ns comes first. ld_x (seq 0):
    // submitted 2002, started 2003, DMA_READ 1600 B: 604 + 8.334 -> finished
    // 2615.334 ns. pre_x (seq 5, fetch reading tcm [0x800000, +1600)) is
    // submitted at 2012 ns while ld_x is in flight: RAW with ld_x, waits
    // 2012 -> 2615.334 = 603.334 ns (dependency).
    const TopologyConfig topo = test::load_shipped("rngd_pe");
    Sim sim(topo, load_workload_file(std::string(NPUVP_SOURCE_DIR) +
                                         "/configs/workloads/mnist_mlp_opbyop.yaml",
                                     topo));
    sim.start();
    BOOST_REQUIRE_MESSAGE(sim.run.finished(), sim.run.diagnosis());
    const auto all = sim.run.commands();
    bool overlap = false;
    for (const CommandResult& d : all)
        for (const CommandResult& g : all)
            if (d.command->kind == CommandKind::dma_read && g.command->kind == CommandKind::gemm &&
                g.command->context == ExecContext::main && overlaps(d, g))
                overlap = true;
    BOOST_CHECK(overlap);
    const CommandResult ld_x = sim.command("ld_x"), pre_x = sim.command("pre_x");
    BOOST_CHECK_EQUAL(ld_x.finished_ps, 2615334u);
    BOOST_CHECK_EQUAL(pre_x.submitted_ps, 2012000u);
    BOOST_CHECK_GT(pre_x.waited_ps[kDependency], 0u);
    BOOST_CHECK_EQUAL(pre_x.waited_ps[kDependency], 603334u);
    BOOST_CHECK_GE(pre_x.started_ps, ld_x.finished_ps);
    const auto begins = sim.wait_begins(5);
    BOOST_REQUIRE(!begins.empty());
    BOOST_CHECK_EQUAL(begins[0].cause, "dependency");
    BOOST_CHECK_EQUAL(begins[0].detail, "RAW on tcm [0x800000, +0x640) with ld_x");
}

// ---------------------------------------------------------------- 6. every wait has a cause

BOOST_AUTO_TEST_CASE(a_composite_behind_another_waits_for_the_feed) {
    // Issue 39 point 6: the feed loop feeds one composite's tiles at a time;
    // a composite queued behind another records that wait (`feed`, naming
    // the one ahead). mm1: four bf16 128³ tiles (65536 B read each), mm2
    // one. mm1 submitted 2; its tiles are fed at 3, 4, 5, 6 (1 ns overhead
    // each); the DMA_READ inbox holds 2 (inbox_depth) and rd0 took tile 0
    // at 3, so tiles 1 and 2 fill it and tile 3 waits for a slot: rd0 ends
    // tile 0 at 3 + 945.334 = 948.334 and takes tile 1, tile 3 goes in, and
    // mm1's feed is done. mm2, submitted at 4, waits `feed` 4 -> 948.334 =
    // 944.334 ns, then is fed (started 949.334).
    auto sim = sim_text(kernel(R"(
    - composite: { id: mm1, gemm: { m: 512, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, reuse: none, src: { pa: 0x0 }, dst: { pa: 0x100000 } }
    - composite: { id: mm2, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, reuse: none, src: { pa: 0x200000 }, dst: { pa: 0x300000 } }
    - wait: all
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    constexpr std::size_t kFeed = static_cast<std::size_t>(WaitCause::feed);
    const CommandResult mm2 = sim->command("mm2");
    BOOST_CHECK_EQUAL(mm2.submitted_ps, 4000u);
    BOOST_CHECK_EQUAL(mm2.waited_ps[kFeed], 944334u);
    BOOST_CHECK_EQUAL(total_wait(mm2), 944334u);
    BOOST_CHECK_EQUAL(mm2.started_ps, 949334u);
    BOOST_CHECK_EQUAL(total_wait(sim->command("mm1")), 0u);
    const std::vector<WaitLine> begins = sim->wait_begins(1);
    BOOST_REQUIRE_EQUAL(begins.size(), 1u);
    BOOST_CHECK_EQUAL(begins[0].cause, "feed");
    BOOST_CHECK_EQUAL(begins[0].detail, "feed behind mm1");
    BOOST_CHECK_EQUAL(begins[0].t_ps, 4000u);
}

BOOST_AUTO_TEST_CASE(a_simple_dmas_own_range_is_a_hazard_range) {
    // Issue 39 point 5 (seed 002, RAW on addresses): st, a dma_write of
    // 65536 B to PA 0 that declares no `writes`, writes [0, +65536) of pe0's
    // slice; mm, a composite after it, reads A and B from PA 0: RAW, so mm
    // waits for st (before, it read the bytes st had not written yet).
    // st: submitted 2, started 3; TCM read port 2 -> 5, channel 500 -> 505,
    // attach 1 + 1 -> 507, HBM 100 -> 607, done + 65536/192 = 341.334 ->
    // 948.334. mm: submitted 4, waits (dependency) 4 -> 948.334 = 944.334,
    // its first tile fed 1 ns later: started 949.334.
    auto sim = sim_text(kernel(R"(
    - dma_write: { id: st, bytes: 65536, addr: { pa: 0x0 } }
    - composite: { id: mm, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, src: { pa: 0x0 }, dst: { pa: 0x100000 } }
    - wait: all
)"));
    sim->start();
    BOOST_REQUIRE_MESSAGE(sim->run.finished(), sim->run.diagnosis());
    const CommandResult st = sim->command("st"), mm = sim->command("mm");
    BOOST_CHECK_EQUAL(st.finished_ps, 948334u);
    BOOST_CHECK_EQUAL(mm.waited_ps[kDependency], 944334u);
    BOOST_CHECK_EQUAL(mm.started_ps, 949334u);
    const std::vector<WaitLine> begins = sim->wait_begins(1);
    BOOST_REQUIRE_EQUAL(begins.size(), 1u);
    BOOST_CHECK_EQUAL(begins[0].cause, "dependency");
    BOOST_CHECK_MESSAGE(begins[0].detail.find("RAW on hbm [0x0, +0x10000) with st") != std::string::npos,
                        begins[0].detail);
}
