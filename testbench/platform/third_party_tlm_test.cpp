// Issue 17, point 3: TLM-2.0 models written the way an outside vendor writes
// them, with nothing but tlm_utils sockets and the generic payload, plug into
// npuvp in place of every hbm_ctrl slice through the impl registry
// (TlmMemoryAdapter), run a shipped GEMM workload, and give the makespan
// their own timing implies. Also: a third-party initiator that knows nothing
// of npuvp's extension reaches a memory target by its address.
//
// SystemC elaborates once per process: each run of the platform is a child
// process (this executable, NPUVP_TP_CHILD=<model>:<latency_ns>,
// NPUVP_TP_OUT=<file>), which writes "<makespan_ps> <transactions> <bytes>".
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config/workload_loader.h"
#include "modules/cube/tlm_memory_adapter.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/self_child.h"

using namespace npuvp;

namespace vendor {

// Bytes of a memory, page by page, made when first written (a sparse store:
// an HBM slice is gigabytes).
class SparseBytes {
public:
    void access(tlm::tlm_generic_payload& p) {
        for (unsigned i = 0; i < p.get_data_length(); ++i) {
            const std::uint64_t a = p.get_address() + i;
            auto& page = m_pages[a / 4096];
            if (p.is_write())
                page[a % 4096] = p.get_data_ptr()[i];
            else
                p.get_data_ptr()[i] = page[a % 4096];
        }
    }
    std::uint64_t bytes = 0;
    std::uint64_t transactions = 0;

private:
    std::map<std::uint64_t, std::array<unsigned char, 4096>> m_pages;
};

// An LT memory: b_transport synchronises (waits the annotated delay), then
// waits its access latency, as many LT models do.
class LtMemory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<LtMemory> socket;
    SparseBytes store;

    LtMemory(const sc_core::sc_module_name& name, sc_core::sc_time latency)
        : sc_module(name), socket("socket"), m_latency(latency) {
        socket.register_b_transport(this, &LtMemory::b_transport);
    }

private:
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
        wait(delay);
        delay = sc_core::SC_ZERO_TIME;
        wait(m_latency);
        store.access(p);
        store.bytes += p.get_data_length();
        ++store.transactions;
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    sc_core::sc_time m_latency;
};

// An AT memory: the 4-phase protocol through a peq_with_cb_and_phase. It
// ends the request after `accept`, and begins the response `latency` later.
class AtMemory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<AtMemory> socket;
    SparseBytes store;

    AtMemory(const sc_core::sc_module_name& name, sc_core::sc_time accept, sc_core::sc_time latency)
        : sc_module(name), socket("socket"), m_peq(this, &AtMemory::peq_cb), m_accept(accept),
          m_latency(latency) {
        socket.register_nb_transport_fw(this, &AtMemory::nb_transport_fw);
    }

private:
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                       sc_core::sc_time& delay) {
        if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
        m_peq.notify(p, phase, delay);  // BEGIN_REQ
        return tlm::TLM_ACCEPTED;
    }
    void peq_cb(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase) {
        if (phase == tlm::BEGIN_REQ) {
            tlm::tlm_phase end = tlm::END_REQ;
            sc_core::sc_time t = m_accept;
            socket->nb_transport_bw(p, end, t);
            tlm::tlm_phase begin = tlm::BEGIN_RESP;
            m_peq.notify(p, begin, m_accept + m_latency);
        } else if (phase == tlm::BEGIN_RESP) {
            store.access(p);
            store.bytes += p.get_data_length();
            ++store.transactions;
            p.set_response_status(tlm::TLM_OK_RESPONSE);
            tlm::tlm_phase begin = tlm::BEGIN_RESP;
            sc_core::sc_time t = sc_core::SC_ZERO_TIME;
            socket->nb_transport_bw(p, begin, t);  // END_RESP, if any, comes on the forward path
        }
    }
    tlm_utils::peq_with_cb_and_phase<AtMemory> m_peq;
    sc_core::sc_time m_accept;
    sc_core::sc_time m_latency;
};

// An initiator that knows nothing of npuvp: a plain generic payload by
// b_transport, then by nb_transport_fw.
class PlainInitiator : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<PlainInitiator> socket;
    std::uint64_t address = 0;
    tlm::tlm_response_status b_status = tlm::TLM_INCOMPLETE_RESPONSE;
    tlm::tlm_response_status miss_status = tlm::TLM_INCOMPLETE_RESPONSE;
    tlm::tlm_sync_enum nb_answer = tlm::TLM_ACCEPTED;
    tlm::tlm_response_status nb_status = tlm::TLM_INCOMPLETE_RESPONSE;
    sc_core::sc_time b_delay, nb_delay;

    explicit PlainInitiator(const sc_core::sc_module_name& name) : sc_module(name), socket("socket") {
        SC_THREAD(run);
    }
    SC_HAS_PROCESS(PlainInitiator);

