// Seed conformance on the whole platform (issue 15): each case is one rule of
// the seed documents where npuvp once departed from them, run on the shipped
// default topology with a kernel launched on pe0. Expected outcomes are
// derived from the seed text and docs/timing.md; none is copied from a run.
//
// default.yaml figures used: PE_MMU pages 64 KiB (0x10000), translate 2 ns;
// HBM slice 6 GiB per PE (pe7's slice starts at 7 * 6 GiB = 0xA80000000).
#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>

#include "config/workload_loader.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;

namespace {

bool contains(const std::string& text, const std::string& what) {
    return text.find(what) != std::string::npos;
}

struct Run {
    TopologyConfig topo = test::load_shipped("default");
    std::ostringstream trace_text;
    TraceSink trace{&trace_text};
    WorkloadConfig workload;
    Platform platform{topo, trace};
    explicit Run(const std::string& yaml) : workload(load_workload_text(yaml, "t.yaml", topo)) {}
    void start() {
        WorkloadRun run(platform, workload);
        sc_core::sc_start();
        finished = run.finished();
    }
    bool finished = false;
    const std::string& error() const { return platform.status().error(); }
    std::uint64_t hbm_bytes(int pe) { return platform.cube(0, 0).hbm.at(pe)->service_hop()->bytes(); }
};

}  // namespace

// A: seed 000 D1, pe_mmu translates VA -> PA per access. A 256 KiB read at
// VA 0x40000000 with only the first 64 KiB page mapped touches four pages;
// the second, 0x40010000, is unmapped: the run faults there.
BOOST_AUTO_TEST_CASE(mmu_faults_at_the_first_unmapped_page_of_a_dma_read) {
    Run r(R"(
kernels:
  k:
    - dma_read: { bytes: 262144, addr: { va: 0x40000000 } }
mmu: [ { pes: [0], va: 0x40000000, pa: 0, bytes: 0x10000 } ]
launch: [ { kernel: k, pes: [0] } ]
)");
    r.start();
    BOOST_CHECK(!r.finished);
    BOOST_CHECK_MESSAGE(contains(r.error(), "sip0.cube0.pe0.pe_dma: MMU fault: command c0 accesses "
                                            "unmapped virtual address 0x40010000"),
                        r.error());
    BOOST_CHECK_EQUAL(r.hbm_bytes(0), 0u);  // the fault comes before any byte moves
}

// A: a legacy composite of 1 MiB in 64 KiB tiles reads tile i at src + i *
// 64 KiB (docs/timing.md "Tile addresses"): tile 1 reads 0x40010000, unmapped.
BOOST_AUTO_TEST_CASE(mmu_faults_in_a_composite_at_its_first_unmapped_tile) {
    Run r(R"(
kernels:
  k:
    - composite: { op: relu, bytes: 1048576, tile_bytes: 65536, src: { va: 0x40000000 } }
mmu: [ { pes: [0], va: 0x40000000, pa: 0, bytes: 0x10000 } ]
launch: [ { kernel: k, pes: [0] } ]
)");
    r.start();
    BOOST_CHECK(!r.finished);
    BOOST_CHECK_MESSAGE(contains(r.error(), "MMU fault: command c0 accesses unmapped virtual "
                                            "address 0x40010000"),
                        r.error());
    BOOST_CHECK_EQUAL(r.hbm_bytes(0), 65536u);  // tile 0 was read
}

// A: a transfer whose pages map to different targets is split: the first page
// is read from pe0's slice, the second from pe7's, 64 KiB each.
BOOST_AUTO_TEST_CASE(pages_mapped_to_two_slices_are_read_from_both) {
    Run r(R"(
kernels:
  k:
    - dma_read: { bytes: 131072, addr: { va: 0x40000000 } }
mmu:
  - { pes: [0], va: 0x40000000, pa: 0, bytes: 0x10000 }
  - { pes: [0], va: 0x40010000, pa: 0xA80000000, bytes: 0x10000 }
launch: [ { kernel: k, pes: [0] } ]
)");
    r.start();
    BOOST_CHECK_MESSAGE(r.finished, r.error());
    BOOST_CHECK_EQUAL(r.hbm_bytes(0), 65536u);
    BOOST_CHECK_EQUAL(r.hbm_bytes(7), 65536u);
}
