// Runs a workload on an elaborated platform (`npuvp --workload`): maps the
// workload's MMU pages, launches its kernels on their PEs at t = 0, and after
// sc_start() collects what an architect reads first: the makespan, every
// command's submit / start / finish times, and every engine's busy time. A run
// that stops with work outstanding is diagnosed (which PE, which command), a
// fault is reported; neither hangs.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "modules/pe/command.h"
#include "modules/system/io_cpu.h"
#include "platform/data_mode.h"
#include "platform/platform.h"

namespace npuvp {

struct CommandResult {
    std::string pe;  // PE node id prefix, e.g. sip0.cube0.pe3
    const Command* command;
    std::uint64_t tiles;
    std::uint64_t submitted_ps, started_ps, finished_ps;
    std::uint64_t waited_ps[wait_cause_count];  // submitted -> started, by WaitCause
};

// Per PE and execution context (main / sub / dma): the time its commands ran
// (started -> finished) and waited (submitted -> started), summed.
struct ContextTotals {
    std::string pe;
    ExecContext context;
    std::uint64_t busy_ps;
    std::uint64_t wait_ps;
};

struct EngineBusy {
    std::string pe;
    const char* engine;  // its lane (DMA_READ, ...): an engine_kinds row with a busy row
    std::uint64_t busy_ps;
};

class WorkloadRun {
public:
    // Elaboration. Throws ConfigError (at the launch's location) when a PE is
    // launched twice, std::invalid_argument for a bad MMU mapping.
    WorkloadRun(Platform& platform, const WorkloadConfig& workload);

    // After sc_start():
    // Progress: commands of launched kernels (wait commands included in the
    // known count, so a finished run shows slightly under 100%).
    std::uint64_t known_commands() const { return m_known_commands; }
    std::uint64_t completed_commands() const;

    // PEs whose IPCQ ring holds data no ipcq_recv took (a run that leaves
    // any is not finished; diagnosis() names them).
    std::vector<const Pe*> unreceived_ipcq() const;
    bool finished() const;                 // every launched PE ran to the end, every host
                                           // request completed successfully, no fault
    std::string diagnosis() const;         // why not, one line per stuck PE
    std::uint64_t makespan_ps() const;     // latest PE finish
    std::vector<CommandResult> commands() const;  // in PE order, then completion order
    std::vector<EngineBusy> engines() const;      // launched PEs only, Pe::engine_busy() each
    std::vector<ContextTotals> contexts() const;   // launched PEs, main / sub / dma
    // Total wait of every command, by cause (index = WaitCause).
    std::vector<std::uint64_t> waits_by_cause() const;
    const IoCpu* host() const { return m_host; }
    const WorkloadConfig& workload() const { return m_workload; }
    std::size_t launched_pes() const { return m_launched.size(); }
    const std::vector<Pe*>& launched() const { return m_launched; }
    // Data mode (docs/workload.md "Operand data"); null when the workload
    // carries no data.
    DataMode* data() { return m_data.get(); }

private:
    Platform& m_platform;
    const WorkloadConfig& m_workload;
    std::vector<Pe*> m_launched;  // in launch order, then PE index (direct and host)
    IoCpu* m_host = nullptr;           // the host entry, when the workload has host requests
    std::uint64_t m_known_commands = 0;
    std::unique_ptr<DataMode> m_data;
};

}  // namespace npuvp
