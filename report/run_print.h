// The run's tables on stdout (`npuvp --workload`, docs/cli.md): the makespan,
// the host requests, every command's submit / start / finish times and wait
// causes, per-context busy and wait time, every engine's busy time, and each
// PE's DMA time in parts. `bound`, when given, opens it (what bound the run).
#pragma once

#include <ostream>

#include "platform/workload_run.h"
#include "report/bottleneck.h"

namespace npuvp {

void print_run(std::ostream& out, const WorkloadRun& run, const Bottleneck* bound = nullptr);

}  // namespace npuvp
