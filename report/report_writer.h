// The run report (SPEC §7; `--report FILE`, docs/cli.md "Outputs"):
// makespan; per engine busy time and utilisation; bytes moved per DMA
// direction, NoC / fabric link and memory target with achieved against peak
// bandwidth; waits by cause; the critical path; per-request latency of host
// workloads. Built after the run from WorkloadRun, Platform and the run view;
// printed as text, written as JSON (.json) or Markdown (.md).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report/energy.h"
#include "report/layer_table.h"
#include "report/roofline.h"
#include "report/run_view.h"

namespace npuvp {

struct Report {
    std::string workload;
    // "ok", or "failed" for a run that did not finish (RunView::failed): then
    // `failure` is the diagnosis, makespan_ps is when the run stopped
    // (utilisation is over the time it ran), and the critical path and
    // engine times cover what completed by then.
    std::string status = "ok";
    std::string failure;
    std::uint64_t makespan_ps = 0;
    // What the outputs' tile detail covers (RunView::Detail, without its
    // bins; docs/cli.md "Tile detail"). Reported only when it is not the
    // whole run; the figures here are always exact.
    obs::RunView::DetailWindow tile_detail;

    struct Engine {
        std::string pe, engine;
        std::uint64_t busy_ps = 0;
        std::uint64_t slices = 0;   // engine intervals recorded (RunView::lane_totals; 0 if none recorded)
        double utilisation = 0.0;   // busy / makespan
    };
    std::vector<Engine> engines;

    // Bytes moved by one DMA direction of a PE, one link hop or one memory
    // target port. achieved = bytes / busy (while transferring); average =
    // bytes / makespan; peak = the configured bandwidth (0: unlimited).
    struct Traffic {
        std::string kind;  // "dma", "link", "memory", "tcm"
        std::string name;
        std::uint64_t bytes = 0;
        std::uint64_t busy_ps = 0;
        std::uint64_t transfers = 0;
        double achieved_gbs = 0.0, average_gbs = 0.0, peak_gbs = 0.0;
        double utilisation = 0.0;  // busy / makespan
    };
    std::vector<Traffic> traffic;

    std::vector<std::pair<std::string, std::uint64_t>> waits;  // cause -> total ps

    // The critical path, first op to last: each step's command and how it was
    // held after its predecessor finished: `via` = the wait cause recorded by
    // PE_SCHEDULER (gated_by), "issue" when PE_CPU issued it only after the
    // predecessor completed (a program wait), "" for the first step.
    // Host workloads whose last request ends the run: the chain of requests
    // (`pe` = the IO_CPU node, context "request"; "issue" = sent when the one
    // before completed); a kernel launch on it opens into IO_CPU until M_CPU
    // starts the fan-out, M_CPU (context "fan-out", via "request") until the
    // kernel starts on the PE that finishes last, that PE's commands (the
    // first via "launch"), M_CPU until the fan-out completes and IO_CPU until
    // the response is in (both via "response"). Started / finished are the
    // segment's ends; submitted is the request's or fan-out's start.
    struct Step {
        std::string pe, id, kind, context, via;  // pe: the PE, or the IO_CPU / M_CPU node
        std::uint64_t submitted_ps = 0, started_ps = 0, finished_ps = 0;
        std::uint64_t gap_ps = 0;  // predecessor finished -> this started
    };
    std::vector<Step> critical_path;
    // A --model run's layers (docs/models.md), empty otherwise.
    std::vector<LayerResult> layers;
    // What bound the run (report/bottleneck.h), from the critical path.
    struct BoundPart {
        std::string what, where;
        std::uint64_t ps = 0;
    };
    std::vector<BoundPart> bound;
    std::vector<std::string> unused;  // what the run left untouched (report/bottleneck.h)
    Roofline roofline;                // report/roofline.h
    Energy energy;                    // report/energy.h

    struct Request {
        std::string id, kind, status;
        std::uint64_t issued_ps = 0, completed_ps = 0, latency_ps = 0;
    };
    std::vector<Request> requests;
};

// Bytes moved per PE DMA direction (launched PEs, in run order), per fabric
// link and per memory target port, each with bytes > 0 (Report::traffic).
// Reads the platform's counters only: valid after any run, finished or not.
std::vector<Report::Traffic> measure_traffic(const WorkloadRun& run, const Platform& platform,
                                             std::uint64_t makespan_ps);

// `answers`: what bound the run, its roofline and energy when the caller
// computed them (report/run_answers.h); else computed here (no layers).
struct RunAnswers;
Report build_report(const WorkloadRun& run, const Platform& platform, const obs::RunView& view,
                    const std::string& workload_name, const RunAnswers* answers = nullptr);

// The critical path of a run view (see Report::Step), ending at the command
// or host request that finishes last.
std::vector<Report::Step> critical_path(const obs::RunView& view);

void print_report(std::ostream& out, const Report& report);   // text, after WorkloadRun::print
void write_report_json(std::ostream& out, const Report& report);
void write_report_markdown(std::ostream& out, const Report& report);
// By extension: ".json" or ".md"; throws std::invalid_argument for others.
void write_report(std::ostream& out, const Report& report, const std::string& path);
bool report_format_known(const std::string& path);

}  // namespace npuvp
