// Issue 17, point 4: every binding means something. Each link kind the docs
// list (docs/schema.md: mesh, attach, pe, io, ucie, sip) changes the result
// when its latency or bandwidth changes, and the PE edges npuvp does not
// model are not elaborated and refuse a non-zero length.
//
// The runs go through the npuvp program (NPUVP_BIN), one process each.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <fstream>
#include <string>

#include "testbench/harness/run_npuvp.h"
#include "tlm_sockets/hop.h"

using namespace npuvp;

namespace {

std::string topology(const std::string& name) {
    return std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/" + name + ".yaml";
}

// pe0 of sip0.cube0 on two_sip.yaml reads 1 MiB from sip1.cube0's first HBM
// slice (global cube 2: pa = 2 · 8 slices · 6 GiB = 0x1800000000), then
// 1 MiB from sip0.cube1's (global cube 1: 0xC00000000), on its one read
// channel, one after the other. The far read's route crosses sip0.cube0's
// mesh to M_CPU, the io link to IO_CPU, the sip link, the io link again down
// to sip1.cube0's M_CPU and its mesh; the near one crosses the UCIe link.
const char* const cross_reads = R"(kernels:
  k:
    - dma_read: { id: far, bytes: 1048576, addr: { pa: 0x1800000000 } }
    - dma_read: { id: near, bytes: 1048576, addr: { pa: 0xC00000000 } }
launch: [ { kernel: k, cube: sip0.cube0, pes: [0] } ]
)";

// A file of this test case's own (ctest runs cases in parallel, in one folder).
std::string workload_file(const char* text, const std::string& name) {
    const std::string path =
        "link_kinds_" + boost::unit_test::framework::current_test_case().p_name.get() + "_" + name + ".yaml";
    std::ofstream(path) << text;
    return path;
}

// The makespan in ps ("makespan 25083.334 ns").
std::int64_t makespan_ps(const std::string& args) {
    const test::RunResult r = test::run_npuvp(args);
    BOOST_REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::size_t at = r.out.find("makespan ");
    BOOST_REQUIRE(at != std::string::npos);
    return static_cast<std::int64_t>(std::llround(std::stod(r.out.substr(at + 9)) * 1000.0));
}

std::int64_t cross(const std::string& set = "") {
    return makespan_ps("--topology " + topology("two_sip") + " --workload " +
                       workload_file(cross_reads, "cross_reads") + (set.empty() ? "" : " --set " + set));
}

std::int64_t ser(std::uint64_t bytes, double gbs) {
    return static_cast<std::int64_t>(serialisation_ps(bytes, gbs));
}

constexpr std::uint64_t mib = 1048576;

}  // namespace

// io and sip links. T1: the far read's drain is n / min B over its route;
// two_sip.yaml's io_link and sip_link are the narrowest (64 GB/s). At 16 GB/s
// either one becomes the minimum: the far read ends 1 MiB · (1/16 - 1/64) ns
// later, and the near read, behind it on the channel, moves by as much.
// Latency: the route crosses the io link twice (up to sip0's IO_CPU, down to
// sip1.cube0's M_CPU) and the sip link once, each hop's L once in T1.
BOOST_AUTO_TEST_CASE(io_and_sip_links_change_the_result) {
    const std::int64_t base = cross();
    const std::int64_t narrower = ser(mib, 16.0) - ser(mib, 64.0);
    BOOST_TEST(cross("system.io_link.bw_gbs=16") - base == narrower);
    BOOST_TEST(cross("system.sip_link.bw_gbs=16") - base == narrower);
    BOOST_TEST(cross("system.io_link.latency_ns=1500") - base == 2 * 1000 * 1000);  // +1000 ns, twice
    BOOST_TEST(cross("system.sip_link.latency_ns=2000") - base == 1000 * 1000);     // +1000 ns, once
}

// The UCIe link: only the near read crosses it. Its route's narrowest hop
// is the HBM slice port (192 GB/s); at 16 GB/s the UCIe link is, and the
// near read (the last thing the run does) ends 1 MiB · (1/16 - 1/192) ns
// later; its latency is in the route once.
BOOST_AUTO_TEST_CASE(ucie_link_changes_the_result) {
    const std::int64_t base = cross();
    BOOST_TEST(cross("system.ucie.bw_gbs=16") - base == ser(mib, 16.0) - ser(mib, 192.0));
    BOOST_TEST(cross("system.ucie.latency_ns=1002") - base == 1000 * 1000);
}

