// `npuvp serve` (issue 41; docs/llm.md "Serving"): the shipped small
// scenario prints the serving benchmarks' answers; reusing decode steps
// across a context bucket stays within 1 % of running every context in
// detail (--exact); bad scenarios name the file, line and key.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testbench/harness/report_guard.h"
#include "testbench/harness/run_npuvp.h"

namespace {

const std::string kSource = NPUVP_SOURCE_DIR;
const std::string kScenario = kSource + "/configs/serving/tiny_chat.yaml";

bool has(const std::string& out, const std::string& text) { return out.find(text) != std::string::npos; }

// A scenario file `name` serving tiny.yaml, with `keys` (YAML lines) after
// its model line (so the first of them is line 3).
std::string tiny_scenario(const std::string& name, const std::string& keys) {
    std::ofstream(name) << "name: t\nmodel: " << kSource << "/configs/llm/tiny.yaml\n" << keys;
    return name;
}

// The mean time per output token of a `--summary` file, in ms.
double tpot(const std::string& file) {
    std::ifstream in(file);
    nlohmann::json j;
    in >> j;
    return j.at("tpot").at("mean_ms").get<double>();
}

// A tiny scenario of `keys` served on `topology` (a shipped one) through the
// host, and with `launch: <launch>`, each with a --summary (`stem`_host.json,
// `stem`.json). --launch overrides the scenario's key: the host scenario
// served with --launch <launch> is the other one, to the last digit.
struct LaunchPair {
    npuvp::test::RunResult host, other;
    double host_tpot, other_tpot;
};
LaunchPair launch_pair(const std::string& stem, const std::string& keys, const std::string& launch,
                       const std::string& topology) {
    const std::string on = " --topology " + kSource + "/configs/topologies/" + topology + " --summary ";
    LaunchPair r{npuvp::test::run_npuvp("serve " + tiny_scenario(stem + "_host.yaml", keys) + on + stem + "_host.json"),
                 npuvp::test::run_npuvp("serve " + tiny_scenario(stem + ".yaml", keys + "launch: " + launch + "\n") + on +
                                        stem + ".json"),
                 0.0, 0.0};
    BOOST_REQUIRE_MESSAGE(r.host.code == 0, r.host.out);
    BOOST_REQUIRE_MESSAGE(r.other.code == 0, r.other.out);
    r.host_tpot = tpot(stem + "_host.json"), r.other_tpot = tpot(stem + ".json");
    const npuvp::test::RunResult over =
        npuvp::test::run_npuvp("serve " + stem + "_host.yaml --launch " + launch + on + stem + "_over.json");
    BOOST_REQUIRE_MESSAGE(over.code == 0, over.out);
    BOOST_TEST(tpot(stem + "_over.json") == r.other_tpot);
    return r;
}

// A scenario refused with exit 2 at `file`:`line` with `message`.
void refused(const std::string& file, int line, const std::string& message) {
    const npuvp::test::RunResult bad = npuvp::test::run_npuvp("serve " + file);
    BOOST_TEST(bad.code == 2);
    BOOST_TEST(has(bad.out, file + ":" + std::to_string(line) + ":"), bad.out);
    BOOST_TEST(has(bad.out, message), bad.out);
}

nlohmann::json summary(const std::string& args, const std::string& file) {
    const npuvp::test::RunResult r = npuvp::test::run_npuvp("serve " + kScenario + " " + args + " --summary " + file);
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    std::ifstream in(file);
    nlohmann::json j;
    in >> j;
    return j;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_small_scenario_prints_the_serving_answers) {
    // tiny_chat: 8 requests of 32 in / 16 out at concurrency 4, at most 4 in
    // the batch: two waves of 4, each one prefill of 4 and 15 decode steps:
    // 2 prefills and 30 decode steps. Decode contexts run 33 to 47 tokens:
    // one bucket of 16 (48), so 2 distinct steps run in detail.
    const npuvp::test::RunResult r = npuvp::test::run_npuvp("serve " + kScenario + " --csv serve_tiny.csv");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(has(r.out, "steps    2 prefill, 30 decode; 2 distinct steps run in detail (decode contexts in buckets of 16 tokens)"), r.out);
    for (const char* line : {"\nrequests 8 in ", "\nTTFT     mean ", "\nTPOT     mean ", "\nITL      mean ", "\nE2E      mean ",
                             "\nbound    decode (", "\nbound    prefill (", "\nKV cache peak ", "\nenergy   "})
        BOOST_TEST(has(r.out, line), line);
    // The CSV: a header and a row per request.
    std::ifstream csv("serve_tiny.csv");
    std::string row;
    int rows = 0;
    while (std::getline(csv, row)) ++rows;
    BOOST_TEST(rows == 9);
}

BOOST_AUTO_TEST_CASE(reuse_stays_within_one_percent_of_exact) {
    // --exact runs every decode context (33 to 47: 15 steps and the
    // prefill); the bucket of 16 runs them at 48. docs/llm.md quotes the
    // difference (0.04 % on this scenario).
    const nlohmann::json reused = summary("", "serve_reused.json"), exact = summary("--exact", "serve_exact.json");
    BOOST_TEST(exact.at("distinct_steps").get<int>() == 16);
    BOOST_TEST(reused.at("distinct_steps").get<int>() == 2);
    auto within = [](double a, double b) { return std::abs(a - b) <= 0.01 * std::abs(b); };
    BOOST_TEST(within(reused.at("output_tokens_per_s").get<double>(), exact.at("output_tokens_per_s").get<double>()));
    for (const char* metric : {"ttft", "tpot", "itl", "e2e"})
        for (const char* stat : {"mean_ms", "p50_ms", "p90_ms", "p99_ms"})
            BOOST_TEST(within(reused.at(metric).at(stat).get<double>(), exact.at(metric).at(stat).get<double>()),
                       metric << " " << stat);
}

BOOST_AUTO_TEST_CASE(bad_scenarios_name_file_line_and_key) {
    struct Case {
        std::string text, expect;
    };
    const std::string model = "model: " + kSource + "/configs/llm/tiny.yaml\n";
    const std::vector<Case> cases = {
        {"name: s\n" + model, "s.yaml:1:1: requests: missing required key 'requests'"},
        {"name: s\nmodel: nowhere.yaml\nrequests: { count: 1, input_tokens: 1, output_tokens: 1, concurrency: 1 }\n",
         "s.yaml:2:8: model: no model file"},
        {"name: s\n" + model + "requests: { count: 1, input_tokens: 1, output_tokens: 1 }\n",
         "s.yaml:3:11: requests: give one of concurrency (a closed loop) and rate_per_s (Poisson arrivals)"},
        {"name: s\n" + model + "requests: { count: 1, input_tokens: 1, output_tokens: 1, concurrency: 2, rate_per_s: 1 }\n",
         "give one of concurrency"},
        {"name: s\n" + model + "requests: { count: 1, input_tokens: 1, output_tokens: 1, concurrency: 1 }\nbatching: eager\n",
         "s.yaml:4:11: batching: "},
        {"name: s\n" + model + "requests: { count: 1, input_tokens: 1, output_tokens: 1, concurrency: 1 }\ncards: 2\n",
         "s.yaml:4:8: cards: 2 cards: the topology has 1 cube"},
        // Longer than tiny.yaml's 4096 positions.
        {"name: s\n" + model + "requests: { count: 1, input_tokens: 4000, output_tokens: 100, concurrency: 1 }\n",
         "s.yaml:3:11: requests: input_tokens + output_tokens = 4100: beyond the model's max_position_embeddings 4096"},
    };
    for (const Case& c : cases) {
        std::ofstream("s.yaml") << c.text;
        const npuvp::test::RunResult r = npuvp::test::run_npuvp("serve s.yaml");
        BOOST_TEST(r.code == 2, c.text);
        BOOST_TEST(has(r.out, c.expect), "got: " << r.out << "expected: " << c.expect);
    }
}

BOOST_AUTO_TEST_CASE(max_throughput_finds_the_concurrency_and_what_limited_it) {
    // tiny.yaml on default.yaml: 8 slices x 6 GiB = 51,539,607,552 B of HBM,
    // weights 1,705,216 x 2 = 3,410,432 B; blocks of 1,000,000 tokens at
    // 1,024 B a token: (51,539,607,552 - 3,410,432) / 1,024,000,000 = 50
    // blocks, one a request: 50 requests at once, below max_batch 64. The
    // concurrencies tried: 1, 2, 4, 8, 16, 32 and the limit 50; a decode
    // step of tiny grows more slowly than its batch, so the limit wins.
    std::ofstream("kv_limited.yaml") << "name: kvl\nmodel: " << kSource << "/configs/llm/tiny.yaml\n"
                                     << "requests: { count: 8, input_tokens: 32, output_tokens: 16, concurrency: 8 }\n"
                                     << "max_batch: 64\nkv_block_tokens: 1000000\ncontext_bucket: 16\n";
    const npuvp::test::RunResult r = npuvp::test::run_npuvp("serve kv_limited.yaml --max-throughput");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(has(r.out, "the KV cache holds 50 requests at once, max_batch 64"), r.out);
    for (const char* row : {"\n          1  ", "\n         16  ", "\n         32  ", "\n         50  "}) BOOST_TEST(has(r.out, row), row);
    BOOST_TEST(has(r.out, "best     concurrency 50: "), r.out);
    BOOST_TEST(has(r.out, "limited by the KV cache (50 requests of 1 blocks fill 50 of 50)"), r.out);
    // tiny_chat's max_batch 4 is below its KV cache's limit: 1, 2, 4.
    const npuvp::test::RunResult b = npuvp::test::run_npuvp("serve " + kScenario + " --max-throughput");
    BOOST_REQUIRE_MESSAGE(b.code == 0, b.out);
    BOOST_TEST(has(b.out, "best     concurrency 4: "), b.out);
    BOOST_TEST(has(b.out, "limited by max_batch (4)"), b.out);
}

BOOST_AUTO_TEST_CASE(a_scenario_over_cards_runs_its_steps_tensor_parallel) {
    // tiny_chat over 2 cards of rngd_server.yaml, parallel: tensor, tree
    // all-reduces: the same loop (2 prefills, 30 decode steps, 2 run in
    // detail), each detailed step split over the 2 cards (its run's model
    // line says so); the cards' HBM holds the cache (2 x 48 GiB).
    const npuvp::test::RunResult r = npuvp::test::run_npuvp(
        "serve " +
        tiny_scenario("serve_tp.yaml", "requests: { count: 8, input_tokens: 32, output_tokens: 16, concurrency: 4 }\n"
                                       "max_batch: 4\ncontext_bucket: 16\ncards: 2\nparallel: tensor\nall_reduce: tree\n") +
        " --topology " + kSource + "/configs/topologies/rngd_server.yaml");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(has(r.out, "tiny on rngd_server (2 cards, tensor parallel, tree all-reduces)"), r.out);
    BOOST_TEST(has(r.out, "steps    2 prefill, 30 decode; 2 distinct steps run in detail"), r.out);
    // A bad choice names the key.
    refused(tiny_scenario("serve_tp_bad.yaml",
                          "requests: { count: 1, input_tokens: 4, output_tokens: 2, concurrency: 1 }\nparallel: data\n"),
            4, "parallel");
}

BOOST_AUTO_TEST_CASE(the_kv_caches_occupancy_over_time_is_a_row_a_step) {
    // tiny_chat: two waves of 4 requests, each a prefill of 4 x 32 tokens
    // then 15 decode steps at contexts 33 .. 47; a request holds
    // ceil((32 + 16) / 16) = 3 blocks from its admission, so every step runs
    // with 4 x 3 = 12 blocks held. 32 steps, back to back.
    const npuvp::test::RunResult r = npuvp::test::run_npuvp("serve " + kScenario + " --steps-csv serve_steps.csv");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(has(r.out, "over time: 12 blocks (0.0 %) at a quarter of the run, 12 blocks (0.0 %) at half"), r.out);
    std::ifstream in("serve_steps.csv");
    std::string line;
    std::getline(in, line);
    BOOST_TEST(line == "step,phase,batch,tokens,chunk_prompts,chunk_tokens,chunk_past,start_ms,end_ms,kv_blocks,kv_percent");
    std::vector<std::vector<std::string>> rows;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::size_t at = 0;
        for (std::size_t comma; (comma = line.find(',', at)) != std::string::npos; at = comma + 1)
            cells.push_back(line.substr(at, comma - at));
        cells.push_back(line.substr(at));
        rows.push_back(cells);
    }
    BOOST_REQUIRE_EQUAL(rows.size(), 32u);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const bool prefill = i % 16 == 0;
        BOOST_TEST(rows[i][1] == (prefill ? "prefill" : "decode"));
        BOOST_TEST(rows[i][2] == "4");
        BOOST_TEST(rows[i][3] == std::to_string(prefill ? 32 : 32 + i % 16));
        BOOST_TEST(rows[i][4] == "0");  // no chunk: whole prompts
        BOOST_TEST(rows[i][9] == "12");
        if (i) BOOST_TEST(rows[i][7] == rows[i - 1][8]);  // back to back
    }
}

