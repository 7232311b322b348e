// M_CPU and IO_CPU on the whole platform (SPEC §3, §4; seed 001 ADR-0035):
// transit forwarding, the memory fan-out over M_CPU.DMA, kernel-launch
// fan-out and its barrier, the max merge across cubes, MMU map / unmap, the
// watchdog, and a cross-cube DMA over UCIe. Every expected time is derived by
// hand below from the timing contract (docs/timing.md) and the topology
// values; none is copied from the simulator.
//
// default.yaml figures used: IO_CPU overhead 5 ns; io_link 500 ns, 64 GB/s;
// M_CPU overhead 5 ns at router 0; attach links 1 ns, unlimited bandwidth;
// mesh 2 x 4, pitch 5 mm x 0.1 ns/mm + router 2 ns = 2.5 ns per mesh link,
// 256 GB/s; HBM port 100 ns, 192 GB/s; slice 6 GiB; PE DMA setup 500 ns,
// 256 GB/s; TCM write port 2 ns, 8192 GB/s; PE_CPU overhead 2 ns;
// PE_SCHEDULER overhead 1 ns; PE_MMU translate 2 ns.
// two_sip.yaml: the same cube; 2 SIPs x 2 cubes; UCIe 2 ns, 256 GB/s (lowered
// below with --set system.ucie.bw_gbs=64), UCIe port at router 0.
//
// Mesh router index = row * 4 + col; XY routing; the number of mesh links
// from router 0 to router X is col(X) + row(X):
//   X:      0    1    2    3    4    5    6    7
//   links:  0    1    2    3    1    2    3    4
// so the M_CPU -> pe{X}.pe_cpu leg (attach 1 + links * 2.5 + attach 1) is
//   2, 4.5, 7, 9.5, 4.5, 7, 9.5, 12 ns.
//
// The host message IO_CPU -> M_CPU is a command (n = 0): pure latency, 500 ns.
// Serialisations used (ser rounds up to a whole ps):
//   1 MiB  / 192 GB/s = 1048576 / 192 ns = 5461.3333 ns -> 5461.334 ns
//   64 KiB / 192 GB/s = 341.3333 ns -> 341.334 ns
//   1 MiB  / 64 GB/s  = 16384 ns exactly
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "config/workload_loader.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;

namespace {

constexpr std::uint64_t kNs = 1000;  // ps per ns

std::uint64_t ps(double ns) { return static_cast<std::uint64_t>(std::llround(ns * 1000.0)); }

const char* const kDummyKernel = R"(
kernels:
  idle:
    - math: { op: relu, elements: 512 }
)";

bool contains(const std::string& text, const std::string& what) {
    return text.find(what) != std::string::npos;
}

std::set<int> pes_started_at(Platform& platform, int sip, int cube, std::uint64_t start_ps) {
    std::set<int> out;
    for (int p = 0; p < platform.pes_per_cube(); ++p)
        for (const auto& run : platform.pe(sip, cube, p).cpu().runs())
            if (run.start.value() == start_ps) out.insert(p);
    return out;
}

// ---- case 1 helpers --------------------------------------------------------

// What a target saw of the payload when it arrived.
struct Seen {
    bool arrived = false;
    tlm::tlm_command command = tlm::TLM_IGNORE_COMMAND;
    std::uint64_t address = 0;
    unsigned char* data = nullptr;
    unsigned int length = 0;
    unsigned int streaming_width = 0;
    unsigned char* byte_enable = nullptr;
    MsgKind kind = MsgKind::control;
    std::uint64_t request_id = 0, command_id = 0, bytes = 0;
    std::int64_t tile_id = 0;
    const void* body = nullptr;
    const Route* route = nullptr;
    sc_core::sc_time delay;
};

