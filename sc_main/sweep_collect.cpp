#include "sc_main/sweep_collect.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "report/atomic_file.h"
#include "config/config_error.h"
#include "report/run_view.h"
#include "sc_main/cli.h"
#include "sc_main/sweep_plan.h"

namespace npuvp {
namespace {

// Result columns taken from each point's summary (docs/sweep.md "Results CSV").
const char* const kTotals[] = {"dma_read_bytes", "dma_write_bytes", "link_bytes",
                               "memory_bytes",   "dma_read_gbs",    "dma_write_gbs"};
const char* const kCauses[] = {"context", "dependency", "resource", "bank", "feed"};
struct Table {
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;  // one per point, plan order
    std::size_t params = 0;                      // columns 1 .. params are parameters
    std::size_t ok = 0, failed = 0, not_done = 0;
};

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string fixed6(double v) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6f", v);
    return buffer;
}

// The summary's answers, in answer_columns()' order ("" for what it lacks).
std::vector<std::string> answers(const YAML::Node& s) {
    std::vector<std::string> row;
    const YAML::Node bound = s["bound"];
    if (bound && bound.IsSequence() && bound.size() > 0) {
        row.push_back(bound[0]["what"].as<std::string>());
        row.push_back(bound[0]["share"].Scalar());
        row.push_back(bound[0]["where"].as<std::string>());
    } else {
        row.insert(row.end(), {"", "", ""});
    }
    for (const char* kind : {"link", "memory"}) {
        double best = -1.0;
        std::string where;
        for (const auto& t : s["traffic"])
            if (t["kind"].as<std::string>() == kind && t["utilisation"] && t["utilisation"].as<double>() > best)
                best = t["utilisation"].as<double>(), where = t["name"].as<std::string>();
        row.push_back(best < 0.0 ? "" : fixed6(best));
        row.push_back(where);
    }
    const YAML::Node energy = s["energy"];
    const bool has_energy = energy && energy.IsMap();
    row.push_back(has_energy ? energy["total_pj"].Scalar() : "");
    row.push_back(has_energy ? energy["average_w"].Scalar() : "");
    row.push_back(has_energy && energy["peak_w"] ? energy["peak_w"].Scalar() : "");
    const YAML::Node roof = s["roofline"];
    row.push_back(roof && roof.IsMap() && roof["points"].size() > 0 ? roof["points"][0]["tflops"].Scalar() : "");
    return row;
}

Table build_table(const std::string& dir, const SweepPlan& plan) {
    Table t;
    t.columns.push_back("id");
    for (const SweepParam& p : plan.params) t.columns.push_back(p.name);
    t.params = plan.params.size();
    t.columns.insert(t.columns.end(), {"status", "exit_code", "makespan_ns"});
    for (const char* c : kTotals) t.columns.push_back(c);
    for (const char* c : kCauses) t.columns.push_back(std::string("wait_") + c + "_ns");
    for (const std::string& c : answer_columns()) t.columns.push_back(c);
    const std::size_t fixed_columns = t.columns.size();

    // Engines: mean utilisation over the launched PEs, one column per engine
    // in the order first seen (plan order, then summary order).
    std::vector<std::string> engines;
    std::vector<std::map<std::string, std::string>> util(plan.points.size());
    std::vector<std::vector<std::string>> body(plan.points.size());
    std::vector<std::string> errors(plan.points.size());
    for (const SweepPoint& pt : plan.points) {
        std::vector<std::string>& row = body[pt.index];
        row.push_back(pt.id);
        row.insert(row.end(), pt.values.begin(), pt.values.end());
        const PointResult r = read_point_result(dir, pt.id);
        if (!r.done) {
            ++t.not_done;
            row.push_back("not_done");
            row.resize(fixed_columns);
            continue;
        }
        row.push_back(r.status);
        row.push_back(std::to_string(r.exit_code));
        errors[pt.index] = r.error;
        if (r.status != "ok") {
            ++t.failed;
            row.resize(fixed_columns);  // no results from a run that did not finish
            continue;
        }
        YAML::Node s;
        try {
            s = YAML::LoadFile(point_dir(dir, pt.id) + "/summary.json");
            row.push_back(s["makespan_ns"].Scalar());
            for (const char* c : kTotals) row.push_back(s["totals"][c].Scalar());
            for (const char* c : kCauses) row.push_back(s["waits_ns"][c].Scalar());
            for (const std::string& a : answers(s)) row.push_back(a);
            std::map<std::string, std::pair<double, int>> sums;
            for (const auto& e : s["engines"]) {
                const std::string name = e["engine"].as<std::string>();
                if (std::find(engines.begin(), engines.end(), name) == engines.end()) engines.push_back(name);
                sums[name].first += e["utilisation"].as<double>();
                sums[name].second += 1;
            }
            for (const auto& [name, sum] : sums) util[pt.index][name] = fixed6(sum.first / sum.second);
            ++t.ok;
        } catch (const std::exception& e) {
            row.resize(t.params + 1);
            row.push_back("failed");
            row.push_back(std::to_string(r.exit_code));
            errors[pt.index] = "the summary of an ok point is unreadable: " + std::string(e.what());
            row.resize(fixed_columns);
            ++t.failed;
        }
    }
    for (const std::string& e : engines) t.columns.push_back("util_" + lower(e));
    t.columns.push_back("error");
    for (const SweepPoint& pt : plan.points) {
        std::vector<std::string>& row = body[pt.index];
        for (const std::string& e : engines) {
            const auto it = util[pt.index].find(e);
            row.push_back(it == util[pt.index].end() ? "" : it->second);
        }
        row.push_back(errors[pt.index]);
        t.rows.push_back(row);
    }
    return t;
}

std::string csv_cell(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

// ------------------------------------------------------------ plot

std::optional<double> as_number(const std::string& s) {
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (*end != '\0' || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::string num(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f", v);
    return buffer;
}

std::string label(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", v);
    return buffer;
}

// A column's axis label with its unit (docs/sweep.md "Plots").
std::string axis_label(const std::string& c) {
    const auto ends = [&](const std::string& tail) {
        return c.size() >= tail.size() && c.compare(c.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (c == "makespan_ns") return "makespan (ns)";
    if (c == "energy_pj") return "energy (pJ)";
    if (c == "average_w") return "average power (W)";
    if (c == "tflops") return "achieved TFLOPS";
    if (c == "bound_share") return "bound's share of the makespan";
    if (c.rfind("util_", 0) == 0) return c.substr(5) + " utilisation (share of the makespan)";
    if (ends("_util")) return c.substr(0, c.size() - 5) + " utilisation (share of the makespan)";
    if (c.rfind("wait_", 0) == 0 && ends("_ns")) return c.substr(5, c.size() - 8) + " wait (ns)";
    if (ends("_bytes")) return c.substr(0, c.size() - 6) + " (bytes)";
    if (ends("_gbs")) return c.substr(0, c.size() - 4) + " (GB/s)";
    if (ends("_ns")) return c.substr(0, c.size() - 3) + " (ns)";
    if (ends("_mb")) return c.substr(0, c.size() - 3) + " (MiB)";
    if (ends("_ghz")) return c.substr(0, c.size() - 4) + " (GHz)";
    return c;
}

// An axis from lo to hi with 1, 2 or 5 x 10^k steps, about six ticks; on a
// log axis the values are log10 and the ticks whole decades.
struct Scale {
    double lo, hi, step;
    bool log = false;
    Scale(double min, double max, bool logarithmic = false) : log(logarithmic) {
        if (log) {
            lo = std::floor(min);
            hi = std::max(lo + 1.0, std::ceil(max));
            step = 1.0;
            return;
        }
        if (max <= min) {
            const double pad = min == 0 ? 1.0 : std::fabs(min) * 0.1;
            min -= pad;
            max += pad;
        }
        const double raw = (max - min) / 6.0;
        const double mag = std::pow(10.0, std::floor(std::log10(raw)));
        step = mag * (raw <= mag ? 1 : raw <= 2 * mag ? 2 : raw <= 5 * mag ? 5 : 10);
        lo = std::floor(min / step) * step;
        hi = std::ceil(max / step) * step;
    }
    double at(double v, double from, double to) const { return from + (v - lo) / (hi - lo) * (to - from); }
};

const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

struct Dot {
    std::size_t row;
    double x, y;
    std::size_t series;
};

void write_plot(std::ostream& out, const Table& t, const std::string& title, std::size_t xc,
                std::size_t yc, const std::vector<Dot>& dots, const std::vector<std::string>& series,
                const std::vector<std::size_t>& front, bool lines, bool log_x, bool log_y,
                const std::vector<std::string>& categories) {
    using obs::xml_text;
    // The legend's width follows its longest label (about 7 px a character).
    std::size_t longest = 20;
    for (const std::string& s : series) longest = std::max(longest, s.size());
    constexpr double H = 620, L = 90, R = 700, T = 50, B = 550;
    const double W = R + 50 + 7.0 * static_cast<double>(std::min<std::size_t>(longest, 120));
    double xmin = dots.front().x, xmax = xmin, ymin = dots.front().y, ymax = ymin;
    for (const Dot& d : dots) {
        xmin = std::min(xmin, d.x);
        xmax = std::max(xmax, d.x);
        ymin = std::min(ymin, d.y);
        ymax = std::max(ymax, d.y);
    }
    // Categories sit at 0 .. n-1, half a step in from the frame.
    const Scale sx = categories.empty() ? Scale(xmin, xmax, log_x) : [&] {
        Scale c(0.0, 1.0);
        c.lo = -0.5, c.hi = static_cast<double>(categories.size()) - 0.5, c.step = 1.0;
        return c;
    }();
    const Scale sy(ymin, ymax, log_y);
    const auto tick = [](const Scale& sc, double v) {
        return sc.log ? label(std::pow(10.0, v)) : label(std::fabs(v) < sc.step * 1e-9 ? 0.0 : v);
    };
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
        << "\" viewBox=\"0 0 " << W << " " << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << L << "\" y=\"28\" font-size=\"16\">" << xml_text(title) << "</text>\n";
    // Grid, ticks and axis labels.
    out << "<g class=\"axes\" stroke=\"#dddddd\">\n";
    for (double v = sx.lo; v <= sx.hi + sx.step / 2; v += sx.step)
        out << "<line x1=\"" << num(sx.at(v, L, R)) << "\" y1=\"" << T << "\" x2=\"" << num(sx.at(v, L, R))
            << "\" y2=\"" << B << "\"/>\n";
    for (double v = sy.lo; v <= sy.hi + sy.step / 2; v += sy.step)
        out << "<line x1=\"" << L << "\" y1=\"" << num(sy.at(v, B, T)) << "\" x2=\"" << R << "\" y2=\""
            << num(sy.at(v, B, T)) << "\"/>\n";
    out << "<rect x=\"" << L << "\" y=\"" << T << "\" width=\"" << R - L << "\" height=\"" << B - T
        << "\" fill=\"none\" stroke=\"#333333\"/>\n</g>\n<g class=\"ticks\" fill=\"#333333\">\n";
    if (categories.empty()) {
        for (double v = sx.lo; v <= sx.hi + sx.step / 2; v += sx.step)
            out << "<text x=\"" << num(sx.at(v, L, R)) << "\" y=\"" << B + 16 << "\" text-anchor=\"middle\">"
                << tick(sx, v) << "</text>\n";
    } else {
        // A category's label: its last path segment (a file's name), the
        // whole value in the tooltip; alternate rows when there are many.
        for (std::size_t k = 0; k < categories.size(); ++k) {
            const std::string& c = categories[k];
            const std::string shown = c.find('/') == std::string::npos ? c : c.substr(c.rfind('/') + 1);
            out << "<text x=\"" << num(sx.at(static_cast<double>(k), L, R)) << "\" y=\""
                << B + 14 + (categories.size() > 6 && k % 2 ? 12 : 0) << "\" text-anchor=\"middle\" font-size=\"10\"><title>"
                << xml_text(c) << "</title>" << xml_text(shown.size() > 24 ? shown.substr(0, 23) + "…" : shown) << "</text>\n";
        }
    }
    for (double v = sy.lo; v <= sy.hi + sy.step / 2; v += sy.step)
        out << "<text x=\"" << L - 6 << "\" y=\"" << num(sy.at(v, B, T) + 4) << "\" text-anchor=\"end\">"
            << tick(sy, v) << "</text>\n";
    out << "<text x=\"" << (L + R) / 2 << "\" y=\"" << B + 48 << "\" text-anchor=\"middle\" font-size=\"14\">"
        << xml_text(axis_label(t.columns[xc])) << (sx.log ? " (log)" : "") << "</text>\n"
        << "<text x=\"22\" y=\"" << (T + B) / 2 << "\" text-anchor=\"middle\" font-size=\"14\" transform=\"rotate(-90 22 "
        << (T + B) / 2 << ")\">" << xml_text(axis_label(t.columns[yc])) << (sy.log ? " (log)" : "") << "</text>\n</g>\n";

    // One line per series (points sharing every other parameter), by x.
    out << "<g class=\"series\" fill=\"none\" stroke-width=\"1.5\">\n";
    for (std::size_t s = 0; lines && s < series.size(); ++s) {
        std::vector<const Dot*> line;
        for (const Dot& d : dots)
            if (d.series == s) line.push_back(&d);
        if (line.size() < 2) continue;
        std::stable_sort(line.begin(), line.end(), [](const Dot* a, const Dot* b) { return a->x < b->x; });
        out << "<polyline stroke=\"" << kPalette[s % 10] << "\" points=\"";
        for (std::size_t k = 0; k < line.size(); ++k)
            out << (k ? " " : "") << num(sx.at(line[k]->x, L, R)) << "," << num(sy.at(line[k]->y, B, T));
        out << "\"/>\n";
    }
    out << "</g>\n<g class=\"points\">\n";
    for (const Dot& d : dots)
        out << "<circle class=\"point\" cx=\"" << num(sx.at(d.x, L, R)) << "\" cy=\"" << num(sy.at(d.y, B, T))
            << "\" r=\"4\" fill=\"" << kPalette[d.series % 10] << "\"><title>" << xml_text(t.rows[d.row][0])
            << ": " << xml_text(t.columns[xc]) << " " << xml_text(t.rows[d.row][xc]) << ", "
            << xml_text(t.columns[yc]) << " " << xml_text(t.rows[d.row][yc]) << "</title></circle>\n";
    out << "</g>\n";
    if (!front.empty()) {
        out << "<g class=\"pareto\" fill=\"none\" stroke=\"black\">\n<polyline stroke-width=\"2\" "
               "stroke-dasharray=\"6 3\" points=\"";
        for (std::size_t k = 0; k < front.size(); ++k)
            out << (k ? " " : "") << num(sx.at(dots[front[k]].x, L, R)) << "," << num(sy.at(dots[front[k]].y, B, T));
        out << "\"/>\n";
        for (std::size_t k : front)
            out << "<circle class=\"front\" cx=\"" << num(sx.at(dots[k].x, L, R)) << "\" cy=\""
                << num(sy.at(dots[k].y, B, T)) << "\" r=\"8\" stroke-width=\"2\"><title>Pareto: "
                << xml_text(t.rows[dots[k].row][0]) << "</title></circle>\n";
        out << "</g>\n";
    }
    // Legend.
    out << "<g class=\"legend\">\n";
    double y = T + 6;
    const std::size_t shown = std::min<std::size_t>(series.size(), 24);
    for (std::size_t s = 0; s < shown; ++s, y += 18)
        out << "<circle cx=\"" << R + 24 << "\" cy=\"" << num(y) << "\" r=\"5\" fill=\"" << kPalette[s % 10]
            << "\"/><text x=\"" << R + 36 << "\" y=\"" << num(y + 4) << "\">" << xml_text(series[s]) << "</text>\n";
    if (series.size() > shown)
        out << "<text x=\"" << R + 16 << "\" y=\"" << num(y + 4) << "\">… and " << series.size() - shown
            << " more</text>\n", y += 18;
    if (!front.empty())
        out << "<circle cx=\"" << R + 24 << "\" cy=\"" << num(y) << "\" r=\"8\" fill=\"none\" stroke=\"black\" "
               "stroke-width=\"2\"/><text x=\"" << R + 36 << "\" y=\"" << num(y + 4) << "\">Pareto front ("
            << front.size() << " points)</text>\n";
    out << "</g>\n</svg>\n";
}

[[noreturn]] void bad(const std::string& message) {
    throw ConfigError(SourceLoc{"command line", 0, 0, ""}, "sweep collect: " + message);
}

}  // namespace

int run_collect(const CollectOptions& o, std::ostream& out) {
    const SweepPlan plan = read_sweep_dir(o.dir);
    const Table t = build_table(o.dir, plan);
    const std::string csv = o.csv.empty() ? o.dir + "/results.csv" : o.csv;
    write_file_atomically(csv, [&](std::ostream& f) {
        auto write_row = [&](const std::vector<std::string>& row) {
            for (std::size_t c = 0; c < row.size(); ++c) f << (c ? "," : "") << csv_cell(row[c]);
            f << "\n";
        };
        write_row(t.columns);
        for (const auto& row : t.rows) write_row(row);
    });
    out << "results " << csv << " (" << t.rows.size() << " points: " << t.ok << " ok, " << t.failed
        << " failed, " << t.not_done << " not done)\n";

    if (!o.plot.empty()) {
        auto column = [&](const std::string& name) {
            const auto it = std::find(t.columns.begin(), t.columns.end(), name);
            if (it == t.columns.end() || name == "id" || name == "error" || name == "status") {
                std::string known;
                for (const std::string& c : t.columns)
                    if (c != "id" && c != "error" && c != "status") known += (known.empty() ? "" : ", ") + c;
                bad("no numeric column '" + name + "' (columns: " + known + ")");
            }
            return static_cast<std::size_t>(it - t.columns.begin());
        };
        const std::size_t xc = column(o.x), yc = column(o.y);
        const std::size_t gc = o.group.empty() ? 0 : column(o.group);
        // A categorical x (a column with text, e.g. a workload file): one
        // place per value, in plan order.
        std::vector<std::string> categories;
        for (const auto& row : t.rows)
            if (row[t.params + 1] == "ok" && !as_number(row[xc])) {
                for (const auto& r2 : t.rows)
                    if (r2[t.params + 1] == "ok" &&
                        std::find(categories.begin(), categories.end(), r2[xc]) == categories.end())
                        categories.push_back(r2[xc]);
                break;
            }
        if (!categories.empty() && o.log_x) bad("--log-x: '" + o.x + "' is not numeric (its values are categories)");
        for (const std::string& m : o.maximize) {
            if (m != o.x && m != o.y) bad("--maximize " + m + ": not a plotted column (--x / --y)");
        }
        // Series, when x is a parameter: the points that share the values of
        // the other parameters, one line each. Two results: one cloud.
        // With --group, one series per value of that column instead.
        const bool x_is_param = xc <= t.params;
        std::vector<std::string> series;
        std::map<std::string, std::size_t> series_index;
        std::vector<Dot> dots;
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
            const auto& row = t.rows[r];
            if (row[t.params + 1] != "ok") continue;
            std::optional<double> x = as_number(row[xc]), y = as_number(row[yc]);
            if (!categories.empty())
                x = static_cast<double>(std::find(categories.begin(), categories.end(), row[xc]) - categories.begin());
            if (!x || !y) continue;
            if ((o.log_x && *x <= 0.0) || (o.log_y && *y <= 0.0))
                bad("point " + row[0] + ": a logarithmic axis needs values above 0 (" + o.x + " " + row[xc] + ", " +
                    o.y + " " + row[yc] + ")");
            if (o.log_x) x = std::log10(*x);
            if (o.log_y) y = std::log10(*y);
            std::string key;
            if (gc != 0) {
                key = t.columns[gc] + "=" + row[gc];
            } else if (!categories.empty()) {
                key = "all points";  // a categorical x: one place per value, no line
            } else {
                for (std::size_t p = 1; x_is_param && p <= t.params; ++p)
                    if (p != xc && p != yc) key += (key.empty() ? "" : ", ") + t.columns[p] + "=" + row[p];
            }
            if (key.empty()) key = x_is_param ? "all points" : "ok points";
            const auto [it, fresh] = series_index.insert({key, series.size()});
            if (fresh) series.push_back(key);
            dots.push_back({r, *x, *y, it->second});
        }
        if (dots.empty()) bad("no ok point has numbers in both '" + o.x + "' and '" + o.y + "'");
        std::vector<std::size_t> front;
        if (o.pareto) {
            const double fx = std::count(o.maximize.begin(), o.maximize.end(), o.x) ? -1 : 1;
            const double fy = std::count(o.maximize.begin(), o.maximize.end(), o.y) ? -1 : 1;
            for (std::size_t i = 0; i < dots.size(); ++i) {
                bool dominated = false;
                for (std::size_t j = 0; j < dots.size() && !dominated; ++j) {
                    const double ax = fx * dots[j].x, ay = fy * dots[j].y;
                    const double bx = fx * dots[i].x, by = fy * dots[i].y;
                    dominated = ax <= bx && ay <= by && (ax < bx || ay < by);
                }
                if (!dominated) front.push_back(i);
            }
            std::stable_sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
                return dots[a].x < dots[b].x || (dots[a].x == dots[b].x && dots[a].y < dots[b].y);
            });
            out << "Pareto front of " << o.x << " (" << (fx > 0 ? "min" : "max") << ") and " << o.y << " ("
                << (fy > 0 ? "min" : "max") << "): " << front.size() << " points\n";
            for (std::size_t k : front)
                out << "  " << t.rows[dots[k].row][0] << "  " << o.x << " " << t.rows[dots[k].row][xc] << ", "
                    << o.y << " " << t.rows[dots[k].row][yc] << "\n";
        }
        const std::string title = plan.name + ": " + o.y + " vs " + o.x;
        const bool lines = (x_is_param || gc != 0) && categories.empty();
        write_file_atomically(o.plot, [&](std::ostream& f) {
            write_plot(f, t, title, xc, yc, dots, series, front, lines, o.log_x, o.log_y, categories);
        });
        out << "plot    " << o.plot << " (" << dots.size() << " points)\n";
    }
    return t.failed || t.not_done ? exit_run_failed : exit_ok;
}

// What bound the point, its busiest link and memory port, its energy,
// average and peak power (over the run's --power-window, default 1 µs) and
// achieved TFLOPS.
const std::vector<std::string>& answer_columns() {
    static const std::vector<std::string> columns{"bound", "bound_share", "bound_where", "max_link_util", "max_link",
                                                  "max_memory_util", "max_memory", "energy_pj", "average_w", "peak_w",
                                                  "tflops"};
    return columns;
}

std::vector<std::string> summary_answers(const std::string& summary_json) {
    try {
        return answers(YAML::LoadFile(summary_json));
    } catch (const std::exception&) {
        return std::vector<std::string>(answer_columns().size());
    }
}

}  // namespace npuvp
