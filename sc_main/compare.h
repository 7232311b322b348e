// The tuning protocol of seed 002 (SPEC §6): judge a schedule change by the
// generated schedule's makespan, not by source order. `npuvp --compare` runs
// every variant as its own npuvp process (SystemC elaborates once per
// process) and prints their makespans and per-context busy / wait side by
// side.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sc_main/cli.h"

namespace npuvp {

// `dumps`: each variant's data-mode `dump` files as its workload names them
// (in variant order: --compare's files, then --compare-set's). Each variant
// writes its own under a folder of its own; afterwards a file every variant
// wrote alike is written once where it belongs, one they wrote differently
// once per variant (FILE.vN, N its row), and a line says which.
// Returns the exit code: 0 when every variant ran, 1 otherwise.
int run_compare(const CliOptions& options, const std::vector<std::vector<std::string>>& dumps,
                std::ostream& out);

}  // namespace npuvp
