#include "report/svg_writer.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace npuvp {
namespace {

constexpr double left = 230.0;      // lane labels
constexpr double plot_w = 1400.0;   // time axis
constexpr double lane_h = 24.0;
constexpr double top = 50.0;

std::string num(double v) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << v;
    return s.str();
}

const char* lane_colour(const std::string& lane) {
    if (lane == "DMA_READ") return "#4e79a7";
    if (lane == "DMA_WRITE") return "#76b7b2";
    if (lane == "FETCH") return "#edc948";
    if (lane == "STORE") return "#b07aa1";
    if (lane == "GEMM") return "#f28e2b";
    if (lane == "MATH") return "#59a14f";
    if (lane == "IPCQ_SEND" || lane == "IPCQ_RECV") return "#ff9da7";
    if (lane == "requests" || lane == "fanouts") return "#9c755f";
    return "#bab0ac";  // contexts
}

const char* const causes[] = {"context", "dependency", "resource", "bank"};
const char* cause_colour(const std::string& cause) {
    if (cause == "context") return "#7f7f7f";
    if (cause == "dependency") return "#e15759";
    if (cause == "resource") return "#f28e2b";
    if (cause == "bank") return "#8c564b";
    return "#cccccc";
}

// A tick step of 1, 2 or 5 x 10^k ns giving at most ~10 ticks.
std::uint64_t tick_step_ps(std::uint64_t span_ps) {
    std::uint64_t step = 1000;
    for (;;) {
        for (std::uint64_t m : {1u, 2u, 5u})
            if (span_ps / (step * m) <= 10) return step * m;
        step *= 10;
    }
}

}  // namespace

