// SPEC T4 (issue 16): requests made at one instant are served in causal
// rounds and, within a round, by requester (PE in (sip, cube, pe) order,
// engine kind, command id, tile id), never in the kernel's process order.
// One case per arbiter kind with same-instant requests, the expected order
// derived by hand; and the same platform built with its PEs created last to
// first gives byte-identical traces.
// sc_spawn needs the dynamic-process API, asked for before any SystemC header.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/workload_loader.h"
#include "modules/common/fifo_resource.h"
#include "modules/common/timed_inbox.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/self_child.h"

using namespace npuvp;

namespace {

// pe1..pe6 each read 64 KiB of pe0's HBM slice at one instant (a direct
// launch: every PE_CPU starts at 0).
const char* const six_reads = R"(
kernels:
  k:
    - dma_read: { id: rd, bytes: 65536, addr: { pa: 0x0 } }
launch: [ { kernel: k, pes: [1, 2, 3, 4, 5, 6] } ]
)";

// A shipped workload by name, or "six_reads".
WorkloadConfig workload_named(const std::string& name, const TopologyConfig& topo) {
    if (name == "six_reads") return load_workload_text(six_reads, "six_reads.yaml", topo);
    return load_workload_file(std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/" + name + ".yaml",
                              topo);
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Child mode of reversed_pe_creation_gives_byte_identical_traces: this
// executable, run again with NPUVP_T4_CHILD=<workload>:<forward|reverse> and
// NPUVP_T4_OUT=<file>, runs that shipped workload on the default topology,
// writes its trace and exits (SystemC elaborates once per process).
struct ChildMode {
    ChildMode() {
        const char* child = std::getenv("NPUVP_T4_CHILD");
        const char* out = std::getenv("NPUVP_T4_OUT");
        if (!child || !out) return;
        const std::string spec = child;
        const std::string workload = spec.substr(0, spec.find(':'));
        const bool reverse = spec.substr(spec.find(':') + 1) == "reverse";
        // Time resolution: the report guard's fixture set it (1 ps).
        std::ofstream file(out, std::ios::binary);
        TraceSink trace(&file);
        const TopologyConfig topo = test::load_shipped("default");
        const WorkloadConfig w = workload_named(workload, topo);
        Platform platform(topo, trace, builtin_registry(), PlatformBuildOrder{reverse});
        WorkloadRun run(platform, w);
        sc_core::sc_start();
        file.flush();
        std::_Exit(run.finished() ? 0 : 3);
    }
};
BOOST_TEST_GLOBAL_FIXTURE(ChildMode);

// Runs this executable in child mode; returns its exit status.
int run_child(const std::string& workload, bool reverse, const std::string& out) {
    return test::run_self_child("fifo_resource_serves_one_round_in_key_order",
                                {{"NPUVP_T4_CHILD", workload + (reverse ? ":reverse" : ":forward")},
                                 {"NPUVP_T4_OUT", out}});
}

}  // namespace

// FifoResource (DMA channels, accel_slot): three threads, created in the
// order node 2, node 0, node 1, each ask for one unit of a capacity-1
// resource at t = 0 and hold it 10 ns. In key order node 0 takes it at 0,
// node 1 at 10 and node 2 at 20. A fourth thread, node 3, asks at 5 ns
// (a later round), before node 0 releases it: it queues behind the two
// that asked at 0, so it gets the unit at 30, whatever its key.
BOOST_AUTO_TEST_CASE(fifo_resource_serves_one_round_in_key_order) {
    FifoResource resource("slot", 1);
    std::vector<std::pair<std::uint32_t, std::uint64_t>> grants;  // node, time (ps)
    auto asker = [&](std::uint32_t node, std::uint64_t at_ns) {
        return [&, node, at_ns] {
            sc_core::wait(sc_core::sc_time(static_cast<double>(at_ns), sc_core::SC_NS));
            resource.wait({node, 0, 0, 0, 0}, [] {},
                          [&] { grants.push_back({node, sc_core::sc_time_stamp().value()}); });
            sc_core::wait(10, sc_core::SC_NS);
            resource.post();
        };
    };
    sc_core::sc_spawn(asker(2, 0), "asker2");
    sc_core::sc_spawn(asker(0, 0), "asker0");
    sc_core::sc_spawn(asker(1, 0), "asker1");
    sc_core::sc_spawn(asker(3, 5), "asker3");
    // The VCD names each holder (granted in the round's update, where no
    // process runs: the name is the asking thread's).
    sc_core::sc_trace_file* vcd = sc_core::sc_create_vcd_trace_file("t4_fifo_resource");
    resource.add_traces(vcd, "slot");
    sc_core::sc_start();
    sc_core::sc_close_vcd_trace_file(vcd);
    const std::vector<std::pair<std::uint32_t, std::uint64_t>> expected = {
        {0, 0}, {1, 10000}, {2, 20000}, {3, 30000}};
    BOOST_CHECK(grants == expected);
    const std::vector<std::string> owners = {"asker0", "asker1", "asker2", "asker3"};
    BOOST_CHECK(resource.owner_names() == owners);
}

