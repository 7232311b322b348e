#include "sc_main/sweep_plan.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "report/atomic_file.h"
#include "config/config_error.h"
#include "config/topology_loader.h"
#include "config/yaml_document.h"
#include "config/yaml_reader.h"

namespace npuvp {
namespace {

// No sweep expands past this: a typo in a range should not fill the disk.
constexpr std::size_t kMaxPoints = 1000000;
constexpr std::size_t kMaxIdLength = 120;

// ------------------------------------------------------------ YAML access

// The sweep file read through the shared reader (config/yaml_reader.h) with
// its terse map wording; the scalars keep the sweep's own wording ("expected
// a single value"), since its values are texts handed on to --set.
class SweepReader {
public:
    explicit SweepReader(const std::string& file)
        : m_yaml(file, YamlReader::Rules{false, false, true}) {}

    [[noreturn]] static void fail(const Item& item, const std::string& message) {
        throw ConfigError(item.loc, message);
    }
    // At `item`'s place, reported under another key path.
    [[noreturn]] static void fail_as(const Item& item, const std::string& path,
                                     const std::string& message) {
        SourceLoc loc = item.loc;
        loc.key_path = path;
        throw ConfigError(loc, message);
    }

    Item root(const YAML::Node& node) const { return m_yaml.root(node); }
    MapReader map(const Item& item, const std::vector<std::string>& keys) {
        return MapReader(m_yaml, item, keys);
    }
    // Element i of a list, as path[i].
    Item element(const Item& list, std::size_t i) const {
        Item item = m_yaml.child_item(list, list.node[i], "");
        item.loc.key_path = list.loc.key_path + "[" + std::to_string(i) + "]";
        return item;
    }

    std::string scalar(const Item& item) const {
        if (!item.node.IsScalar()) fail(item, "expected a single value");
        return item.node.Scalar();
    }

    double number(const Item& item) const {
        const std::string text = scalar(item);
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v))
            fail(item, "expected a number, got '" + text + "'");
        return v;
    }

    const std::string& file() const { return m_yaml.source(); }

private:
    YamlReader m_yaml;
};

// The keys of each map of the sweep file (docs/sweep.md).
const std::vector<std::string> kSweepKeys = {"name", "topology", "workload", "set", "axes", "constraints"};
const std::vector<std::string> kParamKeys = {"key", "name", "values", "range"};
const std::vector<std::string> kRangeKeys = {"from", "to", "step", "factor"};

// A value as written: a scalar's text, or a flow list / map (a --set value
// may be one, e.g. op_cost: {exp: 3}).
std::string value_text(const YAML::Node& node) {
    if (node.IsScalar()) return node.Scalar();
    YAML::Emitter out;
    out << YAML::Flow << node;
    return out.c_str();
}

bool is_integer(double v) { return std::floor(v) == v && std::fabs(v) < 9.0e15; }

std::string number_text(double v) {
    char buffer[64];
    if (is_integer(v)) std::snprintf(buffer, sizeof buffer, "%.0f", v);
    else std::snprintf(buffer, sizeof buffer, "%.12g", v);
    return buffer;
}