BOOST_AUTO_TEST_CASE(a_chunked_prefill_scenario_runs_mixed_steps) {
    // tiny_chat with prefill_chunk 64 (two prompts of 32 a step): step 0
    // prefills A and B (nobody decodes yet), step 1 C and D beside A and B's
    // decoding; 14 decode steps of 4 finish A and B (16 tokens each); their
    // two successors' prompts go in a mixed step beside C and D's last
    // tokens, the last two's beside those two; 14 decode steps finish the
    // first pair, one more the last: 4 mixed steps, 29 decode, 33 in all.
    const npuvp::test::RunResult r = npuvp::test::run_npuvp(
        "serve " + tiny_scenario("serve_chunk.yaml", "requests: { count: 8, input_tokens: 32, output_tokens: 16, concurrency: 4 }\n"
                                                     "max_batch: 4\ncontext_bucket: 16\nprefill_chunk: 64\n"));
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    BOOST_TEST(has(r.out, "steps    0 prefill, 4 mixed (decode and a prefill chunk), 29 decode;"), r.out);
    BOOST_TEST(has(r.out, "bound    mixed ("), r.out);
    // A chunk with static batching names the key.
    refused(tiny_scenario("serve_chunk_static.yaml", "requests: { count: 1, input_tokens: 4, output_tokens: 2, concurrency: 1 }\n"
                                                     "batching: static\nprefill_chunk: 8\n"),
            5, "prefill_chunk applies to continuous batching");
}

