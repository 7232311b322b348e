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

namespace npuvp {
namespace {

// No sweep expands past this: a typo in a range should not fill the disk.
constexpr std::size_t kMaxPoints = 1000000;
constexpr std::size_t kMaxIdLength = 120;

// ------------------------------------------------------------ YAML access

class SweepReader {
public:
    explicit SweepReader(std::string file) : m_file(std::move(file)) {}

    [[noreturn]] void fail(const YAML::Node& node, const std::string& key,
                           const std::string& message) const {
        const YAML::Mark mark = node.Mark();
        throw ConfigError(SourceLoc{m_file, mark.is_null() ? 0 : mark.line + 1,
                                    mark.is_null() ? 0 : mark.column + 1, key},
                          message);
    }

    // The keys of a map, each checked against `allowed`; fails on a non-map.
    void check_keys(const YAML::Node& map, const std::string& path,
                    const std::set<std::string>& allowed) const {
        if (!map.IsMap()) fail(map, path, "expected a map");
        for (const auto& kv : map) {
            const std::string k = kv.first.Scalar();
            if (!allowed.count(k))
                fail(kv.first, child_path(path, k),
                     "unknown key (known: " + join({allowed.begin(), allowed.end()}) + ")");
        }
    }

    std::string scalar(const YAML::Node& node, const std::string& path) const {
        if (!node.IsScalar()) fail(node, path, "expected a single value");
        return node.Scalar();
    }

    double number(const YAML::Node& node, const std::string& path) const {
        const std::string text = scalar(node, path);
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v))
            fail(node, path, "expected a number, got '" + text + "'");
        return v;
    }

    const std::string& file() const { return m_file; }

private:
    std::string m_file;
};

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

