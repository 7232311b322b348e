// What npuvp answers about a finished run (docs/outputs.md): what bound it,
// its roofline, its energy and power. Computed once per run
// (answer_run()) and shown by every output: the terminal, --summary,
// --report, --roofline, and the power tracks of the timeline and the VCD.
#pragma once

#include <cstdint>
#include <vector>

#include "report/bottleneck.h"
#include "report/energy.h"
#include "report/layer_table.h"
#include "report/report_writer.h"
#include "report/roofline.h"
#include "report/run_view.h"

namespace npuvp {

struct RunAnswers {
    std::vector<Report::Step> critical_path;  // of the run view (critical_path())
    Bottleneck bound;                         // with its unused parts
    Roofline roofline;
    Energy energy;
};

// `layers`: a --model run's (its roofline points and the report's rows).
// `window_ps`: the peak power's window (--power-window).
RunAnswers answer_run(const WorkloadRun& run, const Platform& platform, const obs::RunView& view,
                      const std::vector<LayerResult>& layers, std::uint64_t window_ps = default_power_window_ps);

}  // namespace npuvp
