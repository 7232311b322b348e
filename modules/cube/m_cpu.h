// M_CPU, one per cube (SPEC §4; seed 001 ADR-0035): the cube's command
// processor, attached to mesh router `router`.
//  - Transit (D4): traffic whose route passes through M_CPU (e.g. a response
//    on its way from a PE to IO_CPU) is forwarded unchanged after overhead_ns.
//  - Terminal (D2): requests from IO_CPU are dispatched by type to
//    _dma_fanout (MemoryRead / MemoryWrite), _kernel_launch_fanout
//    (KernelLaunch) and _mmu_msg_fanout (MmuMap / MmuUnmap), each a process
//    of its own, so the inbox keeps being served.
//  - It handles one transaction at a time and adds overhead_ns to each
//    (D1, D9), responses included.
//  - M_CPU.DMA (D3): a read and a write channel (FIFO-fair, capacity 1),
//    internal (not topology nodes), serialising only the dispatch step.
//  - Aggregation (D8): per fan-out (expected, received, all_done), for
//    kernel launches (one answer per PE) and memory fan-outs (one per HBM
//    slice, D5.4); one ResponseMsg(src_pe = -1) goes back to IO_CPU when
//    all have answered.
//  - Watchdog (beyond the seed): with response_timeout_ns set, a launch whose
//    PEs have not all answered in time ends with success = false, naming them.
//  - Device-resolved launches (beyond the seed; `resolve_after: device`,
//    docs/workload.md "Ordering"): a launch that arrives with requests to
//    wait for is held until each is done on every cube it ran on: this
//    cube's parts when their fan-outs complete, another cube's when its
//    M_CPU's DoneMsg arrives (a control message, handled by the worker at
//    overhead_ns like any other). It is then fanned out as usual, its
//    barrier stamped at release.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "modules/common/config.h"
#include "modules/common/fabric.h"
#include "modules/common/fifo_resource.h"
#include "modules/common/process_pool.h"
#include "modules/common/run_status.h"
#include "modules/common/timed_inbox.h"
#include "modules/common/trace.h"
#include "modules/system/messages.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class MCpu : public RoutedNode {
public:
    // Transit traffic costs overhead_ns here (transit()).
    bool has_transit_cost() const override { return true; }
    // Parameters
    const MCpuConfig& config;

    // What one fan-out did, for reports and tests.
    struct FanoutRecord {
        const HostRequest* request;
        sc_core::sc_time start;    // dispatch began (after overhead)
        sc_core::sc_time end;      // response sent
        int destinations;          // PEs or HBM slices
        double xfer_ns;            // memory: max drain over destinations
        std::uint64_t target_start_ps;  // kernel launch: the barrier used
        bool success;
    };

    MCpu(const sc_core::sc_module_name& name, const MCpuConfig& config, int sip, int cube,
         TraceSink& trace, RunStatus& status);
    const char* kind() const override { return "m_cpu"; }

    void attach(Fabric& fabric) { m_fabric = &fabric; }

    FifoResource& dma_channel(bool write) { return write ? m_dma_write : m_dma_read; }
    const std::vector<FanoutRecord>& fanouts() const { return m_fanouts; }
    // VCD: the M_CPU.DMA channels' in_use / owner.
    void add_traces(sc_core::sc_trace_file* tf) const {
        m_dma_read.add_traces(tf, node_id_ref() + ".dma_read");
        m_dma_write.add_traces(tf, node_id_ref() + ".dma_write");
    }
    std::uint64_t transactions() const { return m_processor.handled(); }

protected:
    void serve(tlm::tlm_generic_payload& payload, NpuExtension& ext,
               sc_core::sc_time& delay) override;
    void transit(NpuExtension& ext, sc_core::sc_time& delay) override;

private:
    struct Item {
        MsgKind kind;
        const void* body;
    };
    struct Pending {
        int expected = 0;
        int received = 0;
        std::vector<char> answered;  // by position in the fan-out
        std::vector<int> pes;
        ResultData merged;
        sc_core::sc_event all_done;
    };

    void worker();
    void kernel_launch_fanout(const CubeRequestMsg& msg);
    void dma_fanout(const CubeRequestMsg& msg);
    void mmu_msg_fanout(const CubeRequestMsg& msg);
    void collect_response(const PeResponseMsg& response);
    bool held(const CubeRequestMsg& msg);
    void part_done(std::uint32_t request);
    void tell_others(const CubeRequestMsg& msg);
    void respond(const CubeRequestMsg& msg, bool success, std::string missing,
                 FanoutRecord record);
    std::string pe_id(int pe) const;

    int m_sip;
    int m_cube;
    TraceSink& m_trace;
    RunStatus& m_status;
    Fabric* m_fabric = nullptr;
    TimedInbox<Item> m_inbox;
    ProcessPool m_fanout_processes;  // each fan-out's process (kept for the next fan-out)
    SerialProcessor m_processor;
    FifoResource m_dma_read;
    FifoResource m_dma_write;
    std::map<std::uint64_t, std::unique_ptr<Pending>> m_pending;  // lookup only
    std::uint64_t m_next_fanout = 0;
    std::uint64_t m_worker_turns = 0;  // the worker's T4 requests, numbered
    std::deque<CubeResponseMsg> m_responses;  // alive until IO_CPU has handled them
    std::deque<LaunchMsg> m_launches;
    std::deque<MmuMsg> m_mmu_msgs;
    std::deque<PeResponseMsg> m_replies;  // memory destinations' answers (pe = HBM slice)
    // One payload per fan-out step, owned here rather than on the stack of a
    // process that may never return (a PE that never answers, a run stopped
    // by a fault): SystemC does not unwind such stacks at exit.
    std::deque<Transaction> m_txns;
    std::vector<FanoutRecord> m_fanouts;
    // resolve_after: device. Parts done per request index (this cube's and
    // the DoneMsgs from others), and the held launches waiting for each.
    struct Held {
        const CubeRequestMsg* msg = nullptr;
        std::uint32_t pending = 0;  // requests not yet done
    };
    std::map<std::uint32_t, std::uint32_t> m_parts_done;
    std::map<std::uint32_t, std::vector<std::pair<Held*, std::uint32_t>>> m_waiting;  // (launch, cubes needed)
    std::deque<Held> m_held;         // stable addresses for m_waiting
    std::deque<DoneMsg> m_done_msgs;  // alive until the other M_CPU has handled them
};

}  // namespace npuvp