private:
    void run() {
        std::array<unsigned char, 64> data{};
        tlm::tlm_generic_payload p;
        auto prepare = [&](std::uint64_t a) {
            p.set_command(tlm::TLM_READ_COMMAND);
            p.set_address(a);
            p.set_data_ptr(data.data());
            p.set_data_length(64);
            p.set_streaming_width(64);
            p.set_byte_enable_ptr(nullptr);
            p.set_dmi_allowed(false);
            p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        };
        prepare(address);
        socket->b_transport(p, b_delay);
        b_status = p.get_response_status();
        prepare(~std::uint64_t{0} - 63);  // no memory window holds it
        sc_core::sc_time d;
        socket->b_transport(p, d);
        miss_status = p.get_response_status();
        // nb_transport needs a memory manager (§14.5); this one owns nothing.
        struct Keep : tlm::tlm_mm_interface {
            void free(tlm::tlm_generic_payload*) override {}
        } keep;
        prepare(address);
        p.set_mm(&keep);
        p.acquire();
        tlm::tlm_phase phase = tlm::BEGIN_REQ;
        nb_answer = socket->nb_transport_fw(p, phase, nb_delay);
        nb_status = p.get_response_status();
        p.release();
        p.set_mm(nullptr);
    }
};

}  // namespace vendor

