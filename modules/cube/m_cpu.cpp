#include "modules/cube/m_cpu.h"

#include <algorithm>

namespace npuvp {

MCpu::MCpu(const sc_core::sc_module_name& name, const MCpuConfig& config, int sip, int cube,
           TraceSink& trace, RunStatus& status)
    : RoutedNode(name),
      config(config),
      m_sip(sip),
      m_cube(cube),
      m_trace(trace),
      m_status(status),
      m_processor(sc_core::sc_time::from_value(ns_to_ps(config.overhead_ns, "m_cpu.attrs.overhead_ns"))),
      m_dma_read("dma_read", 1),
      m_dma_write("dma_write", 1) {
    SC_HAS_PROCESS(MCpu);
    SC_THREAD(worker);
}

std::string MCpu::pe_id(int pe) const {
    return "sip" + std::to_string(m_sip) + ".cube" + std::to_string(m_cube) + ".pe" +
           std::to_string(pe);
}

void MCpu::serve(tlm::tlm_generic_payload& payload, NpuExtension& ext, sc_core::sc_time& delay) {
    m_inbox.push({ext.kind, ext.body}, delay, ext.sender);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

// seed 001 D4: transit traffic is forwarded unchanged, one transaction at a
// time, overhead_ns each.
void MCpu::transit(NpuExtension&, sc_core::sc_time& delay) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    delay = m_processor.reserve(now + delay) - now;
}

void MCpu::worker() {
    for (;;) {
        const Item item = m_inbox.pop();
        m_processor.wait_in_turn(control_key(m_worker_turns++, 0, 0, request_rank()),
                                 sc_core::sc_time_stamp());
        if (item.kind == MsgKind::response) {
            collect_response(*static_cast<const PeResponseMsg*>(item.body));
            continue;
        }
        if (item.kind == MsgKind::control) {
            // Another cube's part of a request is done (resolve_after: device).
            part_done(static_cast<const DoneMsg*>(item.body)->request);
            continue;
        }
        const auto& msg = *static_cast<const CubeRequestMsg*>(item.body);
        // seed 001 D2: dispatch by request type, each fan-out its own process.
        switch (msg.request->kind) {
        case HostRequestKind::kernel_launch:
            // A device-resolved launch whose inputs are not all done waits
            // without a process (tens of thousands may be held at once);
            // part_done() starts it.
            if (msg.device_after && held(msg)) break;
            m_fanout_processes.start([this, &msg] { kernel_launch_fanout(msg); });
            break;
        case HostRequestKind::mmu_map:
        case HostRequestKind::mmu_unmap:
            m_fanout_processes.start([this, &msg] { mmu_msg_fanout(msg); });
            break;
        case HostRequestKind::memory_read:
        case HostRequestKind::memory_write:
            m_fanout_processes.start([this, &msg] { dma_fanout(msg); });
            break;
        }
    }
}

void MCpu::kernel_launch_fanout(const CubeRequestMsg& msg) {
    const std::vector<int>& pes = msg.request->target_pe;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    // seed 001 D6.3: pass target_start_ns through unchanged, else stamp a
    // per-cube barrier now + max(per-PE leg latency).
    std::uint64_t start_ps = msg.target_start_ps;
    if (!msg.has_start) {
        ps_t leg = 0;
        for (int pe : pes)
            leg = std::max(leg, m_fabric->route(*this, m_fabric->node(NodeRole::pe_cpu, m_sip, m_cube, pe)).latency_ps);
        start_ps = now.value() + leg;
    }
    const std::uint64_t id = m_next_fanout++;
    Pending& pending = *(m_pending[id] = std::make_unique<Pending>());
    pending.expected = static_cast<int>(pes.size());
    pending.answered.assign(pes.size(), 0);
    pending.pes = pes;
    m_trace.emit(trace::fanout_start(now.value(), node_id_ref(), static_cast<std::int64_t>(id),
                                     "kernel_launch", -1, msg.request->id));
    Transaction& txn = m_txns.emplace_back();  // outlives a process stuck or stopped mid-way
    for (int pe : pes) {
        m_launches.push_back({msg.kernel, start_ps, this, id, pe});
        RoutedNode& cpu = m_fabric->node(NodeRole::pe_cpu, m_sip, m_cube, pe);
        txn.ext().body = &m_launches.back();
        txn.prepare(MsgKind::kernel_launch, m_fabric->route(*this, cpu), 0, 0);  // n = 0 (D6.4)
        transport_in_turn(txn, control_key(id, static_cast<std::uint64_t>(pe) + 1, 1));
    }
    if (pending.received < pending.expected) {
        if (config.response_timeout_ns)
            sc_core::wait(sc_core::sc_time::from_value(ns_to_ps(*config.response_timeout_ns, "m_cpu.attrs.response_timeout_ns")),
                          pending.all_done);
        else
            sc_core::wait(pending.all_done);
    }
    const bool success = pending.received == pending.expected;
    std::string missing;
    for (std::size_t i = 0; i < pes.size(); ++i)
        if (!pending.answered[i]) missing += (missing.empty() ? "" : ", ") + pe_id(pes[i]);
    // seed 001 D6.5: merge with max against what the parent already holds,
    // since every cube of one request shares the parent.
    ResultData& parent = *msg.parent;
    parent.pe_exec_ns = std::max(parent.pe_exec_ns, pending.merged.pe_exec_ns);
    parent.dma_ns = std::max(parent.dma_ns, pending.merged.dma_ns);
    parent.compute_ns = std::max(parent.compute_ns, pending.merged.compute_ns);
    parent.start_ps = std::max(parent.start_ps, start_ps);
    m_pending.erase(id);
    // Device-resolved launches wait for this one (IO_CPU lists their cubes
    // in `notify`, this one's too if one waits here): count the part, and
    // tell the other cubes, before the response leaves for the host.
    if (msg.notify) {
        part_done(static_cast<std::uint32_t>(msg.request->index));
        tell_others(msg);
    }
    respond(msg, success, missing,
            {msg.request, now, sc_core::sc_time_stamp(), static_cast<int>(pes.size()), 0.0,
             start_ps, success});
}

// Whether `msg` must wait: it is then held, released by part_done().
bool MCpu::held(const CubeRequestMsg& msg) {
    Held* held = nullptr;
    for (const DeviceDep& d : *msg.device_after) {
        const auto done = m_parts_done.find(d.request);
        if (done != m_parts_done.end() && done->second >= d.cubes) continue;
        if (!held) held = &m_held.emplace_back(Held{&msg, 0});
        ++held->pending;
        m_waiting[d.request].push_back({held, d.cubes});
    }
    return held != nullptr;
}

// One more cube's part of `request` is done: the launches it completes
// start, in the order they arrived.
void MCpu::part_done(std::uint32_t request) {
    const std::uint32_t done = ++m_parts_done[request];
    const auto it = m_waiting.find(request);
    if (it == m_waiting.end()) return;
    std::vector<std::pair<Held*, std::uint32_t>>& waiting = it->second;
    for (auto w = waiting.begin(); w != waiting.end();) {
        if (done < w->second) {
            ++w;
            continue;
        }
        if (--w->first->pending == 0) {
            const CubeRequestMsg& m = *w->first->msg;
            m_fanout_processes.start([this, &m] { kernel_launch_fanout(m); });
        }
        w = waiting.erase(w);
    }
    if (waiting.empty()) m_waiting.erase(it);
}

// A DoneMsg to the M_CPU of every other cube holding a launch that waits
// for this request (n = 0 control messages, sent one after another).
void MCpu::tell_others(const CubeRequestMsg& msg) {
    Transaction& txn = m_txns.emplace_back();
    std::uint64_t n = 0;
    for (const CubeRef& c : *msg.notify) {
        if (c.sip == m_sip && c.cube == m_cube) continue;
        m_done_msgs.push_back({static_cast<std::uint32_t>(msg.request->index)});
        RoutedNode& other = m_fabric->node(NodeRole::m_cpu, c.sip, c.cube, 0);
        txn.ext().body = &m_done_msgs.back();
        txn.prepare(MsgKind::control, m_fabric->route(*this, other), 0, 0);
        transport_in_turn(txn, control_key(msg.request->index, ++n, 4));
    }
}

void MCpu::collect_response(const PeResponseMsg& response) {
    auto it = m_pending.find(response.fanout);
    if (it == m_pending.end()) {
        // The watchdog already closed this fan-out: a late answer.
        const std::string who = pe_id(response.pe);
        m_trace.emit(trace::late_response(sc_core::sc_time_stamp().value(), node_id_ref(),
                                          static_cast<std::int64_t>(response.fanout), who));
        return;
    }
    Pending& p = *it->second;
    const auto pos = std::find(p.pes.begin(), p.pes.end(), response.pe) - p.pes.begin();
    if (p.answered.at(pos)) return;
    p.answered[pos] = 1;
    p.merged.pe_exec_ns = std::max(p.merged.pe_exec_ns, response.result.pe_exec_ns);
    p.merged.dma_ns = std::max(p.merged.dma_ns, response.result.dma_ns);
    p.merged.compute_ns = std::max(p.merged.compute_ns, response.result.compute_ns);
    if (++p.received == p.expected) p.all_done.notify(sc_core::SC_ZERO_TIME);
}

void MCpu::dma_fanout(const CubeRequestMsg& msg) {
    const bool write = msg.request->kind == HostRequestKind::memory_write;
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    const std::uint64_t slice_bytes = m_fabric->hbm_slice_bytes();
    const std::uint64_t cube_base = m_fabric->hbm_base(m_sip, m_cube, 0);
    // seed 001 D5: one destination per HBM slice the range touches.
    struct Piece {
        int slice;
        std::uint64_t pa, bytes;
    };
    std::vector<Piece> pieces;
    for (std::uint64_t pa = msg.pa, end = msg.pa + msg.bytes; pa < end;) {
        const int slice = static_cast<int>((pa - cube_base) / slice_bytes);
        const std::uint64_t slice_end = cube_base + (slice + 1) * slice_bytes;
        pieces.push_back({slice, pa, std::min(end, slice_end) - pa});
        pa += pieces.back().bytes;
    }
    // seed 001 D5.4, D8: the fan-out is pending until every destination has
    // answered; each answer is a response that M_CPU's worker handles
    // (overhead_ns, D9) like a PE's.
    const std::uint64_t id = m_next_fanout++;
    Pending& pending = *(m_pending[id] = std::make_unique<Pending>());
    pending.expected = static_cast<int>(pieces.size());
    pending.answered.assign(pieces.size(), 0);
    for (const Piece& piece : pieces) pending.pes.push_back(piece.slice);
    m_trace.emit(trace::fanout_start(start.value(), node_id_ref(), static_cast<std::int64_t>(id),
                                     to_string(msg.request->kind),
                                     static_cast<std::int64_t>(msg.bytes), msg.request->id));
    Transaction& txn = m_txns.emplace_back();  // outlives a process stuck or stopped mid-way
    double xfer_ns = 0.0;
    for (const Piece& piece : pieces) {
        RoutedNode& target = m_fabric->node(NodeRole::hbm_slice, m_sip, m_cube, piece.slice);
        const Route& route =
            write ? m_fabric->route(*this, target) : m_fabric->read_route(*this, target);
        // D3: the channel serialises the dispatch step only, not the transfer.
        FifoResource& channel = dma_channel(write);
        const RequestKey key = control_key(id, static_cast<std::uint64_t>(piece.slice) + 1, 1,
                                           request_rank());
        channel.wait(key);
        txn.prepare(write ? MsgKind::dma_write : MsgKind::dma_read, route, piece.pa, piece.bytes);
        const sc_core::sc_time drain = transport_in_turn(txn, key);
        channel.post();
        xfer_ns = std::max(xfer_ns, static_cast<double>(drain.value()) / 1000.0);
        // The destination answers when its transfer is done. A read's data
        // already came back to M_CPU within the drain (the read route); a
        // write's answer travels the reversed path, an n = 0 message.
        const sc_core::sc_time back =
            write ? sc_core::sc_time::from_value(m_fabric->route(target, *this).latency_ps)
                  : sc_core::SC_ZERO_TIME;
        m_replies.push_back({id, piece.slice, {}});
        m_inbox.push({MsgKind::response, &m_replies.back()}, drain + back, request_rank());
    }
    if (pending.received < pending.expected) sc_core::wait(pending.all_done);
    m_pending.erase(id);
    msg.parent->xfer_ns = std::max(msg.parent->xfer_ns, xfer_ns);
    respond(msg, true, "",
            {msg.request, start, sc_core::sc_time_stamp(), static_cast<int>(pieces.size()), xfer_ns,
             0, true});
}

void MCpu::mmu_msg_fanout(const CubeRequestMsg& msg) {
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    const HostRequest& r = *msg.request;
    m_trace.emit(trace::fanout_start(start.value(), node_id_ref(), -1, to_string(r.kind), -1, r.id));
    Transaction& txn = m_txns.emplace_back();  // outlives a process stuck or stopped mid-way
    sc_core::sc_time latest = start;
    // seed 001 D7: PE_MMU is terminal and answers nothing; wait for each
    // sub-transaction's own completion inline.
    for (int pe : r.target_pe) {
        m_mmu_msgs.push_back({r.kind == HostRequestKind::mmu_map, r.va, r.pa, r.bytes});
        RoutedNode& mmu = m_fabric->node(NodeRole::pe_mmu, m_sip, m_cube, pe);
        txn.ext().body = &m_mmu_msgs.back();
        txn.prepare(r.kind == HostRequestKind::mmu_map ? MsgKind::mmu_map : MsgKind::mmu_unmap,
                    m_fabric->route(*this, mmu), 0, 0);
        latest = std::max(latest, sc_core::sc_time_stamp() +
                                      transport_in_turn(txn, control_key(r.index, static_cast<std::uint64_t>(pe) + 1, 3)));
    }
    sc_core::wait(latest - sc_core::sc_time_stamp());
    respond(msg, true, "",
            {msg.request, start, sc_core::sc_time_stamp(), static_cast<int>(r.target_pe.size()),
             0.0, 0, true});
}

void MCpu::respond(const CubeRequestMsg& msg, bool success, std::string missing,
                   FanoutRecord record) {
    // seed 001 D8: one ResponseMsg(src_pe = -1) back to IO_CPU.
    m_responses.push_back({&msg, -1, success, std::move(missing)});
    m_trace.emit(trace::fanout_complete(sc_core::sc_time_stamp().value(), node_id_ref(),
                                        to_string(msg.request->kind), !success, msg.request->id));
    Transaction& txn = m_txns.emplace_back();  // outlives a process stuck or stopped mid-way
    txn.ext().body = &m_responses.back();
    txn.prepare(MsgKind::response, m_fabric->route(*this, *msg.reply_to), 0, 0);
    transport_in_turn(txn, control_key(msg.request->index, 0, 2));
    record.end = sc_core::sc_time_stamp();
    m_fanouts.push_back(record);
}

}  // namespace npuvp
