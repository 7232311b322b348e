// `npuvp sweep collect DIR`: the points' summaries merged into one CSV, one
// row per point in plan order (parameters, then results; docs/sweep.md
// "Results CSV"), and, when asked, an SVG plot of one column against another
// — every ok point; against a parameter, joined into one line per
// combination of the other parameters — optionally with the Pareto front of
// the two plotted columns.
// Only deterministic figures go into the CSV (no wall-clock speed), so the
// same sweep gives the same bytes whichever backend ran it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace npuvp {

struct CollectOptions {
    std::string dir;
    std::string csv;   // default DIR/results.csv
    std::string plot;  // SVG file; empty: none
    std::string x, y;  // columns of the plot
    bool pareto = false;                // mark the Pareto front of (x, y)
    std::string group;                  // one series (a line) per value of this column
    bool log_x = false, log_y = false;  // logarithmic axes
    std::vector<std::string> maximize;  // columns where larger is better (default: smaller)
};

// The answers a run's summary gives (docs/sweep.md "Results CSV"), for the
// CSV and for `--compare`: the names, and one run's values in their order
// ("" where the summary lacks one).
const std::vector<std::string>& answer_columns();
std::vector<std::string> summary_answers(const std::string& summary_json);

// Returns the exit code: 0 when every point is ok, 1 when a point failed or
// is not done (the CSV is written either way), 2 for bad options.
int run_collect(const CollectOptions& options, std::ostream& out);

}  // namespace npuvp
