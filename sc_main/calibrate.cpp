#include "sc_main/calibrate.h"

#include <nlopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "config/config_error.h"
#include "config/topology_loader.h"
#include "platform/impl_registry.h"
#include "report/atomic_file.h"
#include "report/run_view.h"
#include "sc_main/cli.h"
#include "sc_main/self_exec.h"

namespace npuvp {

namespace {

const char* const kUsage =
    "usage: npuvp calibrate MEASUREMENTS.csv --fit KEY=LO:HI [--fit ...] --out CALIBRATED.yaml\n"
    "                       [--topology FILE] [--set KEY=VALUE ...] [--jobs N] [--max-evals N]\n"
    "\n"
    "Fits topology keys to measured latencies: runs each measurement's workload (one npuvp\n"
    "process each, --jobs at once), moves the --fit keys within their bounds to minimise the\n"
    "squared relative errors (NLopt's BOBYQA), writes the calibrated topology and prints each\n"
    "measurement's error before and after, and what the measurements could not determine.\n"
    "\n"
    "MEASUREMENTS.csv  a header naming the columns, then one row per measurement:\n"
    "    workload     the workload file (relative to the CSV's folder)      required\n"
    "    measured_ns  the measured time, ns (> 0)                           required\n"
    "    set          this measurement's own overrides: KEY=VALUE ...        optional\n"
    "    interval     makespan (the default), command:ID, command:PE/ID,    optional\n"
    "                 engine:ENGINE, engine:PE/ENGINE (its busy time)\n"
    "--fit KEY=LO:HI    a topology key (a --set path) and its bounds; repeatable\n"
    "--out FILE         the calibrated topology YAML\n"
    "--topology FILE    the topology to start from (default configs/topologies/default.yaml)\n"
    "--set KEY=VALUE    an override for every run; repeatable\n"
    "--jobs N           runs at once (default: the machine's cores)\n"
    "--max-evals N      at most N evaluations of every measurement (default 400)\n"
    "\n"
    "Docs: docs/validation.md \"Calibrating to your measurements\". Exit codes: 0 fitted,\n"
    "1 a run failed, 2 bad input.\n";

[[noreturn]] void bad(const std::string& message) {
    throw ConfigError(SourceLoc{"command line", 0, 0, ""}, "calibrate: " + message);
}

std::string number_text(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

// A value for a reader: 7 significant digits (the --set text keeps them all).
std::string short_text(double v) {
    std::ostringstream s;
    s << std::setprecision(7) << v;
    return s.str();
}

std::string fixed3(double v) { return obs::fixed(v, 3); }

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// One CSV line's fields: comma-separated, a field optionally in double
// quotes ("" inside for a quote).
std::vector<std::string> csv_fields(const std::string& line, const std::string& where) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false, was_quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') field += '"', ++i;
            else if (c == '"') quoted = false;
            else field += c;
        } else if (c == '"' && trim(field).empty()) {
            quoted = was_quoted = true;
            field.clear();
        } else if (c == ',') {
            fields.push_back(was_quoted ? field : trim(field));
            field.clear();
            was_quoted = false;
        } else {
            field += c;
        }
    }
    if (quoted) throw ConfigError(SourceLoc{where, 0, 0, ""}, "an unterminated quoted field");
    fields.push_back(was_quoted ? field : trim(field));
    return fields;
}

Interval parse_interval(const std::string& text, const SourceLoc& loc) {
    Interval in;
    if (text.empty() || text == "makespan") return in;
    const auto colon = text.find(':');
    const std::string kind = text.substr(0, colon);
    if (colon == std::string::npos || (kind != "command" && kind != "engine") || colon + 1 == text.size())
        throw ConfigError(loc, "expected makespan, command:ID, command:PE/ID, engine:ENGINE or engine:PE/ENGINE "
                               "(got '" + text + "')");
    in.kind = kind == "command" ? Interval::Kind::command : Interval::Kind::engine;
    const std::string rest = text.substr(colon + 1);
    const auto slash = rest.rfind('/');
    in.name = slash == std::string::npos ? rest : rest.substr(slash + 1);
    in.pe = slash == std::string::npos ? "" : rest.substr(0, slash);
    if (in.name.empty()) throw ConfigError(loc, "no command or engine name in '" + text + "'");
    return in;
}

