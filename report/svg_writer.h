// The schedule picture of a workload run (`--svg FILE`; SPEC §7): a
// self-contained SVG with one lane per engine and per execution context of
// each PE, every engine interval and every command as a labelled box
// (class "op") on a time axis in ns, and every command's wait (submitted ->
// started) as a hatched box (class "wait") under its context lane, coloured
// by cause, and the run's power under them. Deterministic: the same run writes the same bytes.
#pragma once

#include <ostream>

#include "report/energy.h"
#include "report/run_view.h"

namespace npuvp {

// `energy`: a finished run's; its power over time is a strip under the
// lanes, with the peak window shaded (docs/outputs.md "Power over time").
void write_svg(std::ostream& out, const obs::RunView& view, const std::string& title,
               const Energy* energy = nullptr);

}  // namespace npuvp
