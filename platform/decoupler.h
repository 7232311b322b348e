// The decoupled pipeline's driver (docs/speed.md "The decoupled pipeline";
// modules/pe/pipeline_calendar.h): decides which PEs of a workload run
// decoupled and runs their calendars.
//
// A PE runs decoupled when nothing outside its calendar can touch it while
// it runs ahead of the kernel, so that running it ahead gives exactly the
// per-stage times (checked per PE before the simulation starts; the reason
// a PE runs per stage is kept for the report):
//  - its blocks are the builtin ones, with one DMA channel per direction;
//  - its kernels (launched directly or by the host) hold only composites
//    (and waits), whose tiles flow one way between two points where the
//    pipeline is empty (one writer per stage inbox);
//  - a virtual operand is mapped before any kernel of the PE starts, and
//    never unmapped (no MMU fault, no map mid-kernel);
//  - every memory target its DMA reaches answers at once, and no hop of
//    its DMA routes is on a route of a PE that runs per stage;
//  - no output listens to its events: no trace, timeline, picture, report,
//    nor VCD signals of it or of a PE of its group;
//  - the workload carries no data (data mode copies bytes at each stage's
//    end in the kernel's time).
// PEs whose DMA routes share a hop share a calendar (a group), and so do
// all the PEs the host's side may meet (docs/speed.md "Calendars and
// groups").
//
// One SC_METHOD runs every decoupled calendar: in step with the kernel's
// delta cycles at an instant where other processes act (a round per delta
// cycle), then — once the kernel has nothing left to do at this instant —
// every calendar alone up to the next time the kernel has something pending
// (sc_time_to_pending_activity), one after another, stopping before
// anything that would notify a kernel process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "modules/common/trace.h"
#include "modules/pe/command.h"
#include "modules/pe/pipeline_calendar.h"

namespace npuvp {

class Pe;
class Platform;

class Decoupler : public sc_core::sc_module {
public:
    Decoupler(const sc_core::sc_module_name& name, TraceSink& trace);
    ~Decoupler() override;

    // Elaboration: off, every PE runs per stage (npuvp --per-stage).
    void set_enabled(bool on) { m_enabled = on; }
    bool enabled() const { return m_enabled; }

    // Elaboration (WorkloadRun): which of `launched` may run decoupled for
    // `workload`. The outputs are checked at the start of the simulation.
    void plan(Platform& platform, const WorkloadConfig& workload, const std::vector<Pe*>& launched);

    // Per launched PE, in launch order: whether it ran decoupled, and if not
    // why (final once the simulation has started).
    struct Verdict {
        Pe* pe = nullptr;
        bool decoupled = false;
        std::string why;
        // PEs whose DMA routes share a hop share a calendar: one group
        // (the index of its first PE in launch order).
        std::size_t group = 0;
    };
    const std::vector<Verdict>& verdicts() const { return m_verdicts; }
    std::size_t decoupled_pes() const;

    // Statistics (docs/speed.md): the driver's activations, and the
    // calendars' activities run (in step with the kernel, and in all).
    std::uint64_t runs() const { return m_runs; }
    std::uint64_t activities() const;
    std::uint64_t activities_in_step() const;

private:
    void start_of_simulation() override;
    void run();

    TraceSink& m_trace;
    bool m_enabled = true;
    std::vector<Verdict> m_verdicts;
    sc_core::sc_event m_wake;
    std::vector<std::unique_ptr<PipelineCalendar>> m_calendars;  // in launch order
    std::uint64_t m_runs = 0;
};

}  // namespace npuvp
