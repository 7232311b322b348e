// The platform probe: the main job `npuvp` runs on a topology until kernel
// workloads exist. It measures what an architect checks first on a new
// machine description, with the real modules and the T1 timing contract:
//  1. control latency: each cube's M_CPU sends a control message (n = 0) to
//     every PE_CPU; arrival time = the route's latency;
//  2. local HBM bandwidth: every PE's DMA_READ channel reads `bytes` from its
//     own HBM slice, all PEs at once (no shared hop: each gets its own);
//  3. shared-target contention: every PE reads `bytes` from its cube's shared
//     SRAM at once; the SRAM port and the mesh links near it are shared, so
//     later transfers queue behind earlier ones (T1 busy-until).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "platform/platform.h"

namespace npuvp {

struct ProbeResult {
    std::string pe;        // node id of the PE (sip0.cube0.pe3)
    std::uint64_t control_ps = 0;   // phase 1 arrival
    std::uint64_t hbm_start_ps = 0, hbm_done_ps = 0;
    std::uint64_t sram_start_ps = 0, sram_done_ps = 0;
};

class Probe : public sc_core::sc_module {
public:
    Probe(const sc_core::sc_module_name& name, Platform& platform, std::uint64_t bytes,
          TraceSink& trace);

    const std::vector<ProbeResult>& results() const { return m_results; }
    std::uint64_t bytes() const { return m_bytes; }
    bool finished() const { return m_finished; }
    std::uint64_t makespan_ps() const { return m_makespan_ps; }

private:
    void run();
    void read_all(bool from_sram);

    std::uint64_t m_bytes;
    TraceSink& m_trace;
    std::vector<ProbeResult> m_results;
    struct Leg {
        Pe* pe;
        MCpu* m_cpu;
        const Route* control;  // M_CPU -> PE_CPU
        const Route* hbm;      // DMA_READ channel 0 from the PE's own HBM slice
        const Route* sram;     // DMA_READ channel 0 from the cube's shared SRAM
        std::uint64_t hbm_pa;  // first address of each target
        std::uint64_t sram_pa;
    };
    std::vector<Leg> m_legs;  // routes computed at elaboration, in PE order
    bool m_finished = false;
    std::uint64_t m_makespan_ps = 0;
};

}  // namespace npuvp