std::string absolute_path(const std::string& path) {
    std::error_code ec;
    const auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

// The value at a dotted key path of a dumped topology, as text; nullopt
// when the path is not there.
std::optional<std::string> value_at(const YAML::Node& root, const std::string& key) {
    YAML::Node node = YAML::Clone(root);
    std::size_t start = 0;
    while (true) {
        const auto dot = key.find('.', start);
        const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!node.IsMap() || !node[part]) return std::nullopt;
        node = node[part];
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    if (!node.IsScalar()) return std::nullopt;
    return node.Scalar();
}

// A key being fitted: its bounds, where it starts, whether it takes
// integers (then every value tried is rounded).
struct Param {
    FitKey fit;
    double initial = 0;
    bool integer = false;
    double value(double u) const {
        const double v = fit.lo + u * (fit.hi - fit.lo);
        return integer ? std::round(v) : v;
    }
    std::string text(double u) const { return integer ? std::to_string(std::llround(value(u))) : number_text(value(u)); }
    std::string shown(double u) const { return integer ? text(u) : short_text(value(u)); }
    std::string shown_initial() const { return integer ? std::to_string(std::llround(initial)) : short_text(initial); }
};

struct Options {
    std::string csv, out, topology;
    std::vector<std::string> sets;
    std::vector<FitKey> fits;
    unsigned jobs = 0;
    int max_evals = 400;
};

// Runs every measurement at a point (each key's normalised value in
// [0, 1]) and returns the model's ns per measurement. Points already run
// are remembered.
class Runner {
public:
    Runner(const Options& o, const std::vector<Measurement>& ms, const std::vector<Param>& params,
           const std::string& dir)
        : m_o(o), m_ms(ms), m_params(params), m_dir(dir) {}

    const std::vector<double>& run(const std::vector<double>& u) {
        std::vector<std::string> texts;
        for (std::size_t j = 0; j < u.size(); ++j) texts.push_back(m_params[j].text(u[j]));
        const auto known = m_cache.find(texts);
        if (known != m_cache.end()) return known->second;
        ++m_runs;
        std::vector<double> model(m_ms.size(), 0.0);
        std::map<pid_t, std::size_t> running;
        std::size_t next = 0;
        const unsigned jobs = std::max(1u, m_o.jobs);
        while (next < m_ms.size() || !running.empty()) {
            while (next < m_ms.size() && running.size() < jobs) {
                const pid_t pid = start_self(args(next, texts), log(next));
                if (pid < 0) throw std::runtime_error("calibrate: cannot start npuvp for " + m_ms[next].where);
                running[pid] = next++;
            }
            pid_t pid = -1;
            const ChildExit exit = wait_any_child(&pid);
            const auto it = running.find(pid);
            if (it == running.end()) continue;
            const std::size_t i = it->second;
            running.erase(it);
            if (!exit.started || exit.signal || exit.code != 0) {
                for (const auto& [other, unused] : running) (void)wait_child(other);
                throw std::runtime_error("calibrate: " + m_ms[i].where + ": the run of " + m_ms[i].workload +
                                         at(texts) + " ended with " + exit.describe() + ": " + last_line(log(i)));
            }
            model[i] = read_value(i);
        }
        return m_cache.emplace(texts, model).first->second;
    }

    int runs() const { return m_runs; }

private:
    std::vector<std::string> args(std::size_t i, const std::vector<std::string>& texts) const {
        std::vector<std::string> a = {"--topology", m_o.topology, "--workload", m_ms[i].workload};
        for (const std::string& s : m_o.sets) a.insert(a.end(), {"--set", s});
        for (std::size_t j = 0; j < texts.size(); ++j) a.insert(a.end(), {"--set", m_params[j].fit.key + "=" + texts[j]});
        for (const std::string& s : m_ms[i].sets) a.insert(a.end(), {"--set", s});
        a.insert(a.end(), {"--summary", summary(i)});
        return a;
    }
    std::string at(const std::vector<std::string>& texts) const {
        std::string s = " at";
        for (std::size_t j = 0; j < texts.size(); ++j) s += " " + m_params[j].fit.key + "=" + texts[j];
        return s;
    }
    std::string summary(std::size_t i) const { return m_dir + "/" + std::to_string(i) + ".json"; }
    std::string log(std::size_t i) const { return m_dir + "/" + std::to_string(i) + ".log"; }
    static std::string last_line(const std::string& path) {
        std::ifstream in(path);
        std::string line, last;
        while (std::getline(in, line))
            if (!trim(line).empty()) last = line;
        return last.empty() ? "(no output)" : last;
    }

    double read_value(std::size_t i) const {
        const Measurement& m = m_ms[i];
        std::ifstream in(summary(i));
        nlohmann::json j;
        try {
            in >> j;
        } catch (const std::exception& e) {
            throw std::runtime_error("calibrate: " + m.where + ": cannot read the run's summary: " + e.what());
        }
        const Interval& iv = m.interval;
        if (iv.kind == Interval::Kind::makespan) return j.at("makespan_ns").get<double>();
        const bool command = iv.kind == Interval::Kind::command;
        std::string seen;
        for (const auto& row : j.at(command ? "commands" : "engines")) {
            const std::string name = row.at(command ? "id" : "engine").get<std::string>();
            const std::string pe = row.at("pe").get<std::string>();
            if (name == iv.name && (iv.pe.empty() || pe == iv.pe))
                return command ? row.at("finished_ns").get<double>() - row.at("started_ns").get<double>()
                               : row.at("busy_ns").get<double>();
            if (seen.size() < 200) seen += (seen.empty() ? "" : ", ") + pe + "/" + name;
        }
        throw ConfigError(SourceLoc{m.where, 0, 0, "interval"},
                          "the run has no " + iv.text() + " (it has: " + (seen.empty() ? "none" : seen) + ")");
    }

    const Options& m_o;
    const std::vector<Measurement>& m_ms;
    const std::vector<Param>& m_params;
    std::string m_dir;
    std::map<std::vector<std::string>, std::vector<double>> m_cache;
    int m_runs = 0;
};

struct Objective {
    Runner* runner;
    const std::vector<Measurement>* ms;
    std::optional<std::string> error;
    nlopt_opt opt = nullptr;
};

std::vector<double> residuals(const std::vector<double>& model, const std::vector<Measurement>& ms) {
    std::vector<double> r(ms.size());
    for (std::size_t i = 0; i < ms.size(); ++i) r[i] = (model[i] - ms[i].measured_ns) / ms[i].measured_ns;
    return r;
}

double objective(unsigned n, const double* u, double* grad, void* data) {
    auto* o = static_cast<Objective*>(data);
    (void)grad;  // derivative-free
    try {
        const std::vector<double> r = residuals(o->runner->run(std::vector<double>(u, u + n)), *o->ms);
        double sum = 0;
        for (double x : r) sum += x * x;
        return sum;
    } catch (const std::exception& e) {
        o->error = e.what();
        nlopt_force_stop(o->opt);
        return HUGE_VAL;
    }
}

Options parse_options(int argc, char* argv[]) {
    std::vector<std::string> args(argv + 1, argv + argc);
    Options o;
    o.topology = std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/default.yaml";
    std::vector<std::string> positional;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) bad(a + " needs a value");
            return args[++i];
        };
        auto count = [&](const std::string& text, unsigned long max) {
            char* end = nullptr;
            const unsigned long v = std::strtoul(text.c_str(), &end, 10);
            if (text.empty() || *end != '\0' || text[0] == '-' || v == 0 || v > max)
                bad(a + ": expected a count in [1, " + std::to_string(max) + "], got '" + text + "'");
            return v;
        };
        if (a == "--fit") o.fits.push_back(parse_fit(value()));
        else if (a == "--out") o.out = value();
        else if (a == "--topology") o.topology = value();
        else if (a == "--set") o.sets.push_back(value());
        else if (a == "--jobs") o.jobs = static_cast<unsigned>(count(value(), 4096));
        else if (a == "--max-evals") o.max_evals = static_cast<int>(count(value(), 1000000));
        else if (a.rfind("--", 0) == 0) bad("unknown option '" + a + "' (see npuvp calibrate --help)");
        else positional.push_back(a);
    }
    if (positional.size() != 1) bad("needs one measurements CSV (see npuvp calibrate --help)");
    if (o.fits.empty()) bad("needs at least one --fit KEY=LO:HI");
    if (o.out.empty()) bad("needs --out FILE (the calibrated topology)");
    for (std::size_t a = 0; a < o.fits.size(); ++a)
        for (std::size_t b = a + 1; b < o.fits.size(); ++b)
            if (o.fits[a].key == o.fits[b].key) bad("--fit " + o.fits[a].key + " is given twice");
    o.csv = positional[0];
    o.topology = absolute_path(o.topology);
    if (o.jobs == 0) o.jobs = std::max(1u, std::thread::hardware_concurrency());
    return o;
}

