// PE_CPU (seed 000 §D1; SPEC §3 T3, §5): runs the PE's kernel program. It
// issues each command to PE_SCHEDULER over the cpu -> scheduler link, adding
// overhead_ns per command, and never touches an engine queue. It does not
// wait for a command to complete unless the program says so (`wait: true` on
// the command, or a `wait` command); the program ends when every command it
// issued has completed.
#pragma once

#include "modules/common/config.h"
#include "modules/common/trace.h"
#include "modules/pe/command.h"
#include "modules/pe/pe_routes.h"
#include "tlm_sockets/npu_extension.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeScheduler;

class PeCpu : public RoutedNode {
public:
    // Parameters
    const PeCpuConfig& config;

    PeCpu(const sc_core::sc_module_name& name, const PeCpuConfig& config, TraceSink& trace);
    const char* kind() const override { return "pe_cpu"; }

    void attach(PeRoutes& routes, PeScheduler& scheduler);
    // Elaboration: the program this PE runs from t = 0.
    void launch(const Kernel& kernel);

    const Kernel* kernel() const { return m_kernel; }
    bool finished() const { return m_finished; }
    sc_core::sc_time finish_time() const { return m_finish; }
    // Index of the command the program is at (for a diagnosis of a stuck run).
    std::uint32_t position() const { return m_position; }

private:
    void run();
    void wait_complete(std::uint32_t index);

    TraceSink& m_trace;
    PeRoutes* m_routes = nullptr;
    PeScheduler* m_scheduler = nullptr;
    const Kernel* m_kernel = nullptr;
    Transaction m_txn;
    bool m_finished = false;
    sc_core::sc_time m_finish;
    std::uint32_t m_position = 0;
};

}  // namespace npuvp