BOOST_AUTO_TEST_CASE(a_scenario_can_run_each_step_as_a_compiled_kernel) {
    // tiny on rngd_pe.yaml, whose PE_CPU pays the book's 2,000 + 600 ns of
    // kernel start and end a launch: a step of tiny is some 26 short layers,
    // each launched on its own through the host, or one kernel a PE with
    // IPCQ barriers of about 2 us between waves of layers (docs/models.md
    // "Compiled kernels"). Compiled, each step pays the start and end once,
    // and the barriers instead of the host round trips: every decode step
    // is shorter, so the mean time per output token is lower.
    const std::string keys = "requests: { count: 8, input_tokens: 32, output_tokens: 16, concurrency: 4 }\n"
                             "max_batch: 4\ncontext_bucket: 16\n";
    const LaunchPair r = launch_pair("serve_compiled", keys, "compiled", "rngd_pe.yaml");
    BOOST_TEST(has(r.other.out, "(1 card, each step one compiled kernel a PE)"), r.other.out);
    BOOST_TEST(r.other_tpot < r.host_tpot);
    // One card: IPCQ does not cross cards (the key's line: name, model,
    // requests, cards, launch).
    refused(tiny_scenario("serve_compiled_cards.yaml",
                          "requests: { count: 1, input_tokens: 4, output_tokens: 2, concurrency: 1 }\ncards: 2\n"
                          "launch: compiled\n"),
            5, "launch: compiled runs a step on one card (cards: 2)");
}

