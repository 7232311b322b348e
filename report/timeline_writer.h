// The Chrome trace-event timeline of a run (`--timeline FILE`), which
// Perfetto and chrome://tracing open; drawn from the run view (run_view.h).
#pragma once

#include <ostream>
#include <vector>

#include "report/energy.h"
#include "report/layer_table.h"
#include "report/run_view.h"

namespace npuvp {

// Writes the run as Chrome trace-event JSON: {"traceEvents":[...],
// "displayTimeUnit":"ns"}. pid = PE (or node group), tid = engine / context
// lane; "X" slices per engine interval and per command, "s"/"f" flows along a
// token's stages and from a blocking command to the one that waited for it,
// "C" counters of tiles in flight, "M" names. A --model run's layers
// (docs/models.md) are one more process, "layers", a slice per layer.
// `energy`: the run's power over time (Energy::power) as one more process,
// "power", with a counter "power (W)" (docs/outputs.md "Power over time").
void write_timeline(std::ostream& out, const obs::RunView& view, const std::vector<LayerResult>& layers = {},
                    const Energy* energy = nullptr);

}  // namespace npuvp
