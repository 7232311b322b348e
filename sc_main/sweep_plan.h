// A design-space sweep's plan (`npuvp sweep`, docs/sweep.md; SPEC §9): the
// sweep file (read by config/sweep_file.h: a base topology and workload,
// fixed --set overrides, parameter axes, constraints) expanded into points,
// each a complete npuvp command line with a stable id derived from its
// parameter values.
//
// Axes combine as a cartesian product, first axis outermost; a `zip:` axis
// steps several parameters together. Points whose constraints do not all
// hold are left out. Every error names the sweep file, line and key.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace npuvp {

struct SweepParam {
    std::string name;  // CSV column and constraint variable
    // What the value sets: a --set key path, "workload" or "topology" (a
    // file, relative to the sweep file), or "" for a label that is only
    // recorded (e.g. the tile size that a zipped workload file uses).
    std::string key;
};

struct SweepPoint {
    std::size_t index = 0;            // position in the plan (cartesian order)
    std::string id;                   // stable: from the parameter values
    std::vector<std::string> values;  // one per SweepPlan::params, as written
    std::vector<std::string> args;    // npuvp's arguments, paths absolute
};

struct SweepPlan {
    std::string name;
    std::vector<SweepParam> params;
    std::vector<SweepPoint> points;
    std::size_t excluded = 0;  // points left out by the constraints
};

// Throws ConfigError naming file, line and key.
SweepPlan load_sweep_file(const std::string& path);

// The id of a point: "name=value" per parameter joined by ','; a workload or
// topology file appears as its name without directory and extension;
// characters other than [A-Za-z0-9._+-] in a value become '_'; an id longer than 120
// characters is cut and ends in '~' and 16 hex digits of an FNV-1a hash of
// the full "name=value" list. Deterministic: it depends on the names and
// values only.
std::string sweep_point_id(const std::vector<SweepParam>& params,
                           const std::vector<std::string>& values);

}  // namespace npuvp

namespace npuvp {

// The sweep's output directory (docs/sweep.md "Output directory"):
//   plan.tsv               the job list: index, id and one column per parameter
//   jobs.txt               one `npuvp sweep point DIR ID` command per line
//   sweep.yaml             a copy of the sweep file
//   points/ID/args         the point's npuvp arguments, one per line
//   points/ID/summary.json npuvp's --summary of the point
//   points/ID/result.json  how the point ended; its presence marks it done
//   points/ID/log.txt      npuvp's output
// The same plan again changes nothing; a plan that adds points keeps the
// results of the points it shares; a point that finished with other
// arguments than the new plan gives it is an error (results of two sweeps
// never mix under one id).
void write_sweep_dir(const SweepPlan& plan, const std::string& sweep_file, const std::string& dir,
                     const std::string& npuvp_path);

// Reads plan.tsv and every point's args back. Throws ConfigError naming the
// file when DIR holds no plan or a damaged one.
SweepPlan read_sweep_dir(const std::string& dir);

std::string point_dir(const std::string& dir, const std::string& id);

// A point's recorded outcome (points/ID/result.json, schema
// npuvp.sweep-result/1). Only final outcomes are recorded — npuvp's own exit
// codes and crashes —, so done = false means the point still has to run.
struct PointResult {
    bool done = false;
    std::string status;  // ok, failed, bad_input, internal_error, crashed
    int exit_code = -1;
    std::string error;
};

PointResult read_point_result(const std::string& dir, const std::string& id);

}  // namespace npuvp
