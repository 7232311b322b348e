// The platform probe on the default topology: T1 contention through the
// real modules, with times derived by hand from default.yaml.
#include <boost/test/unit_test.hpp>

#include "platform/platform.h"
#include "platform/probe.h"
#include "testbench/harness/platform_fixture.h"

using namespace npuvp;

BOOST_AUTO_TEST_CASE(probe_times_follow_t1_by_hand) {
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);
    Probe probe("probe", platform, 4u << 20, trace);
    sc_core::sc_start();
    BOOST_REQUIRE(probe.finished());
    const auto& r = probe.results();
    BOOST_REQUIRE_EQUAL(r.size(), 8u);

    // Probe 1, control messages (n = 0): M_CPU at router 0.
    // pe0: m_cpu -> r0 -> pe0.pe_cpu = attach 1 + attach 1 = 2 ns.
    // pe1: one mesh link more: 5 mm x 0.1 ns/mm + 2 ns = 2.5 ns -> 4.5 ns.
    // pe7: XY r0 -> r1 -> r2 -> r3 -> r7 = 4 links -> 2 + 10 = 12 ns.
    BOOST_CHECK_EQUAL(r[0].control_ps, 2000u);
    BOOST_CHECK_EQUAL(r[1].control_ps, 4500u);
    BOOST_CHECK_EQUAL(r[7].control_ps, 12000u);

    // Probe 2, 4 MiB = 4194304 B from the own HBM slice, no hop shared:
    // latency = setup 500 + attach 1 + attach 1 + HBM 100 + TCM 2 = 604 ns;
    // drain = 4194304 / 192 GB/s = 21845.3333 ns, rounded up to 21845.334 ns.
    for (const auto& pe : r) {
        BOOST_CHECK_EQUAL(pe.hbm_start_ps, 0u);
        BOOST_CHECK_EQUAL(pe.hbm_done_ps, 604000u + 21845334u);
    }

    // Probe 3 starts when probe 2 is done (t0 = 22449.334 ns), every PE reads
    // 4 MiB from the shared SRAM (router 0, port 512 GB/s, 20 ns).
    // pe0: 500 + 1 + 1 + 20 + 2 = 524 ns latency, narrowest hop the DMA
    //      channel 256 GB/s: drain 16384 ns -> 16908 ns. It reserves the SRAM
    //      port from t0+502 to t0+502+8192 (4 MiB / 512 GB/s = 8192 ns).
    // pe1: reaches r0 over one mesh link at t0+503.5 and the SRAM at t0+504.5,
    //      but the port is busy until t0+8694: t = 8694 + 20 + 2 (TCM) = 8716,
    //      done = 8716 + 16384 = 25100 ns after t0.
    const std::uint64_t t0 = 604000u + 21845334u;
    BOOST_CHECK_EQUAL(r[0].sram_start_ps, t0);
    BOOST_CHECK_EQUAL(r[0].sram_done_ps - t0, 16908000u);
    BOOST_CHECK_EQUAL(r[1].sram_done_ps - t0, 25100000u);
    // Every later PE queues behind the earlier ones at the SRAM port, so the
    // completions are strictly increasing in the order the PEs asked.
    for (std::size_t i = 1; i < r.size(); ++i)
        BOOST_CHECK_GT(r[i].sram_done_ps, r[i - 1].sram_done_ps);

    // DMA statistics: every PE's read channel moved 8 MiB, busy from grant to done.
    for (const Pe* pe : platform.cube(0, 0).pes)
        BOOST_CHECK_EQUAL(pe->dma().bytes_moved(DmaDirection::read), 8u << 20);
}
