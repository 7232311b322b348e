// Elaboration, routing and address decoding of the shipped topologies
// (SPEC §2, T5). Each case elaborates in its own process.
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "testbench/harness/platform_fixture.h"

using namespace npuvp;

namespace {

std::vector<std::string> path_ids(const Route& route) {
    std::vector<std::string> ids;
    for (const auto& p : route.path) ids.push_back(p.node->node_id());
    return ids;
}

}  // namespace

BOOST_AUTO_TEST_CASE(default_elaborates_every_node_with_its_id_as_systemc_name) {
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);

    std::map<std::string, int> kinds;
    for (const RoutedNode* node : platform.nodes()) {
        ++kinds[node->kind()];
        // The node id is the SystemC hierarchical name, and SystemC finds it by it.
        BOOST_CHECK_EQUAL(node->node_id(), std::string(node->name()));
        BOOST_CHECK(sc_core::sc_find_object(node->node_id().c_str()) == node);
    }
    BOOST_CHECK_EQUAL(kinds["m_cpu"], 1);
    BOOST_CHECK_EQUAL(kinds["io_cpu"], 1);
    BOOST_CHECK_EQUAL(kinds["hbm_ctrl"], 8);
    BOOST_CHECK_EQUAL(kinds["shared_sram"], 1);
    BOOST_CHECK_EQUAL(kinds["mesh_router"], 8);
    for (const char* kind : {"pe_cpu", "pe_scheduler", "pe_dma", "pe_fetch_store", "pe_gemm",
                             "pe_math", "pe_tcm", "pe_mmu", "pe_ipcq"})
        BOOST_CHECK_EQUAL(kinds[kind], 8);  // 8 PEs x 9 components
    BOOST_CHECK_EQUAL(kinds.count("ucie_port"), 0u);  // one cube: no UCIe port
    BOOST_CHECK_EQUAL(platform.nodes().size(), 1u + 1 + 8 + 1 + 8 + 72);

    BOOST_CHECK(platform.find("sip0.cube0.pe3.pe_dma") == &platform.pe(0, 0, 3).dma());
    BOOST_CHECK(platform.find("sip0.cube0.hbm_ctrl.pe3") == platform.cube(0, 0).hbm[3]);
    BOOST_CHECK(platform.find("sip0.cube0.noc.r7") != nullptr);
    BOOST_CHECK(platform.find("sip0.cube0.pe8.pe_dma") == nullptr);
    // The shared compute slot is one object under each PE.
    BOOST_CHECK(sc_core::sc_find_object("sip0.cube0.pe5.accel_slot") ==
                &platform.pe(0, 0, 5).accel_slot());
}

BOOST_AUTO_TEST_CASE(xy_route_corner_to_corner_goes_x_first) {
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);

    // 2 x 4 mesh, router = row * 4 + col. pe0 sits at (0,0), hbm_ctrl.pe7 at (1,3).
    // X first: along row 0 to column 3 (r1, r2, r3), then down column 3 (r7).
    const Route& down = platform.route("sip0.cube0.pe0.pe_dma", "sip0.cube0.hbm_ctrl.pe7");
    const std::vector<std::string> want_down{
        "sip0.cube0.pe0.pe_dma", "sip0.cube0.noc.r0", "sip0.cube0.noc.r1", "sip0.cube0.noc.r2",
        "sip0.cube0.noc.r3",     "sip0.cube0.noc.r7", "sip0.cube0.hbm_ctrl.pe7"};
    BOOST_CHECK(path_ids(down) == want_down);
    // The other way round is also X first: along row 1 (r6, r5, r4), then up (r0).
    // YX routing would give r7, r3, r2, r1, r0 instead.
    const Route& up = platform.route("sip0.cube0.pe7.pe_dma", "sip0.cube0.hbm_ctrl.pe0");
    const std::vector<std::string> want_up{
        "sip0.cube0.pe7.pe_dma", "sip0.cube0.noc.r7", "sip0.cube0.noc.r6", "sip0.cube0.noc.r5",
        "sip0.cube0.noc.r4",     "sip0.cube0.noc.r0", "sip0.cube0.hbm_ctrl.pe0"};
    BOOST_CHECK(path_ids(up) == want_up);

    // Latency by hand (default.yaml): attach 1 ns each end; 4 mesh links of
    // pitch 5 mm x 0.1 ns/mm + router 2 ns = 2.5 ns each; the HBM port 100 ns.
    // 1 + 4 x 2.5 + 1 + 100 = 112 ns. Narrowest bandwidth: HBM port 192 GB/s
    // (mesh links 256, attach unlimited).
    BOOST_CHECK_EQUAL(down.latency_ps, 112000u);
    BOOST_CHECK_EQUAL(down.min_bw_gbs, 192.0);
    BOOST_CHECK_EQUAL(down.steps.size(), 7u);  // 6 links + the HBM port
    // Each link hop is applied by the node it leaves; the port by the target.
    for (std::size_t i = 0; i + 1 < down.steps.size(); ++i)
        BOOST_CHECK_EQUAL(down.steps[i].at, i);
    BOOST_CHECK_EQUAL(down.steps.back().at, 6u);
    BOOST_CHECK_EQUAL(down.steps.back().hop->name(), "sip0.cube0.hbm_ctrl.pe7.port");
}