bool valid_name(const std::string& name) {
    if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
        return false;
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

// ------------------------------------------------------------ constraints

// A small expression language over the parameters:
//   or / and / not, comparisons (< <= > >= == !=), + - * / %, unary -,
//   parentheses, numbers, 'strings' and parameter names.
// A parameter whose value reads as a number is a number, otherwise a string
// (strings compare with == and != only).
struct Value {
    bool is_number = true;
    double number = 0.0;
    std::string text;
};

struct Expr {
    enum class Op { number, text, param, neg, not_, add, sub, mul, div, mod, lt, le, gt, ge, eq, ne, and_, or_ };
    Op op = Op::number;
    double number = 0.0;
    std::string text;
    std::size_t param = 0;
    std::unique_ptr<Expr> a, b;
};

class ExprParser {
public:
    ExprParser(const std::string& text, const std::map<std::string, std::size_t>& names)
        : m_text(text), m_names(names) {}

    std::unique_ptr<Expr> parse() {
        auto e = parse_or();
        skip();
        if (m_pos != m_text.size()) error("unexpected '" + m_text.substr(m_pos) + "'");
        return e;
    }

    struct Error {
        std::string message;
    };

private:
    [[noreturn]] void error(const std::string& message) const { throw Error{message}; }

    void skip() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
    }
    bool word(const char* w) {
        skip();
        const std::size_t n = std::char_traits<char>::length(w);
        if (m_text.compare(m_pos, n, w) != 0) return false;
        const std::size_t end = m_pos + n;
        if (end < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[end])) || m_text[end] == '_'))
            return false;
        m_pos = end;
        return true;
    }
    bool symbol(const char* s) {
        skip();
        const std::size_t n = std::char_traits<char>::length(s);
        if (m_text.compare(m_pos, n, s) != 0) return false;
        m_pos += n;
        return true;
    }
    static std::unique_ptr<Expr> node(Expr::Op op, std::unique_ptr<Expr> a, std::unique_ptr<Expr> b = nullptr) {
        auto e = std::make_unique<Expr>();
        e->op = op;
        e->a = std::move(a);
        e->b = std::move(b);
        return e;
    }

    std::unique_ptr<Expr> parse_or() {
        auto e = parse_and();
        while (word("or")) e = node(Expr::Op::or_, std::move(e), parse_and());
        return e;
    }
    std::unique_ptr<Expr> parse_and() {
        auto e = parse_not();
        while (word("and")) e = node(Expr::Op::and_, std::move(e), parse_not());
        return e;
    }
    std::unique_ptr<Expr> parse_not() {
        if (word("not")) return node(Expr::Op::not_, parse_not());
        return parse_compare();
    }
    std::unique_ptr<Expr> parse_compare() {
        auto e = parse_sum();
        static const std::pair<const char*, Expr::Op> ops[] = {
            {"<=", Expr::Op::le}, {">=", Expr::Op::ge}, {"==", Expr::Op::eq},
            {"!=", Expr::Op::ne}, {"<", Expr::Op::lt},  {">", Expr::Op::gt}};
        for (const auto& [s, op] : ops)
            if (symbol(s)) return node(op, std::move(e), parse_sum());
        return e;
    }
    std::unique_ptr<Expr> parse_sum() {
        auto e = parse_product();
        for (;;) {
            if (symbol("+")) e = node(Expr::Op::add, std::move(e), parse_product());
            else if (symbol("-")) e = node(Expr::Op::sub, std::move(e), parse_product());
            else return e;
        }
    }
    std::unique_ptr<Expr> parse_product() {
        auto e = parse_unary();
        for (;;) {
            if (symbol("*")) e = node(Expr::Op::mul, std::move(e), parse_unary());
            else if (symbol("/")) e = node(Expr::Op::div, std::move(e), parse_unary());
            else if (symbol("%")) e = node(Expr::Op::mod, std::move(e), parse_unary());
            else return e;
        }
    }
    std::unique_ptr<Expr> parse_unary() {
        if (symbol("-")) return node(Expr::Op::neg, parse_unary());
        return parse_atom();
    }
    std::unique_ptr<Expr> parse_atom() {
        skip();
        if (m_pos >= m_text.size()) error("expression ends too early");
        auto e = std::make_unique<Expr>();
        const char c = m_text[m_pos];
        if (c == '(') {
            ++m_pos;
            e = parse_or();
            if (!symbol(")")) error("missing ')'");
            return e;
        }
        if (c == '\'') {
            const std::size_t end = m_text.find('\'', m_pos + 1);
            if (end == std::string::npos) error("unterminated string");
            e->op = Expr::Op::text;
            e->text = m_text.substr(m_pos + 1, end - m_pos - 1);
            m_pos = end + 1;
            return e;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            const char* begin = m_text.c_str() + m_pos;
            char* end = nullptr;
            e->op = Expr::Op::number;
            e->number = std::strtod(begin, &end);
            m_pos += static_cast<std::size_t>(end - begin);
            return e;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            std::size_t end = m_pos;
            while (end < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[end])) || m_text[end] == '_'))
                ++end;
            const std::string name = m_text.substr(m_pos, end - m_pos);
            const auto it = m_names.find(name);
            if (it == m_names.end()) {
                std::string known;
                for (const auto& [n, i] : m_names) known += (known.empty() ? "" : ", ") + n;
                error("unknown parameter '" + name + "' (parameters: " + known + ")");
            }
            e->op = Expr::Op::param;
            e->param = it->second;
            m_pos = end;
            return e;
        }
        error(std::string("unexpected '") + c + "'");
    }

    const std::string& m_text;
    const std::map<std::string, std::size_t>& m_names;
    std::size_t m_pos = 0;
};

