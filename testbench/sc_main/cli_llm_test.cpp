// `npuvp --llm` (issue 41; docs/llm.md): a step of a language model run from
// the command line prints its answer; a model that does not fit says by how
// much; options that mean something for --llm only are refused elsewhere.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <iterator>
#include <string>

#include "testbench/harness/report_guard.h"
#include "testbench/harness/run_npuvp.h"

namespace {

const std::string kSource = NPUVP_SOURCE_DIR;
const std::string kLlm = kSource + "/configs/llm/";
const std::string kRngd = kSource + "/configs/topologies/rngd_pe.yaml";

bool has(const std::string& out, const std::string& text) { return out.find(text) != std::string::npos; }

// Whether docs/llm.md quotes the run's `llm` line as it printed it.
bool quoted_in_llm_md(const std::string& out) {
    const auto at = out.find("llm      ");
    if (at == std::string::npos) return false;
    std::ifstream in(kSource + "/docs/llm.md");
    const std::string llm_md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return has(llm_md, out.substr(at, out.find('\n', at) - at));
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_decode_step_prints_time_per_output_token_and_its_memory_floor) {
    // tiny.yaml, 2 sequences with 127 tokens cached: the step reads at least
    // 3,145,728 B (llm_test derives it) = 0.003 GB, 2.048 µs at the cube's
    // 8 x 192 = 1536 GB/s (default.yaml).
    const npuvp::test::RunResult r =
        npuvp::test::run_npuvp("--llm " + kLlm + "tiny.yaml --batch 2 --context 127");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(has(r.out, "llm      tiny decode step, 2 sequences at context 127 (2 layers): time per output token "), r.out);
    BOOST_TEST(has(r.out, "HBM: the step reads at least 0.003 GB (weights once, the KV cache), 2.048 µs at a cube's 1536.0 GB/s"),
               r.out);
    BOOST_TEST(has(r.out, "J per output token, "), r.out);  // mostly static power over ~60 µs
    // The mapped step's layers are in the per-layer table.
    BOOST_TEST(has(r.out, "layers_0_scores"), r.out);
}

BOOST_AUTO_TEST_CASE(a_prefill_prints_time_to_first_token) {
    const npuvp::test::RunResult r =
        npuvp::test::run_npuvp("--llm " + kLlm + "tiny.yaml --phase prefill --context 64 --llm-layers 1");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(has(r.out, "llm      tiny prefill, 1 sequence of 64 tokens (1 of 2 layers): time to first token "), r.out);
}

BOOST_AUTO_TEST_CASE(a_model_that_does_not_fit_says_by_how_much) {
    // Llama 3.1 70B: 70,553,706,496 parameters x 2 B = 141,107,412,992 B; a
    // decode step at context 128 keeps 129 tokens x 327,680 B = 42,270,720 B
    // of KV cache: 141,149,683,712 B. rngd_pe.yaml's cube: 8 slices x 6 GiB =
    // 51,539,607,552 B. Short by 89,610,076,160 B = 89.61 GB. Exit 2.
    const npuvp::test::RunResult r =
        npuvp::test::run_npuvp("--topology " + kRngd + " --llm " + kLlm + "llama-3.1-70b.yaml");
    BOOST_TEST(r.code == 2);
    BOOST_TEST(has(r.out, "llama-3.1-70b.yaml: does not fit: its weights (141.11 GB) and the KV cache of 1 sequence of "
                          "129 tokens (0.04 GB) need 141.15 GB, the HBM of 1 cube holds 51.54 GB: 89.61 GB short"),
               r.out);
}

BOOST_AUTO_TEST_CASE(llm_options_without_llm_are_refused) {
    for (const char* option :
         {"--phase prefill", "--context 16", "--llm-layers 1", "--tensor-parallel 2", "--all-reduce tree"}) {
        const npuvp::test::RunResult r = npuvp::test::run_npuvp(option);
        BOOST_TEST(r.code == 2);
        BOOST_TEST(has(r.out, "applies to --llm runs only"), r.out);
    }
    const npuvp::test::RunResult bad = npuvp::test::run_npuvp("--llm " + kLlm + "tiny.yaml --phase train");
    BOOST_TEST(bad.code == 2);
    BOOST_TEST(has(bad.out, "--phase: expected decode, prefill or mixed, got 'train'"), bad.out);
    const npuvp::test::RunResult file = npuvp::test::run_npuvp("--llm " + kLlm + "none.yaml");
    BOOST_TEST(file.code == 2);
}

BOOST_AUTO_TEST_CASE(the_docs_show_what_the_llama_8b_step_prints) {
    // docs/llm.md and the README quote the Llama 3.1 8B decode step on
    // rngd_pe.yaml: the quoted line must be what this build prints, so the
    // figures cannot go stale.
    const npuvp::test::RunResult r = npuvp::test::run_npuvp("--topology " + kRngd + " --llm " + kLlm + "llama-3.1-8b.yaml");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const auto at = r.out.find("llm      ");
    BOOST_REQUIRE(at != std::string::npos);
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    const std::string floor_at = r.out.substr(r.out.find("         HBM: the step reads"));
    const std::string floor = floor_at.substr(0, floor_at.find('\n'));
    auto slurp = [](const std::string& path) {
        std::ifstream in(path);
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    };
    const std::string llm_md = slurp(kSource + "/docs/llm.md"), readme = slurp(kSource + "/README.md");
    BOOST_TEST(has(llm_md, line), "docs/llm.md does not show: " << line);
    BOOST_TEST(has(llm_md, floor), "docs/llm.md does not show: " << floor);
    const std::string energy_at = r.out.substr(r.out.find("         energy: "));
    const std::string energy = energy_at.substr(0, energy_at.find('\n'));
    BOOST_TEST(has(llm_md, energy), "docs/llm.md does not show: " << energy);
    // The README shows the line's start, up to the tokens per second.
    BOOST_TEST(has(readme, "# " + line.substr(0, line.find(" per sequence") + 13)), "README does not show: " << line);
}

BOOST_AUTO_TEST_CASE(a_model_over_several_cards_runs_as_a_pipeline_of_them) {
    // Llama 3.1 70B (141.15 GB with its cache) on rngd_server.yaml's 8 cards
    // of 8 x 6 GiB: 412.3 GB, it fits; the mapper makes 8 stages, one a
    // card, and the floor is one card's 1536 GB/s: the layers' and the LM
    // head's weights, (80 · 855,654,400 + 1,050,673,152) · 2 =
    // 139,006,050,304 B, and 128 cached tokens · 327,680 B = 41,943,040 B:
    // 139,047,993,344 B / 1536 GB/s = 90,526,037.3 ns.
    const npuvp::test::RunResult r = npuvp::test::run_npuvp(
        "--topology " + kSource + "/configs/topologies/rngd_server.yaml --llm " + kLlm + "llama-3.1-70b.yaml --map-cubes 8");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(has(r.out, "by builtin.greedy_mapper over 8 cubes"), r.out);
    BOOST_TEST(has(r.out, "90526.037 µs at a cube's 1536.0 GB/s (the 8 cubes are stages of a pipeline"), r.out);
    BOOST_TEST(quoted_in_llm_md(r.out), r.out);  // the docs quote what it prints
}

BOOST_AUTO_TEST_CASE(a_model_split_over_cards_runs_every_layer_on_each_with_all_reduces) {
    // Llama 3.1 70B, tensor parallel over rngd_server.yaml's 8 cards: the
    // same bytes as the pipeline above (139,047,993,344 B), read by the 8
    // cards at once, 8 x 1536 = 12,288 GB/s: 11,315,754.7 ns at least. Each
    // of the 160 all-reduces (after o_proj and down_proj, 80 layers) is a
    // tree of 3 levels up and 3 down over 8 cards: 7 + 7 = 14 transfers, 2,240
    // in all.
    const npuvp::test::RunResult r = npuvp::test::run_npuvp(
        "--topology " + kSource + "/configs/topologies/rngd_server.yaml --llm " + kLlm +
        "llama-3.1-70b.yaml --tensor-parallel 8 --all-reduce tree");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(has(r.out, "split over 8 cards (tensor parallel; 2240 tree all-reduce steps)"), r.out);
    BOOST_TEST(has(r.out, "11315.755 µs at the 8 cards' 12288.0 GB/s (each card reads its shard)"), r.out);
    BOOST_TEST(quoted_in_llm_md(r.out), r.out);  // the docs quote what it prints
}

BOOST_AUTO_TEST_CASE(bad_tensor_parallel_runs_are_refused_with_the_reason) {
    const std::string server = "--topology " + kSource + "/configs/topologies/rngd_server.yaml ";
    struct Case {
        std::string args, expect;
    };
    const Case cases[] = {
        // 4 heads over 3 cards.
        {server + "--llm " + kLlm + "tiny.yaml --tensor-parallel 3",
         "tensor parallelism over 3 cards: num_attention_heads (4) does not divide by 3"},
        // The machine has 8 cards.
        {server + "--llm " + kLlm + "tiny.yaml --tensor-parallel 16", "--tensor-parallel 16: the topology has 8 cubes (cards)"},
        {server + "--llm " + kLlm + "tiny.yaml --tensor-parallel 2 --map-cubes 2",
         "pipeline and tensor parallelism together are not built"},
        {"--llm " + kLlm + "tiny.yaml --tensor-parallel 2 --all-reduce star", "--all-reduce: expected ring or tree, got 'star'"},
        // Llama 3.1 70B over 2 cards: 141.15 GB against 2 x 51.54.
        {server + "--llm " + kLlm + "llama-3.1-70b.yaml --tensor-parallel 2", "the HBM of 2 cubes holds 103.08 GB: 38.07 GB short"},
    };
    for (const Case& c : cases) {
        const npuvp::test::RunResult r = npuvp::test::run_npuvp(c.args);
        BOOST_TEST(r.code == 2, c.args);
        BOOST_TEST(has(r.out, c.expect), r.out);
    }
}

BOOST_AUTO_TEST_CASE(a_mixed_step_prints_both_rates) {
    const npuvp::test::RunResult r = npuvp::test::run_npuvp(
        "--llm " + kLlm + "tiny.yaml --phase mixed --batch 4 --context 64 --chunk 32 --chunk-prompts 2 --chunk-past 16");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(has(r.out, "llm      tiny mixed step, 4 sequences decoding at context 64 and a prefill chunk of 32 tokens of "
                          "2 prompts after 16 cached (2 layers): "),
               r.out);
    BOOST_TEST(has(r.out, " output tokens/s and "), r.out);
    for (const std::string bad : {"--phase mixed", "--chunk 8"}) {
        const npuvp::test::RunResult e = npuvp::test::run_npuvp("--llm " + kLlm + "tiny.yaml " + bad);
        BOOST_TEST(e.code == 2, bad);
        BOOST_TEST((has(e.out, "--phase mixed needs --chunk N") || has(e.out, "--chunk applies to --phase mixed")), e.out);
    }
}

BOOST_AUTO_TEST_CASE(an_fp8_model_runs_its_step_on_one_byte_elements) {
    // Llama 3.1 8B in FP8 on rngd_pe.yaml: the step reads at least half of
    // bf16's 15.027 GB: the layers' and the LM head's weights at 1 byte,
    // 8,030,261,248 less the embedding's 525,336,576 (a lookup) and the final
    // norm's 4,096 = 7,504,920,576 B, and 128 tokens x 64 KiB of cache,
    // 8,388,608 B: 7,513,309,184 B = 7.513 GB, 4,891.477 µs at 1536 GB/s.
    const npuvp::test::RunResult r = npuvp::test::run_npuvp("--topology " + kRngd + " --llm " + kLlm + "llama-3.1-8b-fp8.yaml");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(has(r.out, "HBM: the step reads at least 7.513 GB (weights once, the KV cache), 4891.477 µs"), r.out);
    BOOST_TEST(quoted_in_llm_md(r.out), r.out);  // the docs quote what it prints
}
