// Operand reuse in composites (docs/timing.md "Operand reuse"; issue 18): the
// token plan and bytes of each choice, the default rule, a panel that cannot
// fit, and a makespan derived by hand with an A row panel; with several read
// channels, a panel's tile fetched only once loaded and the panel kept until
// its last token completes (issue 39).
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "config/config_error.h"
#include "config/workload_loader.h"
#include "modules/pe/tile_plan.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/run_npuvp.h"
#include "testbench/harness/trace_reader.h"

using namespace npuvp;

namespace {

// 300 x 200 x 130 bf16 in 128^3 tiles: Mt = 3, Nt = 2, Kt = 2, 12 tokens.
CompositeSpec clipped(OperandReuse reuse) {
    CompositeSpec s;
    s.m = 300, s.k = 200, s.n = 130;
    s.tm = s.tk = s.tn = 128;
    s.d_in = s.d_out = 2;
    s.ops = {OpSpec{"gemm", EpilogueScope::per_output_tile}};
    s.reuse = reuse;
    return s;
}

struct Totals {
    std::uint64_t read = 0, fetched = 0, panels = 0, panel_frees = 0;
    std::vector<std::uint64_t> order;  // (mi, ni, ki) as mi·100 + ni·10 + ki
    std::vector<std::uint64_t> panel_sizes;
};

Totals walk(const CompositeSpec& s) {
    Totals t;
    TilePlanner planner(s);
    TilePlan plan;
    while (planner.next(plan)) {
        t.order.push_back(plan.mi * 100 + plan.ni * 10 + plan.ki);
        for (const Stage& st : plan.stages) {
            if (st.type == StageType::dma_read) t.read += st.bytes;
            if (st.type == StageType::fetch) t.fetched += st.bytes;
        }
        if (plan.panel_bytes) {
            ++t.panels;
            t.panel_sizes.push_back(plan.panel_bytes);
        }
        t.panel_frees += plan.panel_last;
    }
    return t;
}

WorkloadConfig load(const std::string& yaml, const TopologyConfig& topo) {
    return load_workload_text(yaml, "test.yaml", topo);
}

// One run of `yaml` on default.yaml, to its end (no outputs).
struct Run {
    TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    Platform platform{topo, trace};
    WorkloadConfig w;
    std::unique_ptr<WorkloadRun> run;

