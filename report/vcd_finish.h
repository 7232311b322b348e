// The last pass over a VCD that the SystemC kernel wrote (`--vcd FILE`):
// its wall-clock `$date` replaced, so the same run writes the same bytes
// (T4); an idle engine's command and tile shown as `z` (blank in GTKWave)
// instead of the -1 the blocks trace; and, for a finished run, the run's
// power over time (Energy::power) added as one real-valued signal,
// `npuvp.power_w` in watts, above the platform's signals (docs/outputs.md
// "Power over time"). The kernel writes to a temporary file beside the
// output (vcd_kernel_path()); this pass writes the output itself atomically
// (AtomicOutput), as VCD text or, for a name ending in `.fst`, as GTKWave's
// compressed FST (report/fst_writer.h), and removes that file. It reads every
// change once, so it also measures how long each signal was busy, which
// orders the GTKWave save file (report/gtkw_writer.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/energy.h"

namespace npuvp {

// The VCD identifier of the power signal: SystemC's own are lower-case
// letters only, so it never collides with one.
inline constexpr const char* vcd_power_id = "!pw";

// Where the kernel writes the waves of `path` (FILE.vcd or FILE.fst):
// FILE.tmp.<pid>.vcd, so a reader of FILE never sees half a file. Asking for
// it also makes sure it goes when the process ends, whatever ends it before
// finish_vcd() (a run that fails, an output that cannot be written): no
// partial file is left behind.
std::string vcd_kernel_path(const std::string& path);

// Whether `path` asks for FST (it ends in `.fst`) rather than VCD text.
bool is_fst_path(const std::string& path);

// A signal that the pass wrote, in the file's order.
struct WaveSignal {
    std::string scope;  // its scopes joined with '.': SystemC.sip0.cube0.pe0.pe_dma.rd0
    std::string name;   // as GTKWave names it: its scope, '.', its name and range (cmd[31:0])
    int width = 1;
    bool real = false;           // a `real` variable (the power)
    bool idle_is_z = false;      // a command or tile number: -1 (idle) became z
    std::uint64_t busy_ps = 0;   // time away from its idle value: z if idle_is_z, else 0
};

struct WaveContents {
    std::vector<WaveSignal> signals;
    std::uint64_t end_ps = 0;  // the time of the last change
};

// The signals whose -1 means idle and is written as z: a block's `cmd` and
// `tile` (stage workers, DMA channels) and the scheduler's `<context>_cmd`.
bool idle_is_z(const std::string& var_name);

// Reads vcd_kernel_path(path), writes `path`, removes the former (also when
// it fails). Throws std::runtime_error naming the path when it cannot be
// read or written; `path` is then not written (AtomicOutput).
WaveContents finish_vcd(const std::string& path, const Energy* energy);

}  // namespace npuvp