Value param_value(const std::string& text) {
    Value v;
    char* end = nullptr;
    v.number = std::strtod(text.c_str(), &end);
    v.is_number = !text.empty() && *end == '\0';
    v.text = text;
    return v;
}

// Throws ExprParser::Error for a type mismatch.
Value eval(const Expr& e, const std::vector<Value>& params) {
    auto num = [](double d) { Value v; v.number = d; return v; };
    auto truth = [](const Value& v) { return v.is_number ? v.number != 0.0 : !v.text.empty(); };
    auto need_numbers = [](const Value& a, const Value& b) {
        if (!a.is_number || !b.is_number)
            throw ExprParser::Error{"arithmetic or ordering on a text value ('" +
                                    (a.is_number ? b.text : a.text) + "')"};
    };
    switch (e.op) {
        case Expr::Op::number: return num(e.number);
        case Expr::Op::text: { Value v; v.is_number = false; v.text = e.text; return v; }
        case Expr::Op::param: return params[e.param];
        case Expr::Op::not_: return num(truth(eval(*e.a, params)) ? 0.0 : 1.0);
        case Expr::Op::and_: return num(truth(eval(*e.a, params)) && truth(eval(*e.b, params)));
        case Expr::Op::or_: return num(truth(eval(*e.a, params)) || truth(eval(*e.b, params)));
        case Expr::Op::neg: {
            const Value a = eval(*e.a, params);
            need_numbers(a, a);
            return num(-a.number);
        }
        default: break;
    }
    const Value a = eval(*e.a, params), b = eval(*e.b, params);
    if (e.op == Expr::Op::eq || e.op == Expr::Op::ne) {
        auto text = [](const Value& v) { return v.is_number && v.text.empty() ? number_text(v.number) : v.text; };
        const bool same = a.is_number && b.is_number ? a.number == b.number : text(a) == text(b);
        return num((e.op == Expr::Op::eq) == same);
    }
    need_numbers(a, b);
    switch (e.op) {
        case Expr::Op::add: return num(a.number + b.number);
        case Expr::Op::sub: return num(a.number - b.number);
        case Expr::Op::mul: return num(a.number * b.number);
        case Expr::Op::div: return num(b.number != 0.0 ? a.number / b.number : NAN);
        case Expr::Op::mod: return num(b.number != 0.0 ? std::fmod(a.number, b.number) : NAN);
        case Expr::Op::lt: return num(a.number < b.number);
        case Expr::Op::le: return num(a.number <= b.number);
        case Expr::Op::gt: return num(a.number > b.number);
        case Expr::Op::ge: return num(a.number >= b.number);
        default: return num(0.0);
    }
}

// ------------------------------------------------------------ axes

// One axis of the product: its parameters (several for a zip) and, per step,
// one value per parameter.
struct Axis {
    std::vector<std::size_t> params;
    std::vector<std::vector<std::string>> steps;
};

// `values: [...]`: each value as written.
std::vector<std::string> read_list_values(const SweepReader& r, const Item& list) {
    if (!list.node.IsSequence() || list.node.size() == 0)
        r.fail(list, "expected a non-empty list of values");
    std::vector<std::string> values;
    for (std::size_t i = 0; i < list.node.size(); ++i) {
        const Item value = r.element(list, i);
        if (value.node.IsNull()) r.fail(value, "empty value");
        const std::string text = value_text(value.node);
        if (text.find_first_of("\t\n\r") != std::string::npos)
            r.fail(value, "a value may not contain tabs or line breaks");
        values.push_back(text);
    }
    return values;
}