class ProbeNode : public RoutedNode {
public:
    explicit ProbeNode(const sc_core::sc_module_name& name) : RoutedNode(name) {}
    const char* kind() const override { return "probe"; }
    Seen seen;

protected:
    void serve(tlm::tlm_generic_payload& p, NpuExtension& ext, sc_core::sc_time& delay) override {
        seen = {true, p.get_command(), p.get_address(), p.get_data_ptr(), p.get_data_length(),
                p.get_streaming_width(), p.get_byte_enable_ptr(), ext.kind, ext.request_id,
                ext.command_id, ext.bytes, ext.tile_id, ext.body, ext.route, delay};
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// A thread that runs a test's body.
struct Driver : sc_core::sc_module {
    std::function<void()> body;
    SC_HAS_PROCESS(Driver);
    Driver(const sc_core::sc_module_name& n, std::function<void()> b)
        : sc_core::sc_module(n), body(std::move(b)) {
        SC_THREAD(run);
    }
    void run() { body(); }
};

}  // namespace

// Case 1. M_CPU forwards transit traffic unchanged, adding overhead_ns (seed
// 001 D4; SPEC T3).
//  (a) A probe route src -> m_cpu -> dst with two test hops, 3 ns (src ->
//      m_cpu, applied by src) and 4 ns (m_cpu -> dst, applied by M_CPU, then
//      its transit overhead 5 ns): delay at dst = 3 + 4 + 5 = 12 ns; every
//      payload attribute and extension field arrives as sent.
//  (b) The platform route sip0.io_cpu -> sip0.cube0.pe0.pe_cpu passes M_CPU:
//      io_link 500 + M_CPU 5 + attach m_cpu->r0 1 + attach r0->pe_cpu 1
//      = 507 ns for a control message (PE_CPU accepts a control ping).
//      The reverse route pe_cpu -> io_cpu also goes through M_CPU
//      (pe_cpu -> r0 -> m_cpu -> io_cpu); IO_CPU answers anything but a
//      response with an error, so that direction is checked as a path only.
BOOST_AUTO_TEST_CASE(transit_forwarding_passes_m_cpu_unchanged) {
    const TopologyConfig topo = test::load_shipped("default");
    std::ostringstream tt;
    TraceSink trace(&tt);
    Platform platform(topo, trace);
    MCpu& m_cpu = *platform.cube(0, 0).m_cpu;

    ProbeNode src("probe_src");
    ProbeNode dst("probe_dst");
    Hop hop_in("probe_src->m_cpu", 3 * kNs, 0.0);
    Hop hop_out("m_cpu->probe_dst", 4 * kNs, 0.0);
    Route probe;
    probe.path.push_back({&src, src.connect_to(m_cpu)});
    probe.path.push_back({&m_cpu, m_cpu.connect_to(dst)});
    probe.path.push_back({&dst, -1});
    probe.steps = {{&hop_in, 0}, {&hop_out, 1}};
    probe.finalise();

    const Route& down = platform.route("sip0.io_cpu", "sip0.cube0.pe0.pe_cpu");
    const Route& up = platform.route("sip0.cube0.pe0.pe_cpu", "sip0.io_cpu");
    RoutedNode& io_cpu = *platform.sips()[0].io_cpu;

    Transaction sent;
    int body_token = 0;
    sc_core::sc_time probe_delay, down_delay, down_sent_at;
    std::uint64_t transactions_after_probe = 0;
    Driver driver("driver", [&] {
        sent.prepare(MsgKind::dma_write, probe, 0x1234'5678'9000ull, 4096);
        sent.ext().request_id = 42;
        sent.ext().command_id = 7;
        sent.ext().tile_id = 3;
        sent.ext().body = &body_token;
        probe_delay = src.transport(sent);
        transactions_after_probe = m_cpu.transactions();
        sc_core::wait(probe_delay);
        Transaction ping;
        ping.prepare(MsgKind::control, down, 0, 0);
        down_sent_at = sc_core::sc_time_stamp();
        down_delay = io_cpu.transport(ping);
    });

    sc_core::sc_start();

    BOOST_CHECK_EQUAL(probe.latency_ps, 7 * kNs);
    BOOST_CHECK_EQUAL(probe_delay.value(), 12 * kNs);  // 3 + 4 + M_CPU 5; no bandwidth: no drain
    BOOST_REQUIRE(dst.seen.arrived);
    BOOST_CHECK_EQUAL(dst.seen.delay.value(), 12 * kNs);
    const auto& p = sent.payload();
    BOOST_CHECK(dst.seen.command == tlm::TLM_WRITE_COMMAND);
    BOOST_CHECK_EQUAL(dst.seen.address, 0x1234'5678'9000ull);
    BOOST_CHECK(dst.seen.data == p.get_data_ptr());
    BOOST_CHECK(dst.seen.data != nullptr);
    // Base protocol: the data length is the bytes the transfer moves (the
    // 4096 of its prepare()), streaming width = length.
    BOOST_CHECK_EQUAL(dst.seen.length, 4096u);
    BOOST_CHECK_EQUAL(dst.seen.streaming_width, 4096u);
    BOOST_CHECK(dst.seen.byte_enable == nullptr);
    BOOST_CHECK(dst.seen.kind == MsgKind::dma_write);
    BOOST_CHECK_EQUAL(dst.seen.request_id, 42u);
    BOOST_CHECK_EQUAL(dst.seen.command_id, 7u);
    BOOST_CHECK_EQUAL(dst.seen.tile_id, 3);
    BOOST_CHECK_EQUAL(dst.seen.bytes, 4096u);
    BOOST_CHECK(dst.seen.body == &body_token);
    BOOST_CHECK(dst.seen.route == &probe);
    BOOST_CHECK_EQUAL(transactions_after_probe, 1u);  // M_CPU handled it once, as transit

    // (b) through the platform's own route.
    BOOST_REQUIRE_EQUAL(down.path.size(), 4u);
    BOOST_CHECK_EQUAL(down.path[1].node->node_id(), "sip0.cube0.m_cpu");
    BOOST_CHECK_EQUAL(down.path[2].node->node_id(), "sip0.cube0.noc.r0");
    BOOST_CHECK_EQUAL(down.latency_ps, 502 * kNs);  // 500 + 1 + 1
    BOOST_CHECK_EQUAL(down_delay.value(), 507 * kNs);  // + M_CPU 5
    BOOST_CHECK_EQUAL(m_cpu.transactions(), 2u);
    BOOST_REQUIRE_EQUAL(up.path.size(), 4u);
    BOOST_CHECK_EQUAL(up.path[1].node->node_id(), "sip0.cube0.noc.r0");
    BOOST_CHECK_EQUAL(up.path[2].node->node_id(), "sip0.cube0.m_cpu");
    BOOST_CHECK(!platform.status().failed());
}

// Transit is handled when the payload arrives, one transaction at a time,
// before the payload goes on its outgoing link. Two probe routes through M_CPU:
//   A: src -> m_cpu 3 ns, m_cpu -> dst 100 ns; sent at 0, arrives at 3:
//      M_CPU busy 3 -> 8, then 100 ns: delay 108 ns.
//   B: src2 -> m_cpu 4 ns, m_cpu -> dst 0 ns; sent at 0 right after A,
//      arrives at 4 while M_CPU handles A: waits to 8, busy 8 -> 13, then
//      0 ns: delay 13 ns.
// (Booking M_CPU after the outgoing link would book A at 103..108 and let B
// through at 4..9: delay 9 ns.)
BOOST_AUTO_TEST_CASE(transit_is_handled_one_at_a_time_at_arrival) {
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace;
    Platform platform(topo, trace);
    MCpu& m_cpu = *platform.cube(0, 0).m_cpu;
    ProbeNode src("probe_src");
    ProbeNode src2("probe_src2");
    ProbeNode dst("probe_dst");
    Hop a_in("a_in", 3 * kNs, 0.0), a_out("a_out", 100 * kNs, 0.0);
    Hop b_in("b_in", 4 * kNs, 0.0), b_out("b_out", 0, 0.0);
    const int to_dst = m_cpu.connect_to(dst);
    Route ra, rb;
    ra.path = {{&src, src.connect_to(m_cpu)}, {&m_cpu, to_dst}, {&dst, -1}};
    ra.steps = {{&a_in, 0}, {&a_out, 1}};
    ra.finalise();
    rb.path = {{&src2, src2.connect_to(m_cpu)}, {&m_cpu, to_dst}, {&dst, -1}};
    rb.steps = {{&b_in, 0}, {&b_out, 1}};
    rb.finalise();
    sc_core::sc_time delay_a, delay_b;
    Driver driver("driver", [&] {
        Transaction a, b;
        a.prepare(MsgKind::control, ra, 0, 0);
        b.prepare(MsgKind::control, rb, 0, 0);
        delay_a = src.transport(a);
        delay_b = src2.transport(b);
    });
    sc_core::sc_start();
    BOOST_CHECK_EQUAL(delay_a.value(), 108 * kNs);
    BOOST_CHECK_EQUAL(delay_b.value(), 13 * kNs);
    BOOST_CHECK_EQUAL(m_cpu.transactions(), 2u);
}

// Case 2. memory_write of 2 MiB at 6 GiB - 1 MiB spans the pe0 / pe1 slice
// boundary: two destinations.
//   dest 1: m_cpu -> r0 -> hbm_ctrl.pe0, 1 MiB: L = 1 + 1 + 100 = 102 ns,
//           min B = 192: drain = 102 + 5461.334 = 5563.334 ns
//   dest 2: m_cpu -> r0 -> r1 -> hbm_ctrl.pe1, 1 MiB: L = 1 + 2.5 + 1 + 100
//           = 104.5 ns, min B = 192: drain = 104.5 + 5461.334 = 5565.834 ns
//   They share only the m_cpu -> r0 attach hop, which has no bandwidth (pure
//   latency, keeps no busy-until): no contention; the two HBM ports differ and
//   r0 -> r1 is used by dest 2 only. The write channel only serialises the
//   dispatch step (transport does not wait): both start at the fan-out start.
//   xfer_ns = max = 5565.834 ns.
// Timeline: issued 0; IO_CPU overhead -> 5; io_link 500 (n = 0) -> 505 at
// M_CPU; M_CPU overhead -> fan-out starts 510; dest 1 done 510 + 5563.334 =
// 6073.334, dest 2 done 510 + 5565.834 = 6075.834.
// D5.4 / D8: each slice answers (n = 0) over the reversed route: hbm_ctrl.pe0
// -> r0 -> m_cpu 2 ns, hbm_ctrl.pe1 -> r1 -> r0 -> m_cpu 4.5 ns; M_CPU handles
// each answer with its 5 ns overhead (D9): 6075.334 -> 6080.334, then
// 6080.334 -> 6085.334 = fan-out end; response M_CPU -> IO_CPU 500 ->
// 6585.334; IO_CPU overhead -> completed 6590.334 ns.
BOOST_AUTO_TEST_CASE(memory_write_spanning_two_slices) {
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl = load_workload_text(std::string(kDummyKernel) + R"(
host:
  - memory_write: { id: w, pa: 0x17FF00000, bytes: 0x200000 }
)", "t.yaml", topo);
    std::ostringstream tt;
    TraceSink trace(&tt);
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    MCpu& m_cpu = *platform.cube(0, 0).m_cpu;
    const Route& to0 = platform.route(m_cpu, *platform.cube(0, 0).hbm.at(0));
    const Route& to1 = platform.route(m_cpu, *platform.cube(0, 0).hbm.at(1));

    sc_core::sc_start();

    BOOST_CHECK(run.finished());
    BOOST_CHECK_EQUAL(to0.latency_ps, 102 * kNs);
    BOOST_CHECK_EQUAL(to1.latency_ps, ps(104.5));
    BOOST_CHECK_EQUAL(to0.uncontended_ps(1 << 20), ps(5563.334));
    BOOST_CHECK_EQUAL(to1.uncontended_ps(1 << 20), ps(5565.834));

    BOOST_REQUIRE_EQUAL(m_cpu.fanouts().size(), 1u);
    const MCpu::FanoutRecord& f = m_cpu.fanouts()[0];
    BOOST_CHECK_EQUAL(f.destinations, 2);
    BOOST_CHECK_EQUAL(ps(f.xfer_ns), ps(5565.834));
    BOOST_CHECK_EQUAL(f.start.value(), 510 * kNs);
    BOOST_CHECK_EQUAL(f.end.value(), ps(6085.334));
    BOOST_CHECK(f.success);
    BOOST_CHECK_EQUAL(m_cpu.dma_channel(true).grants(), 2u);
    BOOST_CHECK_EQUAL(m_cpu.dma_channel(false).grants(), 0u);

    const IoCpu::RequestRecord& r = run.host()->requests().at(0);
    BOOST_CHECK(r.done);
    BOOST_CHECK(r.success);
    BOOST_CHECK_EQUAL(r.issued.value(), 0u);
    BOOST_CHECK_EQUAL(ps(r.result.xfer_ns), ps(5565.834));
    BOOST_CHECK_EQUAL(r.completed.value(), ps(6590.334));
    // Each HBM port moved its 1 MiB once.
    BOOST_CHECK_EQUAL(platform.cube(0, 0).hbm.at(0)->service_hop()->bytes(), 1u << 20);
    BOOST_CHECK_EQUAL(platform.cube(0, 0).hbm.at(1)->service_hop()->bytes(), 1u << 20);
}

// Case 3. A memory_write (1 MiB into pe0's slice) and a memory_read (1 MiB
// from pe1's slice), both `after: []`, run concurrently on M_CPU.DMA's write
// and read channels.
//   IO_CPU handles one at a time: w 0 -> 5, r 5 -> 10; they reach M_CPU at
//   505 and 510; M_CPU: w 505 -> 510, r 510 -> 515.
//   w: drain 102 + 5461.334 = 5563.334 -> [510, 6073.334]
//   r: read route m_cpu -> r0 -> r1 -> hbm_ctrl.pe1, data back on the
//      reverse-direction links (hbm->r1, r1->r0, r0->m_cpu): L = 104.5,
//      min B 192: drain 5565.834 -> [515, 6080.834]
//   Answers (D5.4, D8): w's slice answers over hbm_ctrl.pe0 -> r0 -> m_cpu
//   (2 ns): at 6075.334, handled 6080.334 = w's end; r's data is its answer:
//   at 6080.834, handled 6085.834 = r's end.
//   The intervals overlap. At IO_CPU: w 6080.334 + 500 = 6580.334, handled
//   -> 6585.334; r 6085.834 + 500 = 6585.834, handled -> 6590.834 ns.
BOOST_AUTO_TEST_CASE(read_parallel_to_write) {
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl = load_workload_text(std::string(kDummyKernel) + R"(
host:
  - memory_write: { id: w, pa: 0x0, bytes: 0x100000, after: [] }
  - memory_read:  { id: r, pa: 0x180000000, bytes: 0x100000, after: [] }
)", "t.yaml", topo);
    std::ostringstream tt;
    TraceSink trace(&tt);
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    MCpu& m_cpu = *platform.cube(0, 0).m_cpu;
    CubeNodes& cube = platform.cube(0, 0);
    const Route& rd = platform.read_route(m_cpu, *cube.hbm.at(1));

    sc_core::sc_start();

    BOOST_CHECK(run.finished());
    // The read reserves the reverse-direction links.
    BOOST_REQUIRE_EQUAL(rd.path.size(), 4u);
    BOOST_CHECK(rd.steps.at(0).hop == platform.link(*rd.path[1].node, m_cpu)->hop.get());
    BOOST_CHECK(rd.steps.at(1).hop ==
                platform.link(*rd.path[2].node, *rd.path[1].node)->hop.get());

    BOOST_REQUIRE_EQUAL(m_cpu.fanouts().size(), 2u);
    const MCpu::FanoutRecord* w = nullptr;
    const MCpu::FanoutRecord* r = nullptr;
    for (const auto& f : m_cpu.fanouts())
        (f.request->kind == HostRequestKind::memory_write ? w : r) = &f;
    BOOST_REQUIRE(w && r);
    BOOST_CHECK_EQUAL(w->start.value(), 510 * kNs);
    BOOST_CHECK_EQUAL(w->end.value(), ps(6080.334));
    BOOST_CHECK_EQUAL(r->start.value(), 515 * kNs);
    BOOST_CHECK_EQUAL(r->end.value(), ps(6085.834));
    BOOST_CHECK(w->start < r->end && r->start < w->end);  // overlap
    BOOST_CHECK_EQUAL(m_cpu.dma_channel(true).grants(), 1u);
    BOOST_CHECK_EQUAL(m_cpu.dma_channel(false).grants(), 1u);

    const auto& reqs = run.host()->requests();
    BOOST_CHECK_EQUAL(reqs.at(0).issued.value(), 0u);
    BOOST_CHECK_EQUAL(reqs.at(1).issued.value(), 0u);
    BOOST_CHECK_EQUAL(reqs.at(0).completed.value(), ps(6585.334));
    BOOST_CHECK_EQUAL(reqs.at(1).completed.value(), ps(6590.834));
    BOOST_CHECK_EQUAL(ps(reqs.at(1).result.xfer_ns), ps(5565.834));
}

// Case 4. Kernel launches to `all`, [1, 6] and 3, then [0, 7] with
// target_start_ns 60000. IO_CPU stamps the barrier when none is given:
//   issued + IO_CPU overhead 5 + max over target PEs of
//   (io_link 500 + M_CPU overhead 5 + M_CPU -> pe_cpu leg)
//   all:    leg max = pe7 12    -> issued + 5 + 517   ns
//   [1, 6]: max(4.5, 9.5) = 9.5 -> issued + 5 + 514.5 ns
//   3:      9.5                 -> issued + 5 + 514.5 ns
// M_CPU passes it through unchanged; every target PE starts exactly then (the
// launch reaches each PE before: M_CPU dispatches at issued + 5 + 505 and the
// leg is at most the max). The first launch is issued at 0: barrier 522 ns.
BOOST_AUTO_TEST_CASE(kernel_launch_all_list_one) {
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl = load_workload_text(R"(
kernels:
  tiny:
    - gemm: { m: 128, k: 128, n: 128 }
host:
  - kernel_launch: { id: a, kernel: tiny, target_pe: all }
  - kernel_launch: { id: b, kernel: tiny, target_pe: [1, 6] }
  - kernel_launch: { id: c, kernel: tiny, target_pe: 3 }
  - kernel_launch: { id: d, kernel: tiny, target_pe: [0, 7], target_start_ns: 60000.0 }
)", "t.yaml", topo);
    std::ostringstream tt;
    TraceSink trace(&tt);
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);