BOOST_AUTO_TEST_CASE(a_scenario_can_launch_its_layers_through_the_device_queue) {
    // The tensor-parallel scenario above with launch: device: every step's
    // layers and all-reduce steps are sent at once and held by the cards'
    // M_CPUs (docs/models.md "Launches"). Each dependent launch then skips
    // a host round trip (two io_link crossings and the M_CPU and IO_CPU turns
    // between them, about 1 µs) and the time between layers is M_CPU's
    // release and the cards' notices: the same steps run, each shorter.
    const std::string keys = "requests: { count: 8, input_tokens: 32, output_tokens: 16, concurrency: 4 }\n"
                             "max_batch: 4\ncontext_bucket: 16\ncards: 2\nparallel: tensor\nall_reduce: tree\n";
    const LaunchPair r = launch_pair("serve_queue", keys, "device", "rngd_server.yaml");
    BOOST_TEST(has(r.other.out, "(2 cards, tensor parallel, tree all-reduces, layers launched through the device queue)"),
               r.other.out);
    BOOST_TEST(has(r.other.out, "steps    2 prefill, 30 decode; 2 distinct steps run in detail"), r.other.out);
    BOOST_TEST(r.other_tpot < r.host_tpot);
    const npuvp::test::RunResult bad = npuvp::test::run_npuvp("serve serve_queue_host.yaml --launch graph");
    BOOST_TEST(bad.code == 2);
    BOOST_TEST(has(bad.out, "serve: --launch: expected host, device or compiled, got 'graph'"), bad.out);
    refused(tiny_scenario("serve_queue_bad.yaml",
                          "requests: { count: 1, input_tokens: 4, output_tokens: 2, concurrency: 1 }\nlaunch: graph\n"),
            4, "launch");
}
