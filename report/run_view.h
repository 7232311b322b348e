// The view of a run that the outputs draw from (SPEC §7; docs/cli.md
// "Outputs"): the timeline (timeline_writer.h), the schedule picture
// (svg_writer.h) and the report (report_writer.h). (The summary,
// run_summary.h, takes its figures from the run itself: it is written even
// for a run that never started.) It is built once, after sc_start returned
// (finished or failed), from two sources: what the recorder gathered from
// the typed events while the run went (run_recorder.h: TraceSink::listen)
// and the model's own records (the PE schedulers' completions, M_CPU's
// fan-outs, IO_CPU's requests, PE_CPU's kernel runs).
// Nothing here touches the simulation, so building it changes no simulated
// time. Order is fixed by sorting on ids and times, never on pointers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "modules/common/time_text.h"
#include "modules/common/trace.h"
#include "modules/pe/command.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "report/run_recorder.h"

namespace npuvp {
namespace obs {

// One engine busy interval: an engine_start paired with the engine_complete
// of the same node, stage, command and tile (first in, first out).
struct EngineSlice {
    std::string group;  // PE id (sip0.cube0.pe3) or the node itself (sip0.io_cpu)
    std::string lane;   // the stage (to_string(StageType)): DMA_READ, ..., IPCQ_RECV
    std::string label;  // command id, with "#tile" for a composite's tile
    std::int64_t cmd = -1, tile = -1, bytes = -1;
    std::uint64_t start_ps = 0, end_ps = 0;
};

// One completed PE command with its scheduler record.
struct CommandSpan {
    std::string pe;       // PE id
    std::string id;       // command id
    std::string kind;     // dma_read, gemm, composite, ...
    std::string lane;     // its context: main / sub / dma; "other" for composites etc.
    std::uint64_t seq = 0;
    std::uint64_t tiles = 0;
    std::uint64_t submitted_ps = 0, started_ps = 0, finished_ps = 0;
    std::uint64_t waited_ps[wait_cause_count] = {};
    std::string gated_cause;  // the cause it waited for last ("" when it never waited)
    std::int64_t gated_by = -1;  // seq of the command it waited for last, or -1
    std::string peer;            // an ipcq_send's: the PE it sent to (its id); "" otherwise
    // Only for a command still in flight when a run failed (RunView::unfinished):
    // whether it had started, and the tiles done of `tiles`.
    bool started = true;
    std::uint64_t tiles_done = 0;
    // The cause that took the longest share of its wait ("" when it did not wait).
    std::string main_cause() const;
};

// A span on a node that is not a PE engine: a host request on IO_CPU, a
// fan-out on M_CPU.
struct NodeSpan {
    std::string group, lane, label;
    std::string id, kind;  // the host request's id and kind
    std::int64_t cmd = -1;
    std::uint64_t start_ps = 0, end_ps = 0;
};

struct RunView {
    std::uint64_t makespan_ps = 0;
    // The tile detail (see `detail`): every engine interval of the run, or
    // those in the detail window.
    std::vector<EngineSlice> engines;    // sorted by group, lane, start, end, cmd, tile
    std::vector<CommandSpan> commands;   // in PE order, then completion order
    std::vector<NodeSpan> nodes;         // sorted by group, lane, start
    // Tiles in flight per PE (a composite tile fed .. its tile_ready): (group, t_ps, count).
    struct Count {
        std::string group;
        std::uint64_t t_ps;
        std::int64_t value;
    };
    std::vector<Count> tiles_in_flight;
    // Other counters by name: "reserved TCM bytes" per PE (from tcm_in_use)
    // and "<stage>_inbox fill" per PE (from inbox_fill).
    struct Named {
        std::string name;
        Count count;
    };
    std::vector<Named> counters;
    std::uint64_t unpaired = 0;  // engine_start without engine_complete (a failed run)

    // Every engine interval of the run, per group and lane (sorted by group,
    // lane rank): whether or not it is in `engines`.
    struct LaneTotal {
        std::string group, lane;
        std::uint64_t slices = 0, busy_ps = 0;
    };
    std::vector<LaneTotal> lane_totals;

