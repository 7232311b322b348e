#include "report/svg_writer.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "modules/pe/engine_kinds.h"

namespace npuvp {
namespace {

using obs::xml_text;

constexpr double left = 230.0;      // lane labels
constexpr double plot_w = 1400.0;   // time axis
constexpr double lane_h = 24.0;
constexpr double top = 50.0;
constexpr double power_h = 72.0;    // the power strip under the lanes

std::string num(double v) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << v;
    return s.str();
}

// An engine lane has its kind's colour (modules/pe/engine_kinds.h).
const char* lane_colour(const std::string& lane) {
    if (const EngineKind* kind = find_engine_kind(lane)) return kind->colour;
    if (lane == "requests" || lane == "fanouts") return "#9c755f";
    return "#bab0ac";  // contexts
}

const char* const causes[] = {"context", "dependency", "resource", "bank", "feed"};
const char* cause_colour(const std::string& cause) {
    if (cause == "context") return "#7f7f7f";
    if (cause == "dependency") return "#e15759";
    if (cause == "resource") return "#f28e2b";
    if (cause == "bank") return "#8c564b";
    if (cause == "feed") return "#76b7b2";
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

// The schedule picture, drawn in order: lanes (laid out first, since the
// height depends on them), header and styles, boxes, the stop line of a
// failed run, the time axis, the legend and the diagnosis.
class Svg {
public:
    Svg(std::ostream& out, const obs::RunView& view, const Energy* energy)
        : m_out(out), m_view(view), m_energy(energy != nullptr && !energy->power.empty() ? energy : nullptr) {
        lay_out_lanes();
        for (std::istringstream in(view.failure); view.failed;) {
            std::string line;
            if (!std::getline(in, line)) break;
            if (!line.empty()) m_failure_lines.push_back(line);
        }
        m_end = std::max<std::uint64_t>(view.makespan_ps, 1);
        for (const auto& s : view.engines) m_end = std::max(m_end, s.end_ps);
        for (const auto& n : view.nodes) m_end = std::max(m_end, n.end_ps);
        for (const auto& c : view.commands) m_end = std::max(m_end, c.finished_ps);
        if (view.failed) m_end = std::max(m_end, view.stopped_ps);
        m_scale = plot_w / static_cast<double>(m_end);
    }

    void write(const std::string& title) {
        header(title);
        m_out << m_lanes.str();
        detail_window();
        occupancy();
        finished_boxes();
        unfinished_boxes();
        power_strip();
        stop_line();
        time_axis();
        legend();
        failure_text();
        m_out << "</svg>\n";
    }

private:
    double axis_y() const { return m_lanes_end + 6; }
    double legend_y() const { return axis_y() + 40; }
    // A failed run lists its diagnosis under the legend, one line each.
    double failure_y() const { return legend_y() + 56; }
    double x_of(std::uint64_t ps) const { return left + static_cast<double>(ps) * m_scale; }

    // Lanes in use, grouped, in display order.
    void lay_out_lanes() {
        std::set<std::pair<std::string, std::pair<int, std::string>>> used;
        auto use = [&](const std::string& group, const std::string& lane) {
            used.insert({group, {obs::lane_rank(lane), lane}});
        };
        for (const auto& s : m_view.engines) use(s.group, s.lane);
        if (!m_view.detail.complete)
            for (const auto& o : m_view.detail.occupancy) use(o.group, o.lane);
        for (const auto& c : m_view.commands) use(c.pe, c.lane);
        for (const auto& n : m_view.nodes) use(n.group, n.lane);
        for (const auto& s : m_view.open_engines) use(s.group, s.lane);
        for (const auto& c : m_view.unfinished) use(c.pe, c.lane);
        for (const auto& n : m_view.open_nodes) use(n.group, n.lane);
        double y = top;
        std::string last_group;
        for (const auto& [group, rank_lane] : used) {
            if (group != last_group) {
                if (!last_group.empty()) y += 8;
                m_lanes << "<text class=\"group\" x=\"4\" y=\"" << num(y + 14) << "\">" << xml_text(group)
                        << "</text>\n";
                y += lane_h;
                last_group = group;
            }
            const std::string& lane = rank_lane.second;
            m_lane_y[{group, lane}] = y;
            m_lanes << "<rect class=\"lane\" x=\"" << num(left) << "\" y=\"" << num(y) << "\" width=\""
                    << num(plot_w) << "\" height=\"" << num(lane_h) << "\"/>\n"
                    << "<text class=\"lane-label\" x=\"" << num(left - 6) << "\" y=\"" << num(y + 16)
                    << "\">" << xml_text(obs::is_context_lane(lane) ? "ctx " + lane : lane) << "</text>\n";
            y += lane_h;
        }
        if (m_energy != nullptr) {  // the power strip: a group of its own, last
            y += 8;
            m_lanes << "<text class=\"group\" x=\"4\" y=\"" << num(y + 14) << "\">power</text>\n";
            y += lane_h;
            m_power_y = y;
            m_lanes << "<rect class=\"lane\" x=\"" << num(left) << "\" y=\"" << num(y) << "\" width=\""
                    << num(plot_w) << "\" height=\"" << num(power_h) << "\"/>\n";
            y += power_h;
        }
        m_lanes_end = y;
    }

    // The run's power over time (Energy::power) as a step curve from 0 W at
    // the strip's bottom to the highest step at its top, the peak window
    // (--power-window) as a band behind it, labelled.
    void power_strip() {
        if (m_energy == nullptr) return;
        const Energy& e = *m_energy;
        // The axis spans the lowest step to the highest (static power alone
        // would flatten the rest); both are labelled.
        double top_w = 0.0, low_w = e.power.front().w;
        for (std::size_t i = 0; i + 1 < e.power.size(); ++i) {
            top_w = std::max(top_w, e.power[i].w);
            low_w = std::min(low_w, e.power[i].w);
        }
        if (top_w - low_w < 1e-9 * std::max(top_w, 1.0)) low_w = 0.0;
        if (top_w <= low_w) top_w = low_w + 1.0;
        const double bottom = m_power_y + power_h, span = power_h - 8;
        auto y_of = [&](double w) { return bottom - 4 - span * (w - low_w) / (top_w - low_w); };
        if (e.window_ps > 0) {
            const double x0 = x_of(e.peak_from_ps), x1 = x_of(e.peak_from_ps + e.window_ps);
            m_out << "<rect class=\"peak\" x=\"" << num(x0) << "\" y=\"" << num(m_power_y) << "\" width=\""
                  << num(std::max(x1 - x0, 1.0)) << "\" height=\"" << num(power_h) << "\"><title>"
                  << xml_text(power_peak_text(e)) << "</title></rect>\n";
        }
        m_out << "<path class=\"power\" d=\"M" << num(x_of(0)) << " " << num(bottom);
        for (std::size_t i = 0; i + 1 < e.power.size(); ++i)
            m_out << " V" << num(y_of(e.power[i].w)) << " H" << num(x_of(e.power[i + 1].at_ps));
        m_out << " V" << num(bottom) << "\"><title>power over time: each command's own energy over its span, "
              << "the rest over the makespan (docs/outputs.md)</title></path>\n";
        m_out << "<text class=\"lane-label\" x=\"" << num(left - 6) << "\" y=\"" << num(m_power_y + 12) << "\">"
              << obs::fixed(top_w, 2) << " W</text>\n<text class=\"lane-label\" x=\"" << num(left - 6)
              << "\" y=\"" << num(bottom - 2) << "\">" << obs::fixed(low_w, 2)
              << " W</text>\n<text class=\"note\" x=\"" << num(left + 4)
              << "\" y=\"" << num(m_power_y + 12) << "\">" << xml_text(power_peak_text(e)) << ", average "
              << obs::fixed(e.average_w(), 2) << " W (shaded: the peak window; the axis starts at "
              << obs::fixed(low_w, 2) << " W)</text>\n";
    }

    void header(const std::string& title) {
        const double height =
            legend_y() + 50 + (m_view.failed ? 22.0 + 14.0 * m_failure_lines.size() : 0.0);
        const double width = left + plot_w + 30;
        m_out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
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
              << ".stop { stroke: #d62728; stroke-width: 1.5; }\n.failure { fill: #d62728; }\n";
        if (!m_view.detail.complete || m_energy != nullptr) m_out << ".note { font-size: 10px; fill: #555; }\n";
        if (!m_view.detail.complete) m_out << ".occ { stroke: none; }\n.detail-window { fill: #4e79a7; }\n";
        if (m_energy != nullptr)
            m_out << ".power { fill: #e15759; fill-opacity: 0.25; stroke: #e15759; stroke-width: 1; }\n"
                  << ".peak { fill: #f28e2b; fill-opacity: 0.25; stroke: none; }\n";
        m_out << "</style>\n";
        for (const char* cause : causes)
            m_out << "<pattern id=\"hatch-" << cause
                  << "\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" "
                     "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#ffffff\"/>"
                     "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\""
                  << cause_colour(cause) << "\" stroke-width=\"3\"/></pattern>\n";
        m_out << "</defs>\n<text x=\"4\" y=\"18\" style=\"font-size:14px;font-weight:bold\">"
              << xml_text(title) << "</text>\n";
        if (m_view.failed)
            m_out << "<text class=\"failure\" x=\"4\" y=\"34\">run failed: stopped at "
                  << obs::ps_as_ns(m_view.stopped_ps) << " ns (see below)</text>\n";
        else
            m_out << "<text x=\"4\" y=\"34\">makespan " << obs::ps_as_ns(m_view.makespan_ps) << " ns</text>\n";
        const obs::RunView::Detail& d = m_view.detail;
        if (!d.complete)
            m_out << "<text class=\"note\" x=\"" << num(left) << "\" y=\"34\">engine lanes: busy share per "
                  << obs::ps_as_ns(d.bin_ps) << " ns bin (" << d.slices
                  << " intervals); a box per interval: --timeline, within the band above the lanes"
                     " (--detail-window, --detail-slices)<title>"
                  << xml_text(obs::detail_note(d)) << "</title></text>\n";
    }

    void box(const std::string& group, const std::string& lane, std::uint64_t t0, std::uint64_t t1,
             const std::string& label, const std::string& tip, const char* fill, const char* css = "op") {
        const double ly = m_lane_y.at({group, lane});
        const double x = x_of(t0);
        const double w = std::max(0.5, x_of(t1) - x);
        const double h = obs::is_context_lane(lane) ? lane_h * 0.6 : lane_h - 4;
        m_out << "<rect class=\"" << css << "\" x=\"" << num(x) << "\" y=\"" << num(ly + 2) << "\" width=\""
              << num(w) << "\" height=\"" << num(h) << "\" fill=\"" << fill << "\"><title>"
              << xml_text(tip) << "</title></rect>\n";
        if (w >= 6.0 * static_cast<double>(label.size()) + 4)
            m_out << "<text class=\"label\" x=\"" << num(x + 2) << "\" y=\"" << num(ly + 13) << "\">"
                  << xml_text(label) << "</text>\n";
    }

    // A command's wait, in the lower band of its lane, hatched by its main cause.
    void wait_box(const obs::CommandSpan& c) {
        if (c.started_ps <= c.submitted_ps) return;
        const std::string cause = c.main_cause();
        const double ly = m_lane_y.at({c.pe, c.lane});
        const double x = x_of(c.submitted_ps);
        const double w = std::max(0.5, x_of(c.started_ps) - x);
        m_out << "<rect class=\"wait\" x=\"" << num(x) << "\" y=\"" << num(ly + 2 + lane_h * 0.6)
              << "\" width=\"" << num(w) << "\" height=\"" << num(lane_h * 0.4 - 3) << "\" fill=\""
              << (cause.empty() ? std::string("#dddddd") : "url(#hatch-" + cause + ")")
              << "\"><title>" << xml_text(c.id + " waits " +
                                          obs::ps_as_ns(c.started_ps - c.submitted_ps) + " ns" +
                                          (cause.empty() ? " (dispatch)" : " (" + cause + ")"))
              << "</title></rect>\n";
    }

    // Tile detail not complete (RunView::Detail): each engine lane shows its
    // occupancy per bin instead of a box per interval (at the scale of a long
    // run they would be narrower than a pixel), as a bar whose height is the
    // busy share of the lane's channels.
    void occupancy() {
        const obs::RunView::Detail& d = m_view.detail;
        if (d.complete) return;
        for (const auto& o : d.occupancy) {
            std::uint64_t peak = 0;
            for (std::uint64_t busy : o.busy_ps) peak = std::max(peak, busy);
            const std::uint64_t units = std::max<std::uint64_t>(1, (peak + d.bin_ps - 1) / d.bin_ps);
            const double ly = m_lane_y.at({o.group, o.lane});
            const double full = lane_h - 4;
            // One bar per run of bins with the same busy time.
            for (std::size_t b = 0, e = 0; b < o.busy_ps.size(); b = e) {
                for (e = b + 1; e < o.busy_ps.size() && o.busy_ps[e] == o.busy_ps[b];) ++e;
                if (o.busy_ps[b] == 0) continue;
                const std::uint64_t t0 = b * d.bin_ps, t1 = e * d.bin_ps;
                const double x = x_of(t0), w = std::max(0.5, x_of(std::min(t1, m_end)) - x);
                const double h = full * static_cast<double>(o.busy_ps[b]) / static_cast<double>(d.bin_ps * units);
                m_out << "<rect class=\"occ\" x=\"" << num(x) << "\" y=\"" << num(ly + 2 + full - h) << "\" width=\""
                      << num(w) << "\" height=\"" << num(h) << "\" fill=\"" << lane_colour(o.lane) << "\"><title>"
                      << xml_text(o.lane + " " + obs::ps_as_ns(t0) + " .. " + obs::ps_as_ns(t1) + " ns: busy " +
                                  obs::fraction_text(o.busy_ps[b], d.bin_ps) + " per " +
                                  obs::ps_as_ns(d.bin_ps) + " ns bin")
                      << "</title></rect>\n";
            }
        }
    }

    // The window whose tiles the timeline has one by one, as a band above the lanes.
    void detail_window() {
        const obs::RunView::Detail& d = m_view.detail;
        if (d.complete || d.to_ps <= d.from_ps || d.from_ps >= m_end) return;
        const double x = x_of(d.from_ps);
        const double w = std::max(0.5, x_of(std::min(d.to_ps, m_end)) - x);
        m_out << "<rect class=\"detail-window\" x=\"" << num(x) << "\" y=\"" << num(top - 5) << "\" width=\""
              << num(w) << "\" height=\"3\"><title>tile detail (--timeline): " << obs::ps_as_ns(d.from_ps)
              << " .. " << (d.to_ps == obs::open_end ? std::string("end") : obs::ps_as_ns(d.to_ps))
              << " ns</title></rect>\n";
    }

    void finished_boxes() {
        if (m_view.detail.complete)
            for (const auto& s : m_view.engines)
                box(s.group, s.lane, s.start_ps, s.end_ps, s.label,
                    s.lane + " " + s.label + ": " + obs::ps_as_ns(s.start_ps) + " .. " +
                        obs::ps_as_ns(s.end_ps) + " ns" +
                        (s.bytes >= 0 ? ", " + std::to_string(s.bytes) + " B" : ""),
                    lane_colour(s.lane));
        for (const auto& c : m_view.commands) {
            wait_box(c);
            box(c.pe, c.lane, c.started_ps, c.finished_ps, c.id,
                c.id + " (" + c.kind + "): " + obs::ps_as_ns(c.started_ps) + " .. " +
                    obs::ps_as_ns(c.finished_ps) + " ns",
                lane_colour(c.lane));
        }
        for (const auto& n : m_view.nodes)
            box(n.group, n.lane, n.start_ps, n.end_ps, n.label,
                n.label + ": " + obs::ps_as_ns(n.start_ps) + " .. " + obs::ps_as_ns(n.end_ps) + " ns",
                lane_colour(n.lane));
    }

    // A failed run: what was open at the stop, dashed red to the stop line.
    void unfinished_boxes() {
        for (const auto& s : m_view.open_engines)
            box(s.group, s.lane, s.start_ps, s.end_ps, s.label,
                s.lane + " " + s.label + ": " + obs::ps_as_ns(s.start_ps) + " ns .. did not finish",
                lane_colour(s.lane), "unfinished");
        for (const auto& c : m_view.unfinished) {
            wait_box(c);
            if (c.started)
                box(c.pe, c.lane, c.started_ps, c.finished_ps, c.id,
                    c.id + " (" + c.kind + "): " + obs::ps_as_ns(c.started_ps) + " ns .. did not finish, " +
                        std::to_string(c.tiles_done) + "/" + std::to_string(c.tiles) + " tiles",
                    lane_colour(c.lane), "unfinished");
        }
        for (const auto& n : m_view.open_nodes)
            box(n.group, n.lane, n.start_ps, n.end_ps, n.label,
                n.label + ": " + obs::ps_as_ns(n.start_ps) + " ns .. did not finish", lane_colour(n.lane),
                "unfinished");
    }

    void stop_line() {
        if (!m_view.failed) return;
        const double x = x_of(m_view.stopped_ps);
        m_out << "<line class=\"stop\" x1=\"" << num(x) << "\" y1=\"" << num(top) << "\" x2=\"" << num(x)
              << "\" y2=\"" << num(axis_y()) << "\"><title>run stopped at "
              << obs::ps_as_ns(m_view.stopped_ps) << " ns</title></line>\n";
    }

    void time_axis() {
        const double axis = axis_y();
        m_out << "<line class=\"tick\" x1=\"" << num(left) << "\" y1=\"" << num(axis) << "\" x2=\""
              << num(left + plot_w) << "\" y2=\"" << num(axis) << "\"/>\n";
        const std::uint64_t step = tick_step_ps(m_end);
        for (std::uint64_t t = 0; t <= m_end; t += step) {
            const double x = x_of(t);
            m_out << "<line class=\"tick\" x1=\"" << num(x) << "\" y1=\"" << num(top) << "\" x2=\""
                  << num(x) << "\" y2=\"" << num(axis + 4) << "\"/>\n<text x=\"" << num(x)
                  << "\" y=\"" << num(axis + 16) << "\" style=\"text-anchor:middle\">" << t / 1000
                  << "</text>\n";
        }
        m_out << "<text x=\"" << num(left + plot_w) << "\" y=\"" << num(axis + 30)
              << "\" style=\"text-anchor:end\">time (ns)</text>\n";
    }

    void legend() {
        const double y = legend_y();
        double lx = 4;
        // Each engine colour once, named after the first engine kind drawn in it.
        std::set<std::string> colours;
        for (const EngineKind& kind : engine_kinds) {
            if (!colours.insert(kind.colour).second) continue;
            m_out << "<rect x=\"" << num(lx) << "\" y=\"" << num(y) << "\" width=\"12\" height=\"12\" fill=\""
                  << kind.colour << "\"/><text x=\"" << num(lx + 16) << "\" y=\"" << num(y + 10)
                  << "\">" << to_string(kind.stage) << "</text>\n";
            lx += 100;
        }
        lx = 4;
        for (const char* cause : causes) {
            m_out << "<rect x=\"" << num(lx) << "\" y=\"" << num(y + 20)
                  << "\" width=\"12\" height=\"12\" fill=\"url(#hatch-" << cause << ")\"/><text x=\""
                  << num(lx + 16) << "\" y=\"" << num(y + 30) << "\">wait: " << cause << "</text>\n";
            lx += 130;
        }
    }

    void failure_text() {
        if (!m_view.failed) return;
        m_out << "<text class=\"failure\" x=\"4\" y=\"" << num(failure_y())
              << "\" style=\"font-weight:bold\">run failed at " << obs::ps_as_ns(m_view.stopped_ps)
              << " ns; dashed red: started and never finished</text>\n";
        for (std::size_t i = 0; i < m_failure_lines.size(); ++i)
            m_out << "<text class=\"failure\" x=\"4\" y=\"" << num(failure_y() + 14.0 * (i + 1)) << "\">"
                  << xml_text(m_failure_lines[i]) << "</text>\n";
    }

    std::ostream& m_out;
    const obs::RunView& m_view;
    const Energy* m_energy;  // null: no power strip
    double m_power_y = 0.0;
    std::map<std::pair<std::string, std::string>, double> m_lane_y;
    std::ostringstream m_lanes;  // the lane rows, written after the header
    double m_lanes_end = top;
    std::vector<std::string> m_failure_lines;
    std::uint64_t m_end = 1;  // the time axis spans 0 .. m_end
    double m_scale = 1.0;
};

}  // namespace

void write_svg(std::ostream& out, const obs::RunView& view, const std::string& title, const Energy* energy) {
    Svg(out, view, energy).write(title);
}

}  // namespace npuvp
