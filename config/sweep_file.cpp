// The sweep file's field tables (config/sweep_file.h). The file is read
// through the shared reader with the sweep's own wording, which its tests
// pin: the terse map errors (YamlReader::Rules::terse_map_errors), and
// scalars read as texts ("expected a single value"), since its values are
// handed on to --set as written.
#include "config/sweep_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <yaml-cpp/yaml.h>

#include "config/schema.h"
#include "config/topology_loader.h"
#include "config/yaml_document.h"
#include "config/yaml_reader.h"

namespace npuvp {
namespace {

using schema::DocRow;
using schema::Docs;
using schema::Field;
using schema::ListRule;
using schema::Table;

// No range expands past this: a typo in a range should not fill the disk.
constexpr std::size_t kMaxValues = 1000000;

[[noreturn]] void fail(const SourceLoc& loc, const std::string& message) { throw ConfigError(loc, message); }

std::string scalar(const Item& item) {
    if (!item.node.IsScalar()) fail(item.loc, "expected a single value");
    return item.node.Scalar();
}

double number(const Item& item) {
    const std::string text = scalar(item);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(v)) fail(item.loc, "expected a number, got '" + text + "'");
    return v;
}

// A value as written: a scalar's text, or a flow list / map (a --set value
// may be one, e.g. op_cost: {exp: 3}).
std::string value_text(const YAML::Node& node) {
    if (node.IsScalar()) return node.Scalar();
    YAML::Emitter out;
    out << YAML::Flow << node;
    return out.c_str();
}

bool valid_name(const std::string& name) {
    if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

std::string last_segment(const std::string& key) {
    const std::size_t dot = key.rfind('.');
    return dot == std::string::npos ? key : key.substr(dot + 1);
}

// ---------------------------------------------------------------- reads

void read_name(const MapReader& r, SweepFile& file) {
    file.name = r.has("name") ? scalar(r.child("name")) : "";
    if (!file.name.empty()) return;
    // The file's name without directory and extension.
    const std::string& path = r.reader().source();
    const std::size_t slash = path.rfind('/');
    file.name = path.substr(slash == std::string::npos ? 0 : slash + 1);
    const std::size_t dot = file.name.rfind('.');
    if (dot != std::string::npos) file.name.resize(dot);
}

// `topology`, `workload`: required, kept as written (the plan resolves them).
auto base_file(const std::string& key, SweepText SweepFile::*at, const std::string& missing) {
    return [=](const MapReader& r, SweepFile& file) {
        const Item item = r.child(key);
        if (!item.present) fail(item.loc, "missing: " + missing);
        file.*at = {scalar(item), item.loc};
    };
}

std::string read_set(const MapReader&, const Item& item) {
    const std::string text = scalar(item);
    try {
        parse_override(text);
    } catch (const ConfigError& e) {
        fail(item.loc, e.what());
    }
    return text;
}

SweepText read_constraint(const MapReader&, const Item& item) { return {scalar(item), item.loc}; }

// `key`: `workload`, `topology` or a --set key path.
void read_param_key(const MapReader& r, SweepFileParam& param) {
    if (!r.has("key")) return;
    const Item item = r.child("key");
    param.key = scalar(item);
    if (param.key == "workload" || param.key == "topology") return;
    try {
        parse_override(param.key + "=0");
    } catch (const ConfigError& e) {
        fail(item.loc, "not a --set key path: " + std::string(e.what()));
    }
}

// `name`, after `key`: its default is the key's last segment.
void read_param_name(const MapReader& r, SweepFileParam& param) {
    if (r.has("name")) param.name = scalar(r.child("name"));
    else if (!param.key.empty()) param.name = last_segment(param.key);
    else fail(r.item().loc, "give 'key' (what the value sets) or 'name' (a recorded label), or both");
    param.name_loc = r.child(r.has("name") ? "name" : "key").loc;
    param.name_loc.key_path = r.item().loc.key_path + ".name";
    if (!valid_name(param.name))
        fail(param.name_loc, "'" + param.name + "' is not a usable parameter name ([A-Za-z_][A-Za-z0-9_]*); give 'name'");
}

std::string read_value(const MapReader&, const Item& item) {
    if (item.node.IsNull()) fail(item.loc, "empty value");
    const std::string text = value_text(item.node);
    if (text.find_first_of("\t\n\r") != std::string::npos)
        fail(item.loc, "a value may not contain tabs or line breaks");
    return text;
}

// ---------------------------------------------------------------- range

auto range_number(const std::string& key, std::optional<double> SweepRange::*at) {
    return [=](const MapReader& r, SweepRange& range) {
        if (r.has(key)) range.*at = number(r.child(key));
    };
}

void check_range(const MapReader& r, const SweepRange& range) {
    if (!range.from || !range.to) fail(r.item().loc, "needs 'from' and 'to'");
    if (range.step.has_value() == range.factor.has_value())
        fail(r.item().loc, "give exactly one of 'step' (linear) and 'factor' (geometric)");
    if (*range.to < *range.from) fail(r.child("to").loc, "must be >= from (" + sweep_number_text(*range.from) + ")");
    if (range.step && *range.step <= 0) fail(r.child("step").loc, "must be > 0");
    if (range.factor && *range.factor <= 1) fail(r.child("factor").loc, "must be > 1");
    if (range.factor && *range.from <= 0) fail(r.child("from").loc, "must be > 0 for a geometric range");
}

const Table<SweepRange>& range_table() {
    using F = schema::Fields<SweepRange>;
    static const Table<SweepRange> table{
        {
            F::leaf("from", {"", "number", "", "**required**", "> 0 with `factor`", "the first value"}, range_number("from", &SweepRange::from), nullptr),
            F::leaf("to", {"", "number", "", "**required**", ">= `from`", "no value is above it"}, range_number("to", &SweepRange::to), nullptr),
            F::leaf("step", {"", "number", "", "one of `step`, `factor`", "> 0", "linear: from, from+step, … ≤ to"}, range_number("step", &SweepRange::step), nullptr),
            F::leaf("factor", {"", "number", "", "one of `step`, `factor`", "> 1", "geometric: from, from·factor, … ≤ to"}, range_number("factor", &SweepRange::factor), nullptr),
        },
        check_range};
    return table;
}

// from + i·step, or from·factor^i, up to `to` (and a hair above, for
// rounding); written as sweep_number_text() writes them.
std::vector<std::string> range_values(const SweepRange& range, const SourceLoc& loc) {
    const double from = *range.from, to = *range.to;
    const double slack = 1e-9 * std::max(1.0, std::fabs(to));
    std::vector<std::string> values;
    if (range.step) {
        // from + i·step (not repeated addition, which drifts).
        for (std::size_t i = 0; from + static_cast<double>(i) * *range.step <= to + slack; ++i) {
            if (values.size() >= kMaxValues) fail(loc, "more than 1000000 values");
            values.push_back(sweep_number_text(from + static_cast<double>(i) * *range.step));
        }
        return values;
    }
    for (double v = from; v <= to + slack; v *= *range.factor) {
        if (values.size() >= kMaxValues) fail(loc, "more than 1000000 values");
        values.push_back(sweep_number_text(v));
    }
    return values;
}

// `range`: another way to write `values`.
void read_param_range(const MapReader& r, SweepFileParam& param) {
    if (!r.has("range")) return;
    const Item item = r.child("range");
    SweepRange range;
    schema::read_map(r.reader(), item, range_table(), range);
    param.values = range_values(range, item.loc);
}

// ---------------------------------------------------------------- tables

void check_values_or_range(const MapReader& r, const SweepFileParam&) {
    if (r.has("values") == r.has("range")) fail(r.item().loc, "give exactly one of 'values' and 'range'");
}

// An axis's parameter (also a zip's). `key` comes before `name`, whose
// default it gives.
const Table<SweepFileParam>& param_table() {
    using F = schema::Fields<SweepFileParam>;
    static const Table<SweepFileParam> table{
        {
            F::leaf("key", {"", "string", "", "absent = a label", "a `--set` key path, `workload` or `topology`", "what the value sets: a `--set` key path (`docs/schema.md`, \"Overrides\"), or the `workload` or `topology` file (a file per value, relative to the sweep file); absent: a label, recorded but not passed to npuvp"}, read_param_key, nullptr),
            F::leaf("name", {"", "string", "", "the key's last segment", "`[A-Za-z_][A-Za-z0-9_]*`, unique", "the parameter's name in ids, the CSV and constraints; required without `key`"}, read_param_name, nullptr),
            F::list("values", &SweepFileParam::values, ListRule{1, false, "expected a non-empty list of values"}, read_value,
                    {"", "list", "", "one of `values`, `range`", "non-empty", "each value is passed as written (`128`, `builtin.pe_gemm`, a flow list `[1, 2]`); no tabs or line breaks"}),
            schema::with_section(
                F::leaf("range", {"", "map", "", "one of `values`, `range`", "", "numbers from `from` to `to` (below); integers stay integers, other values print with 12 significant digits"}, read_param_range, nullptr),
                "", [](Docs& docs, std::size_t section) { schema::document(range_table(), "", docs, section); }),
        },
        check_values_or_range};
    return table;
}

SweepFileParam read_param(const MapReader& parent, const Item& item) {
    SweepFileParam param;
    param.loc = item.loc;
    schema::read_map(parent.reader(), item, param_table(), param);
    return param;
}

void check_zip_lengths(const MapReader& r, const SweepFileAxis& axis) {
    const std::size_t length = axis.params.front().values.size();
    for (const SweepFileParam& param : axis.params)
        if (param.values.size() != length)
            fail(param.loc, "has " + std::to_string(param.values.size()) + " values but " + r.item().loc.key_path +
                                ".zip[0] has " + std::to_string(length) +
                                "; zipped axes step together and need equal lengths");
}

// An axis of zipped parameters: `zip` is its only key.
const Table<SweepFileAxis>& zip_table() {
    using F = schema::Fields<SweepFileAxis>;
    static const Table<SweepFileAxis> table{
        {
            F::list("zip", &SweepFileAxis::params, ListRule{2, true, "expected a list of at least two axes stepped together"}, read_param,
                    {"", "list", "", "", "two or more, of equal length", "instead of the keys above: parameters stepped together, each a map of `key`, `name`, `values`, `range`"}),
        },
        check_zip_lengths};
    return table;
}

SweepFileAxis read_axis(const MapReader& parent, const Item& item) {
    SweepFileAxis axis;
    if (item.node.IsMap() && item.node["zip"]) schema::read_map(parent.reader(), item, zip_table(), axis);
    else axis.params.push_back(read_param(parent, item));
    return axis;
}

const Table<SweepFile>& sweep_table() {
    using F = schema::Fields<SweepFile>;
    static const Table<SweepFile> table{{
        F::leaf("name", {"", "string", "", "the file's name without directory and extension", "", "the sweep's name, in `plan.tsv` and the Slurm job name"}, read_name, nullptr),
        F::leaf("topology", {"", "string", "", "**required**", "a file", "the base topology file; a relative path is relative to the sweep file"}, base_file("topology", &SweepFile::topology, "the base topology file"), nullptr),
        F::leaf("workload", {"", "string", "", "**required**", "a file", "the base workload file, likewise"}, base_file("workload", &SweepFile::workload, "the base workload file"), nullptr),
        F::list("set", &SweepFile::set, ListRule{0, false, "expected a list of KEY.PATH=VALUE"}, read_set,
                {"", "list", "", "none", "of `KEY.PATH=VALUE`", "`--set` overrides that every point gets (`docs/schema.md`, \"Overrides\")"}),
        schema::with_section(
            F::list("axes", &SweepFile::axes, ListRule{1, true, "expected a non-empty list of axes"}, read_axis,
                    {"", "list", "", "**required**", "non-empty", "the parameters: their cartesian product, first axis outermost; an axis is a parameter or a `zip` of them (below)"},
                    &SweepFile::axes_loc),
            "[]", [](Docs& docs, std::size_t section) {
                schema::document(param_table(), "", docs, section);
                schema::document(zip_table(), "", docs, section);
            }),
        F::list("constraints", &SweepFile::constraints, ListRule{0, false, "expected a list of expressions"}, read_constraint,
                {"", "list", "", "none", "of expressions", "a point is kept only where all hold. Expressions over the parameters: numbers, `'text'`, `+ - * / %`, `< <= > >= == !=`, `and or not`, parentheses; a value that reads as a number is a number, else text (text compares with `==` / `!=` only)"},
                &SweepFile::constraints_loc),
    }};
    return table;
}

}  // namespace

std::string sweep_number_text(double value) {
    char buffer[64];
    if (std::floor(value) == value && std::fabs(value) < 9.0e15) std::snprintf(buffer, sizeof buffer, "%.0f", value);
    else std::snprintf(buffer, sizeof buffer, "%.12g", value);
    return buffer;
}

SweepFile read_sweep_file(const std::string& path) {
    YamlReader yaml(path, YamlReader::Rules{false, false, true});
    const Table<SweepFile>& table = sweep_table();
    const YAML::Node document =
        parse_map_document(read_input_file(path), path, "sweep keys (" + join(table.keys()) + ")");
    SweepFile file;
    schema::read_map(yaml, yaml.root(document), table, file);
    return file;
}

std::string sweep_schema_markdown() {
    Docs docs{{"", {}}};
    schema::document(sweep_table(), "", docs, 0);
    return schema::markdown(docs);
}

}  // namespace npuvp