// `range: {from, to, step | factor}`: from + i·step, or from·factor^i, up to to.
std::vector<std::string> read_range_values(SweepReader& r, const Item& item) {
    const MapReader range = r.map(item, kRangeKeys);
    if (!range.has("from") || !range.has("to")) r.fail(item, "needs 'from' and 'to'");
    if (range.has("step") == range.has("factor"))
        r.fail(item, "give exactly one of 'step' (linear) and 'factor' (geometric)");
    const double from = r.number(range.child("from"));
    const double to = r.number(range.child("to"));
    if (to < from) r.fail(range.child("to"), "must be >= from (" + number_text(from) + ")");
    const double slack = 1e-9 * std::max(1.0, std::fabs(to));
    std::vector<std::string> values;
    if (range.has("step")) {
        const double step = r.number(range.child("step"));
        if (step <= 0) r.fail(range.child("step"), "must be > 0");
        // from + i·step (not repeated addition, which drifts).
        for (std::size_t i = 0; from + static_cast<double>(i) * step <= to + slack; ++i) {
            if (values.size() >= kMaxPoints) r.fail(item, "more than 1000000 values");
            values.push_back(number_text(from + static_cast<double>(i) * step));
        }
        return values;
    }
    const double factor = r.number(range.child("factor"));
    if (factor <= 1) r.fail(range.child("factor"), "must be > 1");
    if (from <= 0) r.fail(range.child("from"), "must be > 0 for a geometric range");
    for (double v = from; v <= to + slack; v *= factor) {
        if (values.size() >= kMaxPoints) r.fail(item, "more than 1000000 values");
        values.push_back(number_text(v));
    }
    return values;
}

std::vector<std::string> read_values(SweepReader& r, const MapReader& param) {
    if (param.has("values") == param.has("range"))
        r.fail(param.item(), "give exactly one of 'values' and 'range'");
    if (param.has("values")) return read_list_values(r, param.child("values"));
    return read_range_values(r, param.child("range"));
}

std::string default_name(const std::string& key) {
    const std::size_t dot = key.rfind('.');
    return dot == std::string::npos ? key : key.substr(dot + 1);
}

std::string directory_of(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

// A path from the sweep file: relative ones are relative to the sweep file's
// directory; the result is absolute, so a point runs from any directory (a
// Slurm node, a GNU parallel ssh login).
std::string resolve(const SweepReader& r, const Item& item, const std::string& key,
                    const std::string& path) {
    const std::string joined = !path.empty() && path[0] == '/' ? path : directory_of(r.file()) + "/" + path;
    char* real = realpath(joined.c_str(), nullptr);
    if (!real) r.fail_as(item, key, "cannot find file '" + path + "' (looked for " + joined + ")");
    std::string out(real);
    std::free(real);
    return out;
}

std::uint64_t fnv1a(const std::string& text) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

}  // namespace

std::string sweep_point_id(const std::vector<SweepParam>& params,
                           const std::vector<std::string>& values) {
    std::string id, canonical;
    for (std::size_t i = 0; i < params.size(); ++i) {
        id += (i ? "," : "") + params[i].name + "=";
        // A file stands in the id by its name without directory and extension.
        std::string shown = values[i];
        if (params[i].key == "workload" || params[i].key == "topology") {
            shown = shown.substr(shown.rfind('/') == std::string::npos ? 0 : shown.rfind('/') + 1);
            if (shown.rfind('.') != std::string::npos && shown.rfind('.') > 0) shown.resize(shown.rfind('.'));
        }
        for (char c : shown)
            id += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' || c == '-' ? c : '_';
        canonical += params[i].name + "=" + values[i] + "\n";
    }
    if (id.size() <= kMaxIdLength) return id;
    char hash[20];
    std::snprintf(hash, sizeof hash, "~%016llx", static_cast<unsigned long long>(fnv1a(canonical)));
    return id.substr(0, kMaxIdLength - 17) + hash;
}

