// IO_CPU, one per SIP (SPEC §2, §4; seed 001 via ADR-0036): the host's entry
// point. It takes the workload's host requests in order (or, with `after`,
// as soon as the named requests are done; a launch with `resolve_after:
// device` at once, its M_CPUs holding it until they are), and for each one:
//  - adds overhead_ns (one transaction at a time, responses included);
//  - for a kernel launch, stamps target_start_ns when the request has none:
//    now + the slowest leg to any target PE (IO_CPU -> M_CPU -> PE_CPU route
//    latency plus M_CPU's overhead), a barrier shared by every cube;
//  - fans the request out to the M_CPU of every cube it targets (a memory
//    range is split at cube boundaries), all sharing one parent result;
//  - completes when every cube's ResponseMsg has arrived, keeping the merged
//    result data and, for a failed fan-out, which PEs never answered.
// Host requests enter at SIP 0's IO_CPU; traffic for another SIP's cubes
// crosses the sip_link through that SIP's IO_CPU (transit, overhead_ns).
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "modules/common/config.h"
#include "modules/common/fabric.h"
#include "modules/common/lazy_event.h"
#include "modules/common/process_pool.h"
#include "modules/common/run_status.h"
#include "modules/common/timed_inbox.h"
#include "modules/common/trace.h"
#include "modules/system/messages.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class IoCpu : public RoutedNode {
public:
    // Transit traffic costs overhead_ns here (transit()).
    bool has_transit_cost() const override { return true; }
    // Parameters
    const IoCpuConfig& config;

    struct RequestRecord {
        const HostRequest* request = nullptr;
        sc_core::sc_time issued;      // its dependencies done: handed to IO_CPU
        sc_core::sc_time completed;
        bool started = false;
        bool done = false;
        bool success = true;
        std::uint64_t target_start_ps = 0;  // kernel launch: the barrier
        ResultData result;                  // the parent every cube merges into
        std::string missing;
        int expected = 0;
        int received = 0;
        std::deque<CubeRequestMsg> parts;   // one per cube
        Transaction txn;  // owned here: the request's process may never return
        // Its place among the others (host()): the requests that wait for
        // it, and how many of those it waits for are not done yet. Its
        // process starts when `pending` reaches 0 and waits on `changed`
        // until it is done: a completion wakes only what it concerns (one
        // event for every request woke each of them per completion,
        // quadratic in requests).
        std::vector<std::uint32_t> dependants;
        std::uint32_t pending = 0;
        LazyEvent changed;
        // resolve_after: device (docs/workload.md "Ordering"): what the
        // M_CPUs hold it for (it is sent at once), and the cubes of the
        // device-resolved requests that wait for this one.
        std::vector<DeviceDep> device_after;
        std::vector<CubeRef> notify;
    };

    IoCpu(const sc_core::sc_module_name& name, const IoCpuConfig& config,
          const MCpuConfig& m_cpu, const SystemConfig& system, int sip, TraceSink& trace,
          RunStatus& status);
    const char* kind() const override { return "io_cpu"; }

    void attach(Fabric& fabric) { m_fabric = &fabric; }
    // Elaboration: the host requests this IO_CPU runs and the workload's kernels.
    void host(const WorkloadConfig& workload);

    const std::deque<RequestRecord>& requests() const { return m_requests; }
    bool all_done() const;

protected:
    void serve(tlm::tlm_generic_payload& payload, NpuExtension& ext,
               sc_core::sc_time& delay) override;
    void transit(NpuExtension& ext, sc_core::sc_time& delay) override;

private:
    void start_requests();
    void spawn_request(RequestRecord& record);
    void run_request(RequestRecord& record);
    void worker();

    const MCpuConfig& m_m_cpu;
    const SystemConfig& m_system;
    int m_sip;
    TraceSink& m_trace;
    RunStatus& m_status;
    Fabric* m_fabric = nullptr;
    const WorkloadConfig* m_workload = nullptr;
    std::deque<RequestRecord> m_requests;
    TimedInbox<const CubeResponseMsg*> m_inbox;
    ProcessPool m_processes;  // the requests' processes (kept for the next request)
    SerialProcessor m_processor;
    std::uint64_t m_worker_turns = 0;  // the worker's T4 requests, numbered
};

}  // namespace npuvp