    sc_core::sc_start();

    BOOST_CHECK(run.finished());
    const auto& reqs = run.host()->requests();
    BOOST_REQUIRE_EQUAL(reqs.size(), 4u);
    const std::uint64_t leg[] = {ps(517), ps(514.5), ps(514.5)};
    for (int i = 0; i < 3; ++i)
        BOOST_CHECK_EQUAL(reqs[i].target_start_ps, reqs[i].issued.value() + 5 * kNs + leg[i]);
    BOOST_CHECK_EQUAL(reqs[0].target_start_ps, 522 * kNs);
    BOOST_CHECK_EQUAL(reqs[3].target_start_ps, 60000 * kNs);

    const std::set<int> expected[] = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 6}, {3}, {0, 7}};
    for (int i = 0; i < 4; ++i) {
        BOOST_CHECK(reqs[i].done && reqs[i].success);
        BOOST_CHECK(pes_started_at(platform, 0, 0, reqs[i].target_start_ps) == expected[i]);
        BOOST_CHECK_EQUAL(platform.cube(0, 0).m_cpu->fanouts().at(i).target_start_ps,
                          reqs[i].target_start_ps);
        BOOST_CHECK_EQUAL(platform.cube(0, 0).m_cpu->fanouts().at(i).destinations,
                          static_cast<int>(expected[i].size()));
    }
    // Exactly those PEs ran: one run per launch naming them, launched before
    // (or at) the barrier.
    const int runs_per_pe[] = {2, 2, 1, 2, 1, 1, 2, 2};
    for (int p = 0; p < 8; ++p) {
        const auto& runs = platform.pe(0, 0, p).cpu().runs();
        BOOST_CHECK_EQUAL(runs.size(), static_cast<std::size_t>(runs_per_pe[p]));
        for (const auto& k : runs) {
            BOOST_CHECK(k.done);
            BOOST_CHECK(k.launched <= k.start);
        }
    }
}

