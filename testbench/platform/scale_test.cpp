// A machine of 4,096 PEs: configs/topologies/scale_16k.yaml (16 x 16 PEs per
// cube) with 2 SIPs of 8 cubes instead of 8. Structure only: how fast it
// elaborates is measured by benchmark (docs/speed.md, "Scale: 16,384 PEs"),
// never asserted here. Each case runs in its own process.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/run_npuvp.h"

using namespace npuvp;

namespace {

const std::vector<std::string> kTwoSips{"system.sips=2"};  // 2 SIPs x 8 cubes x 256 PEs

// Per cube: a 16 x 16 mesh has 16·15 links across and 15·16 down, each both
// ways (960); each PE has 11 (PE_DMA and PE_CPU to and from their router,
// router to PE_MMU and to PE_IPCQ, its HBM slice both ways, PE_CPU ->
// PE_SCHEDULER, FETCH_STORE <-> TCM); M_CPU, shared SRAM and UCIe port to
// and from router 0, IO_CPU <-> M_CPU (8). Per SIP the UCIe chain of 8
// cubes (7 links, both ways), and one sip link between the two SIPs.
constexpr std::size_t kLinks = 16 * (960 + 256 * 11 + 8) + 2 * 7 * 2 + 2;  // 60,574
// 2 IO_CPUs; per cube M_CPU, shared SRAM, UCIe port; per PE its 9 blocks,
// its router and its HBM slice.
constexpr std::size_t kNodes = 2 + 16 * 3 + 4096 * 11;  // 45,106

std::vector<std::string> path_ids(const Route& route) {
    std::vector<std::string> ids;
    for (const auto& p : route.path) ids.push_back(p.node->node_id());
    return ids;
}

}  // namespace