namespace {

struct ModelStats {
    const vendor::SparseBytes* store = nullptr;
};
ModelStats g_stats;

// The registry with the two vendor models as hbm_ctrl impls, each behind a
// TlmMemoryAdapter with four workers (at most four accesses in the model).
ImplRegistry registry_with_models(double latency_ns) {
    ImplRegistry r = builtin_registry();
    const sc_core::sc_time latency(latency_ns, sc_core::SC_NS);
    auto add = [&](const char* impl, bool at) {
        r.add<MemoryTarget>(
            "hbm_ctrl", impl,
            ImplRegistry::Factory<MemoryTarget>([latency, at](const sc_core::sc_module_name& n,
                                                              const NodeEnv& env) {
                return std::make_unique<TlmMemoryAdapter>(
                    n, "hbm_ctrl", env.topo.cube.memory_map.hbm_slice_bytes, 4,
                    [latency, at](TlmMemoryAdapter& adapter) -> std::unique_ptr<sc_core::sc_module> {
                        if (at) {
                            auto m = std::make_unique<vendor::AtMemory>(
                                "model", sc_core::sc_time(2, sc_core::SC_NS), latency);
                            adapter.to_model.bind(m->socket);
                            if (!g_stats.store) g_stats.store = &m->store;
                            return m;
                        }
                        auto m = std::make_unique<vendor::LtMemory>("model", latency);
                        adapter.to_model.bind(m->socket);
                        if (!g_stats.store) g_stats.store = &m->store;
                        return m;
                    });
            }));
    };
    add("testbench.lt_memory", false);
    add("testbench.at_memory", true);
    return r;
}

// Child mode: runs gemm_int8_small on the default topology with every
// hbm_ctrl slice replaced by the named model, writes the result and exits.
struct ChildMode {
    ChildMode() {
        const char* child = std::getenv("NPUVP_TP_CHILD");
        const char* out = std::getenv("NPUVP_TP_OUT");
        if (!child || !out) return;
        const std::string spec = child;
        const std::string model = spec.substr(0, spec.find(':'));
        const double latency_ns = std::stod(spec.substr(spec.find(':') + 1));
        const ImplRegistry registry = registry_with_models(latency_ns);
        std::vector<Override> overrides;
        if (model != "builtin")
            overrides.push_back(parse_override("cube.hbm_ctrl.impl=testbench." + model));
        const TopologyConfig topo =
            load_topology_file(test::shipped_topology("default"), overrides, registry);
        const WorkloadConfig w = load_workload_file(
            std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/gemm_int8_small.yaml", topo);
        TraceSink trace(nullptr);
        Platform platform(topo, trace, registry);
        WorkloadRun run(platform, w);
        sc_core::sc_start();
        std::ofstream file(out);
        // pe0's slice is the first made; the workload's operands are all in it.
        file << run.makespan_ps() << " " << (g_stats.store ? g_stats.store->transactions : 0)
             << " " << (g_stats.store ? g_stats.store->bytes : 0) << " "
             << (run.finished() ? 1 : 0) << "\n";
        file.flush();
        std::_Exit(run.finished() && test::take_reports().empty() ? 0 : 3);
    }
};
BOOST_TEST_GLOBAL_FIXTURE(ChildMode);

struct ChildResult {
    int status = -1;
    std::uint64_t makespan_ps = 0, transactions = 0, bytes = 0;
};

ChildResult run_child(const std::string& model, double latency_ns) {
    // This process's own file: the cases run in parallel, in one folder.
    const std::string out = "third_party_" + std::to_string(getpid()) + "_" + model + "_" +
                            std::to_string(latency_ns) + ".txt";
    const int status = test::run_self_child(
        "plain_initiator_reaches_memory_by_address",
        {{"NPUVP_TP_CHILD", model + ":" + std::to_string(latency_ns)}, {"NPUVP_TP_OUT", out}});
    ChildResult r;
    r.status = status;
    std::ifstream in(out);
    int finished = 0;
    in >> r.makespan_ps >> r.transactions >> r.bytes >> finished;
    return r;
}

// The makespan's dependence on the model's access time L. gemm_int8_small
// on pe0: 64^3 in 32^3 int8 tiles, 8 tokens; each token has one DMA_READ
// stage (one piece: A and B are in pe0's slice). The default reuse keeps an
// A row panel (docs/timing.md "Operand reuse"): the 4 tokens of the first N
// pass read their A and B tiles, 2048 bytes, the other 4 only B, 1024; each
// output tile's second K-step one DMA_WRITE of 1024 bytes: 8 + 4 = 12 model
// transactions, 4·2048 + 4·1024 + 4·1024 = 16384 bytes. With L = 20 µs or
// more every access is L plus nanoseconds, so:
// - the one read channel (rd_engines: 1) does its 8 reads back to back: 8 L;
// - each write starts right after its output tile's second read and its
//   FETCH / GEMM / MATH / STORE (nanoseconds) and takes L; the writes of
//   tiles 1-3 end long before the next can start (its reads are 2 L later),
//   so only the last write is on the critical path: + 1 L;
// - everything else (launch, NoC hops, compute) does not depend on L.
// makespan(L) = 9 L + c, so makespan(L2) - makespan(L1) = 9 (L2 - L1); and
// c is less than the whole run with the builtin HBM slices (which also has
// its 12 accesses of 100 ns or more in it).
void check_model(const std::string& model, double per_access_extra_ns) {
    const double l1 = 20000.0, l2 = 50000.0;
    const ChildResult builtin = run_child("builtin", 0.0);
    const ChildResult a = run_child(model, l1);
    const ChildResult b = run_child(model, l2);
    BOOST_TEST_REQUIRE(builtin.status == 0);
    BOOST_TEST_REQUIRE(a.status == 0);
    BOOST_TEST_REQUIRE(b.status == 0);
    BOOST_TEST(a.transactions == 12u);
    BOOST_TEST(a.bytes == 16384u);
    BOOST_TEST(b.transactions == 12u);
    BOOST_TEST(b.makespan_ps - a.makespan_ps ==
               static_cast<std::uint64_t>(9 * (l2 - l1) * 1000.0));
    // The AT model's END_REQ comes 2 ns after BEGIN_REQ, and its response
    // L after that: each access is L + 2 ns, in c.
    const auto floor_ps = static_cast<std::uint64_t>(9 * (l1 + per_access_extra_ns) * 1000.0);
    BOOST_TEST(a.makespan_ps > floor_ps);
    BOOST_TEST(a.makespan_ps < floor_ps + builtin.makespan_ps);
}

}  // namespace

BOOST_AUTO_TEST_CASE(plain_initiator_reaches_memory_by_address) {
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace(nullptr);
    Platform platform(topo, trace);
    // A third-party initiator on M_CPU's target socket; pe3's HBM slice.
    vendor::PlainInitiator init("init");
    RoutedNode* m_cpu = platform.find("sip0.cube0.m_cpu");
    BOOST_TEST_REQUIRE(m_cpu != nullptr);
    init.socket.bind(m_cpu->in);
    auto& slice = static_cast<MemoryTarget&>(platform.memory_target(
        topo.cube.memory_map.hbm_slice_bytes * 3 + 0x100));
    init.address = slice.base() + 0x100;
    sc_core::sc_start();
    // Routed by address through the NoC to the slice, served as a plain
    // memory access: the slice's port uncontended, latency + 64 B / bw
    // (100 ns + 64 / 192 GB/s = 333 ps, rounded as Hop does); the nodes on
    // the way add nothing without npuvp's extension.
    const ps_t port = ns_to_ps(topo.cube.hbm_ctrl.latency_ns, "hbm_ctrl.attrs.latency_ns") +
                      serialisation_ps(64, topo.cube.hbm_ctrl.bw_gbs);
    BOOST_TEST(init.b_status == tlm::TLM_OK_RESPONSE);
    BOOST_TEST(init.b_delay.value() == port);
    BOOST_TEST(slice.bytes_read() == 128u);  // the b_transport and the nb_transport_fw
    BOOST_TEST(init.miss_status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    BOOST_TEST(init.nb_answer == tlm::TLM_COMPLETED);
    BOOST_TEST(init.nb_status == tlm::TLM_OK_RESPONSE);
    BOOST_TEST(init.nb_delay.value() == port);
}

BOOST_AUTO_TEST_CASE(lt_memory_that_waits_runs_a_shipped_gemm) { check_model("lt_memory", 0.0); }

BOOST_AUTO_TEST_CASE(at_memory_with_four_phases_runs_a_shipped_gemm) {
    check_model("at_memory", 2.0);
}
