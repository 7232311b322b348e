// Bench of PE_GEMM alone (SPEC §3 T3; docs/timing.md "T3 Engines"): the
// block with a stub scheduler feeding its inbox and the accel_slot (a real
// FifoResource, as the PE owns it).
//   cycles = ceil(m / rows) · ceil(n / cols) · k + fill_cycles
//   time   = cycles / freq_ghz (exact quotient exact, else rounded up to 1 ps)
// Array 128 × 128, fill_cycles 128, 1 GHz unless said.
#include <boost/test/unit_test.hpp>

#include "modules/pe/pe_gemm.h"
#include "testbench/harness/pe_block_wiring.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/stub_nodes.h"
#include "testbench/harness/stub_scheduler.h"

using namespace npuvp;
using test::ns;

namespace {

PeGemmConfig gemm_config(double freq_ghz) {
    PeGemmConfig c;
    c.impl = "builtin.pe_gemm";
    c.shared_resource = "accel_slot";
    c.rows = 128;
    c.cols = 128;
    c.freq_ghz = freq_ghz;
    c.fill_cycles = 128;
    return c;
}

struct Bench {
    PeGemmConfig config;
    TraceSink trace;
    RunStatus status;
    PeGemm gemm;
    FifoResource accel_slot{"accel_slot", 1};
    test::StubScheduler scheduler{"scheduler", 2, trace};

    explicit Bench(double freq_ghz = 1.0) : config(gemm_config(freq_ghz)), gemm("pe_gemm", config, trace, status) {
        test::wire_compute_engine(gemm, accel_slot, scheduler);
    }
    void tile(ps_t at, const std::string& id, std::uint64_t m, std::uint64_t k, std::uint64_t n) {
        scheduler.command(at, test::make_command(id, CommandKind::gemm), {test::gemm_stage(m, k, n)});
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(tile_time_is_the_formula_one_tile_at_a_time) {
    Bench b;
    b.tile(0, "full", 128, 128, 128);
    b.tile(0, "edge", 200, 64, 300);
    sc_core::sc_start();
    // full: 1 · 1 · 128 + 128 = 256 cycles = 256 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("full"), ns(256));
    // edge: ceil(200/128) = 2, ceil(300/128) = 3: 2 · 3 · 64 + 128 = 512
    // cycles, after full: 256 + 512 = 768 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("edge"), ns(768));
    BOOST_CHECK_EQUAL(b.gemm.cycles(200, 64, 300), 512u);
    BOOST_CHECK_EQUAL(b.gemm.worker().busy().value(), ns(768));
    BOOST_CHECK_EQUAL(b.accel_slot.grants(), 2u);
}

BOOST_AUTO_TEST_CASE(inexact_clock_rounds_up_to_a_whole_ps) {
    Bench b(1.5);
    b.tile(0, "full", 128, 128, 128);
    sc_core::sc_start();
    // 256 cycles / 1.5 GHz = 170.6667 ns -> 170 667 ps (rounded up).
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("full"), 170667u);
}

BOOST_AUTO_TEST_CASE(slot_held_elsewhere_delays_the_tile_and_is_not_busy_time) {
    Bench b;
    // Another compute engine holds accel_slot from 0 to 100 ns.
    test::Script other("other", [&] {
        b.accel_slot.wait();
        test::wait_until(ns(100));
        b.accel_slot.post();
    });
    b.tile(ns(10), "full", 128, 128, 128);
    sc_core::sc_start();
    // Fed at 10, granted at 100, 256 ns of compute: done at 356 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("full"), ns(356));
    // Busy runs from the grant: 256 ns, not 346 (T3).
    BOOST_CHECK_EQUAL(b.gemm.worker().busy().value(), ns(256));
    BOOST_CHECK_EQUAL(b.accel_slot.total_wait().value(), ns(90));
}
