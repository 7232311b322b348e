#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "platform/probe.h"

namespace npuvp {

Probe::Probe(const sc_core::sc_module_name& name, Platform& platform, std::uint64_t bytes,
             TraceSink& trace)
    : sc_core::sc_module(name), m_bytes(bytes), m_trace(trace) {
    SC_HAS_PROCESS(Probe);
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& c : sip.cubes) {
            CubeNodes& cube = platform.cube(c.sip, c.cube);
            for (Pe* pe : cube.pes) {
                m_legs.push_back({pe, cube.m_cpu, &platform.route(*cube.m_cpu, pe->cpu()),
                                  &platform.dma_route(*pe, DmaDirection::read, 0, *cube.hbm[pe->index()]),
                                  &platform.dma_route(*pe, DmaDirection::read, 0, *cube.shared_sram),
                                  cube.hbm[pe->index()]->base(), cube.shared_sram->base()});
                m_results.push_back({pe->name()});
            }
        }
    SC_THREAD(run);
}

void Probe::run() {
    // 1. Control messages reserve nothing (T1), so one initiator thread can
    //    send them all at t = 0 and read each arrival off the delay.
    Transaction txn;
    for (std::size_t i = 0; i < m_legs.size(); ++i) {
        const Leg& leg = m_legs[i];
        txn.ext().command_id = i;
        txn.prepare(MsgKind::control, *leg.control, 0, 0);
        const sc_core::sc_time arrival = sc_core::sc_time_stamp() + leg.m_cpu->transport(txn);
        m_results[i].control_ps = arrival.value();
        m_trace.emit(trace::control_delivered(arrival.value(), leg.pe->cpu().node_id_ref(),
                                              static_cast<std::int64_t>(i), leg.m_cpu->node_id_ref()));
    }
    // 2 and 3, one after the other; a delta between them, in which the
    // kernel frees the first batch's threads and their stacks (a thread's
    // stack is a memory mapping of its own, two with its guard page, and
    // Linux allows 65,530 a process: two batches of 16,384 do not fit).
    read_all(false);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    read_all(true);
    m_makespan_ps = sc_core::sc_time_stamp().value();
    m_finished = true;
}

void Probe::read_all(bool from_sram) {
    // One process per PE, all started in this delta, in PE order.
    std::vector<sc_core::sc_process_handle> handles;
    for (std::size_t i = 0; i < m_legs.size(); ++i) {
        handles.push_back(sc_core::sc_spawn([this, i, from_sram] {
            const Leg& leg = m_legs[i];
            const std::uint64_t start = sc_core::sc_time_stamp().value();
            const sc_core::sc_time done =
                leg.pe->dma().transfer(DmaDirection::read, 0, from_sram ? *leg.sram : *leg.hbm,
                                      from_sram ? leg.sram_pa : leg.hbm_pa, m_bytes,
                                 static_cast<std::int64_t>(i + (from_sram ? 2 : 1) * 1000));
            auto& r = m_results[i];
            (from_sram ? r.sram_start_ps : r.hbm_start_ps) = start;
            (from_sram ? r.sram_done_ps : r.hbm_done_ps) = done.value();
        }));
    }
    for (auto& h : handles)
        if (!h.terminated()) sc_core::wait(h.terminated_event());
}

}  // namespace npuvp
