// Issue 17, point 2: the base-protocol checker (tlm_sockets/protocol_checker.h)
// finds the rules it names when they are broken, and finds none on npuvp:
// every ctest entry runs with NPUVP_TLM_CHECK=1 (testbench/CMakeLists.txt), so
// the whole suite and every shipped example (cli_examples_test) go through a
// checker on every binding; here a whole platform run is checked to have
// passed transactions through them with no report.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config/workload_loader.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "testbench/harness/platform_fixture.h"
#include "testbench/harness/report_guard.h"
#include "tlm_sockets/protocol_checker.h"

using namespace npuvp;

namespace {

// A target that answers b_transport (optionally forgetting the response
// status) and nb_transport_fw with TLM_ACCEPTED (it never ends a request).
class Target : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<Target> socket;
    bool set_status = true;
    explicit Target(const sc_core::sc_module_name& n) : sc_module(n), socket("socket") {
        socket.register_b_transport(this, &Target::b_transport);
        socket.register_nb_transport_fw(this, &Target::nb_transport_fw);
    }

private:
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
        if (set_status) p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
        return tlm::TLM_ACCEPTED;
    }
};

// A memory manager that owns nothing (the payloads live on the test's
// stack): nb_transport needs one (§14.5).
struct KeepAll : tlm::tlm_mm_interface {
    void free(tlm::tlm_generic_payload*) override {}
};