BOOST_AUTO_TEST_CASE(same_router_route_uses_no_mesh_link) {
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);
    const Route& r = platform.route("sip0.cube0.pe3.pe_dma", "sip0.cube0.hbm_ctrl.pe3");
    const std::vector<std::string> want{"sip0.cube0.pe3.pe_dma", "sip0.cube0.noc.r3",
                                        "sip0.cube0.hbm_ctrl.pe3"};
    BOOST_CHECK(path_ids(r) == want);
    BOOST_CHECK_EQUAL(r.latency_ps, 102000u);  // attach 1 + attach 1 + HBM port 100 ns
}

BOOST_AUTO_TEST_CASE(dma_routes_follow_t2) {
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);
    Pe& pe = platform.pe(0, 0, 2);
    MemoryTarget& hbm = *platform.cube(0, 0).hbm[2];
    // DMA_READ: channel -> NoC -> memory target -> TCM write port (tail).
    const Route& rd = platform.dma_route(pe, DmaDirection::read, 0, hbm);
    BOOST_REQUIRE_EQUAL(rd.steps.size(), 5u);
    BOOST_CHECK(rd.steps[0].hop == &pe.dma().channel_hop(DmaDirection::read, 0));
    BOOST_CHECK_EQUAL(rd.steps[3].hop->name(), "sip0.cube0.hbm_ctrl.pe2.port");
    BOOST_CHECK(rd.steps[4].hop == &pe.tcm().write_port());
    BOOST_CHECK_EQUAL(rd.steps[4].at, rd.path.size());  // applied by the initiator at the end
    // DMA_WRITE: TCM read port -> channel -> NoC -> memory target.
    const Route& wr = platform.dma_route(pe, DmaDirection::write, 0, hbm);
    BOOST_REQUIRE_EQUAL(wr.steps.size(), 5u);
    BOOST_CHECK(wr.steps[0].hop == &pe.tcm().read_port());
    BOOST_CHECK(wr.steps[1].hop == &pe.dma().channel_hop(DmaDirection::write, 0));
    BOOST_CHECK_EQUAL(wr.steps[4].hop->name(), "sip0.cube0.hbm_ctrl.pe2.port");
    // Latency: setup 500 + attach 1 + attach 1 + HBM 100 + TCM 2 = 604 ns, both ways.
    BOOST_CHECK_EQUAL(rd.latency_ps, 604000u);
    BOOST_CHECK_EQUAL(wr.latency_ps, 604000u);
    // Narrowest: HBM 192 GB/s < DMA channel 256 < TCM port 8192.
    BOOST_CHECK_EQUAL(rd.min_bw_gbs, 192.0);
}

