// Bench of PE_MATH alone (SPEC §3 T3; docs/timing.md "T3 Engines"): the
// block with a stub scheduler feeding its inbox and the accel_slot (a real
// FifoResource); one case adds a real PE_GEMM, the slot's other user.
//   cycles = ceil(elements · cost(op) / lanes) + fill_cycles, at freq_ghz
// 512 lanes, fill_cycles 8, 1 GHz; op_cost relu 1, exp 4.
//   relu over 16384: 32 + 8 = 40 ns; exp over 1000: ceil(4000/512) = 8,
//   + 8 = 16 ns.
#include <boost/test/unit_test.hpp>

#include <stdexcept>

#include "modules/pe/pe_gemm.h"
#include "modules/pe/pe_math.h"
#include "testbench/harness/pe_block_wiring.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/stub_nodes.h"
#include "testbench/harness/stub_scheduler.h"

using namespace npuvp;
using test::ns;

namespace {

PeMathConfig math_config() {
    PeMathConfig c;
    c.impl = "builtin.pe_math";
    c.shared_resource = "accel_slot";
    c.lanes = 512;
    c.freq_ghz = 1.0;
    c.fill_cycles = 8;
    c.op_cost = {{"relu", 1.0}, {"exp", 4.0}};
    return c;
}

struct Bench {
    PeMathConfig config = math_config();
    TraceSink trace;
    RunStatus status;
    PeMath math{"pe_math", config, trace, status};
    FifoResource accel_slot{"accel_slot", 1};
    test::StubScheduler scheduler{"scheduler", 2, trace};

    Bench() { test::wire_compute_engine(math, accel_slot, scheduler); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(op_time_is_the_formula_and_epilogues_chain_in_place) {
    Bench b;
    // One token with two MATH stages (an epilogue after an epilogue), then
    // a one-stage token.
    b.scheduler.command(0, test::make_command("chain", CommandKind::math),
                        {test::math_stage("relu", 16384), test::math_stage("exp", 1000)});
    b.scheduler.command(0, test::make_command("single", CommandKind::math), {test::math_stage("exp", 1000)});
    sc_core::sc_start();
    // chain: 40 + 16 = 56 ns; single after it: 56 + 16 = 72 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("chain"), ns(56));
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("single"), ns(72));
    // Three stages, the slot taken once per stage (released in between).
    BOOST_CHECK_EQUAL(b.math.worker().stages_done(), 3u);
    BOOST_CHECK_EQUAL(b.accel_slot.grants(), 3u);
    BOOST_CHECK_EQUAL(b.math.worker().busy().value(), ns(72));
}

BOOST_AUTO_TEST_CASE(a_waiting_gemm_goes_between_two_epilogues) {
    Bench b;
    PeGemmConfig gemm_config;
    gemm_config.rows = gemm_config.cols = 128;
    gemm_config.freq_ghz = 1.0;
    gemm_config.fill_cycles = 128;
    PeGemm gemm("pe_gemm", gemm_config, b.trace, b.status);
    test::wire_compute_engine(gemm, b.accel_slot, b.scheduler);
    b.scheduler.command(0, test::make_command("epilogues", CommandKind::math),
                        {test::math_stage("relu", 16384), test::math_stage("exp", 1000)});
    b.scheduler.command(ns(10), test::make_command("tile", CommandKind::gemm), {test::gemm_stage(128, 128, 128)});
    sc_core::sc_start();
    // relu holds the slot 0..40; GEMM asks at 10. Between the two stages
    // MATH releases the slot and asks again (T3), so the oldest waiter, the
    // GEMM, gets it: 40..296 (256 ns); exp then runs 296..312.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("tile"), ns(296));
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("epilogues"), ns(312));
    // At most one compute op at a time: the busy times add up to the span.
    BOOST_CHECK_EQUAL((b.math.worker().busy() + gemm.worker().busy()).value(), ns(312));
}

BOOST_AUTO_TEST_CASE(op_without_a_cost_is_refused_naming_it) {
    Bench b;
    BOOST_CHECK_EQUAL(b.math.cycles(16384, "relu"), 40u);
    try {
        b.math.cycles(10, "gelu");
        BOOST_ERROR("no exception for an op without op_cost");
    } catch (const std::invalid_argument& e) {
        BOOST_CHECK_NE(std::string(e.what()).find("no op_cost for 'gelu'"), std::string::npos);
    }
    sc_core::sc_start();
}
