// Host requests (SPEC §4; seed 001): what the host asks of the machine
// through IO_CPU. Filled from a workload's `host:` section by
// config/workload_loader.*; plain C++, no SystemC, no YAML.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "modules/common/config.h"

namespace npuvp {

enum class HostRequestKind : std::uint8_t {
    memory_write,   // MemoryWriteMsg: host -> HBM over IO_CPU, M_CPU.DMA
    memory_read,    // MemoryReadMsg
    mmu_map,        // MmuMapMsg to PE_MMUs of the target PEs
    mmu_unmap,      // MmuUnmapMsg
    kernel_launch,  // KernelLaunchMsg: run a kernel on the target PEs of the target cubes
};

const char* to_string(HostRequestKind kind);

struct CubeRef {
    int sip = 0;
    int cube = 0;  // within its SIP
};

struct HostRequest {
    HostRequestKind kind = HostRequestKind::kernel_launch;
    std::string id;            // "r<index>" by default
    std::uint32_t index = 0;   // position in the host list
    SourceLoc loc;

    // Ordering: by default a request starts when the previous one has
    // completed; with `after` it starts when those have (and runs
    // concurrently with anything else).
    bool explicit_after = false;
    std::vector<std::uint32_t> after;  // indices of earlier requests
    // kernel_launch, `resolve_after: device`: IO_CPU sends it at once, in
    // list order, and the M_CPU of each cube it targets holds it until the
    // requests it waits for are done on the device (docs/workload.md
    // "Ordering"); `device_after_loc` is the key's, for errors.
    bool device_after = false;
    SourceLoc device_after_loc;

    // memory_read / memory_write: a PA range; it may span several HBM slices
    // (one destination each). mmu_map / mmu_unmap: the physical side.
    std::uint64_t pa = 0;
    std::uint64_t bytes = 0;
    // mmu_map / mmu_unmap
    std::uint64_t va = 0;

    // mmu_map / mmu_unmap / kernel_launch: the cubes (one shared parent) and,
    // within each, the PEs (`target_pe`: int, list or all; resolved to ids).
    std::vector<CubeRef> cubes;
    std::vector<int> target_pe;
    bool target_all = false;   // written as `all` (= hbm_slices_per_cube PEs)

    // kernel_launch
    std::string kernel;
    std::optional<double> target_start_ns;  // passed through unchanged when given
};

}  // namespace npuvp