std::vector<Override> overrides_of(const std::vector<std::string>& sets) {
    std::vector<Override> out;
    for (const std::string& s : sets) out.push_back(parse_override(s));
    return out;
}

// Each key's starting value (the topology's, with the --set overrides),
// whether it takes integers, and that both bounds load.
std::vector<Param> params_of(const Options& o) {
    const std::vector<Override> base = overrides_of(o.sets);
    const TopologyConfig start = load_topology_file(o.topology, base, builtin_registry());
    const YAML::Node dumped = YAML::Load(dump_topology_yaml(start));
    std::vector<Param> params;
    for (const FitKey& f : o.fits) {
        Param p;
        p.fit = f;
        const std::optional<std::string> text = value_at(dumped, f.key);
        if (!text) bad("--fit " + f.key + ": not a key of " + o.topology + " (give the path --set takes)");
        char* end = nullptr;
        p.initial = std::strtod(text->c_str(), &end);
        if (end == text->c_str() || *end != '\0') bad("--fit " + f.key + ": its value '" + *text + "' is not a number");
        // An integer key refuses a fraction.
        std::vector<Override> probe = base;
        probe.push_back({f.key, "0.5"});
        try {
            (void)load_topology_file(o.topology, probe, builtin_registry());
        } catch (const ConfigError& e) {
            p.integer = std::string(e.what()).find("expected an integer") != std::string::npos;
        }
        for (const double bound : {f.lo, f.hi}) {
            std::vector<Override> at = base;
            at.push_back({f.key, p.integer ? std::to_string(std::llround(bound)) : number_text(bound)});
            try {
                (void)load_topology_file(o.topology, at, builtin_registry());
            } catch (const ConfigError& e) {
                bad("--fit " + f.key + ": the bound " + number_text(bound) + " does not load: " + e.what());
            }
        }
        params.push_back(p);
    }
    return params;
}

}  // namespace

