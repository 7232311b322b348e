// The last pass over a VCD that the SystemC kernel wrote (`--vcd FILE`):
// its wall-clock `$date` replaced, so the same run writes the same bytes
// (T4), and, for a finished run, the run's power over time (Energy::power)
// added as one real-valued signal, `npuvp.power_w` in watts, above the
// platform's signals (docs/outputs.md "Power over time"). The kernel
// writes to a temporary file beside the VCD (vcd_kernel_path()); this pass
// writes the VCD itself atomically (AtomicOutput) and removes that file.
#pragma once

#include <string>

#include "report/energy.h"

namespace npuvp {

// The VCD identifier of the power signal: SystemC's own are lower-case
// letters only, so it never collides with one.
inline constexpr const char* vcd_power_id = "!pw";

// Where the kernel writes the VCD of `path` (FILE.vcd): FILE.tmp.<pid>.vcd,
// so a reader of FILE.vcd never sees half a file. Asking for it also makes
// sure it goes when the process ends, whatever ends it before finish_vcd()
// (a run that fails, an output that cannot be written): no partial file is
// left behind.
std::string vcd_kernel_path(const std::string& path);

// Reads vcd_kernel_path(path), writes `path`, removes the former (also when
// it fails). Throws std::runtime_error naming the path when it cannot be
// read or written; `path` is then not written (AtomicOutput).
void finish_vcd(const std::string& path, const Energy* energy);

}  // namespace npuvp
