// The sweep file as written (docs/sweep.md "The sweep file"; SPEC §9), read
// by field tables (config/schema.h) through the shared YamlReader: each map
// of the file — the top level, an axis's parameter, its range, a zip — is one
// table of key, member, default, bound and doc, which drives the read (the
// allowed keys, the checks of each value, file:line:column: key errors) and
// the key reference of docs/sweep.md. The plan (sc_main/sweep_plan.h) is made
// from it: files resolved, names checked across axes, constraints parsed,
// points expanded.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config_error.h"

namespace npuvp {

// A text of the sweep file and where it is written.
struct SweepText {
    std::string text;
    SourceLoc loc;
};

// `range: {from, to, step | factor}`.
struct SweepRange {
    std::optional<double> from, to, step, factor;
};

// A parameter: an axis, or one of a zip's.
struct SweepFileParam {
    std::string key;                  // a --set key path, "workload", "topology", or "" (a label)
    std::string name;                 // as given, or the key's last segment
    std::vector<std::string> values;  // as written, or the range's
    SourceLoc loc;                    // its map
    SourceLoc name_loc;               // its name (the key's place when the name is the default)
};

struct SweepFileAxis {
    std::vector<SweepFileParam> params;  // one, or the zipped ones (equal lengths)
};

struct SweepFile {
    std::string name;  // as given, or the file's name without directory and extension
    SweepText topology, workload;
    std::vector<std::string> set;
    std::vector<SweepFileAxis> axes;
    SourceLoc axes_loc;
    std::vector<SweepText> constraints;
    SourceLoc constraints_loc;
};

// Throws ConfigError naming file, line, column and key path.
SweepFile read_sweep_file(const std::string& path);

// How the sweep file writes a number it makes (a range's values, a count):
// an integer as one, anything else with 12 significant digits.
std::string sweep_number_text(double value);

// The key reference of the sweep file (key, type, default, bound, meaning)
// as markdown, generated from the tables: the "Keys" part of docs/sweep.md,
// which sweep_file_test keeps equal to it.
std::string sweep_schema_markdown();

}  // namespace npuvp
