// Bench of PE_MMU alone (SPEC §5; seed 000 §D1 "VA->PA per access"; seed 001
// D7: MmuMap / MmuUnmap from M_CPU, applied when they arrive, no answer).
// A stub initiator plays M_CPU over a 25 ns link; a bench script probes the
// page table at chosen times. Pages: 4096 B.
#include <boost/test/unit_test.hpp>

#include <stdexcept>

#include "modules/pe/pe_mmu.h"
#include "modules/system/messages.h"
#include "testbench/harness/report_guard.h"
#include "testbench/harness/stub_nodes.h"

using namespace npuvp;
using test::ns;

namespace {

PeMmuConfig mmu_config() {
    PeMmuConfig c;
    c.impl = "builtin.pe_mmu";
    c.page_bytes = 4096;
    c.translate_ns = 5.0;
    return c;
}

}  // namespace

BOOST_AUTO_TEST_CASE(map_translate_unmap_whole_pages) {
    const PeMmuConfig config = mmu_config();
    PeMmu mmu("pe_mmu", config);
    // Two pages: VA 0x10000..0x11fff -> PA 0x80000..0x81fff.
    mmu.map(0x10000, 0x80000, 8192);
    BOOST_CHECK_EQUAL(mmu.mapped_pages(), 2u);
    BOOST_CHECK_EQUAL(mmu.translate(0x10005).value_or(0), 0x80005u);  // offset kept
    BOOST_CHECK_EQUAL(mmu.translate(0x11fff).value_or(0), 0x81fffu);  // last byte of page 2
    BOOST_CHECK(!mmu.translate(0x12000));                              // one past: a fault
    BOOST_CHECK(!mmu.translate(0x0ffff));                              // one before
    // Unmapping the first page leaves the second.
    mmu.unmap(0x10000, 4096);
    BOOST_CHECK(!mmu.translate(0x10000));
    BOOST_CHECK_EQUAL(mmu.translate(0x11000).value_or(0), 0x81000u);
    sc_core::sc_start();
}

BOOST_AUTO_TEST_CASE(misaligned_map_is_rejected_and_maps_nothing) {
    const PeMmuConfig config = mmu_config();
    PeMmu mmu("pe_mmu", config);
    BOOST_CHECK_THROW(mmu.map(0x10001, 0x80000, 4096), std::invalid_argument);  // va
    BOOST_CHECK_THROW(mmu.map(0x10000, 0x80800, 4096), std::invalid_argument);  // pa
    BOOST_CHECK_THROW(mmu.map(0x10000, 0x80000, 100), std::invalid_argument);   // bytes
    BOOST_CHECK_THROW(mmu.map(0x10000, 0x80000, 0), std::invalid_argument);     // empty
    BOOST_CHECK_EQUAL(mmu.mapped_pages(), 0u);
    sc_core::sc_start();
}

BOOST_AUTO_TEST_CASE(map_and_unmap_messages_apply_at_their_arrival) {
    const PeMmuConfig config = mmu_config();
    PeMmu mmu("pe_mmu", config);
    test::StubInitiator m_cpu("m_cpu");
    test::Wires wires;
    Hop& link = wires.hop("m_cpu->pe_mmu", 25.0);
    const Route& route = wires.route({&m_cpu, &mmu}, {{&link, 0}});
    const MmuMsg map{true, 0x10000, 0x80000, 8192};
    const MmuMsg unmap{false, 0x10000, 0, 4096};
    // Sent at 0 and 100 ns; each arrives 25 ns later (n = 0: latency only).
    m_cpu.jobs.push_back({0, &route, MsgKind::mmu_map, 0, 0, &map});
    m_cpu.jobs.push_back({ns(100), &route, MsgKind::mmu_unmap, 0, 0, &unmap});
    std::vector<bool> mapped;  // page 0x10000 mapped at each probe
    std::vector<bool> second;  // page 0x11000
    test::Script probe("probe", [&] {
        for (ps_t t : {ps_t{24999}, ps_t{25001}, ps_t{124999}, ps_t{125001}}) {
            test::wait_until(t);
            mapped.push_back(mmu.translate(0x10000).has_value());
            second.push_back(mmu.translate(0x11000).has_value());
        }
    });
    sc_core::sc_start();
    BOOST_REQUIRE_EQUAL(m_cpu.done.size(), 2u);
    BOOST_CHECK_EQUAL(m_cpu.done[0].done_ps, ns(25));  // 0 + 25 ns link
    BOOST_CHECK_EQUAL(m_cpu.done[1].done_ps, ns(125)); // 100 + 25
    // 1 ps before the map arrives: unmapped; 1 ps after: both pages mapped.
    // 1 ps before the unmap arrives: still mapped; after: only page 2 left.
    BOOST_CHECK(mapped == (std::vector<bool>{false, true, true, false}));
    BOOST_CHECK(second == (std::vector<bool>{false, true, true, true}));
}

BOOST_AUTO_TEST_CASE(message_of_another_kind_is_a_command_error) {
    const PeMmuConfig config = mmu_config();
    PeMmu mmu("pe_mmu", config);
    test::StubInitiator m_cpu("m_cpu");
    test::Wires wires;
    Hop& link = wires.hop("m_cpu->pe_mmu", 25.0);
    const Route& route = wires.route({&m_cpu, &mmu}, {{&link, 0}});
    const MmuMsg map{true, 0x10000, 0x80000, 4096};
    // PE_MMU takes only MmuMap / MmuUnmap: a kernel launch is answered with
    // TLM_COMMAND_ERROR_RESPONSE, which makes the sender's transport() throw.
    m_cpu.jobs.push_back({0, &route, MsgKind::kernel_launch, 0, 0, &map});
    sc_core::sc_start();
    BOOST_REQUIRE_EQUAL(m_cpu.done.size(), 1u);
    BOOST_CHECK_NE(m_cpu.done[0].error.find("failed"), std::string::npos);
    BOOST_CHECK_EQUAL(mmu.mapped_pages(), 0u);
}
