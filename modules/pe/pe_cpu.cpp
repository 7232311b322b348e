// sc_spawn needs the dynamic-process API, asked for before any SystemC header.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "modules/pe/pe_cpu.h"


namespace npuvp {

PeCpu::PeCpu(const sc_core::sc_module_name& name, const PeCpuConfig& config, TraceSink& trace)
    : RoutedNode(name),
      config(config),
      routes("routes"),
      scheduler("scheduler"),
      dma("dma"),
      compute("compute"),
      m_trace(trace) {}

void PeCpu::launch(const Kernel& kernel) { m_direct.push_back(&kernel); }

// The thread is made only for a PE that runs a kernel: a thread's stack is a
// memory mapping of its own (two with its guard page), Linux allows 65,530
// a process (issue 38), and the probe, or a host launch on a few PEs of a
// large machine, leaves most PE_CPUs idle. A PE launched directly gets it
// before the simulation starts (it runs at t = 0, as it always did); a PE
// the host launches gets it with the first launch, and it starts when that
// launch arrives: where the thread, waiting for its inbox, would have woken.
void PeCpu::start_of_simulation() {
    if (!m_direct.empty()) spawn_run(nullptr);
}

void PeCpu::spawn_run(const sc_core::sc_event* first_arrival) {
    m_spawned = true;
    sc_core::sc_spawn_options options;
    if (first_arrival != nullptr) {
        options.set_sensitivity(first_arrival);
        options.dont_initialize();
    }
    // Named under this module (`<pe>.pe_cpu.run`), whichever process sent
    // the launch.
    sc_core::sc_simcontext& kernel = *sc_core::sc_get_curr_simcontext();
    kernel.hierarchy_push(this);
    sc_core::sc_spawn([this] { run(); }, "run", &options);
    kernel.hierarchy_pop();
}

void PeCpu::serve(tlm::tlm_generic_payload& payload, NpuExtension& ext, sc_core::sc_time& delay) {
    // A launch starts a program; a plain control message (a ping) is accepted.
    if (ext.kind == MsgKind::kernel_launch) {
        m_launches.push(static_cast<const LaunchMsg*>(ext.body), delay);
        if (!m_spawned) spawn_run(&m_launches.arrived_event());
    } else if (ext.kind != MsgKind::control) {
        payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void PeCpu::wait_complete(std::uint32_t index) {
    while (!scheduler->complete(index)) sc_core::wait(scheduler->completion_event());
}

sc_core::sc_time PeCpu::dma_busy() const { return dma->total_busy(); }

sc_core::sc_time PeCpu::compute_busy() const {
    sc_core::sc_time busy;
    for (int i = 0; i < compute.size(); ++i) busy += compute[i]->total_busy();
    return busy;
}

void PeCpu::run() {
    for (const Kernel* kernel : m_direct) {
        m_runs.push_back({kernel, sc_core::SC_ZERO_TIME, sc_core::sc_time_stamp(),
                          sc_core::SC_ZERO_TIME, false});
        run_kernel(*kernel);
    }
    m_direct_done = true;
    for (;;) {
        const LaunchMsg& launch = *m_launches.pop();
        const sc_core::sc_time arrived = sc_core::sc_time_stamp();
        // seed 001 D6: every PE of the launch starts at target_start_ns. A
        // launch that arrives later (M_CPU was busy) starts when it arrives.
        const sc_core::sc_time start = sc_core::sc_time::from_value(launch.start_ps);
        if (start > arrived) sc_core::wait(start - arrived);
        m_runs.push_back({launch.kernel, arrived, sc_core::sc_time_stamp(), sc_core::SC_ZERO_TIME,
                          false});
        const sc_core::sc_time dma0 = dma_busy();
        const sc_core::sc_time compute0 = compute_busy();
        run_kernel(*launch.kernel);
        const KernelRun& done = m_runs.back();
        m_response.fanout = launch.fanout;
        m_response.pe = launch.pe;
        m_response.result.pe_exec_ns = static_cast<double>((done.finish - done.start).value()) / 1000.0;
        m_response.result.dma_ns = static_cast<double>((dma_busy() - dma0).value()) / 1000.0;
        m_response.result.compute_ns = static_cast<double>((compute_busy() - compute0).value()) / 1000.0;
        m_txn.ext().body = &m_response;
        m_txn.prepare(MsgKind::response, routes->between(*this, *launch.reply_to), 0, 0);
        transport_in_turn(m_txn, control_key(launch.fanout, 0, 0));
    }
}

void PeCpu::run_kernel(const Kernel& kernel) {
    // Its DMA time in parts: what the PE's DMA adds while it runs. The
    // snapshot is a member, not a local: a thread stopped inside the kernel
    // (a fault, the end of the simulation) never unwinds its stack.
    const DmaTimeSplit* split = dma->time_split();
    if (split != nullptr) m_dma_before = *split;
    const sc_core::sc_time compute0 = compute_busy();
    m_segment_compute = compute0;
    run_program(kernel);
    if (split != nullptr) m_runs.back().dma = split->since(m_dma_before);
    m_runs.back().compute_ps = (compute_busy() - compute0).value();
}

void PeCpu::end_segment(std::uint32_t end) {
    Segment segment;
    segment.end = end;
    segment.end_ps = sc_core::sc_time_stamp().value();
    segment.first_hop = static_cast<std::uint32_t>(m_segment_hops.size());
    if (const DmaTimeSplit* split = dma->time_split()) {
        // What the DMA added since the segment began: the run's first
        // segment begins with the run (run_kernel()'s snapshot, not copied
        // again), a later one where the one before ended. The hops go into
        // the shared list; the snapshot is taken again in place.
        const DmaTimeSplit& before = m_runs.back().segments == 0 ? m_dma_before : m_segment_dma;
        segment.startup_ps = split->startup_ps - before.startup_ps;
        segment.transfer_ps = split->transfer_ps - before.transfer_ps;
        segment.wait_ps = split->wait_ps - before.wait_ps;
        split->hops_since(before, m_segment_hops);
        m_segment_dma = *split;
    }
    segment.hops = static_cast<std::uint32_t>(m_segment_hops.size()) - segment.first_hop;
    const sc_core::sc_time compute = compute_busy();
    segment.compute_ps = (compute - m_segment_compute).value();
    m_segment_compute = compute;
    m_segments.push_back(segment);
    ++m_runs.back().segments;
}

void PeCpu::run_program(const Kernel& kernel) {
    scheduler->prepare(kernel);
    m_runs.back().first_segment = static_cast<std::uint32_t>(m_segments.size());
    m_trace.emit(trace::kernel_start(sc_core::sc_time_stamp().value(), node_id_ref(), kernel.name));
    // Kernel start-up (pe_cpu kernel_start_ns): nothing issues before it.
    if (config.kernel_start_ns > 0.0) sc_core::wait(sc_core::sc_time::from_value(ns_to_ps(config.kernel_start_ns, "pe_cpu.attrs.kernel_start_ns")));
    const sc_core::sc_time overhead = sc_core::sc_time::from_value(ns_to_ps(config.overhead_ns, "pe_cpu.attrs.overhead_ns"));
    const Route& to_scheduler = routes->to_scheduler();
    std::uint32_t all_done = 0;  // every command before it is complete
    for (const Command& command : kernel.commands) {
        m_position = command.index;
        if (command.kind == CommandKind::wait) {
            if (command.wait_for.empty()) {
                // Commands before the last `wait: all` are complete already
                // (a compiled kernel has one a layer: not rescanned each time).
                for (std::uint32_t i = all_done; i < command.index; ++i)
                    if (kernel.commands[i].kind != CommandKind::wait) wait_complete(i);
                all_done = command.index;
                // A kernel whose only `wait: all` is its last command is
                // one segment, its run (KernelRun::segments stays 0).
                if (command.index + 1 < kernel.commands.size() || m_runs.back().segments > 0)
                    end_segment(command.index);
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
    m_position = static_cast<std::uint32_t>(kernel.commands.size());
    for (std::uint32_t i = all_done; i < kernel.commands.size(); ++i)
        if (kernel.commands[i].kind != CommandKind::wait) wait_complete(i);
    if (all_done < kernel.commands.size() && m_runs.back().segments > 0)
        end_segment(static_cast<std::uint32_t>(kernel.commands.size()));
    // Kernel end (pe_cpu kernel_end_ns): the completion phase after the
    // last command, before the kernel counts as done.
    if (config.kernel_end_ns > 0.0) sc_core::wait(sc_core::sc_time::from_value(ns_to_ps(config.kernel_end_ns, "pe_cpu.attrs.kernel_end_ns")));
    KernelRun& run = m_runs.back();
    run.finish = sc_core::sc_time_stamp();
    run.done = true;
    m_trace.emit(trace::kernel_complete(run.finish.value(), node_id_ref(), kernel.name));
}

}  // namespace npuvp
