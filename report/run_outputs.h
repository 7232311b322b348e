// The outputs of a workload run (docs/cli.md "Outputs"): the printed report
// and the files of --timeline, --svg and --report, drawn from the recorder
// that listened to the run (run_recorder.h) and the model's own records.
// Shared by npuvp and its benchmark (bench/npuvp_bench.cpp, the *_outputs
// cases), so the benchmark measures what a user runs.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "platform/workload_run.h"
#include "report/layer_table.h"
#include "report/run_answers.h"
#include "report/run_recorder.h"
#include "report/run_view.h"

namespace npuvp {

struct OutputFiles {
    std::optional<std::string> timeline;  // --timeline FILE
    std::optional<std::string> svg;       // --svg FILE
    std::optional<std::string> report;    // --report FILE (.json or .md)
    std::optional<std::string> roofline;  // --roofline FILE (.svg; needs no recorder)
    bool any() const { return timeline || svg || report; }
};

// Builds the run view and the report; prints the report on `out` when
// `print`; writes each file asked for and names it on `out` ("timeline
// FILE"), then, when the tile detail is not the whole run, a note saying
// what it covers. For a failed run, what ran up to the stop, marked as
// failed. Throws ConfigError when a file cannot be opened,
// std::runtime_error when writing it fails.
// `layers`: a --model run's (docs/models.md), for the report's "layers".
// `view`, `answers`: the run view and what npuvp answers about the run
// when the caller built them already (npuvp does, to name the bottleneck
// first); else built here, from the recorder and with the default power
// window.
void write_outputs(const OutputFiles& files, const WorkloadRun& run, const Platform& platform,
                   const obs::RunRecorder& recorder, const std::string& name, bool print, std::ostream& out,
                   const std::vector<LayerResult>& layers = {}, const obs::RunView* view = nullptr,
                   const RunAnswers* answers = nullptr);

}  // namespace npuvp
