// Workload YAML -> validated WorkloadConfig (SPEC §5, §6, T6; docs/workload.md).
// A workload names kernels (lists of PE commands), launches them on PEs of a
// cube and maps pages in PE_MMU before the run. It is checked against the
// topology it runs on: cubes and PEs in range, math ops known to PE_MATH,
// composite tiles that fit SchedulerReservedTCM, MMU pages aligned to the
// PE_MMU page size. Every bad input throws ConfigError naming file, line,
// column and key path, in the topology loader's format.
#pragma once

#include <string>
#include <vector>

#include "modules/common/config.h"
#include "modules/pe/command.h"
#include "config/config_error.h"

namespace npuvp {

// Loads and validates a workload file against `topo`.
WorkloadConfig load_workload_file(const std::string& path, const TopologyConfig& topo);

// Same, from text; `source_name` stands in for the file name in errors.
WorkloadConfig load_workload_text(const std::string& text, const std::string& source_name,
                                  const TopologyConfig& topo);

// The keys of each command kind's and host request kind's body, beside the
// keys every command (id, wait, schedule keys) or request (id, after) has,
// as the loader's kind tables give them; docs/workload.md is checked against
// them (workload_doc_test). composite appears twice, once per form.
struct WorkloadKindKeys {
    std::string section;  // "command" or "host"
    std::string kind;
    std::vector<std::string> keys;
};
std::vector<WorkloadKindKeys> workload_kind_keys();

}  // namespace npuvp
