// The serving loop (issue 41 points 4 and 6; docs/llm.md "Serving"), with
// step times given by a function so that every time below is derived by
// hand: continuous batching's join and leave order, static batching's wait
// for the batch, admission by KV blocks, a closed loop's arrivals, the
// nearest-rank percentiles, and the arrivals' generator.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/serving.h"
#include "testbench/harness/generated_doc.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp::model;

namespace {

// Prefill 100 ns whatever its size; decode 10 ns per sequence.
double step_time(LlmPhase phase, std::uint64_t batch, std::uint64_t) {
    return phase == LlmPhase::prefill ? 100.0 : 10.0 * static_cast<double>(batch);
}

ServingPolicy roomy(Batching batching) {
    ServingPolicy p;
    p.batching = batching;
    p.max_batch = 4;
    p.kv_block_tokens = 1;
    p.kv_capacity_blocks = 1000;
    return p;
}

const std::vector<ServingRequest> kTwo = {{0, 0.0, 4, 3}, {1, 50.0, 4, 2}};

}  // namespace

BOOST_AUTO_TEST_CASE(continuous_batching_joins_and_leaves_at_step_boundaries) {
    // A (4 in, 3 out) at 0, B (4 in, 2 out) at 50. t 0: A admitted, its
    // prefill 0 -> 100 makes its first token. t 100: B has arrived: admitted
    // and prefilled 100 -> 200 (its first token). t 200: one decode step of
    // A and B, 2 · 10 -> 220, at the longer context 4 + 1 = 5: A's second,
    // B's second and last token (B leaves at 220). t 220: A alone, 10 ->
    // 230 at context 6: A's last. A: TTFT 100, TPOT (230 - 100) / 2 = 65;
    // B: TTFT 150, TPOT 20.
    std::vector<std::uint64_t> contexts;
    const ServingResult r = serve(kTwo, roomy(Batching::continuous), [&](LlmPhase phase, std::uint64_t b, std::uint64_t t) {
        if (phase == LlmPhase::decode) contexts.push_back(t);
        return step_time(phase, b, t);
    });
    BOOST_REQUIRE_EQUAL(r.requests.size(), 2u);
    const ServedRequest& a = r.requests[0];
    const ServedRequest& b = r.requests[1];
    BOOST_TEST(a.first_token_ns == 100.0);
    BOOST_TEST(a.token_ns == (std::vector<double>{100.0, 220.0, 230.0}));
    BOOST_TEST(a.finished_ns == 230.0);
    BOOST_TEST(b.admitted_ns == 100.0);
    BOOST_TEST(b.token_ns == (std::vector<double>{200.0, 220.0}));
    BOOST_TEST(contexts == (std::vector<std::uint64_t>{5, 6}));
    BOOST_REQUIRE_EQUAL(r.steps.size(), 4u);
    BOOST_TEST(r.steps[2].batch == 2u);
    BOOST_TEST(r.steps[3].batch == 1u);
    BOOST_TEST(r.makespan_ns == 230.0);
    const ServingMetrics m = serving_metrics(r);
    BOOST_TEST(m.ttft_ns.mean == 125.0);  // (100 + 150) / 2
    BOOST_TEST(m.tpot_ns.p50 == 20.0);    // nearest rank of {20, 65}
    BOOST_TEST(m.tpot_ns.p99 == 65.0);
    // 5 output tokens, 13 in all, in 230 ns.
    BOOST_TEST(std::abs(m.output_tokens_per_s - 5.0 / 230e-9) < 1e-3);
    BOOST_TEST(std::abs(m.total_tokens_per_s - 13.0 / 230e-9) < 1e-3);
}

BOOST_AUTO_TEST_CASE(static_batching_waits_for_the_batch_to_finish) {
    // The same requests, static batches: A's batch forms at 0 (B has not
    // arrived), prefill -> 100, decodes at batch 1 -> 110, -> 120 (A done).
    // Only then does B's batch form: prefill 120 -> 220, decode -> 230.
    // B: TTFT 220 - 50 = 170.
    const ServingResult r = serve(kTwo, roomy(Batching::static_batches), step_time);
    BOOST_TEST(r.requests[0].finished_ns == 120.0);
    BOOST_TEST(r.requests[1].admitted_ns == 120.0);
    BOOST_TEST(r.requests[1].first_token_ns == 220.0);
    BOOST_TEST(r.requests[1].finished_ns == 230.0);
}

