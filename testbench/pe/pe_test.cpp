// The Pe module alone (modules/pe/pe.*): built from the shipped template with
// the builtin impls, outside any platform, its one outside binding (`routes`)
// on a stub. Checks that it binds every block's ports to the PE's own blocks,
// slot and inboxes, in the documented order.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/pe/pe.h"
#include "platform/impl_registry.h"
#include "testbench/harness/platform_fixture.h"

using namespace npuvp;

namespace {

// Routes are the platform's; nothing here transfers, so one empty route serves.
struct StubRoutes : PeRoutes {
    Route none;
    const Route& between(RoutedNode&, RoutedNode&) override { return none; }
    const Route& to_scheduler() override { return none; }
    const Route& dma(DmaDirection, int, std::uint64_t) override { return none; }
    const Route& comm(int) override { return none; }
    const Route& fetch() override { return none; }
    const Route& store() override { return none; }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_pe_alone_binds_its_blocks_slot_and_inboxes) {
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    RunStatus status;
    const NodeEnv env{topo, {0, 0, 3, -1}, trace, status};
    Pe pe("pe3", env, builtin_registry());
    StubRoutes routes;
    pe.routes.bind(routes);
    IpcqList cube;  // a cube of one PE
    cube.add(pe.ipcq());
    pe.dma().peers.bind(cube);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // ends elaboration: every port bound

    BOOST_CHECK_EQUAL(pe.index(), 3);
    BOOST_CHECK_EQUAL(pe.dma().node_id(), "pe3.pe_dma");

    // The nine blocks in template order; PE_CPU, PE_DMA, PE_MMU and PE_IPCQ
    // attach to the mesh, in that link order: dma, cpu, mmu, ipcq.
    std::vector<std::string> built;
    std::vector<std::string> attached;
    for (const Pe::Block& b : pe.blocks()) {
        built.push_back(b.node->kind());
        if (b.attached) attached.push_back(b.node->kind());
    }
    BOOST_CHECK(built == (std::vector<std::string>{"pe_cpu", "pe_scheduler", "pe_dma",
                                                   "pe_fetch_store", "pe_gemm", "pe_math",
                                                   "pe_tcm", "pe_mmu", "pe_ipcq"}));
    BOOST_CHECK(attached == (std::vector<std::string>{"pe_cpu", "pe_dma", "pe_mmu", "pe_ipcq"}));
    // PE_MMU and PE_IPCQ only receive (M_CPU's map messages, a peer's IPCQ
    // data): their links toward the router would carry nothing, so they
    // are not made (issue 17: every binding means something).
    std::vector<std::string> link_order, senders;
    for (const Pe::Attached& a : pe.attached_nodes()) {
        link_order.push_back(a.node->kind());
        if (a.sends) senders.push_back(a.node->kind());
    }
    BOOST_CHECK(link_order == (std::vector<std::string>{"pe_dma", "pe_cpu", "pe_mmu", "pe_ipcq"}));
    BOOST_CHECK(senders == (std::vector<std::string>{"pe_dma", "pe_cpu"}));
    // Of seed 000 §D8's edges only those a transfer crosses: PE_CPU ->
    // PE_SCHEDULER (commands) and the fetch_store <-> TCM pair (FETCH /
    // STORE data); tokens pass between engines through the stage inboxes.
    BOOST_CHECK_EQUAL(pe.edges().size(), 3u);

    // seed 000 §D4: GEMM and MATH hold the one slot of their PE.
    BOOST_CHECK(pe.gemm().accel_slot[0] == &pe.accel_slot());
    BOOST_CHECK(pe.math().accel_slot[0] == &pe.accel_slot());
    BOOST_CHECK_EQUAL(std::string(pe.accel_slot().name()), "pe3.accel_slot");

    // The scheduler writes the PE's eight inboxes, in StageType order.
    BOOST_REQUIRE_EQUAL(pe.scheduler().inboxes.size(), static_cast<int>(stage_type_count));
    for (std::size_t i = 0; i < stage_type_count; ++i)
        BOOST_CHECK(pe.scheduler().inboxes[static_cast<int>(i)] ==
                    static_cast<TokenOutIf*>(&pe.inboxes().fifo(static_cast<StageType>(i))));
    BOOST_CHECK_EQUAL(std::string(pe.inboxes().fifo(StageType::gemm).name()), "pe3.gemm_inbox");
    // Every engine block reaches the same inboxes through its `inboxes` port.
    const sc_core::sc_interface* inboxes = &pe.inboxes();
    BOOST_CHECK(pe.dma().inboxes.get_interface() == inboxes);
    BOOST_CHECK(pe.fetch_store().inboxes.get_interface() == inboxes);
    BOOST_CHECK(pe.gemm().inboxes.get_interface() == inboxes);
    BOOST_CHECK(pe.math().inboxes.get_interface() == inboxes);
    BOOST_CHECK(pe.ipcq().inboxes.get_interface() == inboxes);

    // PE_CPU asks its own scheduler and reports its own engines' busy time.
    BOOST_CHECK(pe.cpu().scheduler[0] == static_cast<CommandCompletion*>(&pe.scheduler()));
    BOOST_CHECK(pe.cpu().dma[0] == static_cast<BusyTime*>(&pe.dma()));
    BOOST_REQUIRE_EQUAL(pe.cpu().compute.size(), 2);
    BOOST_CHECK(pe.cpu().compute[0] == static_cast<BusyTime*>(&pe.gemm()));
    BOOST_CHECK(pe.cpu().compute[1] == static_cast<BusyTime*>(&pe.math()));
    // PE_DMA translates through its own MMU; PE_FETCH_STORE asks its own
    // scheduler about banks; `routes` reaches every block that uses it.
    BOOST_CHECK(pe.dma().mmu[0] == static_cast<AddressTranslator*>(&pe.mmu()));
    BOOST_CHECK(pe.fetch_store().banks[0] == static_cast<BankMonitor*>(&pe.scheduler()));
    for (PeRoutes* r : {pe.cpu().routes[0], pe.dma().routes[0], pe.fetch_store().routes[0]})
        BOOST_CHECK(r == static_cast<PeRoutes*>(&routes));

    // Workers: rd_engines + wr_engines + vc_comm, fetch, store, GEMM, MATH,
    // the IPCQ receiver (default.yaml: 1 + 1 DMA channels).
    BOOST_CHECK_EQUAL(pe.workers().size(), 1u + 1u + 1u + 2u + 1u + 1u + 1u);
    BOOST_CHECK(pe.rtl_blocks().empty());

    // The busy rows are the engine kinds that have one, by lane, in the
    // table's order (modules/pe/engine_kinds.h): what the report and the
    // printed table show.
    std::vector<std::string> busy_rows, expected;
    for (const Pe::EngineBusy& e : pe.engine_busy()) busy_rows.push_back(e.engine);
    for (const EngineKind& kind : engine_kinds)
        if (kind.busy_row) expected.push_back(to_string(kind.stage));
    BOOST_CHECK(busy_rows == expected);
    BOOST_CHECK_EQUAL(busy_rows.size(), busy_row_count());
    BOOST_CHECK(busy_rows == (std::vector<std::string>{"DMA_READ", "DMA_WRITE", "FETCH", "STORE",
                                                       "GEMM", "MATH", "IPCQ_SEND"}));
}