// TimedInbox (M_CPU, IO_CPU, PE_CPU inboxes): messages that arrive at one
// instant are taken by sender rank, not in the order they were sent. Sent
// at 0: rank 5 with delay 10 ns, rank 2 with 10 ns, rank 7 with 4 ns; at 6
// ns rank 1 with 4 ns. Arrivals: rank 7 at 4; ranks 5, 2 and 1 at 10 ->
// taken 7, 1, 2, 5.
BOOST_AUTO_TEST_CASE(timed_inbox_takes_one_instant_by_sender_rank) {
    TimedInbox<int> inbox;
    std::vector<int> taken;
    sc_core::sc_spawn([&] {
        inbox.push(5, sc_core::sc_time(10, sc_core::SC_NS), 5);
        inbox.push(2, sc_core::sc_time(10, sc_core::SC_NS), 2);
        inbox.push(7, sc_core::sc_time(4, sc_core::SC_NS), 7);
        sc_core::wait(6, sc_core::SC_NS);
        inbox.push(1, sc_core::sc_time(4, sc_core::SC_NS), 1);
    });
    sc_core::sc_spawn([&] {
        for (int i = 0; i < 4; ++i) taken.push_back(inbox.pop());
    });
    sc_core::sc_start();
    BOOST_CHECK(taken == (std::vector<int>{7, 1, 2, 5}));
}

// A T1 hop at a shared port: pe1..pe6 of the default topology (2 x 4 mesh,
// pe0 at router 0) each start a 64 KiB dma_read of pe0's HBM slice at the
// same instant. The six transfers reserve their routes in PE order, so
// hbm_ctrl.pe0's port (192 GB/s: ser = 65536 B / 192 GB/s = 341333.3 ps,
// rounded up to 341334 ps) serves pe1, pe2, ..., pe6 back to back. pe1 and
// pe4 are one mesh hop from router 0 (pe1 along the row, pe4 along the
// column; equal pitch, so equal latency), as are pe2 / pe5 (two hops) and
// pe3 / pe6 (three): each pair differs only in its port slot, three slots
// apart, so each finishes exactly 3 * 341334 ps after its partner. (In the
// kernel's order they were served in PE creation order: see the reversed
// build below.)
BOOST_AUTO_TEST_CASE(six_reads_of_one_hbm_port_are_served_in_pe_order) {
    const TopologyConfig topo = test::load_shipped("default");
    std::ostringstream trace_text;
    TraceSink trace(&trace_text);
    const WorkloadConfig workload = workload_named("six_reads", topo);
    Platform platform(topo, trace);
    WorkloadRun run(platform, workload);
    sc_core::sc_start();
    BOOST_REQUIRE_MESSAGE(run.finished(), platform.status().error());
    std::uint64_t done[7] = {};
    for (int pe = 1; pe <= 6; ++pe) {
        const auto& completions = platform.pe(0, 0, pe).scheduler().completions();
        BOOST_REQUIRE_EQUAL(completions.size(), 1u);
        done[pe] = completions[0].finished.value();
        BOOST_CHECK_EQUAL(completions[0].started.value(), platform.pe(0, 0, 1).scheduler().completions()[0].started.value());
    }
    for (int pe = 2; pe <= 6; ++pe) BOOST_CHECK_LT(done[pe - 1], done[pe]);
    const std::uint64_t ser = 341334;
    BOOST_CHECK_EQUAL(done[4] - done[1], 3 * ser);
    BOOST_CHECK_EQUAL(done[5] - done[2], 3 * ser);
    BOOST_CHECK_EQUAL(done[6] - done[3], 3 * ser);
}

// Process creation order is no input: six_reads above (whose order the
// kernel took from the PE_CPU threads' creation order), the shipped
// host_launch (eight PEs reading one HBM port at one barrier, M_CPU and
// IO_CPU traffic), ipcq_exchange and gemm_all_pes, run on a platform whose
// PEs and HBM slices are created last to first, give traces byte for byte
// equal to the usual build's.
BOOST_AUTO_TEST_CASE(reversed_pe_creation_gives_byte_identical_traces) {
    for (const std::string workload : {"six_reads", "host_launch", "ipcq_exchange", "gemm_all_pes"}) {
        const std::string forward = "t4_" + workload + "_forward.jsonl";
        const std::string reverse = "t4_" + workload + "_reverse.jsonl";
        BOOST_REQUIRE_EQUAL(run_child(workload, false, forward), 0);
        BOOST_REQUIRE_EQUAL(run_child(workload, true, reverse), 0);
        const std::string a = slurp(forward), b = slurp(reverse);
        BOOST_CHECK_GT(a.size(), 1000u);  // a real trace, not an empty file
        BOOST_CHECK_MESSAGE(a == b, workload << ": traces differ between creation orders");
    }
}
