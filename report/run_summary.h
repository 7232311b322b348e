// The machine-readable run summary (`npuvp --summary FILE`, schema
// npuvp.summary/2, every field in docs/cli.md "Summary JSON"): the inputs,
// how the run ended (status, exit code, error text), the makespan, waits by
// cause, per-context and per-engine time, bytes moved and bandwidth (the
// report's traffic table), totals a sweep can put in one CSV row, every
// command, and the simulation speed. Plain data, so it can be written for a
// run that never started (bad input): the results are then empty or zero.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "report/layer_table.h"
#include "report/report_writer.h"
#include "report/sim_speed.h"
#include "platform/workload_run.h"
#include "report/energy.h"
#include "report/roofline.h"
#include "report/run_answers.h"

namespace npuvp {

struct RunSummary {
    struct Inputs {
        std::string topology, workload;
        std::vector<std::string> sets;  // every --set as written, in order
    } inputs;

    // "ok" (exit 0), "failed" (1: the run failed), "bad_input" (2),
    // "internal_error" (3); error is the message npuvp printed, "" when ok.
    std::string status = "ok";
    int exit_code = 0;
    std::string error;

    std::uint64_t makespan_ps = 0;
    std::vector<std::pair<std::string, std::uint64_t>> waits;  // every cause, in WaitCause order
    std::vector<ContextTotals> contexts;
    std::vector<Report::Engine> engines;
    std::vector<Report::Traffic> traffic;
    struct Command {
        std::string pe, id, kind, context;
        std::uint64_t submitted_ps, started_ps, finished_ps;
        double energy_pj = 0.0;  // its own dynamic energy (Energy::Command); 0 when the run did not finish
    };
    std::vector<Command> commands;
    std::optional<SimSpeed> speed;  // absent when sc_start() never ran
    std::vector<LayerResult> layers;  // a --model run's layers (docs/models.md); empty otherwise
    std::vector<Report::BoundPart> bound;  // what bound the run (report/bottleneck.h); empty if it did not finish
    std::vector<std::string> unused;       // what it left untouched (unused_parts())
    std::optional<Energy> energy;          // report/energy.h; absent when the run did not finish
    std::optional<Roofline> roofline;      // report/roofline.h: the machine's roofs and the run's point

    // The results of a run (finished or not); inputs and status are left as
    // they are.
    void take_results(const WorkloadRun& run, const Platform& platform);
    // What bound a finished run, its roofline and energy (after take_results).
    void take_answers(const RunAnswers& answers);
};

// Exit code -> status word above.
const char* summary_status(int exit_code);

void write_summary_json(std::ostream& out, const RunSummary& summary);

}  // namespace npuvp