// Mesh links and attach links: the far read crosses sip0.cube0's mesh from
// pe0's router to M_CPU's and sip1.cube0's from M_CPU's to slice 0's (both
// router 0 on the default layout: no mesh hop), so the mesh is measured on
// the near read, from sip0.cube1's router 0 (UCIe) to slice 0's router 0 -
// also none. Use a slice two routers away: 0xC00000000 + 2 · 6 GiB, slice 2
// of sip0.cube1: router 0 -> 1 -> 2, two mesh links, each `router_latency_ns`.
BOOST_AUTO_TEST_CASE(mesh_and_attach_links_change_the_result) {
    const char* const mesh_read = R"(kernels:
  k:
    - dma_read: { id: near, bytes: 1048576, addr: { pa: 0xF00000000 } }
launch: [ { kernel: k, cube: sip0.cube0, pes: [0] } ]
)";
    const std::string args = "--topology " + topology("two_sip") + " --workload " +
                             workload_file(mesh_read, "mesh_read");
    const std::int64_t base = makespan_ps(args);
    // Two mesh links of sip0.cube1 (and none of sip0.cube0: pe0 and the UCIe
    // port share router 0): +10 ns each.
    BOOST_TEST(makespan_ps(args + " --set cube.noc.attrs.router_latency_ns=12") - base ==
               2 * 10 * 1000);
    // The mesh links are 256 GB/s, the slice port 192 GB/s: at 16 GB/s the
    // mesh is the narrowest hop.
    BOOST_TEST(makespan_ps(args + " --set cube.noc.attrs.link_bw_gbs=16") - base ==
               ser(mib, 16.0) - ser(mib, 192.0));
    // Attach links (pe_dma -> r0, UCIe port -> r0 and r0 -> UCIe port across
    // the two cubes, r2 -> slice): each one's latency once in T1; 1 ns -> 11 ns.
    const std::int64_t attach = makespan_ps(args + " --set cube.noc.attrs.attach_latency_ns=11");
    BOOST_TEST(attach > base);
    BOOST_TEST((attach - base) % (10 * 1000) == 0);  // a whole number of attach links
    BOOST_TEST(makespan_ps(args + " --set cube.noc.attrs.attach_bw_gbs=16") - base ==
               ser(mib, 16.0) - ser(mib, 192.0));
}

// The PE links that are modelled: PE_CPU -> PE_SCHEDULER (each command
// crosses it once: simple_commands.yaml's commands each arrive later) and
// fetch_store <-> TCM (the FETCH / STORE data of a GEMM).
BOOST_AUTO_TEST_CASE(pe_links_change_the_result) {
    const std::string simple = "--topology " + topology("default") + " --workload " +
                               test::shipped_workload("simple_commands");
    // 1000 mm at 0.1 ns/mm: +100 ns on every command's way to the scheduler.
    BOOST_TEST(makespan_ps(simple + " --set cube.pe_template.links.cpu_to_scheduler_mm=1000") >
               makespan_ps(simple));
    const std::string gemm = "--topology " + topology("default") + " --workload " +
                             test::shipped_workload("gemm_bias_relu");
    BOOST_TEST(makespan_ps(gemm + " --set cube.pe_template.links.fetch_store_to_tcm_bw_gbs=8") >
               makespan_ps(gemm));
}

// The edges seed 000 §D8 draws between engines carry no transfer (tokens go
// through the stage inboxes): they are not elaborated, and a length on one
// is an error naming the key, not a knob that silently changes nothing.
BOOST_AUTO_TEST_CASE(an_unmodelled_pe_edge_refuses_a_length) {
    const test::RunResult r = test::run_npuvp(
        "--topology " + topology("default") + " --workload " + test::shipped_workload("simple_commands") +
        " --set cube.pe_template.links.gemm_to_math_mm=2");
    BOOST_TEST(r.code != 0);
    BOOST_TEST(r.out.find("gemm_to_math_mm") != std::string::npos);
    BOOST_TEST(r.out.find("must be 0") != std::string::npos);
}
