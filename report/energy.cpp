#include "report/energy.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "modules/common/time_text.h"
#include "modules/pe/pe.h"
#include "modules/pe/pe_dma.h"
#include "modules/pe/pe_tcm.h"
#include "modules/system/io_cpu.h"
#include "report/layer_table.h"
#include "report/run_view.h"

namespace npuvp {

namespace {

double mac_pj(const EnergyConfig& e, std::uint32_t elem_bytes) {
    return elem_bytes == 1 ? e.mac_int8_pj : elem_bytes == 4 ? e.mac_fp32_pj : e.mac_bf16_pj;
}

double op_cycles(const TopologyConfig& topo, const std::string& op) {
    const auto& costs = topo.cube.pe_template.math.op_cost;
    const auto it = costs.find(op);
    return it == costs.end() ? 1.0 : it->second;
}

// MACs (by dtype, already in pJ) and MATH element-cycles of one command.
void compute_parts(const Command& c, const TopologyConfig& topo, double& gemm_pj, double& math_pj) {
    const EnergyConfig& e = topo.energy;
    switch (c.kind) {
    case CommandKind::gemm:
        gemm_pj += double(c.m) * double(c.k) * double(c.n) * mac_pj(e, c.elem_bytes);
        break;
    case CommandKind::math:
        math_pj += double(c.elements) * op_cycles(topo, c.op) * e.math_element_pj;
        break;
    case CommandKind::composite: {
        const CompositeSpec& s = c.composite;
        if (s.ops.empty()) {
            const double elements = s.d_in ? double(s.total_bytes) / double(s.d_in) : 0.0;
            math_pj += elements * op_cycles(topo, s.legacy_op) * e.math_element_pj;
            break;
        }
        gemm_pj += double(s.m) * double(s.k) * double(s.n) * mac_pj(e, s.d_in);
        const double k_steps = s.tk ? std::ceil(double(s.k) / double(s.tk)) : 1.0;
        for (std::size_t i = 1; i < s.ops.size(); ++i) {
            const std::string op = s.ops[i].kind.rfind("math.", 0) == 0 ? s.ops[i].kind.substr(5) : s.ops[i].kind;
            const double times = s.ops[i].scope == EpilogueScope::per_k_tile ? k_steps : 1.0;
            math_pj += double(s.m) * double(s.n) * times * op_cycles(topo, op) * e.math_element_pj;
        }
        break;
    }
    default: break;
    }
}

}  // namespace

double hbm_pj(const LevelBytes& b, const EnergyConfig& e) {
    return double(b.hbm_read) * e.hbm_read_pj_per_byte + double(b.hbm_write) * e.hbm_write_pj_per_byte;
}

double sram_pj(const LevelBytes& b, const EnergyConfig& e) {
    return double(b.sram_read) * e.sram_read_pj_per_byte + double(b.sram_write) * e.sram_write_pj_per_byte;
}

double command_compute_pj(const Command& c, const TopologyConfig& topo) {
    double gemm = 0.0, math = 0.0;
    compute_parts(c, topo, gemm, math);
    return gemm + math;
}

namespace {

// The power over time (Energy::power): the background, plus each command's
// own energy over its span.
void build_power(Energy& out) {
    const std::uint64_t makespan = out.makespan_ps;
    if (makespan == 0) return;
    double attributed = 0.0;
    std::vector<std::pair<std::uint64_t, double>> edges;  // (time, +/- W)
    for (const Energy::Command& c : out.commands) {
        if (c.pj <= 0.0 || c.finished_ps <= c.started_ps) continue;
        const double w = c.pj / static_cast<double>(c.finished_ps - c.started_ps);  // pJ / ps = W
        edges.push_back({c.started_ps, w});
        edges.push_back({c.finished_ps, -w});
        attributed += c.pj;
    }
    out.background_w = std::max(0.0, out.total_pj - attributed) / static_cast<double>(makespan);
    // Ends before starts at one time, then by size: the same inputs give the
    // same sums in the same order.
    std::sort(edges.begin(), edges.end());
    long double active = 0.0L;
    std::size_t open = 0, i = 0;
    out.power.push_back({0, out.background_w});
    while (i < edges.size()) {
        const std::uint64_t t = edges[i].first;
        for (; i < edges.size() && edges[i].first == t; ++i) {
            active += edges[i].second;
            if (edges[i].second > 0) ++open;
            else --open;
        }
        if (open == 0) active = 0.0L;  // no drift back to the background
        if (t >= makespan) break;
        const double w = out.background_w + static_cast<double>(active);
        if (out.power.back().at_ps == t) out.power.back().w = w;
        else if (out.power.back().w != w) out.power.push_back({t, w});
    }
    out.power.push_back({makespan, 0.0});
}

}  // namespace

PeakPower peak_power(const std::vector<Energy::Step>& power, std::uint64_t makespan_ps, std::uint64_t window_ps) {
    PeakPower peak;
    if (makespan_ps == 0 || power.empty()) return peak;
    // Energy from 0 to each step's time (pJ), then to any time t.
    std::vector<long double> before(power.size(), 0.0L);
    for (std::size_t i = 1; i < power.size(); ++i)
        before[i] = before[i - 1] + static_cast<long double>(power[i - 1].w) *
                                        static_cast<long double>(power[i].at_ps - power[i - 1].at_ps);
    auto energy_to = [&](std::uint64_t t) {
        const auto it = std::upper_bound(power.begin(), power.end(), t,
                                         [](std::uint64_t x, const Energy::Step& s) { return x < s.at_ps; });
        const std::size_t k = static_cast<std::size_t>(it - power.begin()) - 1;  // power[0].at_ps == 0
        return before[k] + static_cast<long double>(power[k].w) * static_cast<long double>(t - power[k].at_ps);
    };
    if (window_ps == 0 || window_ps >= makespan_ps) {
        peak.window_ps = makespan_ps;
        peak.w = static_cast<double>(energy_to(makespan_ps) / static_cast<long double>(makespan_ps));
        return peak;
    }
    peak.window_ps = window_ps;
    // The window's energy is piecewise linear in its start, so its largest
    // value is where one of its ends meets a step.
    const std::uint64_t last = makespan_ps - window_ps;
    std::vector<std::uint64_t> starts;
    for (const Energy::Step& s : power) {
        starts.push_back(std::min(s.at_ps, last));
        if (s.at_ps >= window_ps) starts.push_back(std::min(s.at_ps - window_ps, last));
    }
    std::sort(starts.begin(), starts.end());
    long double best = -1.0L;
    for (const std::uint64_t t : starts) {
        const long double e = energy_to(t + window_ps) - energy_to(t);
        if (e > best * (1.0L + 1e-12L)) {  // a later window must be more than rounding higher
            best = e;
            peak.from_ps = t;
        }
    }
    peak.w = static_cast<double>(best / static_cast<long double>(window_ps));
    return peak;
}

Energy measure_energy(const WorkloadRun& run, const Platform& platform, std::uint64_t window_ps) {
    const TopologyConfig& topo = platform.config();
    const EnergyConfig& e = topo.energy;
    Energy out;
    out.makespan_ps = run.makespan_ps();
    double gemm = 0.0, math = 0.0;
    LevelBytes bytes;
    for (const CommandResult& c : run.commands()) {
        double own_gemm = 0.0, own_math = 0.0;
        LevelBytes own;
        compute_parts(*c.command, topo, own_gemm, own_math);
        add_command_bytes(*c.command, topo.cube.memory_map.sram_base, own);
        gemm += own_gemm;
        math += own_math;
        bytes.hbm_read += own.hbm_read;
        bytes.hbm_write += own.hbm_write;
        bytes.sram_read += own.sram_read;
        bytes.sram_write += own.sram_write;
        out.commands.push_back(
            {c.pe, c.command->id, c.started_ps, c.finished_ps, own_gemm + own_math + hbm_pj(own, e) + sram_pj(own, e)});
    }
    if (const IoCpu* host = run.host())
        for (const auto& r : host->requests()) {
            if (r.request->kind == HostRequestKind::memory_write) bytes.hbm_write += r.request->bytes;
            if (r.request->kind == HostRequestKind::memory_read) bytes.hbm_read += r.request->bytes;
        }
    double tcm = 0.0, descriptors = 0.0;
    for (const Pe* pe : run.launched()) {
        tcm += double(pe->tcm().read_port().bytes()) * e.tcm_read_pj_per_byte +
               double(pe->tcm().write_port().bytes()) * e.tcm_write_pj_per_byte;
        for (const DmaDirection dir : {DmaDirection::read, DmaDirection::write})
            for (int ch = 0; ch < pe->dma().channels(dir); ++ch)
                descriptors += double(pe->dma().channel_hop(dir, ch).transfers());
    }
    double noc = 0.0, ucie = 0.0, offchip = 0.0;
    for (const auto& link : platform.links()) {
        const double b = double(link->hop->bytes());
        if (link->kind == "mesh" || link->kind == "attach") noc += b * e.noc_pj_per_byte_hop;
        else if (link->kind == "ucie") ucie += b * e.ucie_pj_per_byte;
        else if (link->kind == "io" || link->kind == "sip") offchip += b * e.offchip_pj_per_byte;
    }
    const double cubes = double(topo.system.sips) * double(topo.system.cubes_per_sip);
    const double ns = double(out.makespan_ps) / 1000.0;
    // mW x ns = pJ.
    const double pe_static = e.pe_static_mw * cubes * double(topo.pes_per_cube()) * ns;
    const double hbm_static = e.hbm_static_mw * cubes * double(topo.cube.memory_map.hbm_slices_per_cube) * ns;
    const double cube_static = e.cube_static_mw * cubes * ns;
    out.parts = {
        {"GEMM MACs", "compute", gemm},
        {"MATH elements", "compute", math},
        {"DMA descriptors", "compute", descriptors * e.dma_descriptor_pj},
        {"HBM", "memory", hbm_pj(bytes, e)},
        {"shared SRAM", "memory", sram_pj(bytes, e)},
        {"TCM", "memory", tcm},
        {"NoC", "interconnect", noc},
        {"UCIe", "interconnect", ucie},
        {"off-chip links", "interconnect", offchip},
        {"static: PEs", "static", pe_static},
        {"static: HBM", "static", hbm_static},
        {"static: cubes", "static", cube_static},
    };
    for (const Energy::Part& p : out.parts) out.total_pj += p.pj;
    build_power(out);
    const PeakPower peak = peak_power(out.power, out.makespan_ps, window_ps);
    out.window_ps = peak.window_ps;
    out.peak_w = peak.w;
    out.peak_from_ps = peak.from_ps;
    return out;
}


namespace {

std::string joules(double pj) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(3);
    if (pj >= 1e12) s << pj / 1e12 << " J";
    else if (pj >= 1e9) s << pj / 1e9 << " mJ";
    else if (pj >= 1e6) s << pj / 1e6 << " µJ";
    else if (pj >= 1e3) s << pj / 1e3 << " nJ";
    else s << pj << " pJ";
    return s.str();
}

}  // namespace

