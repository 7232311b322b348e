// PE_CPU (seed 000 §D1; seed 001 D6; SPEC §3 T3, §5): runs the PE's kernel
// programs, one after another. A kernel comes either from a direct launch
// (workload `launch:`, at t = 0) or from M_CPU (KernelLaunch, n = 0), which
// names the instant to start: target_start_ns, the cross-PE barrier. PE_CPU
// issues each command to PE_SCHEDULER over the cpu -> scheduler link, adding
// overhead_ns per command, and never touches an engine queue. It does not
// wait for a command to complete unless the program says so (`wait: true`,
// or a `wait` command); a kernel ends when every command it issued has
// completed. A launched kernel is answered with a response to M_CPU carrying
// pe_exec_ns (start to end), dma_ns and compute_ns (engine busy time during
// the kernel).
#pragma once

#include <deque>
#include <vector>

#include "modules/common/config.h"
#include "modules/common/timed_inbox.h"
#include "modules/common/trace.h"
#include "modules/pe/command.h"
#include "modules/pe/pe_routes.h"
#include "modules/pe/pe_scheduler.h"
#include "modules/pe/stage_worker.h"
#include "modules/system/messages.h"
#include "tlm_sockets/npu_extension.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeCpu : public RoutedNode {
public:
    // Parameters
    const PeCpuConfig& config;

    // Ports
    sc_core::sc_port<PeRoutes> routes;                // to the scheduler, the reply to M_CPU
    sc_core::sc_port<CommandCompletion> scheduler;    // where its commands complete
    // The engines whose busy time a response reports: dma_ns and compute_ns.
    sc_core::sc_port<BusyTime> dma;
    sc_core::sc_port<BusyTime, 0> compute;            // PE_GEMM, PE_MATH

    struct KernelRun {
        const Kernel* kernel;
        sc_core::sc_time launched;  // when the launch arrived (direct: 0)
        sc_core::sc_time start;     // when the program started (>= target start)
        sc_core::sc_time finish;
        bool done;
        DmaTimeSplit dma = {};  // its DMA busy time in parts (the PE's DMA, start to finish)
        std::uint64_t compute_ps = 0;  // PE_GEMM and PE_MATH busy time, start to finish
        // Its segments: segments()[first_segment, first_segment + segments);
        // none when it has no `wait: all` before its last command (then it
        // is one part, the run itself).
        std::uint32_t first_segment = 0, segments = 0;
    };
    // A kernel in parts, each ending at a `wait: all` (every command before
    // it complete) or at the kernel's last command: what a compiled
    // kernel's layers took on this PE (report/layer_table). Kept for every
    // kernel run, one after the other; its DMA time by hop is
    // segment_hops()[first_hop, first_hop + hops) (one list for all, so a
    // segment allocates nothing once the lists have grown).
    struct Segment {
        std::uint32_t end = 0;     // commands [previous end, end) are in it
        std::uint64_t end_ps = 0;  // when they were all complete
        std::uint64_t startup_ps = 0, transfer_ps = 0, wait_ps = 0;  // the DMA's, as DmaTimeSplit
        std::uint64_t compute_ps = 0;
        std::uint32_t first_hop = 0, hops = 0;
    };
    const std::vector<Segment>& segments() const { return m_segments; }
    const std::vector<DmaTimeSplit::PerHop>& segment_hops() const { return m_segment_hops; }

    PeCpu(const sc_core::sc_module_name& name, const PeCpuConfig& config, TraceSink& trace);
    const char* kind() const override { return "pe_cpu"; }

    // Elaboration: a kernel this PE runs from t = 0 (before any host launch).
    void launch(const Kernel& kernel);

    // The kernel running or run last; nullptr if none yet.
    const Kernel* kernel() const { return m_runs.empty() ? nullptr : m_runs.back().kernel; }
    const std::vector<KernelRun>& runs() const { return m_runs; }
    bool busy() const { return !m_runs.empty() && !m_runs.back().done; }
    // Every kernel launched directly has run and none is running.
    bool finished() const { return (m_direct_done || m_direct.empty()) && !busy(); }
    sc_core::sc_time finish_time() const { return m_runs.empty() ? sc_core::SC_ZERO_TIME : m_runs.back().finish; }
    // Index of the command the program is at (for a diagnosis of a stuck run).
    std::uint32_t position() const { return m_position; }

protected:
    void serve(tlm::tlm_generic_payload& payload, NpuExtension& ext,
               sc_core::sc_time& delay) override;

    void start_of_simulation() override;

private:
    // Makes the thread (run()): at once, or at `first_arrival`.
    void spawn_run(const sc_core::sc_event* first_arrival);
    void run();
    void run_kernel(const Kernel& kernel);
    void wait_complete(std::uint32_t index);
    void run_program(const Kernel& kernel);
    // Closes the kernel's segment at command `end` (KernelRun::segments).
    void end_segment(std::uint32_t end);
    DmaTimeSplit m_dma_before;  // run_kernel()'s snapshot of the DMA's split
    // end_segment()'s, at the segment's start (the DMA's from the second
    // segment of a run on; the first starts from m_dma_before)
    DmaTimeSplit m_segment_dma;
    sc_core::sc_time m_segment_compute;
    std::vector<Segment> m_segments;
    std::vector<DmaTimeSplit::PerHop> m_segment_hops;
    sc_core::sc_time dma_busy() const;
    sc_core::sc_time compute_busy() const;

    TraceSink& m_trace;
    std::vector<const Kernel*> m_direct;
    bool m_direct_done = false;
    bool m_spawned = false;  // run()'s thread is made
    TimedInbox<const LaunchMsg*> m_launches;
    std::vector<KernelRun> m_runs;
    Transaction m_txn;
    PeResponseMsg m_response;
    std::uint32_t m_position = 0;
};

}  // namespace npuvp