std::string Interval::text() const {
    switch (kind) {
    case Kind::makespan: return "makespan";
    case Kind::command: return "command:" + (pe.empty() ? "" : pe + "/") + name;
    case Kind::engine: return "engine:" + (pe.empty() ? "" : pe + "/") + name;
    }
    return "";
}

FitKey parse_fit(const std::string& text) {
    const auto eq = text.find('=');
    const auto colon = text.find(':', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || eq == 0 || colon == std::string::npos)
        bad("--fit: expected KEY=LO:HI (got '" + text + "')");
    FitKey f;
    f.key = text.substr(0, eq);
    const std::string lo = text.substr(eq + 1, colon - eq - 1), hi = text.substr(colon + 1);
    auto number = [&](const std::string& s) {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0' || !std::isfinite(v)) bad("--fit " + f.key + ": '" + s + "' is not a number");
        return v;
    };
    f.lo = number(lo), f.hi = number(hi);
    if (!(f.lo < f.hi)) bad("--fit " + f.key + ": LO must be below HI (got " + lo + ":" + hi + ")");
    return f;
}

std::vector<Measurement> read_measurements(const std::string& csv) {
    std::ifstream in(csv);
    if (!in) throw ConfigError(SourceLoc{csv, 0, 0, ""}, "cannot read the measurements file");
    const std::filesystem::path folder = std::filesystem::path(absolute_path(csv)).parent_path();
    std::vector<Measurement> out;
    std::map<std::string, std::size_t> column;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        const std::string where = csv + ":" + std::to_string(number);
        if (trim(line).empty() || trim(line)[0] == '#') continue;
        const std::vector<std::string> fields = csv_fields(line, where);
        if (column.empty()) {
            for (std::size_t i = 0; i < fields.size(); ++i) {
                const std::string& name = fields[i];
                if (name != "workload" && name != "measured_ns" && name != "set" && name != "interval")
                    throw ConfigError(SourceLoc{csv, number, 0, name},
                                      "unknown column '" + name + "' (workload, measured_ns, set, interval)");
                if (!column.emplace(name, i).second)
                    throw ConfigError(SourceLoc{csv, number, 0, name}, "column '" + name + "' appears twice");
            }
            for (const char* need : {"workload", "measured_ns"})
                if (!column.count(need))
                    throw ConfigError(SourceLoc{csv, number, 0, need},
                                      std::string("the header has no '") + need + "' column");
            continue;
        }
        if (fields.size() != column.size())
            throw ConfigError(SourceLoc{csv, number, 0, ""}, std::to_string(fields.size()) + " fields where the header has " +
                                                                  std::to_string(column.size()));
        auto field = [&](const std::string& name) { return column.count(name) ? fields[column.at(name)] : std::string(); };
        Measurement m;
        m.where = where;
        const std::string workload = field("workload");
        if (workload.empty()) throw ConfigError(SourceLoc{csv, number, 0, "workload"}, "no workload");
        m.workload = std::filesystem::path(workload).is_absolute() ? workload : (folder / workload).lexically_normal().string();
        std::error_code ec;
        if (!std::filesystem::is_regular_file(m.workload, ec))
            throw ConfigError(SourceLoc{csv, number, 0, "workload"}, "no such workload file: " + m.workload);
        const std::string measured = field("measured_ns");
        char* end = nullptr;
        m.measured_ns = std::strtod(measured.c_str(), &end);
        if (measured.empty() || *end != '\0' || !std::isfinite(m.measured_ns) || m.measured_ns <= 0)
            throw ConfigError(SourceLoc{csv, number, 0, "measured_ns"},
                              "expected a time in ns above 0 (got '" + measured + "')");
        std::istringstream sets(field("set"));
        for (std::string s; sets >> s;) {
            try {
                (void)parse_override(s);
            } catch (const ConfigError& e) {
                throw ConfigError(SourceLoc{csv, number, 0, "set"}, e.what());
            }
            m.sets.push_back(s);
        }
        m.interval = parse_interval(field("interval"), SourceLoc{csv, number, 0, "interval"});
        out.push_back(m);
    }
    if (column.empty()) throw ConfigError(SourceLoc{csv, 0, 0, ""}, "empty: no header and no measurements");
    if (out.empty()) throw ConfigError(SourceLoc{csv, number, 0, ""}, "no measurements after the header");
    return out;
}