// Case 5. two_sip.yaml, UCIe at 64 GB/s. One launch on pe0 of sip0.cube0 and
// sip0.cube1; the kernel reads 1 MiB from PA 48 GiB = sip0.cube1's slice 0.
//   cube0.pe0 crosses UCIe: DMA_READ route channel 500 + attach dma->r0 1 +
//   attach r0->ucie 1 + UCIe 2 + attach ucie->r0 1 + attach r0->hbm 1 +
//   HBM 100 + TCM write 2 = 608 ns, min B = 64: dma_ns = 608 + 16384 = 16992
//   cube1.pe0 reads locally: 604 + 5461.334 = 6065.334 ns.
// A direct launch of a 1024^3 GEMM (65664 ns) keeps cube1.pe0 busy, so its
// host kernel starts late and cube1 answers last; the parent must still hold
// cube0's larger dma_ns and pe_exec_ns (max merge, not overwrite), and
// compute_ns 0 (the direct GEMM is not part of the launched kernel).
BOOST_AUTO_TEST_CASE(max_merge_two_cubes_one_parent) {
    const TopologyConfig topo = test::load_shipped("two_sip", {"system.ucie.bw_gbs=64"});
    const WorkloadConfig wl = load_workload_text(R"(
kernels:
  rd:
    - dma_read: { id: ld, bytes: 1048576, addr: { pa: 0xC00000000 }, wait: true }
  busy:
    - gemm: { id: mm, m: 1024, k: 1024, n: 1024 }
launch:
  - { kernel: busy, cube: sip0.cube1, pes: [0] }
host:
  - kernel_launch: { id: go, kernel: rd, cubes: [sip0.cube0, sip0.cube1], target_pe: 0 }
)", "t.yaml", topo);
    std::ostringstream tt;
    TraceSink trace(&tt);
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);

    sc_core::sc_start();

    BOOST_CHECK(run.finished());
    BOOST_CHECK_EQUAL(platform.hbm_base(0, 1, 0), 0xC00000000ull);
    const IoCpu::RequestRecord& r = run.host()->requests().at(0);
    // Barrier: 5 + 500 + 5 + leg to pe0 (2) = 512 ns, both cubes.
    BOOST_CHECK_EQUAL(r.target_start_ps, 512 * kNs);

    Pe& pe_a = platform.pe(0, 0, 0);
    Pe& pe_b = platform.pe(0, 1, 0);
    const auto& run_a = pe_a.cpu().runs().back();
    const auto& run_b = pe_b.cpu().runs().back();
    BOOST_CHECK_EQUAL(run_a.start.value(), 512 * kNs);
    BOOST_CHECK_GT(run_b.start.value(), 65664 * kNs);  // after the direct GEMM
    const double dma_a = pe_a.dma().busy_time(DmaDirection::read).value() / 1000.0;
    const double dma_b = pe_b.dma().busy_time(DmaDirection::read).value() / 1000.0;
    BOOST_CHECK_EQUAL(ps(dma_a), 16992 * kNs);
    BOOST_CHECK_EQUAL(ps(dma_b), ps(6065.334));
    const double exec_a = (run_a.finish - run_a.start).value() / 1000.0;
    const double exec_b = (run_b.finish - run_b.start).value() / 1000.0;

    const MCpu::FanoutRecord& fa = platform.cube(0, 0).m_cpu->fanouts().at(0);
    const MCpu::FanoutRecord& fb = platform.cube(0, 1).m_cpu->fanouts().at(0);
    BOOST_CHECK_GT(fb.end.value(), fa.end.value());  // cube1 answered last
    BOOST_CHECK_EQUAL(fa.target_start_ps, r.target_start_ps);
    BOOST_CHECK_EQUAL(fb.target_start_ps, r.target_start_ps);
    // ... yet the max came from cube0 in dma_ns and pe_exec_ns.
    BOOST_CHECK_GT(dma_a, dma_b);
    BOOST_CHECK_GT(exec_a, exec_b);
    BOOST_CHECK_EQUAL(ps(r.result.dma_ns), ps(std::max(dma_a, dma_b)));
    BOOST_CHECK_EQUAL(ps(r.result.pe_exec_ns), ps(std::max(exec_a, exec_b)));
    BOOST_CHECK_EQUAL(r.result.compute_ns, 0.0);
}