void write_svg(std::ostream& out, const obs::RunView& view, const std::string& title) {
    using obs::xml_text;
    // Lanes in use, grouped, in display order.
    std::set<std::pair<std::string, std::pair<int, std::string>>> used;
    for (const auto& s : view.engines) used.insert({s.group, {obs::lane_rank(s.lane), s.lane}});
    for (const auto& c : view.commands) used.insert({c.pe, {obs::lane_rank(c.lane), c.lane}});
    for (const auto& n : view.nodes) used.insert({n.group, {obs::lane_rank(n.lane), n.lane}});
    for (const auto& s : view.open_engines) used.insert({s.group, {obs::lane_rank(s.lane), s.lane}});
    for (const auto& c : view.unfinished) used.insert({c.pe, {obs::lane_rank(c.lane), c.lane}});
    for (const auto& n : view.open_nodes) used.insert({n.group, {obs::lane_rank(n.lane), n.lane}});
    std::map<std::pair<std::string, std::string>, double> lane_y;
    double y = top;
    std::string last_group;
    std::ostringstream lanes;
    for (const auto& [group, rank_lane] : used) {
        if (group != last_group) {
            if (!last_group.empty()) y += 8;
            lanes << "<text class=\"group\" x=\"4\" y=\"" << num(y + 14) << "\">" << xml_text(group)
                  << "</text>\n";
            y += lane_h;
            last_group = group;
        }
        const std::string& lane = rank_lane.second;
        lane_y[{group, lane}] = y;
        lanes << "<rect class=\"lane\" x=\"" << num(left) << "\" y=\"" << num(y) << "\" width=\""
              << num(plot_w) << "\" height=\"" << num(lane_h) << "\"/>\n"
              << "<text class=\"lane-label\" x=\"" << num(left - 6) << "\" y=\"" << num(y + 16)
              << "\">" << xml_text(obs::is_context_lane(lane) ? "ctx " + lane : lane) << "</text>\n";
        y += lane_h;
    }
    const double axis_y = y + 6;
    const double legend_y = axis_y + 40;
    // A failed run lists its diagnosis under the legend, one line each.
    std::vector<std::string> failure_lines;
    for (std::istringstream in(view.failure); view.failed;) {
        std::string line;
        if (!std::getline(in, line)) break;
        if (!line.empty()) failure_lines.push_back(line);
    }
    const double failure_y = legend_y + 56;
    const double height = legend_y + 50 + (view.failed ? 22.0 + 14.0 * failure_lines.size() : 0.0);
    const double width = left + plot_w + 30;
    const std::uint64_t span = std::max<std::uint64_t>(view.makespan_ps, 1);
    std::uint64_t end = span;
    for (const auto& s : view.engines) end = std::max(end, s.end_ps);
    for (const auto& n : view.nodes) end = std::max(end, n.end_ps);
    for (const auto& c : view.commands) end = std::max(end, c.finished_ps);
    if (view.failed) end = std::max(end, view.stopped_ps);
    const double scale = plot_w / static_cast<double>(end);
    auto x_of = [&](std::uint64_t ps) { return left + static_cast<double>(ps) * scale; };

    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\""
        << num(height) << "\" viewBox=\"0 0 " << num(width) << " " << num(height) << "\">\n"
        << "<title>" << xml_text(title) << "</title>\n<defs>\n<style>\n"
        << "text { font-family: sans-serif; font-size: 11px; }\n"
        << ".group { font-weight: bold; }\n.lane-label { text-anchor: end; }\n"
        << ".lane { fill: #f7f7f7; stroke: #e0e0e0; stroke-width: 0.5; }\n"
        << ".op { stroke: #333; stroke-width: 0.5; }\n.wait { stroke: #555; stroke-width: 0.3; }\n"
        << ".label { font-size: 9px; fill: #000; pointer-events: none; }\n"
        << ".tick { stroke: #999; stroke-width: 0.5; }\n"
        << ".unfinished { stroke: #d62728; stroke-width: 1; stroke-dasharray: 3 2; fill-opacity: 0.45; }\n"
        << ".stop { stroke: #d62728; stroke-width: 1.5; }\n.failure { fill: #d62728; }\n</style>\n";
    for (const char* cause : causes)
        out << "<pattern id=\"hatch-" << cause
            << "\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" "
               "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#ffffff\"/>"
               "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\""
            << cause_colour(cause) << "\" stroke-width=\"3\"/></pattern>\n";
    out << "</defs>\n<text x=\"4\" y=\"18\" style=\"font-size:14px;font-weight:bold\">"
        << xml_text(title) << "</text>\n";
    if (view.failed)
        out << "<text class=\"failure\" x=\"4\" y=\"34\">run failed: stopped at "
            << obs::ps_as_ns(view.stopped_ps) << " ns (see below)</text>\n";
    else
        out << "<text x=\"4\" y=\"34\">makespan " << obs::ps_as_ns(view.makespan_ps) << " ns</text>\n";
    out << lanes.str();

    auto box = [&](const std::string& group, const std::string& lane, std::uint64_t t0,
                   std::uint64_t t1, const std::string& label, const std::string& tip,
                   const char* fill, const char* css = "op") {
        const double ly = lane_y.at({group, lane});
        const double x = x_of(t0);
        const double w = std::max(0.5, x_of(t1) - x);
        const double h = obs::is_context_lane(lane) ? lane_h * 0.6 : lane_h - 4;
        out << "<rect class=\"" << css << "\" x=\"" << num(x) << "\" y=\"" << num(ly + 2) << "\" width=\""
            << num(w) << "\" height=\"" << num(h) << "\" fill=\"" << fill << "\"><title>"
            << xml_text(tip) << "</title></rect>\n";
        if (w >= 6.0 * static_cast<double>(label.size()) + 4)
            out << "<text class=\"label\" x=\"" << num(x + 2) << "\" y=\"" << num(ly + 13) << "\">"
                << xml_text(label) << "</text>\n";
    };
    for (const auto& s : view.engines)
        box(s.group, s.lane, s.start_ps, s.end_ps, s.label,
            s.lane + " " + s.label + ": " + obs::ps_as_ns(s.start_ps) + " .. " +
                obs::ps_as_ns(s.end_ps) + " ns" +
                (s.bytes >= 0 ? ", " + std::to_string(s.bytes) + " B" : ""),
            lane_colour(s.lane));
    auto wait_box = [&](const obs::CommandSpan& c) {
        // In the lower band of the lane, hatched by its main cause.
        if (c.started_ps > c.submitted_ps) {
            const std::string cause = c.main_cause();
            const double ly = lane_y.at({c.pe, c.lane});
            const double x = x_of(c.submitted_ps);
            const double w = std::max(0.5, x_of(c.started_ps) - x);
            out << "<rect class=\"wait\" x=\"" << num(x) << "\" y=\"" << num(ly + 2 + lane_h * 0.6)
                << "\" width=\"" << num(w) << "\" height=\"" << num(lane_h * 0.4 - 3) << "\" fill=\""
                << (cause.empty() ? std::string("#dddddd") : "url(#hatch-" + cause + ")")
                << "\"><title>" << xml_text(c.id + " waits " +
                                            obs::ps_as_ns(c.started_ps - c.submitted_ps) + " ns" +
                                            (cause.empty() ? " (dispatch)" : " (" + cause + ")"))
                << "</title></rect>\n";
        }
    };
    for (const auto& c : view.commands) {
        wait_box(c);
        box(c.pe, c.lane, c.started_ps, c.finished_ps, c.id,
            c.id + " (" + c.kind + "): " + obs::ps_as_ns(c.started_ps) + " .. " +
                obs::ps_as_ns(c.finished_ps) + " ns",
            lane_colour(c.lane));
    }
    for (const auto& n : view.nodes)
        box(n.group, n.lane, n.start_ps, n.end_ps, n.label,
            n.label + ": " + obs::ps_as_ns(n.start_ps) + " .. " + obs::ps_as_ns(n.end_ps) + " ns",
            lane_colour(n.lane));

    // A failed run: what was open at the stop, dashed red to the stop line.
    for (const auto& s : view.open_engines)
        box(s.group, s.lane, s.start_ps, s.end_ps, s.label,
            s.lane + " " + s.label + ": " + obs::ps_as_ns(s.start_ps) + " ns .. did not finish",
            lane_colour(s.lane), "unfinished");
    for (const auto& c : view.unfinished) {
        wait_box(c);
        if (c.started)
            box(c.pe, c.lane, c.started_ps, c.finished_ps, c.id,
                c.id + " (" + c.kind + "): " + obs::ps_as_ns(c.started_ps) + " ns .. did not finish, " +
                    std::to_string(c.tiles_done) + "/" + std::to_string(c.tiles) + " tiles",
                lane_colour(c.lane), "unfinished");
    }
    for (const auto& n : view.open_nodes)
        box(n.group, n.lane, n.start_ps, n.end_ps, n.label,
            n.label + ": " + obs::ps_as_ns(n.start_ps) + " ns .. did not finish", lane_colour(n.lane),
            "unfinished");
    if (view.failed) {
        const double x = x_of(view.stopped_ps);
        out << "<line class=\"stop\" x1=\"" << num(x) << "\" y1=\"" << num(top) << "\" x2=\"" << num(x)
            << "\" y2=\"" << num(axis_y) << "\"><title>run stopped at " << obs::ps_as_ns(view.stopped_ps)
            << " ns</title></line>\n";
    }

    // Time axis.
    out << "<line class=\"tick\" x1=\"" << num(left) << "\" y1=\"" << num(axis_y) << "\" x2=\""
        << num(left + plot_w) << "\" y2=\"" << num(axis_y) << "\"/>\n";
    const std::uint64_t step = tick_step_ps(end);
    for (std::uint64_t t = 0; t <= end; t += step) {
        const double x = x_of(t);
        out << "<line class=\"tick\" x1=\"" << num(x) << "\" y1=\"" << num(top) << "\" x2=\""
            << num(x) << "\" y2=\"" << num(axis_y + 4) << "\"/>\n<text x=\"" << num(x)
            << "\" y=\"" << num(axis_y + 16) << "\" style=\"text-anchor:middle\">" << t / 1000
            << "</text>\n";
    }
    out << "<text x=\"" << num(left + plot_w) << "\" y=\"" << num(axis_y + 30)
        << "\" style=\"text-anchor:end\">time (ns)</text>\n";
    // Legend.
    double lx = 4;
    const char* const engines[] = {"DMA_READ", "DMA_WRITE", "FETCH", "STORE", "GEMM", "MATH", "IPCQ_SEND"};
    for (const char* e : engines) {
        out << "<rect x=\"" << num(lx) << "\" y=\"" << num(legend_y) << "\" width=\"12\" height=\"12\" fill=\""
            << lane_colour(e) << "\"/><text x=\"" << num(lx + 16) << "\" y=\"" << num(legend_y + 10)
            << "\">" << e << "</text>\n";
        lx += 100;
    }
    lx = 4;
    for (const char* cause : causes) {
        out << "<rect x=\"" << num(lx) << "\" y=\"" << num(legend_y + 20)
            << "\" width=\"12\" height=\"12\" fill=\"url(#hatch-" << cause << ")\"/><text x=\""
            << num(lx + 16) << "\" y=\"" << num(legend_y + 30) << "\">wait: " << cause << "</text>\n";
        lx += 130;
    }
    if (view.failed) {
        out << "<text class=\"failure\" x=\"4\" y=\"" << num(failure_y)
            << "\" style=\"font-weight:bold\">run failed at " << obs::ps_as_ns(view.stopped_ps)
            << " ns; dashed red: started and never finished</text>\n";
        for (std::size_t i = 0; i < failure_lines.size(); ++i)
            out << "<text class=\"failure\" x=\"4\" y=\"" << num(failure_y + 14.0 * (i + 1)) << "\">"
                << xml_text(failure_lines[i]) << "</text>\n";
    }
    out << "</svg>\n";
}

}  // namespace npuvp