namespace {

// Microseconds with up to 3 decimals, trailing zeros dropped: "1", "0.515".
std::string us_text(std::uint64_t ps) {
    std::string t = obs::fixed(static_cast<double>(ps) / 1e6, 3);
    while (t.size() > 1 && t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
    return t;
}

}  // namespace

std::string power_peak_text(const Energy& e) {
    std::string t = "peak " + obs::fixed(e.peak_w, 2) + " W over " + us_text(e.window_ps) + " µs";
    if (e.window_ps < e.makespan_ps) t += " from " + us_text(e.peak_from_ps) + " µs";
    else t += " (the whole run: --power-window is not shorter than it)";
    return t;
}

std::vector<const Energy::Command*> top_commands(const Energy& e, std::size_t n) {
    std::vector<const Energy::Command*> top;
    for (const Energy::Command& c : e.commands)
        if (c.pj > 0.0) top.push_back(&c);
    std::stable_sort(top.begin(), top.end(), [](const auto* a, const auto* b) { return a->pj > b->pj; });
    if (top.size() > n) top.resize(n);
    return top;
}

void print_energy(std::ostream& out, const Energy& e) {
    std::vector<const Energy::Part*> parts;
    for (const Energy::Part& p : e.parts)
        if (p.pj > 0.0) parts.push_back(&p);
    std::stable_sort(parts.begin(), parts.end(), [](const auto* a, const auto* b) { return a->pj > b->pj; });
    std::ostringstream edp;
    edp << std::scientific << std::setprecision(3) << e.edp_js();
    out << "energy   " << joules(e.total_pj) << ", average " << obs::fixed(e.average_w(), 2)
        << " W over the makespan, EDP " << edp.str() << " J·s:";
    for (std::size_t i = 0; i < parts.size(); ++i)
        out << (i ? ", " : " ") << parts[i]->name << " "
            << obs::fixed(e.total_pj > 0 ? 100.0 * parts[i]->pj / e.total_pj : 0.0, 1) << "%";
    out << "\n";
    if (e.makespan_ps == 0) return;
    // The power line: the peak, and the commands that drew the most.
    out << "power    " << power_peak_text(e);
    const std::vector<const Energy::Command*> top = top_commands(e, 3);
    for (std::size_t i = 0; i < top.size(); ++i)
        out << (i ? ", " : "; most energy: ") << top[i]->id << " on " << top[i]->pe << " " << joules(top[i]->pj)
            << " (" << obs::fixed(e.total_pj > 0 ? 100.0 * top[i]->pj / e.total_pj : 0.0, 1) << "%)";
    out << "\n";
}

void write_energy_json(std::ostream& out, const Energy& e, bool detail) {
    std::ostringstream edp;
    edp << std::scientific << std::setprecision(6) << e.edp_js();
    out << "{\"total_pj\": " << obs::fixed(e.total_pj, 3) << ", \"average_w\": " << obs::fixed(e.average_w(), 6)
        << ", \"edp_js\": " << edp.str() << ", \"peak_w\": " << obs::fixed(e.peak_w, 6)
        << ", \"peak_window_ns\": " << obs::ps_as_ns(e.window_ps) << ", \"peak_from_ns\": "
        << obs::ps_as_ns(e.peak_from_ps) << ", \"background_w\": " << obs::fixed(e.background_w, 6)
        << ", \"parts\": [";
    for (std::size_t i = 0; i < e.parts.size(); ++i)
        out << (i ? ", " : "") << "{\"name\": " << obs::json_string(e.parts[i].name) << ", \"group\": "
            << obs::json_string(e.parts[i].group) << ", \"pj\": " << obs::fixed(e.parts[i].pj, 3) << "}";
    out << "]";
    if (detail) {
        out << ", \"commands\": [";
        for (std::size_t i = 0; i < e.commands.size(); ++i)
            out << (i ? ", " : "") << "{\"pe\": " << obs::json_string(e.commands[i].pe)
                << ", \"id\": " << obs::json_string(e.commands[i].id) << ", \"pj\": " << obs::fixed(e.commands[i].pj, 3)
                << "}";
        out << "], \"power\": [";
        for (std::size_t i = 0; i < e.power.size(); ++i)
            out << (i ? ", " : "") << "{\"ns\": " << obs::ps_as_ns(e.power[i].at_ps) << ", \"w\": "
                << obs::fixed(e.power[i].w, 6) << "}";
        out << "]";
    }
    out << "}";
}

}  // namespace npuvp