// Case 6. mmu_map on pe0, a launch whose kernel reads through the VA
// (succeeds), mmu_unmap, the same launch again: PE_MMU faults, naming the PE,
// the command and the VA; the run does not finish.
BOOST_AUTO_TEST_CASE(mmu_map_then_dma_succeeds_unmap_then_faults) {
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl = load_workload_text(R"(
kernels:
  k:
    - dma_read: { id: ld, bytes: 4096, addr: { va: 0x40000000 }, wait: true }
host:
  - mmu_map:       { id: map, target_pe: 0, va: 0x40000000, pa: 0x0, bytes: 0x10000 }
  - kernel_launch: { id: go1, kernel: k, target_pe: 0 }
  - mmu_unmap:     { id: unmap, target_pe: 0, va: 0x40000000, bytes: 0x10000 }
  - kernel_launch: { id: go2, kernel: k, target_pe: 0 }
)", "t.yaml", topo);
    std::ostringstream tt;
    TraceSink trace(&tt);
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);

    sc_core::sc_start();

    const auto& reqs = run.host()->requests();
    for (int i = 0; i < 3; ++i) BOOST_CHECK(reqs.at(i).done && reqs.at(i).success);
    BOOST_CHECK(!reqs.at(3).done);
    const auto& runs = platform.pe(0, 0, 0).cpu().runs();
    BOOST_REQUIRE_EQUAL(runs.size(), 2u);
    BOOST_CHECK(runs[0].done);
    BOOST_CHECK(!runs[1].done);
    BOOST_CHECK_EQUAL(platform.pe(0, 0, 0).mmu().mapped_pages(), 0u);
    BOOST_CHECK(!run.finished());
    const std::string& error = platform.status().error();
    BOOST_CHECK_MESSAGE(contains(error, "sip0.cube0.pe0"), error);
    BOOST_CHECK_MESSAGE(contains(error, "MMU fault: command ld "), error);
    BOOST_CHECK_MESSAGE(contains(error, "0x40000000"), error);
    // The fault happens in the second run, after it started.
    BOOST_CHECK(platform.status().time() >= runs[1].start);
}