namespace {

// The sweep file while it is read: the plan so far, and what later parts
// need of earlier ones (the parameters' names and places, for the
// constraints and for file-valued parameters).
struct SweepLoad {
    SweepReader r;
    SweepPlan plan;
    std::string topology, workload;  // the base files, resolved
    std::vector<std::string> fixed_sets;
    std::vector<Axis> axes;
    Item axes_item;
    std::vector<Item> param_items;  // for errors about a parameter
    std::map<std::string, std::size_t> names;
    std::vector<std::map<std::string, std::string>> resolved;  // file-valued parameters
    std::vector<std::pair<std::unique_ptr<Expr>, Item>> constraints;

    explicit SweepLoad(const std::string& path) : r(path) {}
};

std::string plan_name(const SweepReader& r, const MapReader& root, const std::string& path) {
    std::string name = root.has("name") ? r.scalar(root.child("name")) : "";
    if (!name.empty()) return name;
    // The file's name without directory and extension.
    const std::size_t slash = path.rfind('/');
    name = path.substr(slash == std::string::npos ? 0 : slash + 1);
    const std::size_t dot = name.rfind('.');
    if (dot != std::string::npos) name.resize(dot);
    return name;
}

void read_base_files(SweepLoad& s, const MapReader& root) {
    if (!root.has("topology")) s.r.fail(root.child("topology"), "missing: the base topology file");
    if (!root.has("workload")) s.r.fail(root.child("workload"), "missing: the base workload file");
    const Item topology = root.child("topology"), workload = root.child("workload");
    s.topology = resolve(s.r, topology, "topology", s.r.scalar(topology));
    s.workload = resolve(s.r, workload, "workload", s.r.scalar(workload));
}

// `set: [KEY.PATH=VALUE, ...]`: overrides every point gets.
void read_fixed_sets(SweepLoad& s, const MapReader& root) {
    if (!root.has("set")) return;
    const Item sets = root.child("set");
    if (!sets.node.IsSequence()) s.r.fail(sets, "expected a list of KEY.PATH=VALUE");
    for (std::size_t i = 0; i < sets.node.size(); ++i) {
        const Item set = s.r.element(sets, i);
        const std::string text = s.r.scalar(set);
        try {
            parse_override(text);
        } catch (const ConfigError& e) {
            s.r.fail(set, e.what());
        }
        s.fixed_sets.push_back(text);
    }
}

// A parameter's `key`: `workload`, `topology` or a --set key path.
std::string read_param_key(const SweepReader& r, const MapReader& item) {
    if (!item.has("key")) return "";
    const Item key_item = item.child("key");
    const std::string key = r.scalar(key_item);
    if (key == "workload" || key == "topology") return key;
    try {
        parse_override(key + "=0");
    } catch (const ConfigError& e) {
        r.fail(key_item, "not a --set key path: " + std::string(e.what()));
    }
    return key;
}

// One parameter of an axis (its map is also where its values are).
std::size_t add_param(SweepLoad& s, const MapReader& item) {
    const std::string ipath = item.item().loc.key_path;
    SweepParam p;
    p.key = read_param_key(s.r, item);
    if (item.has("name")) p.name = s.r.scalar(item.child("name"));
    else if (!p.key.empty()) p.name = default_name(p.key);
    else s.r.fail(item.item(), "give 'key' (what the value sets) or 'name' (a recorded label), or both");
    const Item name_item = item.has("name") ? item.child("name") : item.child("key");
    if (!valid_name(p.name))
        s.r.fail_as(name_item, ipath + ".name",
                    "'" + p.name + "' is not a usable parameter name ([A-Za-z_][A-Za-z0-9_]*); give 'name'");
    if (s.names.count(p.name))
        s.r.fail_as(name_item, ipath + ".name",
                    "parameter name '" + p.name + "' is used twice; give each axis its own 'name'");
    s.names[p.name] = s.plan.params.size();
    s.plan.params.push_back(p);
    s.param_items.push_back(item.item());
    return s.plan.params.size() - 1;
}

// `zip: [axis, axis, ...]`: parameters stepped together.
Axis read_zip(SweepLoad& s, const Item& item) {
    const std::string apath = item.loc.key_path;
    const Item zip = s.r.map(item, {"zip"}).child("zip");
    if (!zip.node.IsSequence() || zip.node.size() < 2)
        s.r.fail(zip, "expected a list of at least two axes stepped together");
    Axis axis;
    std::vector<std::vector<std::string>> columns;
    for (std::size_t z = 0; z < zip.node.size(); ++z) {
        const MapReader param = s.r.map(s.r.element(zip, z), kParamKeys);
        axis.params.push_back(add_param(s, param));
        columns.push_back(read_values(s.r, param));
        if (columns.back().size() != columns.front().size())
            s.r.fail(param.item(), "has " + std::to_string(columns.back().size()) + " values but " + apath +
                                       ".zip[0] has " + std::to_string(columns.front().size()) +
                                       "; zipped axes step together and need equal lengths");
    }
    for (std::size_t i = 0; i < columns.front().size(); ++i) {
        std::vector<std::string> step;
        for (const auto& c : columns) step.push_back(c[i]);
        axis.steps.push_back(step);
    }
    return axis;
}

Axis read_axis(SweepLoad& s, const Item& item) {
    if (item.node.IsMap() && item.node["zip"]) return read_zip(s, item);
    const MapReader param = s.r.map(item, kParamKeys);
    Axis axis;
    axis.params.push_back(add_param(s, param));
    for (const std::string& v : read_values(s.r, param)) axis.steps.push_back({v});
    return axis;
}

void read_axes(SweepLoad& s, const MapReader& root) {
    s.axes_item = root.child("axes");
    const YAML::Node& node = s.axes_item.node;
    if (!s.axes_item.present || !node.IsSequence() || node.size() == 0)
        s.r.fail(s.axes_item, "expected a non-empty list of axes");
    for (std::size_t a = 0; a < node.size(); ++a) s.axes.push_back(read_axis(s, s.r.element(s.axes_item, a)));
}

// File-valued parameters, resolved once per distinct value.
void resolve_file_params(SweepLoad& s) {
    s.resolved.resize(s.plan.params.size());
    for (const Axis& axis : s.axes)
        for (std::size_t k = 0; k < axis.params.size(); ++k) {
            const std::size_t i = axis.params[k];
            const SweepParam& p = s.plan.params[i];
            if (p.key != "workload" && p.key != "topology") continue;
            for (const auto& step : axis.steps)
                if (!s.resolved[i].count(step[k]))
                    s.resolved[i][step[k]] = resolve(s.r, s.param_items[i], p.name, step[k]);
        }
}

void read_constraints(SweepLoad& s, const MapReader& root) {
    if (!root.has("constraints")) return;
    const Item list = root.child("constraints");
    if (!list.node.IsSequence()) s.r.fail(list, "expected a list of expressions");
    for (std::size_t i = 0; i < list.node.size(); ++i) {
        const Item item = s.r.element(list, i);
        const std::string text = s.r.scalar(item);
        try {
            s.constraints.push_back({ExprParser(text, s.names).parse(), item});
        } catch (const ExprParser::Error& e) {
            s.r.fail(item, e.message);
        }
    }
}

bool passes_constraints(const SweepLoad& s, const std::vector<std::string>& values) {
    std::vector<Value> vars;
    for (const std::string& v : values) vars.push_back(param_value(v));
    for (const auto& [expr, item] : s.constraints) {
        try {
            const Value v = eval(*expr, vars);
            if (v.is_number ? v.number == 0.0 : v.text.empty()) return false;
        } catch (const ExprParser::Error& e) {
            s.r.fail_as(item, "constraints", e.message);
        }
    }
    return true;
}

// The command line of the point with `values`.
std::vector<std::string> point_args(const SweepLoad& s, const std::vector<std::string>& values) {
    std::string topo = s.topology, work = s.workload;
    std::vector<std::string> sets = s.fixed_sets;
    for (std::size_t i = 0; i < s.plan.params.size(); ++i) {
        const SweepParam& p = s.plan.params[i];
        if (p.key == "topology") topo = s.resolved[i].at(values[i]);
        else if (p.key == "workload") work = s.resolved[i].at(values[i]);
        else if (!p.key.empty()) sets.push_back(p.key + "=" + values[i]);
    }
    std::vector<std::string> args = {"--topology", topo, "--workload", work};
    for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
    return args;
}

// The product, first axis outermost (an odometer over the axes).
void expand_points(SweepLoad& s) {
    double total = 1;
    for (const Axis& axis : s.axes) total *= static_cast<double>(axis.steps.size());
    if (total > static_cast<double>(kMaxPoints))
        s.r.fail(s.axes_item, "the axes give " + number_text(total) + " points, more than 1000000");
    std::vector<std::size_t> at(s.axes.size(), 0);
    std::map<std::string, std::size_t> ids;
    for (std::size_t n = 0; n < static_cast<std::size_t>(total); ++n) {
        std::vector<std::string> values(s.plan.params.size());
        for (std::size_t a = 0; a < s.axes.size(); ++a)
            for (std::size_t k = 0; k < s.axes[a].params.size(); ++k)
                values[s.axes[a].params[k]] = s.axes[a].steps[at[a]][k];
        for (std::size_t a = s.axes.size(); a-- > 0;) {  // advance the odometer
            if (++at[a] < s.axes[a].steps.size()) break;
            at[a] = 0;
        }
        if (!passes_constraints(s, values)) {
            ++s.plan.excluded;
            continue;
        }
        SweepPoint point;
        point.index = s.plan.points.size();
        point.values = values;
        point.id = sweep_point_id(s.plan.params, values);
        if (ids.count(point.id))
            s.r.fail(s.axes_item,
                     "two points get the same id '" + point.id + "' (values that differ only in characters "
                     "outside [A-Za-z0-9._+-]); make the values or names distinct");
        ids[point.id] = point.index;
        point.args = point_args(s, values);
        s.plan.points.push_back(point);
    }
}

}  // namespace

