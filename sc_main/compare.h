// The tuning protocol of seed 002 (SPEC §6): judge a schedule change by the
// generated schedule's makespan, not by source order. `npuvp --compare` runs
// every variant as its own npuvp process (SystemC elaborates once per
// process) and prints their makespans and per-context busy / wait side by
// side.
#pragma once

#include <ostream>

#include "sc_main/cli.h"

namespace npuvp {

// Returns the exit code: 0 when every variant ran, 1 otherwise.
int run_compare(const CliOptions& options, std::ostream& out);

}  // namespace npuvp