// Case 7a. host_watchdog.yaml with response_timeout_ns = 100000.
//   w_in: 64 KiB into pe0's slice: 5 + 500 + 5 -> fan-out 510; drain
//         102 + 341.334 = 443.334 -> 953.334; the slice's answer back 2 ns
//         (hbm_ctrl.pe0 -> r0 -> m_cpu) + M_CPU 5 -> 960.334 (D5.4, D8);
//         + 500 + 5 -> completed 1465.334
//   hang: issued 1465.334; IO_CPU -> 1470.334; barrier 1470.334 + 500 + 5 +
//         leg pe2 (1 + 2 x 2.5 + 1 = 7) = 1982.334; at M_CPU 1970.334, M_CPU
//         overhead -> dispatch 1975.334; watchdog 100000 -> 101975.334;
//         response 500 -> 102475.334; IO_CPU 5 -> completed 102480.334 ns,
//         success = false, missing sip0.cube0.pe2.
BOOST_AUTO_TEST_CASE(watchdog_names_the_missing_pe) {
    const TopologyConfig topo =
        test::load_shipped("default", {"cube.m_cpu.attrs.response_timeout_ns=100000"});
    const WorkloadConfig wl = load_workload_file(
        std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/host_watchdog.yaml", topo);
    std::ostringstream tt;
    TraceSink trace(&tt);
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);

    sc_core::sc_start();

    const auto& reqs = run.host()->requests();
    BOOST_CHECK(reqs.at(0).done && reqs.at(0).success);
    BOOST_CHECK_EQUAL(reqs.at(0).completed.value(), ps(1465.334));
    const IoCpu::RequestRecord& r = reqs.at(1);
    BOOST_CHECK_EQUAL(r.issued.value(), ps(1465.334));
    BOOST_CHECK_EQUAL(r.target_start_ps, ps(1982.334));
    BOOST_CHECK(r.done);
    BOOST_CHECK(!r.success);
    BOOST_CHECK_EQUAL(r.missing, "sip0.cube0.pe2");
    BOOST_CHECK_EQUAL(r.completed.value(), ps(102480.334));
    const MCpu::FanoutRecord& f = platform.cube(0, 0).m_cpu->fanouts().at(1);
    BOOST_CHECK_EQUAL(f.start.value(), ps(1975.334));
    BOOST_CHECK_EQUAL(f.end.value(), ps(101975.334));
    BOOST_CHECK(!f.success);
    BOOST_CHECK_EQUAL(platform.pe(0, 0, 2).cpu().runs().at(0).start.value(), ps(1982.334));
    BOOST_CHECK(!run.finished());
    const std::string d = run.diagnosis();
    BOOST_CHECK_MESSAGE(contains(d, "'hang'") && contains(d, "sip0.cube0.pe2"), d);
}

