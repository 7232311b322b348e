// TilePlanner (SPEC §3 T6; seed 000 §D3.2, §D3.3, §D6). Pure C++: no
// simulation, each case only walks a planner and checks the plans by hand.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "modules/pe/tile_plan.h"

namespace {

using npuvp::CompositeSpec;
using npuvp::EpilogueScope;
using npuvp::OpSpec;
using npuvp::StageType;
using npuvp::TilePlan;
using npuvp::TilePlanner;

CompositeSpec gemm_spec(std::uint64_t m, std::uint64_t k, std::uint64_t n, std::uint64_t tile,
                        std::uint32_t d_in = 2, std::uint32_t d_out = 2) {
    CompositeSpec s;
    s.m = m;
    s.k = k;
    s.n = n;
    s.tm = s.tk = s.tn = tile;
    s.d_in = d_in;
    s.d_out = d_out;
    s.ops = {OpSpec{"gemm", EpilogueScope::per_output_tile}};
    return s;
}

std::vector<TilePlan> all_plans(const CompositeSpec& spec) {
    TilePlanner planner(spec);
    std::vector<TilePlan> plans;
    TilePlan plan;
    while (planner.next(plan)) plans.push_back(plan);
    BOOST_CHECK_EQUAL(plans.size(), planner.total_tiles());
    return plans;
}

// Stage sequence as "DMA_READ FETCH GEMM MATH:relu ..." for readable checks.
std::string shape(const TilePlan& plan) {
    std::string s;
    for (const auto& st : plan.stages) {
        if (!s.empty()) s += ' ';
        s += npuvp::to_string(st.type);
        if (st.type == StageType::math) s += ":" + st.op;
    }
    return s;
}

void check_throws_naming(const CompositeSpec& spec, const std::string& field) {
    try {
        TilePlanner planner(spec);
        BOOST_ERROR("no exception; expected one naming " << field);
    } catch (const std::invalid_argument& e) {
        BOOST_CHECK_MESSAGE(std::string(e.what()).find(field) != std::string::npos,
                            "'" << e.what() << "' does not name " << field);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(exact_fit_gemm_tokens_and_bytes) {
    // 256³, tile 128: Mt = Nt = Kt = 2 → 8 tokens, one per (mi, ni, ki).
    const auto plans = all_plans(gemm_spec(256, 256, 256, 128));
    BOOST_REQUIRE_EQUAL(plans.size(), 8u);
    for (std::uint64_t id = 0; id < 8; ++id) {
        const TilePlan& p = plans[id];
        BOOST_TEST_CONTEXT("tile " << id) {
            BOOST_CHECK_EQUAL(p.tile_id, id);
            // Row-major over (mi, ni), ki innermost.
            BOOST_CHECK_EQUAL(p.mi, id / 4);
            BOOST_CHECK_EQUAL(p.ni, (id / 2) % 2);
            BOOST_CHECK_EQUAL(p.ki, id % 2);
            BOOST_CHECK_EQUAL(p.last_k, id % 2 == 1);
            BOOST_CHECK_EQUAL(p.last_tile, id == 7);
            // (128·128 + 128·128)·2 = 65536 in; 128·128·2 = 32768 out.
            BOOST_CHECK_EQUAL(p.in_bytes, 65536u);
            BOOST_CHECK_EQUAL(p.out_bytes, p.last_k ? 32768u : 0u);
            BOOST_CHECK_EQUAL(p.stages[0].bytes, 65536u);
            BOOST_CHECK_EQUAL(p.stages[1].bytes, 65536u);
            BOOST_CHECK_EQUAL(p.stages[2].m, 128u);
            BOOST_CHECK_EQUAL(p.stages[2].k, 128u);
            BOOST_CHECK_EQUAL(p.stages[2].n, 128u);
            if (p.last_k) {
                BOOST_CHECK_EQUAL(shape(p), "DMA_READ FETCH GEMM STORE DMA_WRITE");
                BOOST_CHECK_EQUAL(p.stages[3].bytes, 32768u);
                BOOST_CHECK_EQUAL(p.stages[4].bytes, 32768u);
            } else {
                BOOST_CHECK_EQUAL(shape(p), "DMA_READ FETCH GEMM");
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(clipped_edge_tiles) {
    // M=300, K=200, N=130, tile 128: Mt = 3, Nt = 2, Kt = 2 → 12 tokens.
    const auto plans = all_plans(gemm_spec(300, 200, 130, 128, 2, 4));
    BOOST_REQUIRE_EQUAL(plans.size(), 12u);
    // Corner tile (mi=2, ni=1, ki=1) is the last token, id = (2·2 + 1)·2 + 1 = 11.
    // tm = 300 − 256 = 44, tn = 130 − 128 = 2, tk = 200 − 128 = 72.
    // DMA_READ = (44·72 + 72·2)·2 = (3168 + 144)·2 = 6624 bytes.
    // STORE = DMA_WRITE = 44·2·4 = 352 bytes.
    const TilePlan& corner = plans[11];
    BOOST_CHECK_EQUAL(corner.mi, 2u);
    BOOST_CHECK_EQUAL(corner.ni, 1u);
    BOOST_CHECK_EQUAL(corner.ki, 1u);
    BOOST_CHECK(corner.last_k);
    BOOST_CHECK(corner.last_tile);
    BOOST_CHECK_EQUAL(shape(corner), "DMA_READ FETCH GEMM STORE DMA_WRITE");
    BOOST_CHECK_EQUAL(corner.in_bytes, 6624u);
    BOOST_CHECK_EQUAL(corner.stages[0].bytes, 6624u);
    BOOST_CHECK_EQUAL(corner.stages[1].bytes, 6624u);
    BOOST_CHECK_EQUAL(corner.stages[2].m, 44u);
    BOOST_CHECK_EQUAL(corner.stages[2].k, 72u);
    BOOST_CHECK_EQUAL(corner.stages[2].n, 2u);
    BOOST_CHECK_EQUAL(corner.out_bytes, 352u);
    BOOST_CHECK_EQUAL(corner.stages[3].bytes, 352u);
    BOOST_CHECK_EQUAL(corner.stages[4].bytes, 352u);
    // (mi=0, ni=1, ki=0), id 2: tm = 128, tn = 2, tk = 128 (full K-step).
    // (128·128 + 128·2)·2 = (16384 + 256)·2 = 33280 bytes; not last K → no output.
    const TilePlan& p2 = plans[2];
    BOOST_CHECK_EQUAL(p2.mi, 0u);
    BOOST_CHECK_EQUAL(p2.ni, 1u);
    BOOST_CHECK_EQUAL(p2.ki, 0u);
    BOOST_CHECK_EQUAL(p2.in_bytes, 33280u);
    BOOST_CHECK_EQUAL(p2.out_bytes, 0u);
    BOOST_CHECK_EQUAL(shape(p2), "DMA_READ FETCH GEMM");
}

// Tile addresses (docs/timing.md "Tile addresses"): operands tile-major by
// row panel, A then B from src, C from dst; offsets in bytes.
BOOST_AUTO_TEST_CASE(tile_addresses_are_tile_major_row_panels) {
    // M=300, K=200, N=130, tile 128, d_in 2, d_out 4 (as clipped_edge_tiles).
    const auto plans = all_plans(gemm_spec(300, 200, 130, 128, 2, 4));
    // A is 300·200·2 = 120000 B, so B starts at 120000.
    // Corner tile (mi=2, ni=1, ki=1): tm 44, tk 72, tn 2.
    //   A: (2·128·200 + 1·128·44)·2 = (51200 + 5632)·2 = 113664, 44·72·2 = 6336 B
    //   B: 120000 + (1·128·130 + 1·128·72)·2 = 120000 + (16640 + 9216)·2 = 171712,
    //      72·2·2 = 288 B
    //   C: (2·128·130 + 1·128·44)·4 = (33280 + 5632)·4 = 155648, 44·2·4 = 352 B
    const npuvp::Stage& rd = plans[11].stages[0];
    BOOST_REQUIRE_EQUAL(rd.mem_runs, 2u);
    BOOST_CHECK_EQUAL(rd.mem[0].offset, 113664u);
    BOOST_CHECK_EQUAL(rd.mem[0].bytes, 6336u);
    BOOST_CHECK_EQUAL(rd.mem[1].offset, 171712u);
    BOOST_CHECK_EQUAL(rd.mem[1].bytes, 288u);
    BOOST_CHECK_EQUAL(rd.mem[0].bytes + rd.mem[1].bytes, rd.bytes);
    const npuvp::Stage& wr = plans[11].stages[4];
    BOOST_REQUIRE_EQUAL(wr.mem_runs, 1u);
    BOOST_CHECK_EQUAL(wr.mem[0].offset, 155648u);
    BOOST_CHECK_EQUAL(wr.mem[0].bytes, 352u);
    // The first tile starts both operands at their bases.
    BOOST_CHECK_EQUAL(plans[0].stages[0].mem[0].offset, 0u);
    BOOST_CHECK_EQUAL(plans[0].stages[0].mem[1].offset, 120000u);
    // The farthest byte read is the end of B: 120000 + 200·130·2 = 172000 =
    // the corner tile's B run end (171712 + 288).
    BOOST_CHECK_EQUAL(rd.mem[1].offset + rd.mem[1].bytes, 172000u);
}

BOOST_AUTO_TEST_CASE(epilogue_scopes) {
    // 256³ tile 128: 8 tokens, last K-steps at odd ids, last token id 7.
    CompositeSpec spec = gemm_spec(256, 256, 256, 128);
    spec.ops.push_back({"math.scale", EpilogueScope::per_k_tile});
    spec.ops.push_back({"math.softmax", EpilogueScope::once});
    spec.ops.push_back({"math.bias_add", EpilogueScope::per_output_tile});
    spec.ops.push_back({"math.relu", EpilogueScope::per_output_tile});
    const auto plans = all_plans(spec);
    BOOST_REQUIRE_EQUAL(plans.size(), 8u);
    for (const TilePlan& p : plans) {
        BOOST_TEST_CONTEXT("tile " << p.tile_id) {
            if (p.last_tile)
                BOOST_CHECK_EQUAL(shape(p), "DMA_READ FETCH GEMM MATH:scale MATH:bias_add MATH:relu "
                                            "MATH:softmax STORE DMA_WRITE");
            else if (p.last_k)
                BOOST_CHECK_EQUAL(shape(p), "DMA_READ FETCH GEMM MATH:scale MATH:bias_add MATH:relu "
                                            "STORE DMA_WRITE");
            else
                BOOST_CHECK_EQUAL(shape(p), "DMA_READ FETCH GEMM MATH:scale");
            for (const auto& st : p.stages)
                if (st.type == StageType::math) BOOST_CHECK_EQUAL(st.elements, 128u * 128u);
        }
    }
    // Clipped last tile: `once` runs over that tile's tm·tn (4·2 here).
    CompositeSpec clipped = gemm_spec(132, 128, 130, 128);
    clipped.ops.push_back({"math.softmax", EpilogueScope::once});
    const auto cp = all_plans(clipped);
    BOOST_REQUIRE_EQUAL(cp.size(), 4u);
    BOOST_CHECK_EQUAL(shape(cp.back()), "DMA_READ FETCH GEMM MATH:softmax STORE DMA_WRITE");
    BOOST_CHECK_EQUAL(cp.back().stages[3].elements, 4u * 2u);
}

BOOST_AUTO_TEST_CASE(legacy_split) {
    CompositeSpec spec;
    spec.d_in = 2;
    spec.total_bytes = 1000;
    spec.tile_bytes = 384;
    spec.legacy_op = "relu";
    const auto plans = all_plans(spec);
    BOOST_REQUIRE_EQUAL(plans.size(), 3u);  // ceil(1000 / 384)
    const std::uint64_t expect[] = {384, 384, 232};
    for (std::size_t i = 0; i < 3; ++i) {
        const TilePlan& p = plans[i];
        BOOST_TEST_CONTEXT("tile " << i) {
            BOOST_CHECK_EQUAL(p.tile_id, i);
            BOOST_CHECK_EQUAL(p.last_tile, i == 2);
            BOOST_CHECK(p.last_k);
            BOOST_CHECK_EQUAL(shape(p), "DMA_READ FETCH MATH:relu STORE DMA_WRITE");
            BOOST_CHECK_EQUAL(p.in_bytes, expect[i]);
            BOOST_CHECK_EQUAL(p.out_bytes, expect[i]);
            BOOST_CHECK_EQUAL(p.stages[0].bytes, expect[i]);
            BOOST_CHECK_EQUAL(p.stages[1].bytes, expect[i]);
            BOOST_CHECK_EQUAL(p.stages[2].elements, expect[i] / 2);
            BOOST_CHECK_EQUAL(p.stages[3].bytes, expect[i]);
            BOOST_CHECK_EQUAL(p.stages[4].bytes, expect[i]);
            // Byte tile i lies at i·384 past src and past dst.
            BOOST_CHECK_EQUAL(p.stages[0].mem[0].offset, i * 384);
            BOOST_CHECK_EQUAL(p.stages[4].mem[0].offset, i * 384);
        }
    }
}

BOOST_AUTO_TEST_CASE(total_tiles_matches_next) {
    // all_plans checks total_tiles() == count yielded for each shape.
    BOOST_CHECK_EQUAL(all_plans(gemm_spec(1, 1, 1, 128)).size(), 1u);
    BOOST_CHECK_EQUAL(all_plans(gemm_spec(129, 257, 64, 64)).size(), 3u * 1u * 5u);
    CompositeSpec legacy;
    legacy.d_in = 1;
    legacy.total_bytes = 768;
    legacy.tile_bytes = 384;
    legacy.legacy_op = "exp";
    BOOST_CHECK_EQUAL(all_plans(legacy).size(), 2u);
    // After the end, next() keeps returning false.
    TilePlanner planner(gemm_spec(1, 1, 1, 1));
    TilePlan p;
    BOOST_CHECK(planner.next(p));
    BOOST_CHECK(!planner.next(p));
    BOOST_CHECK(!planner.next(p));
}

BOOST_AUTO_TEST_CASE(invalid_specs_name_the_field) {
    const CompositeSpec ok = gemm_spec(64, 64, 64, 32);
    BOOST_CHECK_NO_THROW(TilePlanner{ok});
    BOOST_CHECK_NO_THROW(TilePlanner{gemm_spec(64, 64, 64, 1024)});  // clipped, fine
    auto with = [&](auto edit) { CompositeSpec s = ok; edit(s); return s; };
    check_throws_naming(with([](CompositeSpec& s) { s.m = 0; }), ": m must");
    check_throws_naming(with([](CompositeSpec& s) { s.k = 0; }), ": k must");
    check_throws_naming(with([](CompositeSpec& s) { s.n = 0; }), ": n must");
    check_throws_naming(with([](CompositeSpec& s) { s.tm = 0; }), "tm");
    check_throws_naming(with([](CompositeSpec& s) { s.tk = 0; }), "tk");
    check_throws_naming(with([](CompositeSpec& s) { s.tn = 0; }), "tn");
    check_throws_naming(with([](CompositeSpec& s) { s.d_in = 3; }), "d_in");
    check_throws_naming(with([](CompositeSpec& s) { s.d_out = 8; }), "d_out");
    check_throws_naming(with([](CompositeSpec& s) { s.ops[0].kind = "math.relu"; }), "ops[0].kind");
    check_throws_naming(with([](CompositeSpec& s) { s.ops.push_back({"conv", EpilogueScope::once}); }),
                        "ops[1].kind");
    check_throws_naming(
        with([](CompositeSpec& s) { s.ops.push_back({"math.relu", static_cast<EpilogueScope>(7)}); }),
        "ops[1].scope");

    CompositeSpec legacy;
    legacy.d_in = 2;
    legacy.total_bytes = 1000;
    legacy.tile_bytes = 384;
    legacy.legacy_op = "relu";
    BOOST_CHECK_NO_THROW(TilePlanner{legacy});
    auto lwith = [&](auto edit) { CompositeSpec s = legacy; edit(s); return s; };
    check_throws_naming(lwith([](CompositeSpec& s) { s.tile_bytes = 0; }), "tile_bytes");
    check_throws_naming(lwith([](CompositeSpec& s) { s.total_bytes = 0; }), "total_bytes");
    check_throws_naming(lwith([](CompositeSpec& s) { s.legacy_op.clear(); }), "legacy_op");
    check_throws_naming(lwith([](CompositeSpec& s) { s.d_in = 0; }), "d_in");
}

BOOST_AUTO_TEST_CASE(streaming_large_command) {
    // 2048³, tile 128: 16·16·16 = 4096 tokens, produced one at a time into one
    // reused plan whose stage storage is reserved once and never grows.
    CompositeSpec spec = gemm_spec(2048, 2048, 2048, 128);
    spec.ops.push_back({"math.bias_add", EpilogueScope::per_output_tile});
    TilePlanner planner(spec);
    BOOST_CHECK_EQUAL(planner.total_tiles(), 4096u);
    TilePlan plan;
    std::uint64_t count = 0;
    std::size_t capacity = 0;
    bool stable = true;
    while (planner.next(plan)) {
        if (count == 0) capacity = plan.stages.capacity();
        stable = stable && plan.stages.capacity() == capacity;
        ++count;
    }
    BOOST_CHECK_EQUAL(count, 4096u);
    BOOST_CHECK_EQUAL(plan.tile_id, 4095u);
    BOOST_CHECK(plan.last_tile);
    BOOST_CHECK(stable);
}