SweepPlan load_sweep_file(const std::string& path) {
    SweepLoad s(path);
    const Item root_item = s.r.root(parse_map_document(
        read_input_file(path), path, "sweep keys (name, topology, workload, set, axes, constraints)"));
    const MapReader root = s.r.map(root_item, kSweepKeys);
    s.plan.name = plan_name(s.r, root, path);
    read_base_files(s, root);
    read_fixed_sets(s, root);
    read_axes(s, root);
    resolve_file_params(s);
    read_constraints(s, root);
    expand_points(s);
    if (s.plan.points.empty())
        s.r.fail(root.child("constraints"), "the constraints leave no point to run");
    return s.plan;
}

}  // namespace npuvp

// ------------------------------------------------------------ output directory

namespace npuvp {
namespace {

std::string read_text(const std::string& path, bool* ok = nullptr) {
    std::ifstream in(path, std::ios::binary);
    if (ok) *ok = static_cast<bool>(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void make_dir(const std::string& path) {
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
        throw ConfigError(SourceLoc{path, 0, 0, ""},
                          std::string("cannot create directory: ") + std::strerror(errno));
}

// A single-quoted shell word.
std::string shell_word(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

std::string plan_tsv(const SweepPlan& plan) {
    std::string out = "#npuvp.sweep-plan/1\t" + plan.name + "\nindex\tid";
    for (const SweepParam& p : plan.params) out += "\t" + p.name;
    out += "\n";
    for (const SweepPoint& pt : plan.points) {
        out += std::to_string(pt.index) + "\t" + pt.id;
        for (const std::string& v : pt.values) out += "\t" + v;
        out += "\n";
    }
    return out;
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = text.find(sep, start);
        out.push_back(text.substr(start, end - start));
        if (end == std::string::npos) return out;
        start = end + 1;
    }
}

}  // namespace

std::string point_dir(const std::string& dir, const std::string& id) { return dir + "/points/" + id; }

PointResult read_point_result(const std::string& dir, const std::string& id) {
    PointResult r;
    bool exists = false;
    const std::string text = read_text(point_dir(dir, id) + "/result.json", &exists);
    if (!exists) return r;
    try {
        const YAML::Node n = YAML::Load(text);  // JSON is YAML
        r.status = n["status"].as<std::string>();
        r.exit_code = n["exit_code"].as<int>();
        r.error = n["error"].as<std::string>();
        r.done = true;
    } catch (const std::exception&) {
        r = PointResult{};  // unreadable (not written by npuvp): the point runs again
    }
    return r;
}

void write_sweep_dir(const SweepPlan& plan, const std::string& sweep_file, const std::string& dir,
                     const std::string& npuvp_path) {
    make_dir(dir);
    make_dir(dir + "/points");
    // A point's results stay valid as long as its arguments are the same: a
    // sweep may grow (another value on an axis) in the same directory, but a
    // point that ran with other arguments (say, another base topology) would
    // mix two sweeps' results under one id.
    for (const SweepPoint& pt : plan.points) {
        const std::string pdir = point_dir(dir, pt.id);
        std::string args;
        for (const std::string& a : pt.args) args += a + "\n";
        bool have = false, done = false;
        const std::string old = read_text(pdir + "/args", &have);
        read_text(pdir + "/result.json", &done);
        if (have && old == args) continue;
        if (have && done)
            throw ConfigError(SourceLoc{pdir + "/args", 0, 0, ""},
                              "point " + pt.id + " of this directory ran with other arguments than " +
                                  sweep_file + " gives it; use another --out directory or remove this one");
        make_dir(pdir);
        write_file_atomically(pdir + "/args", [&](std::ostream& o) { o << args; });
    }
    std::string jobs;
    for (const SweepPoint& pt : plan.points)
        jobs += shell_word(npuvp_path) + " sweep point " + shell_word(dir) + " " + shell_word(pt.id) + "\n";
    write_file_atomically(dir + "/jobs.txt", [&](std::ostream& o) { o << jobs; });
    const std::string copy = read_text(sweep_file);
    write_file_atomically(dir + "/sweep.yaml", [&](std::ostream& o) { o << copy; });
    // Last: a directory with plan.tsv is complete.
    const std::string tsv = plan_tsv(plan);
    bool exists = false;
    if (read_text(dir + "/plan.tsv", &exists) != tsv || !exists)
        write_file_atomically(dir + "/plan.tsv", [&](std::ostream& o) { o << tsv; });
}

SweepPlan read_sweep_dir(const std::string& dir) {
    const std::string file = dir + "/plan.tsv";
    bool ok = false;
    const std::string text = read_text(file, &ok);
    if (!ok)
        throw ConfigError(SourceLoc{file, 0, 0, ""},
                          "no sweep plan here (run `npuvp sweep run SWEEP.yaml --out " + dir + "` first)");
    std::vector<std::string> lines = split(text, '\n');
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    if (lines.size() < 2 || lines[0].rfind("#npuvp.sweep-plan/1\t", 0) != 0)
        throw ConfigError(SourceLoc{file, 1, 0, ""}, "not an npuvp sweep plan (npuvp.sweep-plan/1)");
    SweepPlan plan;
    plan.name = lines[0].substr(lines[0].find('\t') + 1);
    const std::vector<std::string> header = split(lines[1], '\t');
    if (header.size() < 2 || header[0] != "index" || header[1] != "id")
        throw ConfigError(SourceLoc{file, 2, 0, ""}, "damaged header (want index, id, parameters)");
    for (std::size_t i = 2; i < header.size(); ++i) plan.params.push_back({header[i], ""});
    for (std::size_t l = 2; l < lines.size(); ++l) {
        const std::vector<std::string> cells = split(lines[l], '\t');
        if (cells.size() != header.size() || cells[0] != std::to_string(l - 2))
            throw ConfigError(SourceLoc{file, static_cast<int>(l + 1), 0, ""}, "damaged row");
        SweepPoint pt;
        pt.index = l - 2;
        pt.id = cells[1];
        pt.values.assign(cells.begin() + 2, cells.end());
        bool have = false;
        const std::string args = read_text(point_dir(dir, pt.id) + "/args", &have);
        if (!have)
            throw ConfigError(SourceLoc{point_dir(dir, pt.id) + "/args", 0, 0, ""}, "missing");
        pt.args = split(args, '\n');
        if (!pt.args.empty() && pt.args.back().empty()) pt.args.pop_back();
        plan.points.push_back(pt);
    }
    return plan;
}

}  // namespace npuvp
