// `npuvp calibrate` (docs/validation.md "Calibrating to your measurements";
// issue 40 point 2): fits topology keys to measured latencies.
//
// Input: a CSV of measurements (a workload, optional `--set` overrides of
// that measurement, the measured ns, optionally which command or engine
// interval it is) and the keys to fit, each with bounds. Each measurement's
// workload runs as its own npuvp process (SystemC elaborates once per
// process), several at once; NLopt's BOBYQA (Debian's libnlopt) minimises
// the sum of squared relative errors within the bounds. Out: the calibrated
// topology YAML, a residual table (measured, model before, model after,
// error) and what the data could not determine (a key no measurement
// moves, keys that only move together).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace npuvp {

// What a measurement measured, read from the run's summary.
struct Interval {
    enum class Kind { makespan, command, engine } kind = Kind::makespan;
    std::string name;  // command id or engine (DMA_READ, GEMM, ...)
    std::string pe;    // "" = the first PE (in the summary's order) that has it
    std::string text() const;
};

struct Measurement {
    std::string where;  // FILE:LINE of its CSV row
    std::string workload;  // absolute path
    std::vector<std::string> sets;  // its own --set overrides (key=value)
    double measured_ns = 0;
    Interval interval;
};

// Reads a measurements CSV. A header line names the columns (any order):
// `workload` and `measured_ns` required, `set` and `interval` optional.
// Blank lines and lines starting with '#' are skipped; a field may be
// double-quoted. Workload paths are relative to the CSV's folder. Throws
// ConfigError naming the file, the line and the column.
std::vector<Measurement> read_measurements(const std::string& csv);

// One key to fit: `key=LO:HI`.
struct FitKey {
    std::string key;
    double lo = 0, hi = 0;
};
FitKey parse_fit(const std::string& text);

// argv[0] is "calibrate". Returns the exit code (sc_main/cli.h).
int run_calibrate(int argc, char* argv[]);

}  // namespace npuvp