BOOST_AUTO_TEST_CASE(pe_internal_nodes_reach_only_their_pe) {
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);
    // PE_CPU -> PE_SCHEDULER (its commands) is the template edge
    // cpu_to_scheduler, never over the NoC.
    const Route& r = platform.route("sip0.cube0.pe1.pe_cpu", "sip0.cube0.pe1.pe_scheduler");
    const std::vector<std::string> want{"sip0.cube0.pe1.pe_cpu", "sip0.cube0.pe1.pe_scheduler"};
    BOOST_CHECK(path_ids(r) == want);
    // The engines behind the scheduler have no link out (tokens reach them
    // through the stage inboxes): nothing routes from them.
    BOOST_CHECK_THROW(platform.route("sip0.cube0.pe1.pe_gemm", "sip0.cube0.hbm_ctrl.pe0"),
                      std::invalid_argument);
    BOOST_CHECK_THROW(platform.route("sip0.cube0.pe1.pe_gemm", "no.such.node"),
                      std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(multi_cube_routes_cross_ucie_and_io_cpus) {
    const TopologyConfig topo = test::load_shipped("two_sip");
    TraceSink trace;
    Platform platform(topo, trace);
    BOOST_CHECK_EQUAL(platform.sips().size(), 2u);
    BOOST_CHECK(platform.find("sip1.cube1.ucie") != nullptr);
    BOOST_CHECK(platform.find("sip1.io_cpu") != nullptr);

    // Same SIP, other cube: to the UCIe port at router 0, across, and on.
    const Route& ucie = platform.route("sip0.cube0.pe0.pe_dma", "sip0.cube1.hbm_ctrl.pe1");
    const std::vector<std::string> want_ucie{
        "sip0.cube0.pe0.pe_dma", "sip0.cube0.noc.r0", "sip0.cube0.ucie", "sip0.cube1.ucie",
        "sip0.cube1.noc.r0",     "sip0.cube1.noc.r1", "sip0.cube1.hbm_ctrl.pe1"};
    BOOST_CHECK(path_ids(ucie) == want_ucie);
    // Host to a PE of the other SIP: IO_CPU chain, that cube's M_CPU, its mesh.
    const Route& host = platform.route("sip0.io_cpu", "sip1.cube1.pe0.pe_cpu");
    const std::vector<std::string> want_host{"sip0.io_cpu", "sip1.io_cpu", "sip1.cube1.m_cpu",
                                             "sip1.cube1.noc.r0", "sip1.cube1.pe0.pe_cpu"};
    BOOST_CHECK(path_ids(host) == want_host);
    // And the response path back is the same nodes reversed.
    const Route& back = platform.route("sip1.cube1.pe0.pe_cpu", "sip0.io_cpu");
    std::vector<std::string> reversed = want_host;
    std::reverse(reversed.begin(), reversed.end());
    BOOST_CHECK(path_ids(back) == reversed);
}

BOOST_AUTO_TEST_CASE(address_resolver_decodes_slices_and_rejects_holes) {
    const TopologyConfig topo = test::load_shipped("two_sip");
    TraceSink trace;
    Platform platform(topo, trace);
    const AddressResolver& ar = platform.resolver();
    const std::uint64_t slice = 6ull << 30;  // hbm_slice_gb: 6
    // Global slice 8 * 3 + 5 = 29 is sip1.cube1 (global cube 3), slice 5.
    const DecodedAddress d = ar.resolve(29 * slice + 123);
    BOOST_CHECK_EQUAL(d.node_id, "sip1.cube1.hbm_ctrl.pe5");
    BOOST_CHECK_EQUAL(d.offset, 123u);
    BOOST_CHECK(platform.find(d.node_id) != nullptr);
    BOOST_CHECK_EQUAL(ar.resolve(slice - 1).node_id, "sip0.cube0.hbm_ctrl.pe0");
    BOOST_CHECK_EQUAL(ar.resolve(slice).node_id, "sip0.cube0.hbm_ctrl.pe1");
    BOOST_CHECK_EQUAL(ar.resolve(ar.sram_base(1, 0) + 7).node_id, "sip1.cube0.shared_sram");
    BOOST_CHECK_THROW(ar.resolve(ar.hbm_end()), std::out_of_range);  // 4 cubes x 8 slices end
    BOOST_CHECK_THROW(ar.resolve(ar.sram_base(1, 1) + topo.cube.shared_sram.size_bytes),
                      std::out_of_range);
}

BOOST_AUTO_TEST_CASE(override_changes_the_elaborated_value) {
    const TopologyConfig topo =
        test::load_shipped("default", {"cube.noc.attrs.link_bw_gbs=128", "wire.ns_per_mm=0.2"});
    TraceSink trace;
    Platform platform(topo, trace);
    const Link* l = platform.link(*platform.find("sip0.cube0.noc.r0"),
                                  *platform.find("sip0.cube0.noc.r1"));
    BOOST_REQUIRE(l != nullptr);
    BOOST_CHECK_EQUAL(l->hop->bw_gbs(), 128.0);
    // 5 mm x 0.2 ns/mm + 2 ns router = 3 ns.
    BOOST_CHECK_EQUAL(l->hop->latency_ps(), 3000u);
}

BOOST_AUTO_TEST_CASE(tcm_partition_splits_reserved_and_allocatable) {
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);
    Pe& pe = platform.pe(0, 0, 4);
    // default.yaml: 32 MiB TCM, 8 MiB reserved for the scheduler's tile buffers.
    PeMemAllocator& alloc = pe.tcm().allocator();
    BOOST_CHECK_EQUAL(alloc.base(), 8u << 20);
    BOOST_CHECK_EQUAL(alloc.limit(), 32u << 20);
    BOOST_CHECK_EQUAL(pe.scheduler().reserved().capacity(), 8u << 20);
    // The whole allocatable region can be taken, and nothing more.
    const std::uint64_t a = alloc.allocate(24u << 20, 4096);
    BOOST_CHECK_EQUAL(a, 8u << 20);
    BOOST_CHECK_THROW(alloc.allocate(1, 1), TcmOutOfMemory);
}
