#include "modules/pe/pe_cpu.h"

#include "modules/pe/pe_scheduler.h"

namespace npuvp {

PeCpu::PeCpu(const sc_core::sc_module_name& name, const PeCpuConfig& config, TraceSink& trace)
    : RoutedNode(name), config(config), m_trace(trace) {
    SC_HAS_PROCESS(PeCpu);
    SC_THREAD(run);
}

void PeCpu::attach(PeRoutes& routes, PeScheduler& scheduler) {
    m_routes = &routes;
    m_scheduler = &scheduler;
}

void PeCpu::launch(const Kernel& kernel) {
    m_kernel = &kernel;
    m_scheduler->prepare(kernel);
}

void PeCpu::wait_complete(std::uint32_t index) {
    while (!m_scheduler->complete(index)) sc_core::wait(m_scheduler->completion_event());
}

void PeCpu::run() {
    if (m_kernel == nullptr) return;
    const sc_core::sc_time overhead = sc_core::sc_time::from_value(ns_to_ps(config.overhead_ns));
    const Route& to_scheduler = m_routes->to_scheduler();
    for (const Command& command : m_kernel->commands) {
        m_position = command.index;
        if (command.kind == CommandKind::wait) {
            if (command.wait_for.empty()) {
                for (std::uint32_t i = 0; i < command.index; ++i)
                    if (m_kernel->commands[i].kind != CommandKind::wait) wait_complete(i);
            } else {
                for (std::uint32_t i : command.wait_for) wait_complete(i);
            }
            continue;
        }
        sc_core::wait(overhead);
        m_txn.ext().command_id = command.index;
        m_txn.ext().body = &command;
        m_txn.prepare(MsgKind::control, to_scheduler, 0, 0);
        transport(m_txn);  // arrives after the link delay; PE_CPU moves on
        if (command.wait) wait_complete(command.index);
    }
    m_position = static_cast<std::uint32_t>(m_kernel->commands.size());
    for (const Command& command : m_kernel->commands)
        if (command.kind != CommandKind::wait) wait_complete(command.index);
    m_finish = sc_core::sc_time_stamp();
    m_finished = true;
    m_trace.emit({m_finish.value(), "kernel_complete", &node_id_ref(), -1, -1, nullptr, nullptr, -1,
                  nullptr, &m_kernel->name});
}

}  // namespace npuvp