int run_calibrate(int argc, char* argv[]) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::cout << kUsage;
        return args.empty() ? exit_bad_input : exit_ok;
    }
    const Options o = parse_options(argc, argv);
    const std::vector<Measurement> ms = read_measurements(o.csv);
    const std::vector<Param> params = params_of(o);
    const std::size_t n = params.size();
    std::optional<ScratchDir> scratch;
    try {
        scratch.emplace("npuvp-calibrate");
    } catch (const std::runtime_error& e) {
        bad(e.what());
    }
    Runner runner(o, ms, params, scratch->path());

    // Normalised: each key's [LO, HI] is [0, 1], so one step size suits all.
    std::vector<double> u0(n);
    std::vector<std::string> clamped;
    for (std::size_t j = 0; j < n; ++j) {
        const Param& p = params[j];
        const double u = (p.initial - p.fit.lo) / (p.fit.hi - p.fit.lo);
        u0[j] = std::clamp(u, 0.0, 1.0);
        if (u != u0[j]) clamped.push_back(p.fit.key);
    }
    const std::vector<double> before = runner.run(u0);

    // BOBYQA (bounded quadratic models); COBYLA for one key, which BOBYQA
    // does not take. A run ends when its trust region has shrunk; the
    // quadratic models of a sum of piecewise-linear times can end it early,
    // so it restarts from where it ended, with a step a tenth as large each
    // time, while that still improves the fit (at most 6 runs).
    const nlopt_algorithm algorithm = n >= 2 ? NLOPT_LN_BOBYQA : NLOPT_LN_COBYLA;
    Objective obj{&runner, &ms, std::nullopt, nullptr};
    std::vector<double> u = u0;
    double best = HUGE_VAL;
    double size = 0.1;
    for (int round = 0; round < 6 && best > 1e-16; ++round, size /= 10) {
        obj.opt = nlopt_create(algorithm, static_cast<unsigned>(n));
        if (!obj.opt) throw std::runtime_error("calibrate: NLopt could not create its optimiser");
        const std::vector<double> zeros(n, 0.0), ones(n, 1.0), step(n, size);
        nlopt_set_lower_bounds(obj.opt, zeros.data());
        nlopt_set_upper_bounds(obj.opt, ones.data());
        nlopt_set_min_objective(obj.opt, objective, &obj);
        // Stop when a step moves no key by more than 1e-12 of its range, or
        // the sum of squares is below 1e-16 (relative errors of 1e-8).
        nlopt_set_xtol_abs1(obj.opt, 1e-12);
        nlopt_set_xtol_rel(obj.opt, 1e-12);
        nlopt_set_stopval(obj.opt, 1e-16);
        nlopt_set_maxeval(obj.opt, o.max_evals);
        nlopt_set_initial_step(obj.opt, step.data());
        std::vector<double> v = u;
        double f = HUGE_VAL;
        const nlopt_result result = nlopt_optimize(obj.opt, v.data(), &f);
        nlopt_destroy(obj.opt);
        if (obj.error) throw std::runtime_error(*obj.error);
        if (result < 0 && result != NLOPT_ROUNDOFF_LIMITED)
            throw std::runtime_error("calibrate: NLopt failed (result " + std::to_string(result) + ")");
        const bool better = f < best * 0.99;
        if (f < best) best = f, u = v;
        if (!better) break;
    }

    // What the data cannot determine: each key's effect on the relative
    // errors near the fit (central differences over 2 % of its range).
    std::vector<std::vector<double>> effect(n);
    for (std::size_t j = 0; j < n; ++j) {
        std::vector<double> up = u, down = u;
        up[j] = std::min(1.0, u[j] + 0.02), down[j] = std::max(0.0, u[j] - 0.02);
        const std::vector<double> a = residuals(runner.run(up), ms), b = residuals(runner.run(down), ms);
        for (std::size_t i = 0; i < ms.size(); ++i) effect[j].push_back((a[i] - b[i]) / (up[j] - down[j]));
    }
    auto norm = [](const std::vector<double>& v) {
        double s = 0;
        for (double x : v) s += x * x;
        return std::sqrt(s);
    };
    std::vector<std::string> notes;
    std::vector<bool> determined(n, true);
    for (std::size_t j = 0; j < n; ++j)
        if (norm(effect[j]) < 1e-9) {
            determined[j] = false;
            u[j] = u0[j];  // nothing says where it is: it stays where it was
            notes.push_back(params[j].fit.key + ": no measurement moves it within [" + number_text(params[j].fit.lo) +
                            ", " + number_text(params[j].fit.hi) + "]; kept at " + params[j].shown(u0[j]));
        }
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = a + 1; b < n; ++b) {
            if (!determined[a] || !determined[b]) continue;
            double dot = 0;
            for (std::size_t i = 0; i < ms.size(); ++i) dot += effect[a][i] * effect[b][i];
            if (std::abs(dot) / (norm(effect[a]) * norm(effect[b])) > 0.9999)
                notes.push_back(params[a].fit.key + " and " + params[b].fit.key +
                                " only move together: every measurement sees the same mix of both, so the data fixes "
                                "one combination of them, not each (add a measurement that one moves and the other "
                                "does not)");
        }
    const std::vector<double> after = runner.run(u);

    // The calibrated topology: the start with the fitted keys set.
    std::vector<Override> fitted = overrides_of(o.sets);
    for (std::size_t j = 0; j < n; ++j) fitted.push_back({params[j].fit.key, params[j].text(u[j])});
    const TopologyConfig calibrated = load_topology_file(o.topology, fitted, builtin_registry());
    write_file_atomically(o.out, [&](std::ostream& out) {
        out << "# Calibrated by npuvp calibrate from " << o.csv << " (" << ms.size() << " measurements), starting from "
            << o.topology << ":\n";
        for (std::size_t j = 0; j < n; ++j)
            out << "#   " << params[j].fit.key << ": " << params[j].shown_initial() << " -> " << params[j].shown(u[j])
                << (determined[j] ? "" : " (undetermined: kept)") << "\n";
        out << dump_topology_yaml(calibrated);
    });

    std::cout << "calibrate " << ms.size() << " measurement" << (ms.size() == 1 ? "" : "s") << ", " << n << " key"
              << (n == 1 ? "" : "s") << " (NLopt " << (n >= 2 ? "BOBYQA" : "COBYLA") << ", " << runner.runs()
              << " evaluations of every measurement)\n\n";
    std::size_t width = 3;
    for (const Param& p : params) width = std::max(width, p.fit.key.size());
    std::cout << std::left << std::setw(static_cast<int>(width)) << "key" << "  " << std::right << std::setw(14)
              << "before" << std::setw(14) << "after" << "  bounds\n";
    for (std::size_t j = 0; j < n; ++j)
        std::cout << std::left << std::setw(static_cast<int>(width)) << params[j].fit.key << "  " << std::right
                  << std::setw(14) << params[j].shown_initial() << std::setw(14) << params[j].shown(u[j]) << "  ["
                  << number_text(params[j].fit.lo) << ", " << number_text(params[j].fit.hi) << "]"
                  << (determined[j] ? "" : "  undetermined") << "\n";
    std::cout << "\n";
    std::size_t mwidth = 11;
    std::vector<std::string> names;
    for (const Measurement& m : ms) {
        names.push_back(m.where + " " + std::filesystem::path(m.workload).filename().string() + " " + m.interval.text());
        mwidth = std::max(mwidth, names.back().size());
    }
    std::cout << std::left << std::setw(static_cast<int>(mwidth)) << "measurement" << std::right << std::setw(14)
              << "measured ns" << std::setw(14) << "before ns" << std::setw(10) << "error" << std::setw(14) << "after ns"
              << std::setw(10) << "error" << "\n";
    double worst_before = 0, worst_after = 0;
    for (std::size_t i = 0; i < ms.size(); ++i) {
        const double eb = (before[i] - ms[i].measured_ns) / ms[i].measured_ns;
        const double ea = (after[i] - ms[i].measured_ns) / ms[i].measured_ns;
        worst_before = std::max(worst_before, std::abs(eb));
        worst_after = std::max(worst_after, std::abs(ea));
        auto pct = [](double e) {  // to 0.01 %, the third decimal cut
            const std::string text = fixed3(100 * e);
            return (e >= 0 ? "+" : "") + text.substr(0, text.size() - 1) + "%";
        };
        std::cout << std::left << std::setw(static_cast<int>(mwidth)) << names[i] << std::right << std::setw(14)
                  << fixed3(ms[i].measured_ns) << std::setw(14) << fixed3(before[i]) << std::setw(10) << pct(eb)
                  << std::setw(14) << fixed3(after[i]) << std::setw(10) << pct(ea) << "\n";
    }
    std::cout << "\nworst error " << fixed3(100 * worst_before) << "% before, " << fixed3(100 * worst_after)
              << "% after\n";
    for (const std::string& k : clamped)
        std::cout << "note     " << k << ": its value in the topology lies outside its bounds; the fit started at the "
                                    "nearest bound\n";
    for (const std::string& note : notes) std::cout << "undetermined " << note << "\n";
    std::cout << "wrote    " << o.out << "\n";
    return exit_ok;
}

}  // namespace npuvp