void prepare(tlm::tlm_generic_payload& p, unsigned char* data) {
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_address(0);
    p.set_data_ptr(data);
    p.set_data_length(4);
    p.set_streaming_width(4);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// The rules each scenario breaks, as the checker words them.
std::vector<std::string> checker_reports() {
    std::vector<std::string> out;
    for (const auto& r : test::take_reports())
        if (r.msg_type == "npuvp/tlm_check") out.push_back(r.message);
    return out;
}

bool mentions(const std::vector<std::string>& reports, const std::string& what) {
    for (const auto& r : reports)
        if (r.find(what) != std::string::npos) return true;
    return false;
}

struct Harness : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Harness> socket{"socket"};
    ProtocolChecker checker{"checker", "init -> target"};
    Target target{"target"};
    Harness() : sc_module("harness") {
        // Reports are recorded (report guard) and do not throw, so one run
        // can break several rules.
        sc_core::sc_report_handler::set_actions("npuvp/tlm_check", sc_core::SC_ERROR,
                                                sc_core::SC_DISPLAY);
        socket.bind(checker.in);
        checker.out.bind(target.socket);
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(b_transport_from_a_method_is_reported) {
    Harness h;
    unsigned char data[4] = {};
    tlm::tlm_generic_payload p;
    sc_core::sc_spawn_options options;
    options.spawn_method();
    sc_core::sc_spawn(
        [&] {
            prepare(p, data);
            sc_core::sc_time d;
            h.socket->b_transport(p, d);  // Target does not wait, but could
        },
        "method", &options);
    sc_core::sc_start();
    const auto reports = checker_reports();
    BOOST_TEST(reports.size() == 1u);
    BOOST_TEST(mentions(reports, "only a thread may call it"));
    BOOST_TEST(mentions(reports, "init -> target"));  // names the binding
}

BOOST_AUTO_TEST_CASE(bad_attributes_and_a_missing_response_status_are_reported) {
    Harness h;
    h.target.set_status = false;
    unsigned char data[4] = {};
    tlm::tlm_generic_payload p;
    sc_core::sc_spawn([&] {
        prepare(p, data);
        p.set_data_length(0);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        sc_core::sc_time d;
        h.socket->b_transport(p, d);
    });
    sc_core::sc_start();
    const auto reports = checker_reports();
    BOOST_TEST(reports.size() == 2u);
    BOOST_TEST(mentions(reports, "data length 0"));
    BOOST_TEST(mentions(reports, "not TLM_INCOMPLETE_RESPONSE on a request"));
    // The target left the status as the initiator (wrongly) set it: OK, so
    // "without a response status" is not among them; a thread is fine.
}

BOOST_AUTO_TEST_CASE(a_second_begin_req_before_end_req_breaks_request_exclusion) {
    Harness h;
    unsigned char data[4] = {};
    tlm::tlm_generic_payload a, b;
    KeepAll mm;
    sc_core::sc_spawn([&] {
        prepare(a, data);
        prepare(b, data);
        for (tlm::tlm_generic_payload* p : {&a, &b}) {
            p->set_mm(&mm);
            p->acquire();
        }
        tlm::tlm_phase phase = tlm::BEGIN_REQ;
        sc_core::sc_time d;
        h.socket->nb_transport_fw(a, phase, d);  // TLM_ACCEPTED: request still open
        phase = tlm::BEGIN_REQ;
        h.socket->nb_transport_fw(b, phase, d);
        phase = tlm::END_RESP;
        h.socket->nb_transport_fw(a, phase, d);  // no response was ever begun
    });
    sc_core::sc_start();
    const auto reports = checker_reports();
    BOOST_TEST(reports.size() == 2u);
    BOOST_TEST(mentions(reports, "request exclusion"));
    BOOST_TEST(mentions(reports, "END_RESP without a response"));
}

// §14.5: a payload sent with nb_transport has a memory manager and is
// referenced while it travels; §15.2.7: its phases never go back in time.
// Three sends, each breaking one rule (the target answers TLM_ACCEPTED, so
// each is then ended with END_RESP after a BEGIN_RESP the test plays as the
// target would, to keep the phase sequence itself legal).
BOOST_AUTO_TEST_CASE(nb_transport_without_a_memory_manager_or_back_in_time_is_reported) {
    Harness h;
    unsigned char data[4] = {};
    tlm::tlm_generic_payload no_mm, unreferenced, late;
    KeepAll mm;
    sc_core::sc_spawn([&] {
        tlm::tlm_phase phase = tlm::BEGIN_REQ;
        sc_core::sc_time d;
        prepare(no_mm, data);
        h.socket->nb_transport_fw(no_mm, phase, d);  // no memory manager
        phase = tlm::END_RESP;
        h.socket->nb_transport_fw(no_mm, phase, d);
        sc_core::wait(sc_core::sc_time(1, sc_core::SC_NS));

        prepare(unreferenced, data);
        unreferenced.set_mm(&mm);  // reference count 0
        phase = tlm::BEGIN_REQ;
        h.socket->nb_transport_fw(unreferenced, phase, d);
        sc_core::wait(sc_core::sc_time(1, sc_core::SC_NS));

        prepare(late, data);
        late.set_mm(&mm);
        late.acquire();
        phase = tlm::BEGIN_REQ;
        d = sc_core::sc_time(10, sc_core::SC_NS);
        h.socket->nb_transport_fw(late, phase, d);  // at now + 10 ns
        phase = tlm::END_RESP;
        d = sc_core::SC_ZERO_TIME;
        h.socket->nb_transport_fw(late, phase, d);  // at now: earlier than its BEGIN_REQ
    });
    sc_core::sc_start();
    const auto reports = checker_reports();
    BOOST_TEST(mentions(reports, "no memory manager"));
    BOOST_TEST(mentions(reports, "reference count 0"));
    BOOST_TEST(mentions(reports, "annotated earlier than the one before it"));
}

// A whole platform under the checker: the DMA, control and host traffic of
// host_launch (M_CPU DMA to HBM, kernel launches, responses) and a GEMM on
// every PE, no report, and the checkers saw the transfers.
BOOST_AUTO_TEST_CASE(a_platform_run_passes_the_checker_on_every_binding) {
    setenv("NPUVP_TLM_CHECK", "1", 1);  // before the platform reads it
    BOOST_TEST_REQUIRE(ProtocolChecker::enabled());
    const TopologyConfig topo = test::load_shipped("default");
    const WorkloadConfig w = load_workload_file(
        std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/host_launch.yaml", topo);
    TraceSink trace(nullptr);
    Platform platform(topo, trace);
    WorkloadRun run(platform, w);
    sc_core::sc_start();
    BOOST_TEST(run.finished());
    std::uint64_t checked = 0, checkers = 0;
    for (sc_core::sc_object* o : sc_core::sc_get_top_level_objects())
        if (auto* c = dynamic_cast<ProtocolChecker*>(o)) {
            ++checkers;
            checked += c->transactions();
        }
    // One checker per link of the topology (every `out` binding).
    std::uint64_t bindings = 0;
    for (RoutedNode* n : platform.nodes()) bindings += static_cast<std::uint64_t>(n->out_bindings());
    BOOST_TEST_MESSAGE("bindings " << bindings << ", transactions checked " << checked);
    BOOST_TEST(checkers == bindings);
    BOOST_TEST(checked > 0u);
    BOOST_TEST(checker_reports().empty());
}

// Checked runs also check that a memory transfer's route is the address
// map's path: at each transit node the payload's address decodes to the
// binding the route takes. A route to slice 3 carrying an address of slice 5
// parts from the address map at router 1 of the 2 x 4 mesh (XY: slice 3 is
// further along row 0, slice 5 is down column 1).
BOOST_AUTO_TEST_CASE(a_route_that_is_not_the_address_maps_path_is_reported) {
    setenv("NPUVP_TLM_CHECK", "1", 1);
    sc_core::sc_report_handler::set_actions("npuvp/tlm_check", sc_core::SC_ERROR,
                                            sc_core::SC_DISPLAY);
    const TopologyConfig topo = test::load_shipped("default");
    TraceSink trace(nullptr);
    Platform platform(topo, trace);
    RoutedNode& m_cpu = *platform.find("sip0.cube0.m_cpu");
    const Route& to_slice3 = platform.route("sip0.cube0.m_cpu", "sip0.cube0.hbm_ctrl.pe3");
    const std::uint64_t slice5 = 5 * topo.cube.memory_map.hbm_slice_bytes;
    Transaction txn;
    bool threw = false;
    sc_core::sc_spawn([&] {
        txn.prepare(MsgKind::dma_write, to_slice3, slice5, 64);
        try {
            m_cpu.transport(txn);
        } catch (const std::runtime_error&) {
            threw = true;  // slice 3 does not hold the address: TLM_ADDRESS_ERROR_RESPONSE
        }
    });
    sc_core::sc_start();
    const auto reports = checker_reports();
    BOOST_TEST(threw);
    // r1 (first parting), then r2 and r3, where the address map would turn
    // back toward column 1; the slice itself is the target, not a transit.
    BOOST_TEST_REQUIRE(reports.size() == 3u);
    BOOST_TEST(reports[0].find("sip0.cube0.noc.r1: address 0x780000000 decodes to") == 0u);
    BOOST_TEST(mentions(reports, "sip0.cube0.noc.r2:"));
    BOOST_TEST(mentions(reports, "sip0.cube0.noc.r3:"));
}
