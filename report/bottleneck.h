// What bound a run (docs/outputs.md "What bound the run"; issue 20 point 1):
// the critical path's time, each step given to what held it. A host step
// (IO_CPU, the io link, M_CPU) is the host launch path; a PE command's step
// (and the wait before it) is shared among the parts of the kernel run it
// belongs to in proportion to their busy time: compute (PE_GEMM and
// PE_MATH), DMA start-up, DMA transfer at the narrowest hop, DMA waiting for
// a hop (DmaTimeSplit). Parts are grouped by what they are ("DMA start-up",
// "HBM transfer", "wait SRAM", ...), each with the PE or hop that gave it the
// most, largest first, as shares of the makespan.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report/report_writer.h"

namespace npuvp {

class Platform;
class WorkloadRun;

// what: "DMA start-up", "HBM transfer", "wait SRAM", "compute", "host launch
// path", ...; where: the PE or hop that gave it the most ("" for the host).
struct Bottleneck {
    using Part = Report::BoundPart;
    std::vector<Part> parts;  // largest first
    std::uint64_t makespan_ps = 0;
    std::vector<std::string> unused;  // unused_parts(), printed under the bound
};

Bottleneck find_bottleneck(const WorkloadRun& run, const std::vector<Report::Step>& critical_path,
                           std::uint64_t makespan_ps);

// "bound    DMA start-up 58% of the makespan (sip0.cube0.pe7), then ..."
void print_bottleneck(std::ostream& out, const Bottleneck& b);
// {"what": ..., "where": ..., "ns": ..., "share": ...} rows, largest first.
void write_bottleneck_json(std::ostream& out, const Bottleneck& b);
// "DMA start-up 58% (sip0.cube0.pe7)", or "nothing ran" for an empty run.
std::string bottleneck_text(const Bottleneck& b);

// What a run left untouched (issue 20 point 1: a knob that shaped nothing),
// one sentence each: engines no launched PE used, DMA channels never busy,
// reserved TCM no command used (or its peak use), links no transfer crossed,
// memory targets nobody read or wrote. Empty when everything was used.
std::vector<std::string> unused_parts(const WorkloadRun& run, const Platform& platform);

}  // namespace npuvp
