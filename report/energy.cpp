#include "report/energy.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

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

Energy measure_energy(const WorkloadRun& run, const Platform& platform) {
    const TopologyConfig& topo = platform.config();
    const EnergyConfig& e = topo.energy;
    Energy out;
    out.makespan_ps = run.makespan_ps();
    double gemm = 0.0, math = 0.0;
    LevelBytes bytes;
    for (const CommandResult& c : run.commands()) {
        compute_parts(*c.command, topo, gemm, math);
        add_command_bytes(*c.command, topo.cube.memory_map.sram_base, bytes);
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
}

void write_energy_json(std::ostream& out, const Energy& e) {
    std::ostringstream edp;
    edp << std::scientific << std::setprecision(6) << e.edp_js();
    out << "{\"total_pj\": " << obs::fixed(e.total_pj, 3) << ", \"average_w\": " << obs::fixed(e.average_w(), 6)
        << ", \"edp_js\": " << edp.str() << ", \"parts\": [";
    for (std::size_t i = 0; i < e.parts.size(); ++i)
        out << (i ? ", " : "") << "{\"name\": " << obs::json_string(e.parts[i].name) << ", \"group\": "
            << obs::json_string(e.parts[i].group) << ", \"pj\": " << obs::fixed(e.parts[i].pj, 3) << "}";
    out << "]}";
}

}  // namespace npuvp