BOOST_AUTO_TEST_CASE(a_static_batch_decodes_at_its_size_until_its_longest_is_done) {
    // Both at 0: one batch of 2. Prefill -> 100; decode at batch 2 -> 120
    // (B's last token); A's third token still decodes at batch 2 (B's slot
    // is kept): -> 140.
    const std::vector<ServingRequest> both = {{0, 0.0, 4, 3}, {1, 0.0, 4, 2}};
    const ServingResult r = serve(both, roomy(Batching::static_batches), step_time);
    BOOST_TEST(r.requests[1].finished_ns == 120.0);
    BOOST_TEST(r.requests[0].finished_ns == 140.0);
    BOOST_REQUIRE_EQUAL(r.steps.size(), 3u);
    BOOST_TEST(r.steps[2].batch == 2u);
}

BOOST_AUTO_TEST_CASE(admission_waits_for_free_kv_blocks) {
    // Blocks of 4 tokens, 10 of them; each request (8 in, 8 out) needs 4.
    // Three at 0: the first two take 8 blocks, the third waits (2 free).
    // Prefill of two -> 100, seven decode steps of 20 -> 240: both leave,
    // 8 blocks free. The third: admitted at 240, prefill -> 340, seven
    // steps of 10 -> 410. The peak is 8 blocks.
    ServingPolicy p = roomy(Batching::continuous);
    p.kv_block_tokens = 4;
    p.kv_capacity_blocks = 10;
    const std::vector<ServingRequest> three = {{0, 0.0, 8, 8}, {1, 0.0, 8, 8}, {2, 0.0, 8, 8}};
    const ServingResult r = serve(three, p, step_time);
    BOOST_TEST(r.requests[0].finished_ns == 240.0);
    BOOST_TEST(r.requests[2].admitted_ns == 240.0);
    BOOST_TEST(r.requests[2].first_token_ns == 340.0);
    BOOST_TEST(r.requests[2].finished_ns == 410.0);
    BOOST_TEST(r.peak_kv_blocks == 8u);
    // One that could never fit is refused, saying why.
    p.kv_capacity_blocks = 3;
    try {
        serve(three, p, step_time);
        BOOST_FAIL("served");
    } catch (const std::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()).find("request 0 needs 4 KV blocks of 4 tokens (8 in, 8 out); the HBM beside the "
                                              "weights holds 3") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(a_closed_loop_keeps_its_concurrency) {
    // Concurrency 2, three requests of one output token (a prefill each):
    // two arrive at 0, prefill -> 100, both leave; the third arrives at 100
    // (one arrival per departure), prefill -> 200.
    ServingPolicy p = roomy(Batching::continuous);
    p.concurrency = 2;
    const ServingResult r = serve(fixed_requests(3, 4, 1), p, step_time);
    BOOST_TEST(r.requests[2].request.arrival_ns == 100.0);
    BOOST_TEST(r.requests[2].finished_ns == 200.0);
    BOOST_TEST(serving_metrics(r).ttft_ns.mean == 100.0);
}

BOOST_AUTO_TEST_CASE(percentiles_are_nearest_rank) {
    std::vector<double> v;
    for (int i = 100; i >= 1; --i) v.push_back(i);
    const Distribution d = distribution(v);
    BOOST_TEST(d.mean == 50.5);
    BOOST_TEST(d.p50 == 50.0);
    BOOST_TEST(d.p90 == 90.0);
    BOOST_TEST(d.p99 == 99.0);
    const Distribution one = distribution({5.0});
    BOOST_TEST(one.p50 == 5.0);
    BOOST_TEST(one.p99 == 5.0);
}

BOOST_AUTO_TEST_CASE(poisson_arrivals_are_fixed_by_their_seed) {
    const auto a = poisson_requests(10000, 8, 8, 1000.0, 7), b = poisson_requests(10000, 8, 8, 1000.0, 7);
    const auto c = poisson_requests(10000, 8, 8, 1000.0, 8);
    BOOST_TEST(a.back().arrival_ns == b.back().arrival_ns);
    BOOST_TEST(a.back().arrival_ns != c.back().arrival_ns);
    // 10,000 gaps of mean 1 ms: their mean's standard deviation is 1 %, so
    // within 5 % of 1 ms.
    BOOST_TEST(std::abs(a.back().arrival_ns / 10000.0 - 1e6) < 5e4);
}

BOOST_AUTO_TEST_CASE(llm_md_scenario_keys_are_the_field_tables) {
    npuvp::test::check_generated_doc("docs/llm.md", "serve_schema_markdown()", serve_schema_markdown());
}

BOOST_AUTO_TEST_CASE(chunked_prefill_feeds_prompts_beside_the_decoding_batch) {
    // prefill_chunk 6: A (4 in, 3 out) and B (4 in, 2 out) both at 0 (B's
    // arrival moved to 0). A mixed step costs 100 + 10 per decoding sequence
    // + 1 per chunk token (chunk x prompts); a decode step 10 per sequence.
    //   step 0, t 0: nobody decodes; the chunk takes A's 4 tokens and 2 of
    //     B's (budget 6): chunk 4 (the longer piece) x 2 prompts, past 0;
    //     100 + 8 -> 108. A's prompt is done: its first token at 108.
    //   step 1, t 108: A decodes (context 4 + 1 = 5), B's last 2 tokens
    //     after 2 cached: 100 + 10 + 2 -> 220: A's second token, B's first.
    //   step 2, t 220: a decode step of A and B at context 6: 20 -> 240: A's
    //     third and last, B's second and last.
    // TTFT: A 108, B 220.
    std::vector<ServingRequest> both = kTwo;
    both[1].arrival_ns = 0.0;
    ServingPolicy p = roomy(Batching::continuous);
    p.prefill_chunk = 6;
    std::vector<LlmStep> mixes;
    const ServingResult r = serve(both, p, step_time, [&](const LlmStep& s) {
        mixes.push_back(s);
        return 100.0 + 10.0 * static_cast<double>(s.batch) + static_cast<double>(s.chunk * s.chunk_prompts);
    });
    BOOST_REQUIRE_EQUAL(mixes.size(), 2u);
    BOOST_TEST(mixes[0].batch == 0u);
    BOOST_TEST(mixes[0].chunk == 4u);
    BOOST_TEST(mixes[0].chunk_prompts == 2u);
    BOOST_TEST(mixes[0].chunk_past == 0u);
    BOOST_TEST(mixes[1].batch == 1u);
    BOOST_TEST(mixes[1].context == 5u);
    BOOST_TEST(mixes[1].chunk == 2u);
    BOOST_TEST(mixes[1].chunk_prompts == 1u);
    BOOST_TEST(mixes[1].chunk_past == 2u);
    const ServedRequest& a = r.requests[0];
    const ServedRequest& b = r.requests[1];
    BOOST_TEST(a.token_ns == (std::vector<double>{108.0, 220.0, 240.0}));
    BOOST_TEST(b.token_ns == (std::vector<double>{220.0, 240.0}));
    BOOST_REQUIRE_EQUAL(r.steps.size(), 3u);
    BOOST_TEST((r.steps[0].phase == LlmPhase::mixed && r.steps[2].phase == LlmPhase::decode));
    BOOST_TEST(r.steps[2].tokens == 6u);
    // Static batching cannot chunk; a chunk needs the mixed step's time.
    ServingPolicy s = roomy(Batching::static_batches);
    s.prefill_chunk = 6;
    BOOST_CHECK_THROW(serve(both, s, step_time, [](const LlmStep&) { return 1.0; }), std::invalid_argument);
    BOOST_CHECK_THROW(serve(both, p, step_time), std::invalid_argument);
}
