// The last pass over a VCD that the SystemC kernel wrote (`--vcd FILE`):
// its wall-clock `$date` replaced, so the same run writes the same bytes
// (T4), and, for a finished run, the run's power over time (Energy::power)
// added as one real-valued signal, `npuvp.power_w` in watts, above the
// platform's signals (docs/outputs.md "Power over time"). The file is
// rewritten beside itself and renamed over it.
#pragma once

#include <string>

#include "report/energy.h"

namespace npuvp {

// The VCD identifier of the power signal: SystemC's own are lower-case
// letters only, so it never collides with one.
inline constexpr const char* vcd_power_id = "!pw";

// Throws std::runtime_error naming the path when it cannot be read or written.
void finish_vcd(const std::string& path, const Energy* energy);

}  // namespace npuvp