    explicit Run(const std::string& yaml) : w(load(yaml, topo)) {
        run = std::make_unique<WorkloadRun>(platform, w);
        sc_core::sc_start();
        BOOST_REQUIRE(run->finished());
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(token_plan_and_bytes_of_each_choice) {
    // No reuse: every token reads its A and B tiles: A Nt times, B Mt times,
    // 2·(2·300·200 + 3·200·130) = 396000 B.
    const Totals none = walk(clipped(OperandReuse::none));
    BOOST_CHECK_EQUAL(none.read, 396000u);
    BOOST_CHECK_EQUAL(none.panels, 0u);
    // A row panel: tokens in (mi, ni, ki) order; A read once (300·200·2 =
    // 120000 B), B once per M tile (3·200·130·2 = 156000 B): 276000 B. A
    // panel per mi, tm·K·2: 51200, 51200, then 44·200·2 = 17600 (clipped),
    // each freed with its last token (ni = 1, ki = 1).
    const Totals a = walk(clipped(OperandReuse::a_panel));
    BOOST_CHECK_EQUAL(a.read, 276000u);
    BOOST_CHECK(a.order == (std::vector<std::uint64_t>{0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211}));
    BOOST_CHECK(a.panel_sizes == (std::vector<std::uint64_t>{51200, 51200, 17600}));
    BOOST_CHECK_EQUAL(a.panel_frees, 3u);
    // B column panel: tokens in (ni, mi, ki) order; B read once (200·130·2 =
    // 52000 B), A once per N tile (2·300·200·2 = 240000 B): 292000 B. Panels
    // K·tn·2: 51200, then 200·2·2 = 800.
    const Totals b = walk(clipped(OperandReuse::b_panel));
    BOOST_CHECK_EQUAL(b.read, 292000u);
    BOOST_CHECK(b.order == (std::vector<std::uint64_t>{0, 1, 100, 101, 200, 201, 10, 11, 110, 111, 210, 211}));
    BOOST_CHECK(b.panel_sizes == (std::vector<std::uint64_t>{51200, 800}));
    BOOST_CHECK_EQUAL(b.panel_frees, 2u);
    // The closed form the default rule and the printed line use agrees with
    // the planner's tokens.
    for (OperandReuse r : {OperandReuse::none, OperandReuse::a_panel, OperandReuse::b_panel})
        BOOST_CHECK_EQUAL(composite_read_bytes(clipped(r), r), walk(clipped(r)).read);
    // FETCH still takes both operand tiles to the register file: the same
    // bytes in every choice.
    BOOST_CHECK_EQUAL(a.fetched, none.fetched);
    BOOST_CHECK_EQUAL(b.fetched, none.fetched);
}

BOOST_AUTO_TEST_CASE(the_default_keeps_the_operand_that_saves_most) {
    const TopologyConfig topo = test::load_shipped("default");  // 8 MiB reserved
    // 300 x 200 x 130: an A panel saves (Nt - 1)·M·K·2 = 120000 B, a B panel
    // (Mt - 1)·K·N·2 = 104000 B: A.
    WorkloadConfig w = load(R"(
kernels:
  k:
    - composite: { id: c, gemm: { m: 300, k: 200, n: 130 }, tile: { m: 128, k: 128, n: 128 } }
    - composite: { id: tall, gemm: { m: 1024, k: 256, n: 128 }, tile: { m: 128, k: 128, n: 128 } }
    - composite: { id: one, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 } }
    - composite: { id: huge_k, gemm: { m: 256, k: 65536, n: 256 }, tile: { m: 128, k: 128, n: 128 } }
launch: [ { kernel: k, pes: [0] } ]
)", topo);
    const auto& cmds = w.kernels.at("k").commands;
    BOOST_CHECK(cmds[0].composite.reuse == OperandReuse::a_panel);
    // 1024 x 256 x 128: one N tile, so an A panel saves nothing; a B panel
    // saves 7·256·128·2 B: B.
    BOOST_CHECK(cmds[1].composite.reuse == OperandReuse::b_panel);
    // One tile: nothing to save, none.
    BOOST_CHECK(cmds[2].composite.reuse == OperandReuse::none);
    // K = 65536: a panel is 128·65536·2 = 16 MiB, more than the 8 MiB
    // reserved: none.
    BOOST_CHECK(cmds[3].composite.reuse == OperandReuse::none);
}

BOOST_AUTO_TEST_CASE(a_named_panel_that_cannot_fit_is_an_error_naming_the_command) {
    const TopologyConfig topo = test::load_shipped("default");
    try {
        load(R"(
kernels:
  k:
    - composite: { id: huge_k, gemm: { m: 256, k: 65536, n: 256 }, tile: { m: 128, k: 128, n: 128 }, reuse: a_panel }
launch: [ { kernel: k, pes: [0] } ]
)", topo);
        BOOST_FAIL("a 16 MiB panel in 8 MiB of reserved TCM was accepted");
    } catch (const ConfigError& e) {
        const std::string what = e.what();
        BOOST_CHECK_MESSAGE(what.find("composite 'huge_k': reuse a_panel needs a panel of 16777216 bytes") !=
                                std::string::npos,
                            what);
        BOOST_CHECK_MESSAGE(what.find("test.yaml:4") != std::string::npos, what);
    }
}

BOOST_AUTO_TEST_CASE(a_row_panel_makespan_by_hand) {
    // 128 x 128 x 256 bf16 in 128^3 tiles: two tokens (0,0,0) and (0,1,0);
    // the default keeps A (saves 32768 B; a B panel saves nothing). Figures
    // of default.yaml as in testbench/pe/pipeline_test.cpp; T1 per hop
    // t = max(t, free), free = t + n/B, t += L, every hop reserved when the
    // transfer starts.
    // READ0  at 3: A + B, 65536 B: done 948.334 (HBM free 846.334, TCM
    //        write port free 615)
    // FETCH0 948.334 + 2 + 32 + 1 = 983.334; GEMM0 + 256 = 1239.334
    // READ1  at 948.334: B only, 32768 B: channel 1448.334, attach 1450.334,
    //        HBM (free 1621.001) 1550.334, TCM write port (free 1554.334)
    //        1552.334; done + 170.667 = 1723.001
    // STORE0 at 1239.334: TCM write port reserved by READ1 until 1554.334:
    //        1556.334; done + 16 + 1 = 1573.334
    // WRITE0 at 1573.334: TCM read 1575.334, channel 2075.334, attach
    //        2077.334, HBM (free since 1621.001; free 2248.001) 2177.334;
    //        done + 170.667 = 2348.001
    // FETCH1 at 1723.001: both tiles, A from the panel, 65536 B: 1758.001;
    //        GEMM1 2014.001; STORE1 2033.001
    // WRITE1 when the write channel is free, 2348.001: TCM read 2350.001,
    //        channel 2850.001, attach 2852.001, HBM (free 2248.001)
    //        2952.001; done + 170.667 = 3122.668 = the command's end
    Run r(R"(
kernels:
  k:
    - composite: { id: mm, gemm: { m: 128, k: 128, n: 256 }, tile: { m: 128, k: 128, n: 128 }, wait: true }
launch: [ { kernel: k, pes: [0] } ]
)");
    BOOST_REQUIRE(r.w.kernels.at("k").commands[0].composite.reuse == OperandReuse::a_panel);
    BOOST_CHECK_EQUAL(r.run->makespan_ps(), 3122668u);
    BOOST_CHECK_EQUAL(r.platform.pe(0, 0, 0).dma().bytes_moved(DmaDirection::read), 65536u + 32768u);
}

BOOST_AUTO_TEST_CASE(operands_in_two_places) {
    // A in pe0's HBM slice (src), B in the cube's shared SRAM (src_b), the
    // same 128 x 128 x 256 as above with its A panel: token 0 reads A (128·128·2
    // = 32768 B, from HBM) and B tile 0 (32768 B, from SRAM), token 1 only B
    // tile 1 (32768 B, from SRAM), at B's tile-major offset ni·TN·tk·2 =
    // 32768 past src_b.
    Run r(R"(
kernels:
  k:
    - composite: { id: mm, gemm: { m: 128, k: 128, n: 256 }, tile: { m: 128, k: 128, n: 128 }, src: { pa: 0x0 }, src_b: { pa: 0x1000000000000 }, wait: true }
launch: [ { kernel: k, pes: [0] } ]
)");
    const CubeNodes& cube = r.platform.sips()[0].cubes[0];
    BOOST_CHECK_EQUAL(cube.hbm[0]->bytes_read(), 32768u);
    BOOST_CHECK_EQUAL(cube.shared_sram->bytes_read(), 65536u);
    BOOST_CHECK_EQUAL(r.platform.pe(0, 0, 0).dma().bytes_moved(DmaDirection::read), 98304u);
}

BOOST_AUTO_TEST_CASE(the_run_says_which_operand_it_kept) {
    // gemm_bias_relu.yaml, 512^3 bf16 in 128^3 tiles (Mt = Nt = 4): without
    // reuse 4·A + 4·B = 8·512·512·2 = 4194304 B; the default A panel reads
    // A once, 524288 + 4·524288 = 2621440 B, 37.5 % fewer.
    const test::RunResult r = test::run_npuvp("--workload " + test::shipped_workload("gemm_bias_relu"));
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_CHECK_MESSAGE(r.out.find("gemm_bias_relu.fc1       a_panel  (default) reads 2621440 B instead of "
                                   "4194304 B (37.5 % fewer)") != std::string::npos,
                        r.out);
}

BOOST_AUTO_TEST_CASE(a_simple_command_on_a_reused_token_frees_no_panel) {
    // A composite that keeps an A panel (the default for 256 x 128 x 64: its
    // last token frees the panel), then, in a second kernel on the same PE, a
    // simple dma_read that takes a pooled token. Before the fix the token
    // still said panel_last and its completion freed the panel a second time
    // ("SchedulerReservedTCM: free of address 0 that is not a live
    // allocation"); now both kernels finish, the read after the composite.
    const Run r(R"(name: t
kernels:
  a:
    - composite: { id: c, gemm: { m: 256, k: 128, n: 64 }, tile: { m: 128, k: 128, n: 64 } }
    - wait: all
  b:
    - dma_read: { id: rd, bytes: 24576 }
    - wait: all
launch:
  - { kernel: a, cube: sip0.cube0, pes: [0] }
  - { kernel: b, cube: sip0.cube0, pes: [0] }
)");
    std::uint64_t composite_end = 0, read_start = 0;
    for (const CommandResult& c : r.run->commands()) {
        if (c.command->id == "c") composite_end = c.finished_ps;
        if (c.command->id == "rd") read_start = c.started_ps;
    }
    BOOST_CHECK_GT(composite_end, 0u);
    BOOST_CHECK_GT(read_start, composite_end);
}

// --- an A panel with several read channels (issue 39, point 1) ------------

namespace {

// 128 x 128 x 64 int8 in 128 x 128 x 32 tiles with an A panel: token 0
// loads A (128·128 = 16384 B from pe0's HBM slice) and B tile 0 (4096 B from
// the shared SRAM); token 1 loads only B tile 1 (4096 B from SRAM) and
// fetches A from the panel. Data mode: A and B are seeded random values, C
// is dumped (128 x 64 int32) to `c_file`.
std::string panel_workload(const std::string& c_file) {
    return R"(name: panel
kernels:
  k:
    - composite:
        id: mm
        gemm: { m: 128, k: 128, n: 64 }
        tile: { m: 128, k: 128, n: 32 }
        dtype: { in: int8, out: int32 }
        reuse: a_panel
        src: { pa: 0x0 }
        src_b: { pa: 0x1000000000000 }
        dst: { pa: 0x100000 }
        wait: true
launch:
  - { kernel: k, cube: sip0.cube0, pes: [0] }
data:
  - { hbm: 0x0, dtype: int8, shape: [128, 128], from: { random: { seed: 1, min: -128, max: 127 } } }
  - { sram: 0x1000000000000, dtype: int8, shape: [128, 64], from: { random: { seed: 2, min: -128, max: 127 } } }
dump:
  - { hbm: 0x100000, dtype: int32, shape: [128, 64], file: )" +
           c_file + " }\n";
}

// Runs it with `channels` read channels (and `extra` --sets), returns the
// trace's lines and C's bytes.
std::pair<std::vector<test::TraceLine>, std::string> run_panel(int channels, const std::string& extra,
                                                                const std::string& tag) {
    const std::string yaml = "operand_reuse_test_" + tag + ".yaml";
    const std::string c_file = "operand_reuse_test_" + tag + ".c.bin";
    const std::string trace = "operand_reuse_test_" + tag + ".jsonl";
    {
        std::ofstream out(yaml);
        out << panel_workload(c_file);
    }
    const test::RunResult r =
        test::run_npuvp("--workload " + yaml + " --set cube.pe_template.components.pe_dma.attrs.rd_engines=" +
                        std::to_string(channels) + " " + extra + " --trace " + trace);
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    return {test::parse_trace(test::slurp(trace)), test::slurp(c_file)};
}

const test::TraceLine& find_line(const std::vector<test::TraceLine>& lines, const std::string& ev,
                                 const std::string& stage, std::int64_t tile) {
    for (const test::TraceLine& l : lines)
        if (l.ev == ev && l.stage == stage && l.tile == tile) return l;
    BOOST_FAIL("no " << ev << " " << stage << " of tile " << tile);
    return lines.front();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_panel_tile_is_fetched_only_after_its_load) {
    // seed 000 D3.2: a token that uses a panel tile fetches it once the
    // token that loads it has ended its DMA_READ. Token 0's READ on rd0, its
    // A piece (default.yaml as above; T1 per hop): channel 3 + 500, attach
    // 1 + 1, HBM 100, TCM write port 2 -> 607; done 607 + ser(16384 B,
    // 192 GB/s) = 607 + 85.334 = 692.334 (its B piece, from SRAM, is done
    // before). With one read channel token 1's READ queues behind it; with
    // two or four it runs on rd1 from 4 ns and, reading 4096 B from SRAM,
    // ends first: its FETCH must still begin at 692.334, not at its own end.
    for (int channels : {1, 2, 4}) {
        BOOST_TEST_CONTEXT(channels << " read channels") {
            const auto [lines, c] = run_panel(channels, "", "fetch_" + std::to_string(channels));
            BOOST_CHECK_EQUAL(find_line(lines, "engine_complete", "DMA_READ", 0).t_ps, 692334u);
            const test::TraceLine& fetch1 = find_line(lines, "engine_start", "FETCH", 1);
            BOOST_CHECK_GE(fetch1.t_ps, 692334u);
            if (channels > 1) {
                BOOST_CHECK_LT(find_line(lines, "engine_complete", "DMA_READ", 1).t_ps, 692334u);
                BOOST_CHECK_EQUAL(fetch1.t_ps, 692334u);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(a_panel_computes_the_same_with_any_read_channels) {
    // Data mode, with HBM slowed to 4 GB/s so that token 0's A takes 4 µs
    // to load while token 1's B (from SRAM) is in at once: before the fix,
    // token 1 fetched and multiplied an empty panel and C's second column
    // tile (bytes 16384 on, tile-major) came out zero with two or more read
    // channels. C must be the one-channel C (which data_mode tests check
    // against a reference) with every channel count.
    const std::string slow = "--set cube.hbm_ctrl.attrs.bw_gbs=4";
    const std::string one = run_panel(1, slow, "data_1").second;
    BOOST_REQUIRE_EQUAL(one.size(), 128u * 64u * 4u);
    BOOST_CHECK(one.substr(16384) != std::string(16384, '\0'));
    for (int channels : {2, 4})
        BOOST_CHECK_MESSAGE(run_panel(channels, slow, "data_" + std::to_string(channels)).second == one,
                            channels << " read channels: C differs from one channel's");
}

BOOST_AUTO_TEST_CASE(a_panel_lives_until_its_last_token_completes) {
    // seed 000 D5.1: with two read channels token 1 (the panel's last) runs
    // ahead of token 0 and completes first. Reserved TCM: token 0 takes the
    // panel (128·128 = 16384 B), its B tile (128·32 = 4096 B) and its C tile
    // (128·32·4 = 16384 B): 36864; token 1 its B and C tiles: 20480 more,
    // 57344. When token 1 completes only its own 20480 B go (36864 left: the
    // panel stays, token 0 still uses it); the panel goes with token 0 (0).
    const auto [lines, c] = run_panel(2, "", "free");
    std::vector<std::int64_t> after;  // tcm_in_use right after each tile_ready
    std::vector<std::int64_t> ready;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i)
        if (lines[i].ev == "tile_ready" && lines[i + 1].ev == "tcm_in_use") {
            ready.push_back(lines[i].tile);
            after.push_back(lines[i + 1].bytes);
        }
    BOOST_CHECK((ready == std::vector<std::int64_t>{1, 0}));
    BOOST_CHECK((after == std::vector<std::int64_t>{36864, 0}));
}

// ---- Operands resident in TCM (`a_tcm`, `b_tcm`; docs/timing.md "Operands
// resident in TCM")

namespace {

// The error loading a 128 x 128 x 256 composite with `keys` on default.yaml
// (AllocatableTCM [8 MiB, 32 MiB)), or "accepted".
std::string composite_error(const std::string& keys) {
    const TopologyConfig topo = test::load_shipped("default");
    try {
        load("kernels:\n  k:\n    - composite: { id: mm, gemm: { m: 128, k: 128, n: 256 }, tile: { m: 128, k: 128, "
             "n: 128 }, " + keys + " }\nlaunch: [ { kernel: k, pes: [0] } ]\n",
             topo);
    } catch (const ConfigError& e) {
        return std::string(e.what());
    }
    return "accepted";
}

// C of the panel workload with each (from, to) of `swaps` made in its text
// (its operands moved into pe0's TCM), one read channel.
std::string c_with(const std::string& tag, const std::vector<std::pair<std::string, std::string>>& swaps) {
    const std::string c_file = "operand_reuse_test_" + tag + ".c.bin", yaml_file = "operand_reuse_test_" + tag + ".yaml";
    std::string yaml = panel_workload(c_file);
    for (const auto& [from, to] : swaps) {
        const std::size_t at = yaml.find(from);
        BOOST_REQUIRE_MESSAGE(at != std::string::npos, from);
        yaml.replace(at, from.size(), to);
    }
    {
        std::ofstream out(yaml_file);
        out << yaml;
    }
    const test::RunResult r = test::run_npuvp("--workload " + yaml_file);
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    return test::slurp(c_file);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_resident_b_leaves_the_token_reads) {
    // 300 x 200 x 130 as above with B in TCM: no token reads B. Without a
    // panel every token reads its A tile, A Nt times: 2 · 120000 = 240000 B;
    // with the A row panel A once, 120000 B, and the tokens of ni = 1 (Mt ·
    // Kt = 3 · 2 = 6 of 12) read nothing: they have no DMA_READ stage and
    // start at their FETCH. FETCH still moves both tiles.
    CompositeSpec none = clipped(OperandReuse::none);
    none.b_resident = true;
    CompositeSpec a = clipped(OperandReuse::a_panel);
    a.b_resident = true;
    BOOST_CHECK_EQUAL(walk(none).read, 240000u);
    BOOST_CHECK_EQUAL(walk(a).read, 120000u);
    BOOST_CHECK_EQUAL(composite_read_bytes(none, OperandReuse::none), 240000u);
    BOOST_CHECK_EQUAL(composite_read_bytes(a, OperandReuse::a_panel), 120000u);
    BOOST_CHECK_EQUAL(walk(a).fetched, walk(clipped(OperandReuse::none)).fetched);
    TilePlanner planner(a);
    TilePlan plan;
    int without_read = 0;
    while (planner.next(plan)) {
        const bool reads = plan.stages.front().type == StageType::dma_read;
        BOOST_CHECK_EQUAL(reads, plan.ni == 0);
        BOOST_CHECK(plan.stages[reads ? 1 : 0].type == StageType::fetch);
        // The input buffer holds A only, and only where the token reads it.
        BOOST_CHECK_EQUAL(plan.in_bytes, 0u);
        without_read += !reads;
    }
    BOOST_CHECK_EQUAL(without_read, 6);
    // B cannot also be in memory or in a panel.
    CompositeSpec both = clipped(OperandReuse::b_panel);
    both.b_resident = true;
    BOOST_CHECK_THROW(TilePlanner{both}, std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(b_tcm_errors_name_the_key) {
    const auto error_of = composite_error;
    // B is 128 · 256 · 2 = 65536 B.
    BOOST_CHECK_MESSAGE(error_of("b_tcm: 0x800000").find("accepted") != std::string::npos, error_of("b_tcm: 0x800000"));
    const std::string reserved = error_of("b_tcm: 0");
    BOOST_CHECK_MESSAGE(reserved.find("test.yaml:3") != std::string::npos &&
                            reserved.find("B (K·N·d_in = 65536 bytes) from TCM offset 0 is not inside AllocatableTCM "
                                          "[8388608, 33554432)") != std::string::npos,
                        reserved);
    // 33554432 - 65536 + 1: one byte past the TCM's end.
    const std::string past = error_of("b_tcm: 33488897");
    BOOST_CHECK_MESSAGE(past.find("from TCM offset 33488897 is not inside AllocatableTCM") != std::string::npos, past);
    const std::string with_src_b = error_of("b_tcm: 0x800000, src_b: { own: 0 }");
    BOOST_CHECK_MESSAGE(with_src_b.find("src_b places B in memory, but b_tcm says it is resident in TCM") !=
                            std::string::npos,
                        with_src_b);
    const std::string panel = error_of("b_tcm: 0x800000, reuse: b_panel");
    BOOST_CHECK_MESSAGE(panel.find("reuse b_panel keeps B in a panel, but b_tcm says it is resident") !=
                            std::string::npos,
                        panel);
}

BOOST_AUTO_TEST_CASE(a_resident_b_makespan_by_hand) {
    // 128 x 128 x 128 bf16, one token, B in TCM (default.yaml, the figures of
    // a_row_panel_makespan_by_hand): its DMA_READ is A only, 32768 B:
    // 3 -> 3 + 604 + 170.667 = 777.667; FETCH both tiles, 65536 B: + 2 + 32
    // + 1 -> 812.667; GEMM + 256 -> 1068.667; STORE 32768 B: + 2 + 16 + 1 ->
    // 1087.667; DMA_WRITE + 604 + 170.667 -> 1862.334. (Reading B as well:
    // 2033.001, its 170.667 ns of transfer at the HBM port more.)
    Run r(R"(
kernels:
  k:
    - composite: { id: mm, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, b_tcm: 0x800000, wait: true }
launch: [ { kernel: k, pes: [0] } ]
)");
    BOOST_CHECK_EQUAL(r.run->makespan_ps(), 1862334u);
    BOOST_CHECK_EQUAL(r.platform.pe(0, 0, 0).dma().bytes_moved(DmaDirection::read), 32768u);
}

BOOST_AUTO_TEST_CASE(a_prefetch_then_its_composite_by_hand) {
    // What a compiled kernel's weight prefetch is: a dma_read writing B's TCM
    // range, then a composite reading it (b_tcm). The composite's ranges
    // include B's TCM range as a read, so it waits for the dma_read (RAW,
    // seed 002). dma_read 32768 B issued 2, started 3: 3 + 604 + 170.667 =
    // 777.667. The composite, issued 4, waits; started 1 later than the
    // read's end (PE_SCHEDULER's overhead), 778.667, then as above: A
    // 774.667 -> 1553.334, FETCH 35 -> 1588.334, GEMM 256 -> 1844.334,
    // STORE 19 -> 1863.334, DMA_WRITE 774.667 -> 2638.001.
    Run r(R"(
kernels:
  k:
    - dma_read: { id: w, bytes: 32768, addr: { own: 0x100000 }, writes: [{ tcm: 0x800000, bytes: 32768 }] }
    - composite: { id: mm, gemm: { m: 128, k: 128, n: 128 }, tile: { m: 128, k: 128, n: 128 }, b_tcm: 0x800000, wait: true }
launch: [ { kernel: k, pes: [0] } ]
)");
    BOOST_CHECK_EQUAL(r.run->makespan_ps(), 2638001u);
    const auto commands = r.run->commands();
    const CommandResult* read = nullptr;
    const CommandResult* mm = nullptr;
    for (const CommandResult& c : commands) (c.command->id == "w" ? read : mm) = &c;
    BOOST_REQUIRE(read != nullptr && mm != nullptr);
    BOOST_CHECK_EQUAL(read->finished_ps, 777667u);
    BOOST_CHECK_EQUAL(mm->started_ps, 778667u);
}

namespace {

// 128 x 128 x 256 bf16 with B in TCM: two tokens; the A row panel (the
// default) is loaded by token 0, token 1 (ni = 1) has no DMA_READ.
const char* kTwoTokensResident = R"(
kernels:
  k:
    - composite: { id: mm, gemm: { m: 128, k: 128, n: 256 }, tile: { m: 128, k: 128, n: 128 }, b_tcm: 0x800000, wait: true }
launch: [ { kernel: k, pes: [0] } ]
)";

}  // namespace

BOOST_AUTO_TEST_CASE(a_token_without_a_read_waits_for_its_panel_tile) {
    // Token 1 reads nothing; it is fed once token 0 has read the A panel's
    // tile (fed before, it could wait in FETCH's inbox ahead of the token
    // that loads it). By hand (default.yaml): READ0 A 32768 B 3 -> 777.667;
    // then both tokens reach FETCH in the next round, each FETCH 35 ns
    // (65536 B), back to back: 777.667 -> 812.667 -> 847.667; GEMMs 256
    // each: 812.667 -> 1068.667 -> 1324.667; STOREs 19 each: 1068.667 ->
    // 1087.667 and 1324.667 -> 1343.667; DMA_WRITEs one after the other on
    // the write channel, 774.667 each: 1087.667 -> 1862.334 -> 2637.001,
    // whichever token goes first. One DMA_READ in all.
    Run r(kTwoTokensResident);
    BOOST_REQUIRE(r.w.kernels.at("k").commands[0].composite.reuse == OperandReuse::a_panel);
    BOOST_CHECK_EQUAL(r.run->makespan_ps(), 2637001u);
    BOOST_CHECK_EQUAL(r.platform.pe(0, 0, 0).dma().channel(DmaDirection::read, 0).grants(), 1u);
}

BOOST_AUTO_TEST_CASE(a_resident_b_traces_alike_per_stage_and_decoupled) {
    // The feed's wait for a panel tile runs on either clock (docs/speed.md
    // "The decoupled pipeline"): the same trace, byte for byte.
    {
        std::ofstream out("operand_reuse_test_resident.yaml");
        out << "name: resident\n" << kTwoTokensResident;
    }
    std::string traces[2];
    for (int per_stage = 0; per_stage < 2; ++per_stage) {
        const std::string trace = "operand_reuse_test_resident" + std::to_string(per_stage) + ".jsonl";
        const test::RunResult r = test::run_npuvp("--workload operand_reuse_test_resident.yaml --trace " + trace +
                                                  (per_stage ? " --per-stage" : ""));
        BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
        BOOST_TEST(r.out.find("makespan 2637.001 ns") != std::string::npos, r.out);
        traces[per_stage] = test::slurp(trace);
    }
    BOOST_CHECK_GT(traces[0].size(), 0u);
    BOOST_CHECK(traces[0] == traces[1]);
}

BOOST_AUTO_TEST_CASE(a_resident_b_computes_what_b_in_memory_does) {
    // Data mode: the panel workload above with B's same bytes (the same
    // seed, so the same tile-major values) in pe0's TCM at 0x800000 instead
    // of the shared SRAM: C, which data_mode tests check against a
    // reference, must be the same bytes. Token 1 has no DMA_READ here: it
    // reads A from the panel and B from TCM at its tile's place.
    const std::string c_mem = run_panel(1, "", "b_memory").second;
    BOOST_REQUIRE_EQUAL(c_mem.size(), 128u * 64u * 4u);
    BOOST_CHECK(c_with("b_tcm", {{"src_b: { pa: 0x1000000000000 }", "b_tcm: 0x800000"},
                                 {"{ sram: 0x1000000000000,", "{ tcm: 0x800000, pe: 0,"}}) == c_mem);
}

BOOST_AUTO_TEST_CASE(both_operands_resident_by_hand) {
    // 128 x 128 x 256 bf16 with A (a_tcm) and B (b_tcm) in TCM: neither
    // token has a DMA_READ; each starts at FETCH (docs/timing.md "Operands
    // resident in TCM"), token 0 at 3 (issued 2, started 1 later), token 1
    // a ns later (the feed). FETCH 65536 B 35: 3 -> 38, then 38 -> 73; GEMM
    // 256: 38 -> 294, 294 -> 550; STORE 19: 294 -> 313, 550 -> 569;
    // DMA_WRITE 774.667 each, one after the other: 313 -> 1087.667 ->
    // 1862.334. No read at all.
    Run r(R"(
kernels:
  k:
    - composite: { id: mm, gemm: { m: 128, k: 128, n: 256 }, tile: { m: 128, k: 128, n: 128 }, a_tcm: 0x800000, b_tcm: 0x900000, wait: true }
launch: [ { kernel: k, pes: [0] } ]
)");
    BOOST_CHECK(r.w.kernels.at("k").commands[0].composite.reuse == OperandReuse::none);
    BOOST_CHECK_EQUAL(r.run->makespan_ps(), 1862334u);
    BOOST_CHECK_EQUAL(r.platform.pe(0, 0, 0).dma().channel(DmaDirection::read, 0).grants(), 0u);
}

BOOST_AUTO_TEST_CASE(a_tcm_errors_name_the_key) {
    const auto error_of = composite_error;
    // A is 128 · 128 · 2 = 32768 B.
    const std::string reserved = error_of("a_tcm: 64");
    BOOST_CHECK_MESSAGE(reserved.find("test.yaml:3") != std::string::npos &&
                            reserved.find("A (M·K·d_in = 32768 bytes) from TCM offset 64 is not inside AllocatableTCM") !=
                                std::string::npos,
                        reserved);
    const std::string panel = error_of("a_tcm: 0x800000, reuse: a_panel");
    BOOST_CHECK_MESSAGE(panel.find("reuse a_panel keeps A in a panel, but a_tcm says it is resident") != std::string::npos,
                        panel);
}

BOOST_AUTO_TEST_CASE(resident_operands_compute_what_memory_ones_do) {
    // Data mode: the panel workload with A and B in pe0's TCM (the same
    // seeds, so the same tile-major values) instead of HBM and SRAM: the
    // same C. (A's 128 x 128 is one tile of M and K: row-major is its
    // tile-major layout.)
    const std::string c_mem = run_panel(1, "", "ab_memory").second;
    BOOST_REQUIRE_EQUAL(c_mem.size(), 128u * 64u * 4u);
    BOOST_CHECK(c_with("ab_tcm", {{"reuse: a_panel", "reuse: none"},
                                  {"src: { pa: 0x0 }", "a_tcm: 0x800000"},
                                  {"src_b: { pa: 0x1000000000000 }", "b_tcm: 0x900000"},
                                  {"{ hbm: 0x0,", "{ tcm: 0x800000, pe: 0,"},
                                  {"{ sram: 0x1000000000000,", "{ tcm: 0x900000, pe: 0,"}}) == c_mem);
}
