// sc_spawn needs the dynamic-process API, asked for before any SystemC header.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "modules/system/io_cpu.h"

#include <algorithm>

namespace npuvp {

IoCpu::IoCpu(const sc_core::sc_module_name& name, const IoCpuConfig& config,
             const MCpuConfig& m_cpu, const SystemConfig& system, int sip, TraceSink& trace,
             RunStatus& status)
    : RoutedNode(name),
      config(config),
      m_m_cpu(m_cpu),
      m_system(system),
      m_sip(sip),
      m_trace(trace),
      m_status(status),
      m_processor(sc_core::sc_time::from_value(ns_to_ps(config.overhead_ns, "io_cpu.attrs.overhead_ns"))) {
    SC_HAS_PROCESS(IoCpu);
    SC_THREAD(start_requests);
    SC_THREAD(worker);
}

void IoCpu::host(const WorkloadConfig& workload) {
    m_workload = &workload;
    for (const HostRequest& r : workload.host) m_requests.emplace_back().request = &r;
    for (RequestRecord& record : m_requests) {
        const HostRequest& r = *record.request;
        std::vector<std::uint32_t> before;
        if (r.explicit_after) before.assign(r.after.begin(), r.after.end());
        else if (r.index > 0) before.push_back(static_cast<std::uint32_t>(r.index - 1));
        std::sort(before.begin(), before.end());
        before.erase(std::unique(before.begin(), before.end()), before.end());
        if (r.device_after) {
            // Sent at once; each target cube's M_CPU holds it until these
            // are done there, told by the M_CPUs of their other cubes.
            for (const std::uint32_t b : before) {
                RequestRecord& dep = m_requests.at(b);
                record.device_after.push_back({b, static_cast<std::uint32_t>(dep.request->cubes.size())});
                for (const CubeRef& c : r.cubes)
                    if (std::none_of(dep.notify.begin(), dep.notify.end(),
                                     [&](const CubeRef& n) { return n.sip == c.sip && n.cube == c.cube; }))
                        dep.notify.push_back(c);
            }
            continue;
        }
        for (const std::uint32_t b : before) m_requests.at(b).dependants.push_back(static_cast<std::uint32_t>(r.index));
        record.pending = static_cast<std::uint32_t>(before.size());
    }
}

bool IoCpu::all_done() const {
    return std::all_of(m_requests.begin(), m_requests.end(),
                       [](const RequestRecord& r) { return r.done; });
}

void IoCpu::serve(tlm::tlm_generic_payload& payload, NpuExtension& ext, sc_core::sc_time& delay) {
    if (ext.kind != MsgKind::response) {
        payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    m_inbox.push(static_cast<const CubeResponseMsg*>(ext.body), delay, ext.sender);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void IoCpu::transit(NpuExtension&, sc_core::sc_time& delay) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    delay = m_processor.reserve(now + delay) - now;
}

void IoCpu::start_requests() {
    // Each request is a process of its own, started when its dependencies
    // are done (spawn_request), so independent requests run concurrently and
    // only the requests in flight hold a thread and its stack (one each for
    // every request up front ran out of stacks at ~50,000 requests, E518);
    // a thread whose request ended runs the next one (m_processes).
    // Launches resolved on the device are all sent at once, in list order,
    // by one process (tens of thousands of them: a process each would hold
    // a stack each until its turn at the processor).
    bool device = false;
    for (RequestRecord& record : m_requests) {
        if (record.request->device_after) device = true;
        else if (record.pending == 0) m_processes.start([this, &record] { run_request(record); });
    }
    if (device)
        sc_core::sc_spawn([this] {
            for (RequestRecord& record : m_requests)
                if (record.request->device_after) run_request(record);
        });
}

// The request's last dependency completed: its process starts in the next
// delta cycle, as a process waiting for that completion's notification would.
void IoCpu::spawn_request(RequestRecord& record) {
    m_processes.start_next_delta([this, &record] { run_request(record); });
}

void IoCpu::run_request(RequestRecord& record) {
    const HostRequest& r = *record.request;
    record.started = true;
    record.issued = sc_core::sc_time_stamp();
    // SPEC T4: requests issued at one instant book the processor in list order.
    m_processor.wait_in_turn(control_key(r.index, 0, 0, request_rank()), record.issued);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    m_trace.emit(trace::request_start(now.value(), node_id_ref(), static_cast<std::int64_t>(r.index),
                                      to_string(r.kind), r.bytes ? static_cast<std::int64_t>(r.bytes) : -1,
                                      r.id));

    const Kernel* kernel = r.kind == HostRequestKind::kernel_launch ? &m_workload->kernels.at(r.kernel)
                                                                    : nullptr;
    auto add_part = [&](int sip, int cube, std::uint64_t pa, std::uint64_t bytes) {
        CubeRequestMsg& part = record.parts.emplace_back();
        part.request = &r;
        part.kernel = kernel;
        part.sip = sip;
        part.cube = cube;
        part.pa = pa;
        part.bytes = bytes;
        part.reply_to = this;
        part.parent = &record.result;
        if (r.device_after) part.device_after = &record.device_after;
        if (!record.notify.empty()) part.notify = &record.notify;
    };
    if (r.kind == HostRequestKind::memory_read || r.kind == HostRequestKind::memory_write) {
        // Split the range at cube boundaries: one M_CPU per cube it touches.
        const std::uint64_t cube_bytes = m_fabric->hbm_slice_bytes() * m_fabric->pes_per_cube();
        for (std::uint64_t pa = r.pa, end = r.pa + r.bytes; pa < end;) {
            const std::uint64_t global = pa / cube_bytes;
            const std::uint64_t part_end = std::min(end, (global + 1) * cube_bytes);
            add_part(static_cast<int>(global / m_system.cubes_per_sip),
                     static_cast<int>(global % m_system.cubes_per_sip), pa, part_end - pa);
            pa = part_end;
        }
    } else {
        for (const CubeRef& c : r.cubes) add_part(c.sip, c.cube, r.pa, r.bytes);
    }

    if (r.kind == HostRequestKind::kernel_launch) {
        // ADR-0036 D3: IO_CPU stamps the cross-cube barrier unless given.
        std::uint64_t start = 0;
        if (r.target_start_ns) {
            start = ns_to_ps(*r.target_start_ns, "a host request's target_start_ns");
        } else if (r.device_after) {
            // Held on the device: each M_CPU stamps its cube's barrier when
            // it releases the launch (MCpu::kernel_launch_fanout).
        } else {
            ps_t leg = 0;
            for (const CubeRequestMsg& part : record.parts) {
                RoutedNode& m_cpu = m_fabric->node(NodeRole::m_cpu, part.sip, part.cube, 0);
                const ps_t to_m_cpu = m_fabric->route(*this, m_cpu).latency_ps + ns_to_ps(m_m_cpu.overhead_ns, "m_cpu.attrs.overhead_ns");
                for (int pe : r.target_pe)
                    leg = std::max(leg, to_m_cpu + m_fabric->route(m_cpu, m_fabric->node(NodeRole::pe_cpu, part.sip, part.cube, pe)).latency_ps);
            }
            start = now.value() + leg;
        }
        record.target_start_ps = start;
        for (CubeRequestMsg& part : record.parts) {
            part.has_start = r.target_start_ns || !r.device_after;
            part.target_start_ps = start;
        }
    }

    static const MsgKind kinds[] = {MsgKind::dma_write, MsgKind::dma_read, MsgKind::mmu_map,
                                    MsgKind::mmu_unmap, MsgKind::kernel_launch};
    record.expected = static_cast<int>(record.parts.size());
    Transaction& txn = record.txn;
    std::uint64_t part_index = 0;
    for (CubeRequestMsg& part : record.parts) {
        RoutedNode& m_cpu = m_fabric->node(NodeRole::m_cpu, part.sip, part.cube, 0);
        txn.ext().body = &part;
        txn.ext().request_id = r.index;
        // The message to M_CPU is a command (n = 0); the data of a memory
        // request moves between M_CPU and HBM (seed 001 D5).
        txn.prepare(kinds[static_cast<int>(r.kind)], m_fabric->route(*this, m_cpu), 0, 0);
        transport_in_turn(txn, control_key(r.index, ++part_index, 1));
    }
    // Sent: the worker completes it. (A host-resolved request's process
    // stays until then.)
    if (r.device_after) return;
    while (!record.done) sc_core::wait(record.changed.get());
}

void IoCpu::worker() {
    for (;;) {
        const CubeResponseMsg& response = *m_inbox.pop();
        m_processor.wait_in_turn(control_key(m_worker_turns++, 0, 2, request_rank()),
                                 sc_core::sc_time_stamp());
        RequestRecord& record = m_requests.at(response.request->request->index);
        record.success = record.success && response.success;
        if (!response.missing.empty())
            record.missing += (record.missing.empty() ? "" : ", ") + response.missing;
        if (++record.received < record.expected) continue;
        record.done = true;
        record.completed = sc_core::sc_time_stamp();
        // Held on the device: its barrier is what its M_CPUs stamped.
        if (record.request->device_after && !record.request->target_start_ns)
            record.target_start_ps = record.result.start_ps;
        m_trace.emit(trace::request_complete(record.completed.value(), node_id_ref(),
                                             static_cast<std::int64_t>(record.request->index),
                                             to_string(record.request->kind), !record.success,
                                             record.request->id));
        record.changed.notify(sc_core::SC_ZERO_TIME);
        for (const std::uint32_t d : record.dependants)
            if (--m_requests[d].pending == 0) spawn_request(m_requests[d]);
    }
}

}  // namespace npuvp
