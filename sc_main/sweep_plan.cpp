#include "sc_main/sweep_plan.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

#include "config/config_error.h"
#include "config/sweep_file.h"
#include "report/atomic_file.h"

namespace npuvp {
namespace {

// No sweep expands past this: a typo in a range should not fill the disk.
constexpr std::size_t kMaxPoints = 1000000;
constexpr std::size_t kMaxIdLength = 120;

// Errors about what the sweep file gives, at `loc` reported under another
// key path (a parameter's name, `constraints`).
[[noreturn]] void fail_as(SourceLoc loc, const std::string& path, const std::string& message) {
    loc.key_path = path;
    throw ConfigError(loc, message);
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
    std::size_t depth = 1;  // of the tree under it (evaluation and destruction recurse that deep)
};

// How deep a constraint may nest (parentheses, not, unary -, chained
// operators): parsing, evaluating and freeing it recurse that deep.
constexpr std::size_t kMaxExprDepth = 256;

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
    // The parser's own recursion (parentheses, not, unary -).
    struct Nest {
        explicit Nest(ExprParser& p) : p(p) {
            if (++p.m_nesting > kMaxExprDepth)
                p.error("nested more than " + std::to_string(kMaxExprDepth) + " deep");
        }
        ~Nest() { --p.m_nesting; }
        ExprParser& p;
    };
    static std::unique_ptr<Expr> node(Expr::Op op, std::unique_ptr<Expr> a, std::unique_ptr<Expr> b = nullptr) {
        const std::size_t depth = 1 + std::max(a->depth, b ? b->depth : 0);
        if (depth > kMaxExprDepth)
            throw Error{"nested more than " + std::to_string(kMaxExprDepth) + " deep"};
        auto e = std::make_unique<Expr>();
        e->depth = depth;
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
        if (word("not")) {
            Nest nest(*this);
            return node(Expr::Op::not_, parse_not());
        }
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
        if (symbol("-")) {
            Nest nest(*this);
            return node(Expr::Op::neg, parse_unary());
        }
        return parse_atom();
    }
    std::unique_ptr<Expr> parse_atom() {
        skip();
        if (m_pos >= m_text.size()) error("expression ends too early");
        auto e = std::make_unique<Expr>();
        const char c = m_text[m_pos];
        if (c == '(') {
            Nest nest(*this);
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
    std::size_t m_nesting = 0;  // Nest guards open
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
        auto text = [](const Value& v) { return v.is_number && v.text.empty() ? sweep_number_text(v.number) : v.text; };
        const bool same = a.is_number && b.is_number ? a.number == b.number : text(a) == text(b);
        return num((e.op == Expr::Op::eq) == same);
    }
    need_numbers(a, b);
    switch (e.op) {
        case Expr::Op::add: return num(a.number + b.number);
        case Expr::Op::sub: return num(a.number - b.number);
        case Expr::Op::mul: return num(a.number * b.number);
        case Expr::Op::div:
        case Expr::Op::mod:
            // NaN once counted as true: a zero divisor is an error naming the point.
            if (b.number == 0.0) throw ExprParser::Error{std::string(e.op == Expr::Op::div ? "division" : "modulo") + " by zero"};
            return num(e.op == Expr::Op::div ? a.number / b.number : std::fmod(a.number, b.number));
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

std::string directory_of(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

// A path from the sweep file: relative ones are relative to the sweep file's
// directory; the result is absolute, so a point runs from any directory (a
// Slurm node, a GNU parallel ssh login).
std::string resolve(const std::string& sweep_file, const SourceLoc& loc, const std::string& key,
                    const std::string& path) {
    const std::string joined = !path.empty() && path[0] == '/' ? path : directory_of(sweep_file) + "/" + path;
    char* real = realpath(joined.c_str(), nullptr);
    if (!real) fail_as(loc, key, "cannot find file '" + path + "' (looked for " + joined + ")");
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

// The plan while it is made from the sweep file: what later parts need of
// earlier ones (the parameters' names and places, for the constraints and
// for file-valued parameters).
struct SweepLoad {
    const SweepFile& file;
    SweepPlan plan;
    std::string topology, workload;  // the base files, resolved
    std::vector<Axis> axes;
    std::vector<SourceLoc> param_locs;  // for errors about a parameter
    std::map<std::string, std::size_t> names;
    std::vector<std::map<std::string, std::string>> resolved;  // file-valued parameters
    std::vector<std::pair<std::unique_ptr<Expr>, SourceLoc>> constraints;

    explicit SweepLoad(const SweepFile& sweep_file) : file(sweep_file) {}
};

void resolve_base_files(SweepLoad& s, const std::string& path) {
    s.topology = resolve(path, s.file.topology.loc, "topology", s.file.topology.text);
    s.workload = resolve(path, s.file.workload.loc, "workload", s.file.workload.text);
}

// Each axis's parameters, each under a name of its own, and its steps: one
// value per parameter (a zip's parameters step together).
void add_axes(SweepLoad& s) {
    for (const SweepFileAxis& file_axis : s.file.axes) {
        Axis axis;
        for (const SweepFileParam& p : file_axis.params) {
            if (s.names.count(p.name))
                throw ConfigError(p.name_loc, "parameter name '" + p.name +
                                                  "' is used twice; give each axis its own 'name'");
            s.names[p.name] = s.plan.params.size();
            axis.params.push_back(s.plan.params.size());
            s.plan.params.push_back({p.name, p.key});
            s.param_locs.push_back(p.loc);
        }
        for (std::size_t i = 0; i < file_axis.params.front().values.size(); ++i) {
            std::vector<std::string> step;
            for (const SweepFileParam& p : file_axis.params) step.push_back(p.values[i]);
            axis.steps.push_back(step);
        }
        s.axes.push_back(axis);
    }
}

// File-valued parameters, resolved once per distinct value.
void resolve_file_params(SweepLoad& s, const std::string& path) {
    s.resolved.resize(s.plan.params.size());
    for (const Axis& axis : s.axes)
        for (std::size_t k = 0; k < axis.params.size(); ++k) {
            const std::size_t i = axis.params[k];
            const SweepParam& p = s.plan.params[i];
            if (p.key != "workload" && p.key != "topology") continue;
            for (const auto& step : axis.steps)
                if (!s.resolved[i].count(step[k]))
                    s.resolved[i][step[k]] = resolve(path, s.param_locs[i], p.name, step[k]);
        }
}

void parse_constraints(SweepLoad& s) {
    for (const SweepText& constraint : s.file.constraints) {
        try {
            s.constraints.push_back({ExprParser(constraint.text, s.names).parse(), constraint.loc});
        } catch (const ExprParser::Error& e) {
            throw ConfigError(constraint.loc, e.message);
        }
    }
}

bool passes_constraints(const SweepLoad& s, const std::vector<std::string>& values) {
    std::vector<Value> vars;
    for (const std::string& v : values) vars.push_back(param_value(v));
    for (const auto& [expr, loc] : s.constraints) {
        try {
            const Value v = eval(*expr, vars);
            if (v.is_number ? v.number == 0.0 : v.text.empty()) return false;
        } catch (const ExprParser::Error& e) {
            fail_as(loc, "constraints", e.message);
        }
    }
    return true;
}

// The command line of the point with `values`.
std::vector<std::string> point_args(const SweepLoad& s, const std::vector<std::string>& values) {
    std::string topo = s.topology, work = s.workload;
    std::vector<std::string> sets = s.file.set;
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
        throw ConfigError(s.file.axes_loc, "the axes give " + sweep_number_text(total) + " points, more than 1000000");
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
            throw ConfigError(s.file.axes_loc,
                              "two points get the same id '" + point.id + "' (values that differ only in characters "
                              "outside [A-Za-z0-9._+-]); make the values or names distinct");
        ids[point.id] = point.index;
        point.args = point_args(s, values);
        s.plan.points.push_back(point);
    }
}

}  // namespace

SweepPlan load_sweep_file(const std::string& path) {
    const SweepFile file = read_sweep_file(path);
    SweepLoad s(file);
    s.plan.name = file.name;
    resolve_base_files(s, path);
    add_axes(s);
    resolve_file_params(s, path);
    parse_constraints(s);
    expand_points(s);
    if (s.plan.points.empty()) throw ConfigError(file.constraints_loc, "the constraints leave no point to run");
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
