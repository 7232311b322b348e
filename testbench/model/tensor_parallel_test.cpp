// Tensor parallelism (issue 41 point 5; docs/llm.md "Several cards",
// docs/models.md "Tensor parallelism"): a step built as one card's shard,
// its layers run on every card, and each all-reduce lowered as transfers
// between the cards of rngd_server.yaml whose times follow the timing
// contract's T1 (docs/timing.md): a transfer of n bytes over an uncontended
// route takes the route's latency plus ser(n, the route's narrowest link).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/workload_loader.h"
#include "model/llm.h"
#include "model/mapper.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;
using namespace npuvp::model;

namespace {

const std::string kLlm = std::string(NPUVP_SOURCE_DIR) + "/configs/llm/";

std::size_t count_op(const Network& net, const std::string& op) {
    return static_cast<std::size_t>(
        std::count_if(net.nodes.begin(), net.nodes.end(), [&](const Node& n) { return n.op == op; }));
}

const Node& node(const Network& net, const std::string& name) {
    for (const Node& n : net.nodes)
        if (n.name == name) return n;
    BOOST_FAIL("no node " << name);
    return net.nodes.front();
}

std::vector<std::int64_t> shape(const Network& net, const std::string& tensor) {
    return net.tensors.at(tensor).shape;
}

// x [rows, hidden] (bf16) all-reduced over the cards: the network is the
// all-reduce alone, so its steps are the run.
Network all_reduce_only(std::int64_t rows, std::int64_t hidden) {
    Network net;
    net.file = "all_reduce.net";
    net.name = "all_reduce";
    for (const char* t : {"x", "y"}) {
        TensorInfo& info = net.tensors[t];
        info.shape = {rows, hidden};
        info.elem_bytes = 2;
    }
    Node n;
    n.name = "ar";
    n.op = "AllReduce";
    n.inputs = {"x"};
    n.outputs = {"y"};
    net.nodes.push_back(n);
    net.inputs = {"x"};
    net.outputs = {"y"};
    return net;
}

// ser(n, 30 GB/s) by hand (docs/timing.md T1): ceil(n · 10^12 / (30 · 10^9)) ps.
std::uint64_t ser_30(std::uint64_t n) { return (n * 1000 + 29) / 30; }

// x = 64 x 4096 bf16 = 524,288 B all-reduced over n cards of
// rngd_server.yaml in a ring: 2 (n - 1) steps; in each, every card's PE 0
// reads a chunk of 524,288 / n B from the card before it, over the route
// PE_DMA -> NoC -> M_CPU -> IO_CPU -> PCIe ... -> M_CPU -> NoC -> HBM, whose
// narrowest link is PCIe's 30 GB/s (io_link and sip_link). By T1 a read
// takes the route's latency, 5 ns for each M_CPU and IO_CPU it passes
// (their transit cost: 2 + 2 to the next card, 2 + 4 for the wrap-around
// n-1 -> 0 over three PCIe hops) and ser(chunk, 30 GB/s); the data of the
// reads i-1 -> i and of the wrap-around cross each link in opposite
// directions, separate hops (T1 "Directions"). By hand:
//   n = 2: chunk 262,144 B, ser = 8,738,134 ps; 2 steps;
//   n = 4: chunk 131,072 B, ser = 4,369,067 ps; 6 steps;
// each card reads 2 (n - 1) chunks, 524,288 B over 2 cards and 786,432 over
// 4 (the ring's 2 (n - 1) / n of the tensor): 17.48 and 26.21 µs of PCIe.
// What can still wait is the transit cost: a transfer books each M_CPU and
// IO_CPU it passes when it starts (T1: a transfer reserves its whole route
// when it starts; a processor is busy-until, not a calendar), so where two
// reads pass the same M_CPU in opposite orders, the later one waits there.
// Over 2 cards that is every step: card 1's read reaches sip1.cube0.m_cpu
// 502 ns after its start (DMA setup 500 + two NoC attaches of 1), but card
// 0's read, reserved first (T4: sip0 before sip1), passes it at its start +
// 2,517 ns (500 + 1 + 1 + M_CPU 5 + io_link 500 + IO_CPU 5 + sip_link 1,000
// + IO_CPU 5 + io_link 500) and holds it 5 ns: card 1's read takes
// (s0 + 2,522) - (s1 + 502) ns more than alone, s0 and s1 the two reads'
// starts. Over 4 cards the cards' launches arrive apart and the first
// step's reads do not meet; later ones may meet launches and responses.
std::vector<CommandResult> ring_all_reduce(int n, Platform& platform, const TopologyConfig& topo) {
    MapOptions options;
    options.tensor_parallel = n;
    const Mapping m = greedy_map(all_reduce_only(64, 4096), topo, options);
    const std::uint64_t chunk = 524288u / static_cast<std::uint64_t>(n);
    const std::size_t steps = 2u * static_cast<std::size_t>(n - 1);
    BOOST_CHECK_EQUAL(m.layers.size(), steps * static_cast<std::size_t>(n));
    BOOST_CHECK(m.workload_yaml.find("dma_read: { id: xin, bytes: " + std::to_string(chunk)) != std::string::npos);
    BOOST_CHECK(m.workload_yaml.find("math: { id: sum, op: add, elements: " + std::to_string(chunk / 2) + " }") !=
                std::string::npos);
    static std::unique_ptr<WorkloadRun> run;  // kept past sc_start (the kernel holds its processes)
    static WorkloadConfig w;
    w = load_workload_text(m.workload_yaml, "ring", topo);
    run = std::make_unique<WorkloadRun>(platform, w);
    sc_core::sc_start();
    BOOST_REQUIRE_MESSAGE(run->finished(), run->diagnosis());
    std::vector<CommandResult> reads;
    for (const CommandResult& c : run->commands())
        if (c.command->id == "xin") reads.push_back(c);
    BOOST_CHECK_EQUAL(reads.size(), steps * static_cast<std::size_t>(n));
    return reads;
}

int card_of(const CommandResult& c) { return std::stoi(c.pe.substr(3, c.pe.find('.') - 3)); }

// A read's time alone (T1, above): route latency + transits + ser.
std::uint64_t alone_ps(Platform& platform, int card, int n) {
    const int from = (card + n - 1) % n;
    const int hops = card == 0 ? n - 1 : 1;  // PCIe hops between the two cards
    const Route& route =
        platform.dma_route(platform.pe(card, 0, 0), DmaDirection::read, 0, *platform.cube(from, 0).hbm[0]);
    BOOST_CHECK_EQUAL(route.min_bw_gbs, 30.0);
    return route.latency_ps + 5000u * static_cast<std::uint64_t>(2 + hops + 1) + ser_30(524288u / static_cast<std::uint64_t>(n));
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_tensor_parallel_step_is_one_cards_shard) {
    // tiny.yaml (4 heads of 64 over 2 KV heads, intermediate 512, vocab
    // 1024) over 2 cards: each card 2 heads (Q 256 -> 128 columns), 1 KV
    // head (K, V 64 columns), 256 MLP columns, 512 logits; an AllReduce
    // after o_proj and after down_proj, each of the whole hidden state
    // (rows x 256); attention over 1 KV head a sequence.
    const LlmConfig c = load_llm_file(kLlm + "tiny.yaml");
    LlmStep step;
    step.batch = 2;
    step.tensor_parallel = 2;
    const Network net = llm_step_network(c, step);
    BOOST_CHECK_EQUAL(count_op(net, "AllReduce"), 4u);  // 2 layers x 2
    BOOST_CHECK((shape(net, "layers.0.q_proj.weight") == std::vector<std::int64_t>{256, 128}));
    BOOST_CHECK((shape(net, "layers.0.k_proj.weight") == std::vector<std::int64_t>{256, 64}));
    BOOST_CHECK((shape(net, "layers.0.gate_proj.weight") == std::vector<std::int64_t>{256, 256}));
    BOOST_CHECK((shape(net, "layers.0.down_proj.weight") == std::vector<std::int64_t>{256, 256}));
    BOOST_CHECK((shape(net, "layers.0.o_proj.weight") == std::vector<std::int64_t>{128, 256}));
    BOOST_CHECK((shape(net, "lm_head.weight") == std::vector<std::int64_t>{256, 512}));
    BOOST_CHECK((shape(net, "layers.1.attn_all_reduce.out") == std::vector<std::int64_t>{2, 256}));
    BOOST_CHECK_EQUAL(node(net, "layers.0.attn_all_reduce").inputs.front(), "layers.0.o_proj.out");
    BOOST_CHECK_EQUAL(node(net, "layers.0.residual_attn").inputs.back(), "layers.0.attn_all_reduce.out");
    // scores: a GEMM per (sequence, KV head) = 2 x 1, each of g = 2 query rows.
    BOOST_CHECK((shape(net, "layers.0.scores.out") == std::vector<std::int64_t>{2, 2, 129}));
    // Without tensor parallelism nothing changes: no AllReduce.
    step.tensor_parallel = 1;
    BOOST_CHECK_EQUAL(count_op(llm_step_network(c, step), "AllReduce"), 0u);
    // 3 cards: 4 heads do not divide.
    step.tensor_parallel = 3;
    try {
        llm_step_network(c, step);
        BOOST_FAIL("3 cards accepted");
    } catch (const ModelError& e) {
        BOOST_TEST(std::string(e.what()).find("num_attention_heads (4) does not divide by 3") != std::string::npos,
                   e.what());
    }
}

BOOST_AUTO_TEST_CASE(every_layer_runs_on_every_card_and_waits_for_its_own_cards_layers) {
    // tiny.yaml's decode step over 2 cards: each mapped layer twice, L_c0 on
    // sip0.cube0 and L_c1 on sip1.cube0, card 1's copy waiting only for
    // card 1's copies (or all-reduce steps); ring all-reduces of 2 cards are
    // 2 steps on each card: 4 all-reduces x 2 steps x 2 cards = 16.
    const TopologyConfig topo = test::load_shipped("rngd_server");
    LlmStep step;
    step.tensor_parallel = 2;
    MapOptions options;
    options.tensor_parallel = 2;
    const Mapping m = greedy_map(llm_step_network(load_llm_file(kLlm + "tiny.yaml"), step), topo, options);
    std::size_t steps = 0, c0 = 0, c1 = 0;
    for (const MappedLayer& l : m.layers) {
        if (l.op == "AllReduce") {
            ++steps;
            continue;
        }
        const bool one = l.id.size() > 3 && l.id.compare(l.id.size() - 3, 3, "_c1") == 0;
        (one ? c1 : c0) += 1;
        BOOST_CHECK_EQUAL(l.cube, one ? "sip1.cube0" : "sip0.cube0");
        for (const std::string& a : l.after)
            BOOST_CHECK_MESSAGE(a.find(one ? "_c1" : "_c0") != std::string::npos, l.id << " waits for " << a);
    }
    BOOST_CHECK_EQUAL(steps, 16u);
    BOOST_CHECK_EQUAL(c0, c1);
    // It loads: every kernel fits the machine.
    BOOST_CHECK_NO_THROW(load_workload_text(m.workload_yaml, "tp2", topo));
}


BOOST_AUTO_TEST_CASE(a_ring_all_reduce_over_two_cards_moves_half_the_tensor_a_step_at_pcie_speed) {
    const TopologyConfig topo = test::load_shipped("rngd_server");
    TraceSink trace;
    Platform platform(topo, trace);
    const std::vector<CommandResult> reads = ring_all_reduce(2, platform, topo);
    std::vector<const CommandResult*> card0, card1;  // in step order
    for (const CommandResult& c : reads) (card_of(c) == 0 ? card0 : card1).push_back(&c);
    BOOST_REQUIRE_EQUAL(card0.size(), 2u);
    BOOST_REQUIRE_EQUAL(card1.size(), 2u);
    for (std::size_t s = 0; s < 2; ++s) {
        const CommandResult& a = *card0[s];
        const CommandResult& b = *card1[s];
        BOOST_CHECK_EQUAL(a.finished_ps - a.started_ps, alone_ps(platform, 0, 2));
        BOOST_REQUIRE_LE(a.started_ps, b.started_ps);
        const std::uint64_t waits = a.started_ps + 2522000u - (b.started_ps + 502000u);
        BOOST_CHECK_EQUAL(b.finished_ps - b.started_ps, alone_ps(platform, 1, 2) + waits);
    }
}

BOOST_AUTO_TEST_CASE(a_ring_all_reduce_over_four_cards_moves_a_quarter_a_step_at_pcie_speed) {
    const TopologyConfig topo = test::load_shipped("rngd_server");
    TraceSink trace;
    Platform platform(topo, trace);
    // Every card's first read, before any other traffic crosses the cards'
    // M_CPUs and IO_CPUs, takes its time alone; a later one at least that
    // (it may queue at a transit processor that a launch, a response or
    // another read booked first, above).
    std::map<int, std::uint64_t> first;
    const std::vector<CommandResult> reads = ring_all_reduce(4, platform, topo);
    for (const CommandResult& c : reads)
        if (!first.count(card_of(c)) || c.started_ps < first[card_of(c)]) first[card_of(c)] = c.started_ps;
    for (const CommandResult& c : reads) {
        const std::uint64_t alone = alone_ps(platform, card_of(c), 4);
        if (c.started_ps == first[card_of(c)]) BOOST_CHECK_EQUAL(c.finished_ps - c.started_ps, alone);
        else BOOST_CHECK_GE(c.finished_ps - c.started_ps, alone);
    }
    BOOST_CHECK_EQUAL(first.size(), 4u);
}

BOOST_AUTO_TEST_CASE(a_tree_all_reduce_reduces_up_a_binary_tree_and_broadcasts_down) {
    // Over 4 cards: card 0 adds card 1's, card 2 adds card 3's; card 0 adds
    // card 2's; then card 2 gets the sum from card 0; cards 1 and 3 get it
    // from cards 0 and 2: 4 steps, 6 transfers, each of the whole tensor
    // (524,288 B), each step after both cards' previous ones.
    const TopologyConfig topo = test::load_shipped("rngd_server");
    MapOptions options;
    options.tensor_parallel = 4;
    options.all_reduce = MapOptions::AllReduce::tree;
    const Mapping m = greedy_map(all_reduce_only(64, 4096), topo, options);
    std::vector<std::string> got;
    for (const MappedLayer& l : m.layers) got.push_back(l.id + " " + l.lowering);
    const std::vector<std::string> want{
        "l0_ar_s0_c0 all-reduce tree step 1 of 4 (reduce from card 1)",
        "l0_ar_s0_c2 all-reduce tree step 1 of 4 (reduce from card 3)",
        "l0_ar_s1_c0 all-reduce tree step 2 of 4 (reduce from card 2)",
        "l0_ar_s2_c2 all-reduce tree step 3 of 4 (gather from card 0)",
        "l0_ar_s3_c1 all-reduce tree step 4 of 4 (gather from card 0)",
        "l0_ar_s3_c3 all-reduce tree step 4 of 4 (gather from card 2)"};
    BOOST_CHECK_EQUAL_COLLECTIONS(got.begin(), got.end(), want.begin(), want.end());
    BOOST_CHECK((m.layers[2].after == std::vector<std::string>{"l0_ar_s0_c0", "l0_ar_s0_c2"}));
    BOOST_CHECK((m.layers[4].after == std::vector<std::string>{"l0_ar_s1_c0"}));
    BOOST_CHECK(m.workload_yaml.find("dma_read: { id: xin, bytes: 524288") != std::string::npos);
}
