#include "report/roofline.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "modules/common/checked.h"
#include "report/run_view.h"

namespace npuvp {

namespace {

using obs::fixed;

// A command's FLOPs: 2·m·k·n for a GEMM, one per element for a MATH op (a
// composite's epilogues: one per output element each).
double command_flops(const Command& c) {
    switch (c.kind) {
    case CommandKind::gemm: return 2.0 * double(c.m) * double(c.k) * double(c.n);
    case CommandKind::math: return double(c.elements);
    case CommandKind::composite: {
        const CompositeSpec& s = c.composite;
        if (s.ops.empty()) return s.d_in ? double(s.total_bytes) / double(s.d_in) : 0.0;
        return 2.0 * double(s.m) * double(s.k) * double(s.n) + double(s.ops.size() - 1) * double(s.m) * double(s.n);
    }
    default: return 0.0;
    }
}

void finish(Roofline::Point& p, double peak, double gbs) {
    p.intensity = p.hbm_bytes > 0.0 ? p.flops / p.hbm_bytes : 0.0;
    p.tflops = p.ns > 0.0 ? p.flops / p.ns / 1000.0 : 0.0;
    const double memory_roof = p.hbm_bytes > 0.0 ? p.intensity * gbs / 1000.0 : peak;
    p.roof_tflops = std::min(peak, memory_roof);
    p.of_roof = p.roof_tflops > 0.0 ? p.tflops / p.roof_tflops : 0.0;
    p.side = memory_roof < peak ? "memory" : "compute";
}

}  // namespace

Roofline build_roofline(const WorkloadRun& run, const Platform& platform, const std::vector<LayerResult>& layers) {
    const TopologyConfig& topo = platform.config();
    const auto& g = topo.cube.pe_template.gemm;
    const auto& m = topo.cube.pe_template.math;
    const double pes = double(topo.system.sips) * double(topo.system.cubes_per_sip) * double(topo.pes_per_cube());
    Roofline r;
    r.pe_peak_tflops = 2.0 * g.rows * g.cols * g.freq_ghz / 1000.0;
    r.peak_tflops = r.pe_peak_tflops * pes;
    r.slice_gbs = topo.cube.hbm_ctrl.bw_gbs;
    r.hbm_gbs = r.slice_gbs * double(topo.cube.memory_map.hbm_slices_per_cube) * double(topo.system.sips) *
                double(topo.system.cubes_per_sip);
    r.math_gelems_16 = m.lanes * m.freq_ghz;
    r.math_gelems_32 = m.lanes_32bit * m.freq_ghz;

    // Commands, grouped by kernel and id over the PEs that ran them.
    struct Group {
        Roofline::Point p;
        std::uint64_t start = ~std::uint64_t{0}, end = 0;
    };
    std::map<std::string, Group> groups;
    std::vector<std::string> order;
    const std::uint64_t sram_base = topo.cube.memory_map.sram_base;
    double run_flops = 0.0;
    for (const CommandResult& c : run.commands()) {
        const double flops = command_flops(*c.command);
        if (flops <= 0.0) continue;
        run_flops += flops;
        const std::string key = c.command->id;
        auto [it, fresh] = groups.try_emplace(key);
        if (fresh) order.push_back(key);
        Group& grp = it->second;
        grp.p.name = key, grp.p.kind = "command";
        grp.p.pes += 1;
        grp.p.flops += flops;
        LevelBytes b;
        add_command_bytes(*c.command, sram_base, b);
        grp.p.hbm_bytes += double(b.hbm_read + b.hbm_write);
        grp.start = std::min(grp.start, c.started_ps), grp.end = std::max(grp.end, c.finished_ps);
    }
    // The run: every HBM port's bytes over the makespan, on the whole machine.
    Roofline::Point whole;
    whole.name = "run", whole.kind = "run", whole.pes = int(pes);
    whole.flops = run_flops;
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            for (const MemoryTarget* t : cube.hbm) whole.hbm_bytes += double(t->port().bytes());
    whole.ns = double(run.makespan_ps()) / 1000.0;
    finish(whole, r.peak_tflops, r.hbm_gbs);
    r.points.push_back(whole);
    for (const LayerResult& l : layers) {
        Roofline::Point p;
        p.name = l.id, p.kind = "layer", p.pes = l.pes;
        p.flops = double(l.flops), p.hbm_bytes = double(l.hbm_read + l.hbm_write);
        p.ns = double(l.end_ps - l.start_ps) / 1000.0;
        finish(p, r.pe_peak_tflops * l.pes, r.slice_gbs * l.pes);
        r.points.push_back(p);
    }
    for (const std::string& key : order) {
        Group& grp = groups.at(key);
        grp.p.ns = double(grp.end - grp.start) / 1000.0;
        finish(grp.p, r.pe_peak_tflops * grp.p.pes, r.slice_gbs * grp.p.pes);
        r.points.push_back(grp.p);
    }
    return r;
}

void print_roofline(std::ostream& out, const Roofline& r) {
    if (r.points.empty()) return;
    const Roofline::Point& p = r.points.front();
    out << "roofline peak " << fixed(r.peak_tflops, 3) << " TFLOPS (GEMM, any dtype), HBM " << fixed(r.hbm_gbs, 1)
        << " GB/s, ridge " << fixed(r.peak_tflops * 1000.0 / std::max(r.hbm_gbs, 1e-9), 1)
        << " FLOP/B; the run: " << fixed(p.intensity, 2) << " FLOP/B, " << fixed(p.tflops, 3) << " TFLOPS = "
        << fixed(100.0 * p.of_roof, 1) << "% of its roof " << fixed(p.roof_tflops, 3) << " TFLOPS (" << p.side
        << " side)\n";
}

void write_roofline_json(std::ostream& out, const Roofline& r) {
    out << "{\"peak_tflops\": " << fixed(r.peak_tflops, 6) << ", \"pe_peak_tflops\": " << fixed(r.pe_peak_tflops, 6)
        << ", \"peak_tflops_by_dtype\": {\"int8\": " << fixed(r.peak_tflops, 6) << ", \"bf16\": " << fixed(r.peak_tflops, 6)
        << ", \"fp32\": " << fixed(r.peak_tflops, 6) << "}, \"math_gelems_per_pe\": {\"8/16-bit\": "
        << fixed(r.math_gelems_16, 3) << ", \"32-bit\": " << fixed(r.math_gelems_32, 3) << "}, \"hbm_gbs\": "
        << fixed(r.hbm_gbs, 3) << ", \"slice_gbs\": " << fixed(r.slice_gbs, 3) << ", \"points\": [";
    for (std::size_t i = 0; i < r.points.size(); ++i) {
        const auto& p = r.points[i];
        out << (i ? ", " : "") << "{\"name\": " << obs::json_string(p.name) << ", \"kind\": " << obs::json_string(p.kind)
            << ", \"pes\": " << p.pes << ", \"flops\": " << fixed(p.flops, 0) << ", \"hbm_bytes\": " << fixed(p.hbm_bytes, 0)
            << ", \"ns\": " << fixed(p.ns, 3) << ", \"intensity\": " << fixed(p.intensity, 4) << ", \"tflops\": "
            << fixed(p.tflops, 6) << ", \"roof_tflops\": " << fixed(p.roof_tflops, 6) << ", \"of_roof\": "
            << fixed(p.of_roof, 4) << ", \"side\": " << obs::json_string(p.side) << "}";
    }
    out << "]}";
}

void write_roofline_svg(std::ostream& out, const Roofline& r, const std::string& title) {
    // Log-log axes: intensity 1/64 .. 4096 FLOP/B, TFLOPS from 1e-4 to the
    // machine's peak rounded up to a power of ten.
    const double x0 = std::log10(1.0 / 64.0), x1 = std::log10(4096.0);
    const double y1 = std::ceil(std::log10(std::max(r.peak_tflops, 1e-3))), y0 = y1 - 7.0;
    constexpr double left = 90, top = 60, w = 900, h = 560;
    const auto X = [&](double v) { return left + (std::log10(std::max(v, 1e-12)) - x0) / (x1 - x0) * w; };
    const auto Y = [&](double v) { return top + h - (std::log10(std::max(v, 1e-12)) - y0) / (y1 - y0) * h; };
    const auto in_x = [&](double v) { return std::clamp(v, std::pow(10.0, x0), std::pow(10.0, x1)); };
    std::ostringstream s;
    s << std::fixed << std::setprecision(1);
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + w + 260 << "\" height=\"" << top + h + 70
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << left << "\" y=\"30\" font-size=\"16\">Roofline: " << obs::xml_text(title) << "</text>\n";
    // Grid and axes.
    for (int e = int(std::ceil(x0)); e <= int(x1); ++e)
        s << "<line x1=\"" << X(std::pow(10.0, e)) << "\" y1=\"" << top << "\" x2=\"" << X(std::pow(10.0, e)) << "\" y2=\""
          << top + h << "\" stroke=\"#eee\"/><text x=\"" << X(std::pow(10.0, e)) << "\" y=\"" << top + h + 18
          << "\" text-anchor=\"middle\">1e" << e << "</text>\n";
    for (int e = int(y0); e <= int(y1); ++e)
        s << "<line x1=\"" << left << "\" y1=\"" << Y(std::pow(10.0, e)) << "\" x2=\"" << left + w << "\" y2=\""
          << Y(std::pow(10.0, e)) << "\" stroke=\"#eee\"/><text x=\"" << left - 8 << "\" y=\"" << Y(std::pow(10.0, e)) + 4
          << "\" text-anchor=\"end\">1e" << e << "</text>\n";
    s << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << w << "\" height=\"" << h
      << "\" fill=\"none\" stroke=\"#444\"/>\n<text x=\"" << left + w / 2 << "\" y=\"" << top + h + 45
      << "\" text-anchor=\"middle\">operational intensity (FLOP per byte of HBM traffic)</text>\n<text transform=\"translate(25,"
      << top + h / 2 << ") rotate(-90)\" text-anchor=\"middle\">achieved TFLOPS</text>\n";
    // Roofs: the machine's and one PE's.
    const auto roof = [&](double peak, double gbs, const char* colour, const char* label, const char* dash) {
        const double ridge = peak * 1000.0 / gbs;
        const double a = std::pow(10.0, x0), b = in_x(ridge), c = std::pow(10.0, x1);
        s << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" stroke-dasharray=\"" << dash
          << "\" points=\"" << X(a) << "," << Y(a * gbs / 1000.0) << " " << X(b) << "," << Y(b * gbs / 1000.0) << " " << X(c)
          << "," << Y(peak) << "\"/>\n<text x=\"" << X(c) + 6 << "\" y=\"" << Y(peak) + 4 << "\" fill=\"" << colour << "\">"
          << label << " " << obs::fixed(peak, 1) << " TFLOPS, " << obs::fixed(gbs, 0) << " GB/s</text>\n";
    };
    roof(r.peak_tflops, r.hbm_gbs, "#4e79a7", "machine", "");
    roof(r.pe_peak_tflops, r.slice_gbs, "#9c755f", "one PE", "6,4");
    // Points: a model's layers (orange), else the commands (green; in a
    // model they repeat the layers), then the run (red) on top. A point that
    // moved no HBM byte has no intensity and is not drawn. The 15 with the
    // most FLOPs are labelled; every point has its figures as a tooltip.
    const bool model = std::any_of(r.points.begin(), r.points.end(), [](const auto& p) { return p.kind == "layer"; });
    std::vector<const Roofline::Point*> drawn;
    std::size_t undrawn = 0;
    for (const char* kind : {model ? "layer" : "command", "run"})
        for (const auto& p : r.points) {
            if (p.kind != kind || p.flops <= 0.0 || p.ns <= 0.0) continue;
            if (p.hbm_bytes <= 0.0) {
                ++undrawn;
                continue;
            }
            drawn.push_back(&p);
        }
    std::vector<const Roofline::Point*> by_flops = drawn;
    std::stable_sort(by_flops.begin(), by_flops.end(), [](const auto* a, const auto* b) { return a->flops > b->flops; });
    if (by_flops.size() > 15) by_flops.resize(15);
    for (const Roofline::Point* p : drawn) {
        const double x = X(in_x(p->intensity)), y = Y(std::max(p->tflops, std::pow(10.0, y0)));
        const char* colour = p->kind == "run" ? "#e15759" : p->kind == "layer" ? "#f28e2b" : "#59a14f";
        s << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"" << (p->kind == "run" ? 7 : 4) << "\" fill=\"" << colour
          << "\" stroke=\"white\"><title>" << obs::xml_text(p->name) << ": " << obs::fixed(p->intensity, 2) << " FLOP/B, "
          << obs::fixed(p->tflops, 3) << " TFLOPS, " << obs::fixed(100.0 * p->of_roof, 1) << "% of its roof "
          << obs::fixed(p->roof_tflops, 3) << " TFLOPS (" << p->side << " side)</title></circle>\n";
        if (p->kind == "run" || std::find(by_flops.begin(), by_flops.end(), p) != by_flops.end())
            s << "<text x=\"" << x + 8 << "\" y=\"" << y - 6 << "\" font-size=\"" << (p->kind == "run" ? 13 : 10)
              << "\" fill=\"" << colour << "\">" << obs::xml_text(p->name) << " " << obs::fixed(100.0 * p->of_roof, 0)
              << "%</text>\n";
    }
    s << "<text x=\"" << left << "\" y=\"" << top + h + 62 << "\" font-size=\"11\" fill=\"#555\">red: the run; "
      << (model ? "orange: layers" : "green: commands (their PEs together)")
      << "; labels (the 15 with the most FLOPs): name and % of its roof (its PEs' peak and HBM bandwidth)";
    if (undrawn) s << "; " << undrawn << " moved no HBM byte (no intensity) and are not drawn";
    s << "</text>\n</svg>\n";
    out << s.str();
}

}  // namespace npuvp
