// The bodies of the messages of the cube command path (SPEC §4; seed 001),
// carried by NpuExtension::body. The sender keeps a body alive until the
// receiver has handled it (receivers act at arrival time, after the link).
#pragma once

#include <cstdint>
#include <string>

#include "modules/pe/command.h"
#include "modules/system/host_request.h"
#include "tlm_sockets/npu_extension.h"

namespace npuvp {

class RoutedNode;

// A request a device-resolved launch waits for (`resolve_after: device`,
// docs/workload.md "Ordering"): its index and how many cubes its fan-out
// has (each cube's M_CPU completes its own part).
struct DeviceDep {
    std::uint32_t request = 0;
    std::uint32_t cubes = 1;
};

// IO_CPU -> M_CPU: one cube's share of a host request. Every cube of one
// request points at the same parent result (seed 001 D6: merged with max).
struct CubeRequestMsg {
    const HostRequest* request = nullptr;
    const Kernel* kernel = nullptr;      // kernel_launch
    int sip = 0;
    int cube = 0;
    std::uint64_t pa = 0;                // memory: this cube's part of the range
    std::uint64_t bytes = 0;
    bool has_start = false;              // kernel_launch: target_start_ns given or stamped
    std::uint64_t target_start_ps = 0;
    RoutedNode* reply_to = nullptr;      // the IO_CPU that sent it
    ResultData* parent = nullptr;
    // resolve_after: device: what M_CPU holds it for (null: nothing), and
    // the other cubes whose M_CPUs hold a launch waiting for this request
    // (each is told when this cube's part completes).
    const std::vector<DeviceDep>* device_after = nullptr;
    const std::vector<CubeRef>* notify = nullptr;
};

// M_CPU -> M_CPU of another cube (control, n = 0): its part of a request
// is done (resolve_after: device).
struct DoneMsg {
    std::uint32_t request = 0;
};

// M_CPU -> PE_CPU (n = 0).
struct LaunchMsg {
    const Kernel* kernel = nullptr;
    std::uint64_t start_ps = 0;          // the barrier: the PE starts its program then
    RoutedNode* reply_to = nullptr;      // the M_CPU
    std::uint64_t fanout = 0;            // M_CPU's pending id
    int pe = 0;
};

// PE_CPU -> M_CPU (is_response).
struct PeResponseMsg {
    std::uint64_t fanout = 0;
    int pe = 0;
    ResultData result;
};

// M_CPU -> IO_CPU: the aggregated ResponseMsg(src_pe = -1) of one cube.
struct CubeResponseMsg {
    const CubeRequestMsg* request = nullptr;
    int src_pe = -1;
    bool success = true;
    std::string missing;  // PEs that did not answer in time, e.g. "sip0.cube0.pe3"
};

// M_CPU -> PE_MMU (n = 0); PE_MMU is terminal and answers nothing.
struct MmuMsg {
    bool map = true;
    std::uint64_t va = 0;
    std::uint64_t pa = 0;
    std::uint64_t bytes = 0;
};

}  // namespace npuvp