std::vector<std::string> read_values(const SweepReader& r, const YAML::Node& item,
                                     const std::string& path) {
    std::vector<std::string> values;
    const bool has_values = static_cast<bool>(item["values"]);
    const bool has_range = static_cast<bool>(item["range"]);
    if (has_values == has_range) r.fail(item, path, "give exactly one of 'values' and 'range'");
    if (has_values) {
        const YAML::Node list = item["values"];
        if (!list.IsSequence() || list.size() == 0)
            r.fail(list, path + ".values", "expected a non-empty list of values");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string key = path + ".values[" + std::to_string(i) + "]";
            if (list[i].IsNull()) r.fail(list[i], key, "empty value");
            const std::string text = value_text(list[i]);
            if (text.find_first_of("\t\n\r") != std::string::npos)
                r.fail(list[i], key, "a value may not contain tabs or line breaks");
            values.push_back(text);
        }
        return values;
    }
    const YAML::Node range = item["range"];
    const std::string rp = path + ".range";
    r.check_keys(range, rp, {"from", "to", "step", "factor"});
    if (!range["from"] || !range["to"]) r.fail(range, rp, "needs 'from' and 'to'");
    if (static_cast<bool>(range["step"]) == static_cast<bool>(range["factor"]))
        r.fail(range, rp, "give exactly one of 'step' (linear) and 'factor' (geometric)");
    const double from = r.number(range["from"], rp + ".from");
    const double to = r.number(range["to"], rp + ".to");
    if (to < from) r.fail(range["to"], rp + ".to", "must be >= from (" + number_text(from) + ")");
    const double slack = 1e-9 * std::max(1.0, std::fabs(to));
    if (range["step"]) {
        const double step = r.number(range["step"], rp + ".step");
        if (step <= 0) r.fail(range["step"], rp + ".step", "must be > 0");
        // from + i·step (not repeated addition, which drifts).
        for (std::size_t i = 0; from + static_cast<double>(i) * step <= to + slack; ++i) {
            if (values.size() >= kMaxPoints) r.fail(range, rp, "more than 1000000 values");
            values.push_back(number_text(from + static_cast<double>(i) * step));
        }
    } else {
        const double factor = r.number(range["factor"], rp + ".factor");
        if (factor <= 1) r.fail(range["factor"], rp + ".factor", "must be > 1");
        if (from <= 0) r.fail(range["from"], rp + ".from", "must be > 0 for a geometric range");
        for (double v = from; v <= to + slack; v *= factor) {
            if (values.size() >= kMaxPoints) r.fail(range, rp, "more than 1000000 values");
            values.push_back(number_text(v));
        }
    }
    return values;
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
std::string resolve(const SweepReader& r, const YAML::Node& node, const std::string& key,
                    const std::string& path) {
    const std::string joined = !path.empty() && path[0] == '/' ? path : directory_of(r.file()) + "/" + path;
    char* real = realpath(joined.c_str(), nullptr);
    if (!real) r.fail(node, key, "cannot find file '" + path + "' (looked for " + joined + ")");
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

SweepPlan load_sweep_file(const std::string& path) {
    SweepReader r(path);
    const YAML::Node root = parse_map_document(
        read_input_file(path), path, "sweep keys (name, topology, workload, set, axes, constraints)");
    r.check_keys(root, "", {"name", "topology", "workload", "set", "axes", "constraints"});

    SweepPlan plan;
    if (root["name"]) plan.name = r.scalar(root["name"], "name");
    if (plan.name.empty()) {
        const std::size_t slash = path.rfind('/');
        plan.name = path.substr(slash == std::string::npos ? 0 : slash + 1);
        const std::size_t dot = plan.name.rfind('.');
        if (dot != std::string::npos) plan.name.resize(dot);
    }
    if (!root["topology"]) r.fail(root, "topology", "missing: the base topology file");
    if (!root["workload"]) r.fail(root, "workload", "missing: the base workload file");
    const std::string topology = resolve(r, root["topology"], "topology", r.scalar(root["topology"], "topology"));
    const std::string workload = resolve(r, root["workload"], "workload", r.scalar(root["workload"], "workload"));

    std::vector<std::string> fixed_sets;
    if (const YAML::Node sets = root["set"]) {
        if (!sets.IsSequence()) r.fail(sets, "set", "expected a list of KEY.PATH=VALUE");
        for (std::size_t i = 0; i < sets.size(); ++i) {
            const std::string key = "set[" + std::to_string(i) + "]";
            const std::string text = r.scalar(sets[i], key);
            try {
                parse_override(text);
            } catch (const ConfigError& e) {
                r.fail(sets[i], key, e.what());
            }
            fixed_sets.push_back(text);
        }
    }

    // Axes and their parameters.
    const YAML::Node axes_node = root["axes"];
    if (!axes_node || !axes_node.IsSequence() || axes_node.size() == 0)
        r.fail(axes_node ? axes_node : root, "axes", "expected a non-empty list of axes");
    std::vector<Axis> axes;
    std::vector<YAML::Node> param_nodes;  // for errors about a parameter
    std::map<std::string, std::size_t> names;
    auto add_param = [&](const YAML::Node& item, const std::string& ipath) -> std::size_t {
        r.check_keys(item, ipath, {"key", "name", "values", "range"});
        SweepParam p;
        if (item["key"]) {
            p.key = r.scalar(item["key"], ipath + ".key");
            if (p.key != "workload" && p.key != "topology") {
                try {
                    parse_override(p.key + "=0");
                } catch (const ConfigError& e) {
                    r.fail(item["key"], ipath + ".key", "not a --set key path: " + std::string(e.what()));
                }
            }
        }
        if (item["name"]) p.name = r.scalar(item["name"], ipath + ".name");
        else if (!p.key.empty()) p.name = default_name(p.key);
        else r.fail(item, ipath, "give 'key' (what the value sets) or 'name' (a recorded label), or both");
        const YAML::Node name_node = item["name"] ? item["name"] : item["key"];
        if (!valid_name(p.name))
            r.fail(name_node, ipath + ".name",
                   "'" + p.name + "' is not a usable parameter name ([A-Za-z_][A-Za-z0-9_]*); give 'name'");
        if (names.count(p.name))
            r.fail(name_node, ipath + ".name",
                   "parameter name '" + p.name + "' is used twice; give each axis its own 'name'");
        names[p.name] = plan.params.size();
        plan.params.push_back(p);
        param_nodes.push_back(item);
        return plan.params.size() - 1;
    };
    for (std::size_t a = 0; a < axes_node.size(); ++a) {
        const YAML::Node item = axes_node[a];
        const std::string apath = "axes[" + std::to_string(a) + "]";
        Axis axis;
        if (item.IsMap() && item["zip"]) {
            r.check_keys(item, apath, {"zip"});
            const YAML::Node zip = item["zip"];
            if (!zip.IsSequence() || zip.size() < 2)
                r.fail(zip, apath + ".zip", "expected a list of at least two axes stepped together");
            std::vector<std::vector<std::string>> columns;
            for (std::size_t z = 0; z < zip.size(); ++z) {
                const std::string zpath = apath + ".zip[" + std::to_string(z) + "]";
                axis.params.push_back(add_param(zip[z], zpath));
                columns.push_back(read_values(r, zip[z], zpath));
                if (columns.back().size() != columns.front().size())
                    r.fail(zip[z], zpath, "has " + std::to_string(columns.back().size()) +
                                              " values but " + apath + ".zip[0] has " +
                                              std::to_string(columns.front().size()) +
                                              "; zipped axes step together and need equal lengths");
            }
            for (std::size_t i = 0; i < columns.front().size(); ++i) {
                std::vector<std::string> step;
                for (const auto& c : columns) step.push_back(c[i]);
                axis.steps.push_back(step);
            }
        } else {
            axis.params.push_back(add_param(item, apath));
            for (const std::string& v : read_values(r, item, apath)) axis.steps.push_back({v});
        }
        axes.push_back(axis);
    }

    // Resolve file-valued parameters once per distinct value.
    std::vector<std::map<std::string, std::string>> resolved(plan.params.size());
    for (const Axis& axis : axes)
        for (std::size_t k = 0; k < axis.params.size(); ++k) {
            const SweepParam& p = plan.params[axis.params[k]];
            if (p.key != "workload" && p.key != "topology") continue;
            for (const auto& step : axis.steps)
                if (!resolved[axis.params[k]].count(step[k]))
                    resolved[axis.params[k]][step[k]] =
                        resolve(r, param_nodes[axis.params[k]], p.name, step[k]);
        }

    std::vector<std::pair<std::unique_ptr<Expr>, YAML::Node>> constraints;
    if (const YAML::Node list = root["constraints"]) {
        if (!list.IsSequence()) r.fail(list, "constraints", "expected a list of expressions");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string key = "constraints[" + std::to_string(i) + "]";
            const std::string text = r.scalar(list[i], key);
            try {
                constraints.push_back({ExprParser(text, names).parse(), list[i]});
            } catch (const ExprParser::Error& e) {
                r.fail(list[i], key, e.message);
            }
        }
    }

    // The product, first axis outermost (an odometer over the axes).
    double total = 1;
    for (const Axis& axis : axes) total *= static_cast<double>(axis.steps.size());
    if (total > static_cast<double>(kMaxPoints))
        r.fail(axes_node, "axes", "the axes give " + number_text(total) + " points, more than 1000000");
    std::vector<std::size_t> at(axes.size(), 0);
    std::map<std::string, std::size_t> ids;
    for (std::size_t n = 0; n < static_cast<std::size_t>(total); ++n) {
        std::vector<std::string> values(plan.params.size());
        for (std::size_t a = 0; a < axes.size(); ++a)
            for (std::size_t k = 0; k < axes[a].params.size(); ++k)
                values[axes[a].params[k]] = axes[a].steps[at[a]][k];
        for (std::size_t a = axes.size(); a-- > 0;) {  // advance the odometer
            if (++at[a] < axes[a].steps.size()) break;
            at[a] = 0;
        }

        std::vector<Value> vars;
        for (const std::string& v : values) vars.push_back(param_value(v));
        bool keep = true;
        for (const auto& [expr, node] : constraints) {
            try {
                const Value v = eval(*expr, vars);
                keep = v.is_number ? v.number != 0.0 : !v.text.empty();
            } catch (const ExprParser::Error& e) {
                r.fail(node, "constraints", e.message);
            }
            if (!keep) break;
        }
        if (!keep) {
            ++plan.excluded;
            continue;
        }

        SweepPoint point;
        point.index = plan.points.size();
        point.values = values;
        point.id = sweep_point_id(plan.params, values);
        const auto seen = ids.find(point.id);
        if (seen != ids.end())
            r.fail(axes_node, "axes",
                   "two points get the same id '" + point.id + "' (values that differ only in characters "
                   "outside [A-Za-z0-9._+-]); make the values or names distinct");
        ids[point.id] = point.index;
        std::string topo = topology, work = workload;
        std::vector<std::string> sets = fixed_sets;
        for (std::size_t i = 0; i < plan.params.size(); ++i) {
            const SweepParam& p = plan.params[i];
            if (p.key == "topology") topo = resolved[i].at(values[i]);
            else if (p.key == "workload") work = resolved[i].at(values[i]);
            else if (!p.key.empty()) sets.push_back(p.key + "=" + values[i]);
        }
        point.args = {"--topology", topo, "--workload", work};
        for (const std::string& s : sets) point.args.insert(point.args.end(), {"--set", s});
        plan.points.push_back(point);
    }
    if (plan.points.empty())
        r.fail(root["constraints"] ? root["constraints"] : root, "constraints",
               "the constraints leave no point to run");
    return plan;
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