// Case 7b. The same without the watchdog: the run still ends (sc_start
// returns: nothing is left to happen), not finished, and the diagnosis names
// the request and the PE.
BOOST_AUTO_TEST_CASE(no_watchdog_still_ends_with_diagnosis) {
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig wl = load_workload_file(
        std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/host_watchdog.yaml", topo);
    std::ostringstream tt;
    TraceSink trace(&tt);
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);

    sc_core::sc_start();

    const auto& reqs = run.host()->requests();
    BOOST_CHECK(reqs.at(0).done && reqs.at(0).success);
    BOOST_CHECK(!reqs.at(1).done);
    BOOST_CHECK(!run.finished());
    const std::string d = run.diagnosis();
    BOOST_CHECK_MESSAGE(contains(d, "'hang'"), d);
    BOOST_CHECK_MESSAGE(contains(d, "sip0.cube0.pe2"), d);
    BOOST_CHECK_MESSAGE(contains(d, "never"), d);  // PE_CPU is at command 'never'
}

// Case 8. two_sip.yaml, UCIe at 64 GB/s (below DMA 256, mesh 256, HBM 192,
// TCM 8192): sip0.cube0.pe0 DMA_READs 1 MiB from sip0.cube1's slice 0.
// Route: channel (500, 256) -> pe_dma -> r0 (1) -> ucie0 (1) -> ucie1
// (2, 64) -> r0' (1) -> hbm_ctrl.pe0 (1) + port (100, 192) + TCM write (2,
// 8192): ΣL = 608 ns, min B = 64; uncontended 608 + 16384 = 16992 ns.
BOOST_AUTO_TEST_CASE(cross_cube_dma_over_ucie) {
    const TopologyConfig topo = test::load_shipped("two_sip", {"system.ucie.bw_gbs=64"});
    const WorkloadConfig wl = load_workload_text(R"(
kernels:
  rd:
    - dma_read: { id: ld, bytes: 1048576, addr: { pa: 0xC00000000 }, wait: true }
launch:
  - { kernel: rd, cube: sip0.cube0, pes: [0] }
)", "t.yaml", topo);
    std::ostringstream tt;
    TraceSink trace(&tt);
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);
    Pe& pe = platform.pe(0, 0, 0);
    const Route& route =
        platform.dma_route(pe, DmaDirection::read, 0, *platform.cube(0, 1).hbm.at(0));

    sc_core::sc_start();

    BOOST_CHECK(run.finished());
    std::vector<std::string> ids;
    for (const PathNode& n : route.path) ids.push_back(n.node->node_id());
    const std::vector<std::string> want = {
        "sip0.cube0.pe0.pe_dma", "sip0.cube0.noc.r0", "sip0.cube0.ucie",
        "sip0.cube1.ucie",       "sip0.cube1.noc.r0", "sip0.cube1.hbm_ctrl.pe0"};
    BOOST_CHECK_EQUAL_COLLECTIONS(ids.begin(), ids.end(), want.begin(), want.end());
    BOOST_CHECK_EQUAL(route.latency_ps, 608 * kNs);
    BOOST_CHECK_EQUAL(route.min_bw_gbs, 64.0);
    BOOST_CHECK_EQUAL(route.uncontended_ps(1 << 20), 16992 * kNs);
    BOOST_CHECK_EQUAL(pe.dma().busy_time(DmaDirection::read).value(), 16992 * kNs);
    // The UCIe hop reserved the data direction (cube1 -> cube0) for 16384 ns.
    const Link* back = platform.link(*platform.cube(0, 1).ucie, *platform.cube(0, 0).ucie);
    BOOST_REQUIRE(back);
    BOOST_CHECK_EQUAL(back->hop->busy_ps(), 16384 * kNs);
    BOOST_CHECK_EQUAL(back->hop->bytes(), 1u << 20);
}

