// Command-line options of `npuvp` (docs/cli.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/topology_loader.h"
#include "modules/common/run_limit.h"
#include "report/run_recorder.h"

namespace npuvp {

// Exit codes, documented in docs/cli.md.
enum ExitCode : int {
    exit_ok = 0,
    exit_run_failed = 1,   // the simulation failed or did not finish
    exit_bad_input = 2,    // bad command line, topology or override
    exit_internal = 3,     // a bug in npuvp: please report it
};

struct CliOptions {
    std::string topology;                 // --topology FILE
    std::vector<Override> overrides;      // --set key.path=value (repeatable)
    std::optional<std::string> workload;  // --workload FILE
    std::optional<std::string> model;     // --model FILE.onnx (mapped to a workload, docs/models.md)
    std::int64_t batch = 0;               // --batch N (a model's symbolic batch dimension; --llm: sequences)
    // --llm FILE.yaml (docs/llm.md): `model` is that file, run as one step
    // of a language model: --phase decode|prefill, --context N, --llm-layers N.
    bool llm = false;
    bool prefill = false;                 // --phase prefill (default decode)
    bool mixed = false;                   // --phase mixed: decode and a prefill chunk
    std::uint64_t chunk = 0, chunk_prompts = 1, chunk_past = 0;  // --chunk, --chunk-prompts, --chunk-past
    std::uint64_t context = 128;          // --context N
    int llm_layers = 0;                   // --llm-layers N (0: all)
    std::string mapper = "builtin.greedy_mapper";  // --mapper NAME
    int map_cubes = 1;                    // --map-cubes N (layers pipelined over N cubes)
    bool patterns = true;                 // --no-patterns: map every node as the file spells it
    bool device_queue = false;            // --launch device (default host): layers' after resolved on the device
    bool compiled = false;                // --launch compiled: one kernel per PE (docs/models.md "Compiled kernels")
    bool prefetch = true;                 // --no-prefetch: a compiled kernel reads weights per token (docs/models.md "Weight prefetch")
    int tensor_parallel = 1;              // --tensor-parallel N (--llm: weights split over N cards)
    bool all_reduce_tree = false;         // --all-reduce ring|tree (default ring)
    std::optional<std::string> trace;     // --trace FILE
    std::optional<std::string> trace_binary;  // --trace-binary FILE (the same events, binary)
    std::optional<std::string> summary;   // --summary FILE (JSON)
    std::optional<std::string> timeline;  // --timeline FILE (Chrome trace-event JSON)
    std::optional<std::string> svg;       // --svg FILE (schedule picture)
    std::optional<std::string> roofline;  // --roofline FILE (SVG roofline plot)
    std::optional<std::string> report;    // --report FILE (.json or .md)
    obs::DetailOptions detail;            // --detail-window FROM_NS:TO_NS, --detail-slices N
    std::uint64_t power_window_ps = 1000000;  // --power-window NS (the peak power's window; 1 µs)
    // --max-tokens N: stop once N tiles have been fed (0: no limit).
    std::uint64_t max_tokens = 0;
    // --max-sim-time NS: stop at this simulated time. The default, 2^62 ps
    // (53 days), keeps every time far from 64-bit ps (docs/limits.md).
    std::uint64_t max_sim_ps = kLongestRunPs;
    bool max_sim_given = false;
    std::optional<std::string> vcd;       // --vcd FILE (.vcd; a .gtkw is written beside it)
    std::vector<std::string> vcd_filter;  // --vcd-filter GLOB (repeatable)
    std::optional<std::string> vcd_rtl;   // --vcd-rtl FILE (.vcd of the RTL blocks, docs/rtl.md)
    std::optional<std::string> dump_dir;  // --dump-dir DIR (a workload's relative `dump` files go there)
    std::vector<std::string> compare;     // --compare W1 W2 ... (workload variants)
    std::vector<std::string> compare_sets;  // --compare-set "k=v k2=v2" (repeatable)
    std::vector<std::string> set_texts;   // every --set as written, for the summary
    bool list = false;                    // --list
    std::vector<std::pair<std::string, std::string>> routes;  // --route FROM TO (repeatable)
    std::uint64_t probe_bytes = 4u << 20; // --probe-bytes N
    bool per_stage = false;               // --per-stage (no decoupled pipeline)
    bool help = false;
    bool version = false;
};

// Whether the run simulates a workload (a --workload file or a mapped --model).
inline bool runs_workload(const CliOptions& o) { return o.workload.has_value() || o.model.has_value(); }

// Throws ConfigError (file "command line") on a malformed command line.
CliOptions parse_cli(int argc, const char* const* argv, const std::string& default_topology);

const char* cli_usage();

}  // namespace npuvp