    // The tile detail (docs/cli.md "Tile detail"): `engines`,
    // `tiles_in_flight` and `counters` hold every interval and sample of the
    // run (complete), or only those in the window [from_ps, to_ps) (for a
    // window's counters also each track's last sample before it). The whole
    // run is always in the bins: per engine lane its busy time, per counter
    // track its samples' maximum and last value, in bins of bin_ps from 0.
    // DetailWindow: what the window is and how much of the run it holds
    // (what the report keeps); Detail adds the aggregate's tracks.
    struct DetailWindow {
        bool complete = true;
        std::uint64_t from_ps = 0, to_ps = open_end;
        bool cut = false;  // to_ps is where the cap ended the window (else as asked)
        std::uint64_t max_slices = 0;
        std::uint64_t slices = 0, slices_kept = 0;    // engine intervals: run, in `engines`
        std::uint64_t samples = 0, samples_kept = 0;  // counter samples: run, in the detail
        std::uint64_t bin_ps = first_bin_ps;
        std::size_t bins = 0;  // bins 0 .. bins - 1 cover every interval and sample
    };
    struct Detail : DetailWindow {
        struct Occupancy {
            std::string group, lane;
            std::vector<std::uint64_t> busy_ps;  // per bin (missing bins: 0)
        };
        std::vector<Occupancy> occupancy;  // sorted by group, lane rank
        struct Range {
            std::string group, name;  // the counter track ("tiles in flight", ...)
            std::vector<RunRecorder::Bin> bins;
        };
        std::vector<Range> counters;  // sorted by group, name
    };
    Detail detail;

    // Host workloads, for the critical path across IO_CPU, M_CPU and the
    // PEs: every request as the host saw it (IoCpu's records, in workload
    // order).
    struct Request {
        std::string node, id, kind;
        std::uint64_t issued_ps = 0, completed_ps = 0;
        bool done = false;
        bool device = false;             // resolve_after: device (held by M_CPU, not the host)
        std::vector<std::string> after;  // ids of the requests it was sent after
    };
    std::vector<Request> requests;
    // M_CPU's fan-outs (its records: node, request id and kind, start ..
    // response sent) and every kernel's start on a launched PE (PE_CPU's
    // records), read from the model so the printed report has them without
    // recorded events.
    struct Fanout {
        std::string node, id, kind;
        std::uint64_t start_ps = 0, end_ps = 0;
    };
    std::vector<Fanout> fanouts;
    struct KernelStart {
        std::string pe;
        std::uint64_t t_ps;
    };
    std::vector<KernelStart> kernel_starts;  // per PE in run order

    // A run that did not finish (a fault, a host request that failed or timed
    // out, work left when the events ran out): the outputs show what ran up
    // to the stop and mark the run as failed.
    bool failed = false;
    std::string failure;           // WorkloadRun::diagnosis(), one line per cause
    std::uint64_t stopped_ps = 0;  // when the simulation stopped (= makespan_ps for a finished run)
    // What was still open at the stop, each ending at stopped_ps: engine
    // intervals that started and never completed, commands in flight at
    // PE_SCHEDULER (finished_ps = stopped_ps; a command still waiting has
    // started_ps = stopped_ps and its wait so far in waited_ps), host
    // requests and fan-outs that never completed.
    std::vector<EngineSlice> open_engines;
    std::vector<CommandSpan> unfinished;
    std::vector<NodeSpan> open_nodes;
};

RunView build_view(const WorkloadRun& run, const Platform& platform, const RunRecorder& recorder);
// The same from events recorded in memory (TraceSink::record_to), handed to
// a recorder with `options` in order.
RunView build_view(const WorkloadRun& run, const Platform& platform,
                   const std::vector<RecordedEvent>& events, const DetailOptions& options = {});

// What the tile detail of `detail` covers and how to get more, in one
// sentence for the outputs' notes ("" when it is complete).
std::string detail_note(const RunView::DetailWindow& detail);
// busy / bin as a decimal with three places, rounded half up ("0.875").
std::string fraction_text(std::uint64_t busy_ps, std::uint64_t bin_ps);

// The lanes of one group in display order: engines first, in engine_kinds
// order (modules/pe/engine_kinds.h: DMA_READ, DMA_WRITE, FETCH, ...), then
// contexts (main, sub, dma, other), then any other lane by name. Returns the
// rank of `lane`: below known_lane_count() for an engine or context lane,
// known_lane_count() for any other.
int lane_rank(const std::string& lane);
int known_lane_count();
bool is_context_lane(const std::string& lane);

// Text shared by the writers.
std::string fixed(double v, int digits);            // 1.5, 3 -> "1.500"
std::string json_string(const std::string& text);  // quoted, JSON-escaped
std::string xml_text(const std::string& text);     // XML character data and attributes

}  // namespace obs
}  // namespace npuvp
