// The run's tables on stdout (`npuvp --workload`, docs/cli.md): the makespan,
// the host requests, every command's submit / start / finish times and wait
// causes, per-context busy and wait time, and every engine's busy time.
#pragma once

#include <ostream>

#include "platform/workload_run.h"

namespace npuvp {

void print_run(std::ostream& out, const WorkloadRun& run);

}  // namespace npuvp