BOOST_AUTO_TEST_CASE(four_thousand_pes_elaborate_every_node_link_and_xy_route) {
    const TopologyConfig topo = test::load_shipped("scale_16k", kTwoSips);
    TraceSink trace;
    Platform platform(topo, trace);

    std::map<std::string, std::size_t> kinds;
    for (const RoutedNode* node : platform.nodes()) ++kinds[node->kind()];
    BOOST_CHECK_EQUAL(kinds["io_cpu"], 2u);
    for (const char* kind : {"m_cpu", "shared_sram", "ucie_port"}) BOOST_CHECK_EQUAL(kinds[kind], 16u);
    for (const char* kind : {"hbm_ctrl", "mesh_router", "pe_cpu", "pe_scheduler", "pe_dma", "pe_fetch_store",
                             "pe_gemm", "pe_math", "pe_tcm", "pe_mmu", "pe_ipcq"})
        BOOST_CHECK_EQUAL(kinds[kind], 4096u);
    BOOST_CHECK_EQUAL(platform.nodes().size(), kNodes);
    BOOST_CHECK_EQUAL(platform.links().size(), kLinks);

    // Sorted by id, and found by it (first, last, and one in between).
    BOOST_CHECK(std::is_sorted(platform.nodes().begin(), platform.nodes().end(),
                               [](const RoutedNode* a, const RoutedNode* b) { return a->node_id_ref() < b->node_id_ref(); }));
    BOOST_CHECK(platform.find("sip0.cube0.hbm_ctrl.pe0") == platform.cube(0, 0).hbm[0]);
    BOOST_CHECK(platform.find("sip1.io_cpu") == platform.sips()[1].io_cpu);
    BOOST_CHECK(platform.find("sip1.cube7.pe255.pe_ipcq") == &platform.pe(1, 7, 255).ipcq());
    BOOST_CHECK(platform.find("sip1.cube7.pe256.pe_ipcq") == nullptr);
    BOOST_CHECK(platform.find("sip2.io_cpu") == nullptr);
    BOOST_CHECK(platform.link(platform.pe(1, 3, 200).dma(), *platform.find("sip1.cube3.noc.r200")) != nullptr);
    BOOST_CHECK(platform.link(platform.pe(1, 3, 200).dma(), *platform.find("sip1.cube3.noc.r201")) == nullptr);
    BOOST_CHECK(platform.attachment(platform.pe(1, 3, 200).mmu()) == std::make_pair(11, 200));

    // Routes, by XY on the 16 x 16 mesh (one case: the machine is built once).
    // pe17 (row 1, column 1) to the HBM slice of pe254 (row 15, column 14):
    // X first, columns 1 -> 14 (13 links), then Y, rows 1 -> 15 (14 links):
    // PE_DMA, 28 routers, the slice: 30 nodes, 29 links.
    const Route& xy = platform.route("sip0.cube0.pe17.pe_dma", "sip0.cube0.hbm_ctrl.pe254");
    const std::vector<std::string> ids = path_ids(xy);
    BOOST_REQUIRE_EQUAL(ids.size(), 30u);
    BOOST_CHECK_EQUAL(ids[1], "sip0.cube0.noc.r17");
    BOOST_CHECK_EQUAL(ids[14], "sip0.cube0.noc.r30");   // row 1, column 14: X done
    BOOST_CHECK_EQUAL(ids[15], "sip0.cube0.noc.r46");   // then down column 14
    BOOST_CHECK_EQUAL(ids[28], "sip0.cube0.noc.r254");
    BOOST_CHECK_EQUAL(ids[29], "sip0.cube0.hbm_ctrl.pe254");
    BOOST_CHECK(&platform.route("sip0.cube0.pe17.pe_dma", "sip0.cube0.hbm_ctrl.pe254") == &xy);  // cached

    // Across cubes of SIP 1: router 0 to the UCIe port, the chain 2 -> 5,
    // then XY from router 0 to router 3: 1 + 1 + 4 + 4 + 1 = 11 nodes.
    const std::vector<std::string> want_ucie{
        "sip1.cube2.pe0.pe_dma", "sip1.cube2.noc.r0", "sip1.cube2.ucie", "sip1.cube3.ucie",
        "sip1.cube4.ucie",       "sip1.cube5.ucie",   "sip1.cube5.noc.r0", "sip1.cube5.noc.r1",
        "sip1.cube5.noc.r2",     "sip1.cube5.noc.r3", "sip1.cube5.hbm_ctrl.pe3"};
    BOOST_CHECK(path_ids(platform.route("sip1.cube2.pe0.pe_dma", "sip1.cube5.hbm_ctrl.pe3")) == want_ucie);

    // Across SIPs: PE_CPU, router 0, its M_CPU, both IO_CPUs, the other
    // M_CPU, then router 0 -> 255 by XY (16 routers across row 0, 15 down
    // column 15), PE_MMU: 6 + 31 + 1 = 38 nodes.
    const Route& far = platform.route("sip0.cube0.pe0.pe_cpu", "sip1.cube7.pe255.pe_mmu");
    const std::vector<std::string> far_ids = path_ids(far);
    BOOST_REQUIRE_EQUAL(far_ids.size(), 38u);
    BOOST_CHECK_EQUAL(far_ids[2], "sip0.cube0.m_cpu");
    BOOST_CHECK_EQUAL(far_ids[4], "sip1.io_cpu");
    BOOST_CHECK_EQUAL(far_ids[5], "sip1.cube7.m_cpu");
    BOOST_CHECK_EQUAL(far_ids[21], "sip1.cube7.noc.r15");
    BOOST_CHECK_EQUAL(far_ids[36], "sip1.cube7.noc.r255");
}

BOOST_AUTO_TEST_CASE(list_prints_a_line_per_node_and_link) {
    const test::RunResult r = test::run_npuvp("--topology " + test::shipped_topology("scale_16k") +
                                              " --set system.sips=2 --list");
    BOOST_CHECK_EQUAL(r.code, 0);
    // 5 header lines (version, machine, PE, DMA, memory), then the nodes and
    // each one's outgoing links.
    BOOST_CHECK_EQUAL(static_cast<std::size_t>(std::count(r.out.begin(), r.out.end(), '\n')),
                      5 + kNodes + kLinks);
    BOOST_CHECK(r.out.find("machine  2 SIP x 8 cube x 256 PE (16x16 mesh), 45106 nodes, 60574 links\n") !=
                std::string::npos);
    BOOST_CHECK(r.out.find("sip1.cube7.pe255.pe_dma  [pe_dma]\n    -> sip1.cube7.noc.r255  attach, 1.000 ns, "
                           "unlimited\n") != std::string::npos);
}