// Case 9. A launch resolved on the device (resolve_after: device,
// docs/workload.md "Ordering"), two_sip.yaml: a on pe0 of sip0.cube0, then b
// on pe0 of sip0.cube1, after a. IO_CPU takes b at once (both issued at 0;
// its turns send a at 5 ns and b at 10 ns), and cube1's M_CPU holds it. At a's fan-out completion (its record's end) cube0's M_CPU sends the
// notice, m_cpu -> r0 attach 1 + r0 -> ucie attach 1 + UCIe 2 + ucie -> r0
// attach 1 + r0 -> m_cpu attach 1 = 6 ns; cube1's M_CPU handles it (5 ns)
// and releases b: its fan-out starts 11 ns after a's ended and stamps the
// barrier 2 ns later (the M_CPU -> pe0 leg), where pe0 starts its kernel.
// Through the host instead, b would leave cube0 as a's response (io_link
// 500, IO_CPU 5), then IO_CPU 5, io_link 500 and M_CPU 5: 1,015 ns after a's
// fan-out, not 11.
BOOST_AUTO_TEST_CASE(a_device_resolved_launch_is_released_by_a_notice_from_another_cube) {
    const TopologyConfig topo = test::load_shipped("two_sip");
    const WorkloadConfig wl = load_workload_text(std::string(kDummyKernel) + R"(host:
  - kernel_launch: { id: a, kernel: idle, cubes: [sip0.cube0], target_pe: [0] }
  - kernel_launch: { id: b, kernel: idle, cubes: [sip0.cube1], target_pe: [0], after: [a], resolve_after: device }
)", "device.yaml", topo);
    std::ostringstream tt;
    TraceSink trace(&tt);
    Platform platform(topo, trace);
    WorkloadRun run(platform, wl);

    sc_core::sc_start();

    BOOST_REQUIRE(run.finished());
    const auto& reqs = run.host()->requests();
    BOOST_REQUIRE_EQUAL(reqs.size(), 2u);
    BOOST_CHECK_EQUAL(reqs[1].issued.value(), 0u);  // sent at once, not after a
    MCpu& m0 = *platform.cube(0, 0).m_cpu;
    MCpu& m1 = *platform.cube(0, 1).m_cpu;
    BOOST_CHECK_EQUAL(platform.route(m0, m1).latency_ps, 6 * kNs);
    BOOST_REQUIRE_EQUAL(m0.fanouts().size(), 1u);
    BOOST_REQUIRE_EQUAL(m1.fanouts().size(), 1u);
    const std::uint64_t a_done = m0.fanouts()[0].end.value();
    BOOST_CHECK_EQUAL(m1.fanouts()[0].start.value(), a_done + 11 * kNs);
    BOOST_CHECK_EQUAL(m1.fanouts()[0].target_start_ps, a_done + 13 * kNs);
    BOOST_CHECK(pes_started_at(platform, 0, 1, a_done + 13 * kNs) == std::set<int>{0});
    // The request table's start is that barrier, and b completes at the host.
    BOOST_CHECK_EQUAL(reqs[1].target_start_ps, a_done + 13 * kNs);
    BOOST_CHECK(reqs[1].done && reqs[1].success);
}
