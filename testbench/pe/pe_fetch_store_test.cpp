// Bench of PE_FETCH_STORE alone (SPEC §3 T2, T3; seed 002 "main starves
// sub"; docs/architecture.md "FETCH and STORE"): the block with a stub
// scheduler feeding its inboxes, stub routes to a stub TCM and a stub bank
// monitor standing for PE_SCHEDULER.
//
// Figures (default.yaml's): fetch_store <-> tcm link 0 ns, 2048 GB/s each
// direction; TCM read / write ports 2 ns, 8192 GB/s; latency_ns 1.
//   FETCH of n B: link, TCM read port: 2 + n / 2048 (min B) + 1 ns
//   STORE of n B: link, TCM write port: the same
// 65536 B: 2 + 32 + 1 = 35 ns; 32768 B: 2 + 16 + 1 = 19 ns.
#include <boost/test/unit_test.hpp>

#include "modules/pe/pe_fetch_store.h"
#include "testbench/harness/pe_block_wiring.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/stub_nodes.h"
#include "testbench/harness/stub_pe_routes.h"
#include "testbench/harness/stub_scheduler.h"

using namespace npuvp;
using test::ns;

namespace {

PeFetchStoreConfig fetch_store_config() {
    PeFetchStoreConfig c;
    c.impl = "builtin.pe_fetch_store";
    c.latency_ns = 1.0;
    return c;
}

struct Bench {
    PeFetchStoreConfig config = fetch_store_config();
    TraceSink trace;
    RunStatus status;
    PeFetchStore unit{"pe_fetch_store", config, trace, status};
    test::StubTarget tcm{"pe_tcm"};
    test::StubScheduler scheduler{"scheduler", 2, trace};
    test::StubBankMonitor banks;
    test::StubPeRoutes routes;
    test::Wires wires;

    Bench() {
        Hop& fetch_link = wires.hop("fetch_link", 0.0, 2048.0);
        Hop& store_link = wires.hop("store_link", 0.0, 2048.0);
        Hop& tcm_read = wires.hop("tcm.read", 2.0, 8192.0);
        Hop& tcm_write = wires.hop("tcm.write", 2.0, 8192.0);
        routes.fetch_route = &wires.route({&unit, &tcm}, {{&fetch_link, 0}, {&tcm_read, 1}});
        routes.store_route = &wires.route({&unit, &tcm}, {{&store_link, 0}, {&tcm_write, 1}});
        test::wire_pe_fetch_store(unit, routes, banks, scheduler);
    }
    auto& fetch(ps_t at, const std::string& id, std::uint64_t bytes) {
        return scheduler.command(at, test::make_command(id, CommandKind::fetch),
                                 {test::stage(StageType::fetch, bytes)});
    }
    auto& store(ps_t at, const std::string& id, std::uint64_t bytes) {
        return scheduler.command(at, test::make_command(id, CommandKind::store),
                                 {test::stage(StageType::store, bytes)});
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(fetch_and_store_follow_t1_plus_latency_side_by_side) {
    Bench b;
    b.fetch(0, "fetch", 65536);
    b.store(0, "store", 32768);
    sc_core::sc_start();
    // Separate workers and separate hops: neither waits for the other.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("fetch"), ns(35));
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("store"), ns(19));
    // Both reach the TCM after link 0 + port 2 = 2 ns: FETCH reads it
    // (dma_read), STORE writes it (dma_write), each with its own bytes.
    BOOST_REQUIRE_EQUAL(b.tcm.arrivals.size(), 2u);
    for (const test::Arrival& a : b.tcm.arrivals) {
        BOOST_CHECK_EQUAL(a.arrival_ps, ns(2));
        BOOST_CHECK(a.kind == (a.bytes == 65536 ? MsgKind::dma_read : MsgKind::dma_write));
    }
    BOOST_CHECK_EQUAL(b.tcm.arrivals[0].bytes + b.tcm.arrivals[1].bytes, 65536u + 32768u);
}

BOOST_AUTO_TEST_CASE(fetches_run_one_after_another_on_the_fetch_worker) {
    Bench b;
    b.fetch(0, "f0", 65536);
    b.fetch(0, "f1", 65536);
    sc_core::sc_start();
    // f0 0..35 ns. f1 starts when the worker is free, at 35: link (free
    // since 32) at 35, TCM read port (free since 8) at 35 -> 37, drain 32 ->
    // 69, + 1 = 70 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("f0"), ns(35));
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("f1"), ns(70));
    BOOST_CHECK_EQUAL(b.unit.workers()[0]->busy().value(), ns(70));
    BOOST_CHECK_EQUAL(b.unit.workers()[0]->stages_done(), 2u);
}

BOOST_AUTO_TEST_CASE(sub_fetch_makes_no_progress_while_main_shares_its_bank) {
    Bench b;
    // A sub-context fetch with a bank run (seed 002), and a store without.
    b.fetch(0, "sub_fetch", 65536).bank_runs = {{0, 5}};
    b.store(0, "plain_store", 32768);
    // A main command shares the fetch's bank from 10 to 50 ns.
    test::Script main_cmd("main_cmd", [&] {
        test::wait_until(ns(10));
        b.banks.set_stalled(true);
        test::wait_until(ns(50));
        b.banks.set_stalled(false);
    });
    sc_core::sc_start();
    // The fetch's 35 ns stop for the 40 ns of overlap: 35 + 40 = 75 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("sub_fetch"), ns(75));
    // A transfer without bank runs never stalls: 19 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("plain_store"), ns(19));
}

BOOST_AUTO_TEST_CASE(main_context_fetch_is_never_stalled) {
    Bench b;
    Command main_fetch = test::make_command("main_fetch", CommandKind::fetch);
    main_fetch.context = ExecContext::main;
    b.scheduler.command(0, main_fetch, {test::stage(StageType::fetch, 65536)}).bank_runs = {{0, 5}};
    test::Script main_cmd("main_cmd", [&] { b.banks.set_stalled(true); });
    sc_core::sc_start();
    // Only sub starves (seed 002): a main-context fetch takes its 35 ns.
    BOOST_CHECK_EQUAL(b.scheduler.completed_at("main_fetch"), ns(35));
}
