#include "report/layer_table.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include "modules/common/checked.h"
#include "modules/common/time_text.h"
#include "modules/pe/pe.h"
#include "modules/pe/pe_cpu.h"
#include "modules/pe/tile_plan.h"
#include "report/energy.h"
#include "report/run_view.h"

namespace npuvp {

using obs::fixed;
using obs::json_string;

namespace {


// What bounded a layer, from its slowest PE: "compute" with its share of the
// PE's kernel time when compute was busier than the DMA, else the largest
// part of the DMA's busy time (its start-up, the transfer at the slowest
// hop's kind, or waiting for the hop waited on most) with its share of that
// busy time; "queued" when both are under half the layer's span (its PEs
// were busy with other layers).
std::string bound_of(const LayerResult& l, std::uint64_t pe_exec_ps) {
    const std::uint64_t span = l.end_ps - l.start_ps;
    const std::uint64_t dma = l.dma_startup_ps + l.dma_transfer_ps + l.dma_wait_ps;
    const auto percent = [](std::uint64_t part, std::uint64_t whole) {
        const double share = whole ? std::min(100.0, 100.0 * static_cast<double>(part) / static_cast<double>(whole)) : 0.0;
        return " " + std::to_string(static_cast<int>(share + 0.5)) + "%";
    };
    if (std::max(dma, l.compute_ps) * 2 < span) return "queued";
    if (l.compute_ps >= dma) return "compute" + percent(l.compute_ps, pe_exec_ps);
    std::pair<std::uint64_t, std::string> best{l.dma_startup_ps, "DMA start-up"};
    const auto consider = [&](std::uint64_t ps, const std::string& what) {
        if (ps > best.first) best = {ps, what};
    };
    consider(l.dma_transfer_ps, l.transfer_hop.empty() ? "DMA transfer" : hop_kind(l.transfer_hop));
    consider(l.dma_wait_ps, "wait " + (l.wait_hop.empty() ? std::string("DMA") : hop_kind(l.wait_hop)));
    return best.second + percent(best.first, dma);
}

// A layer's DMA parts are its slowest PE's: `dma`, and the hops that
// carried most of its transfer and were waited for most.
void take_dma_parts(LayerResult& l, const DmaTimeSplit& dma) {
    l.dma_startup_ps = dma.startup_ps, l.dma_transfer_ps = dma.transfer_ps, l.dma_wait_ps = dma.wait_ps;
    std::uint64_t most_transfer = 0, most_wait = 0;
    l.transfer_hop.clear(), l.wait_hop.clear();
    for (const DmaTimeSplit::PerHop& h : dma.hops) {
        if (h.transfer_ps > most_transfer) most_transfer = h.transfer_ps, l.transfer_hop = h.hop->name();
        if (h.wait_ps > most_wait) most_wait = h.wait_ps, l.wait_hop = h.hop->name();
    }
}

// Adds segment `part`'s DMA time (its hops in `hops`) to `into`.
void add_split(DmaTimeSplit& into, const PeCpu::Segment& part, const std::vector<DmaTimeSplit::PerHop>& hops) {
    into.startup_ps = sat_add(into.startup_ps, part.startup_ps);
    into.transfer_ps = sat_add(into.transfer_ps, part.transfer_ps);
    into.wait_ps = sat_add(into.wait_ps, part.wait_ps);
    for (std::uint32_t i = part.first_hop; i < part.first_hop + part.hops; ++i) {
        const DmaTimeSplit::PerHop& h = hops[i];
        auto at = std::find_if(into.hops.begin(), into.hops.end(),
                               [&](const DmaTimeSplit::PerHop& x) { return x.hop == h.hop; });
        if (at == into.hops.end()) at = into.hops.insert(into.hops.end(), {h.hop, 0, 0});
        at->transfer_ps = sat_add(at->transfer_ps, h.transfer_ps);
        at->wait_ps = sat_add(at->wait_ps, h.wait_ps);
    }
}

// Compiled kernels: what each layer took on each PE, from the kernel's
// segments (PeCpu::segments(): a segment ends at a `wait: all`,
// and each layer's commands end with one), a segment counting for the
// layer of the command it ends at. A layer's DMA parts are its slowest
// PE's (the longest time in its segments), its compute time the most any
// PE's compute was busy in them, as the host's merged response has it for
// a layer launched on its own.
void compiled_parts(const model::Mapping& mapping, const WorkloadRun& run, std::vector<LayerResult>& layers) {
    struct PerPe {
        std::uint64_t took = 0, compute = 0;
        DmaTimeSplit dma;
    };
    std::map<std::string, const model::CompiledKernel*> by_name;
    for (const model::CompiledKernel& ck : mapping.compiled) by_name[ck.kernel] = &ck;
    std::vector<std::uint64_t> longest(layers.size(), 0), compute(layers.size(), 0);
    for (const Pe* pe : run.launched())
        for (const PeCpu::KernelRun& k : pe->cpu().runs()) {
            const auto found = by_name.find(k.kernel->name);
            if (found == by_name.end() || !k.done) continue;
            const std::vector<int>& layer_at = found->second->time_layer;
            std::map<int, PerPe> parts;
            std::uint64_t from = k.start.value();
            const PeCpu& cpu = pe->cpu();
            const auto count = [&](std::uint32_t end, std::uint64_t end_ps, std::uint64_t compute_ps, const auto& add) {
                const std::size_t at = end < layer_at.size() ? end : layer_at.size() - 1;
                const int layer = layer_at.empty() ? -1 : layer_at[at];
                if (layer >= 0) {
                    PerPe& p = parts[layer];
                    p.took = sat_add(p.took, end_ps - from);
                    p.compute = sat_add(p.compute, compute_ps);
                    add(p.dma);
                }
                from = end_ps;
            };
            for (std::uint32_t i = k.first_segment; i < k.first_segment + k.segments; ++i) {
                const PeCpu::Segment& s = cpu.segments()[i];
                count(s.end, s.end_ps, s.compute_ps, [&](DmaTimeSplit& into) { add_split(into, s, cpu.segment_hops()); });
            }
            // No segment: the run is one (its only `wait: all` is its last command).
            if (k.segments == 0)
                count(static_cast<std::uint32_t>(k.kernel->commands.size()), k.finish.value(), k.compute_ps,
                      [&](DmaTimeSplit& into) { into = k.dma; });
            for (const auto& [layer, p] : parts) {
                const auto i = static_cast<std::size_t>(layer);
                compute[i] = std::max(compute[i], p.compute);
                if (p.took < longest[i]) continue;
                longest[i] = p.took;
                take_dma_parts(layers[i], p.dma);
            }
        }
    for (std::size_t i = 0; i < layers.size(); ++i) {
        LayerResult& l = layers[i];
        l.compute_ps = compute[i];
        l.bound = bound_of(l, longest[i]);
        if (l.end_ps > l.start_ps) l.tflops = static_cast<double>(l.flops) / static_cast<double>(l.end_ps - l.start_ps);
    }
}

}  // namespace

std::string hop_kind(const std::string& name) {
    if (name.find("hbm_ctrl") != std::string::npos) return "HBM";
    if (name.find("shared_sram") != std::string::npos) return "SRAM";
    if (name.find("pe_tcm") != std::string::npos) return "TCM";
    if (name.find("pe_dma") != std::string::npos) return "DMA engine";
    if (name.find("ucie") != std::string::npos) return "UCIe";
    if (name.find("sip_link") != std::string::npos) return "SIP link";
    if (name.find("noc") != std::string::npos) return "mesh link";
    return "link";
}

void add_command_bytes(const Command& c, std::uint64_t sram_base, LevelBytes& l) {
    const auto add = [&](const MemAddress& at, bool write, std::uint64_t bytes) {
        const bool sram = at.given && !at.is_own && !at.is_va && at.value >= sram_base;
        std::uint64_t& n = sram ? (write ? l.sram_write : l.sram_read) : (write ? l.hbm_write : l.hbm_read);
        n = sat_add(n, bytes);
    };
    switch (c.kind) {
    case CommandKind::composite: {
        const CompositeSpec& s = c.composite;
        if (s.ops.empty()) {
            add(c.src, false, composite_source_bytes(s));  // a legacy (single-op) one reads its bytes once
        } else {
            // What its operand reuse leaves (docs/timing.md "Operand reuse").
            const std::uint64_t mt = ceil_div(s.m, s.tm), nt = ceil_div(s.n, s.tn);
            const std::uint64_t a = composite_a_bytes(s), b = composite_b_bytes(s);
            // (An operand resident in TCM was put there by a dma_read, counted as its own.)
            if (!s.a_resident) add(c.src, false, s.reuse == OperandReuse::a_panel ? a : sat_mul(nt, a));
            if (!s.b_resident)
                add(s.b_separate ? c.src_b : c.src, false, s.reuse == OperandReuse::b_panel ? b : sat_mul(mt, b));
        }
        add(c.dst, true, composite_output_bytes(s));
        break;
    }
    case CommandKind::dma_read: add(c.addr, false, c.bytes); break;
    case CommandKind::dma_write: add(c.addr, true, c.bytes); break;
    default: break;
    }
}

std::vector<LayerResult> layer_results(const model::Mapping& mapping, const WorkloadRun& run,
                                       const TopologyConfig& topo) {
    std::vector<LayerResult> layers;
    if (run.host() == nullptr) return layers;
    // Which layer (kernel) a command belongs to.
    std::map<const Command*, std::size_t> layer_of;
    std::map<std::string, std::size_t> index;
    for (const model::MappedLayer& m : mapping.layers) {
        index[m.id] = layers.size();
        LayerResult l;
        l.id = m.id, l.node = m.node, l.op = m.op, l.lowering = m.lowering, l.split = m.split, l.cube = m.cube;
        l.pes = m.pes;
        l.flops = m.flops;
        const auto& g = topo.cube.pe_template.gemm;
        // 2 FLOPs per MAC, rows · cols MACs per cycle per PE.
        l.peak_tflops = 2.0 * g.rows * g.cols * g.freq_ghz / 1000.0 * m.pes;
        layers.push_back(l);
        const auto k = run.workload().kernels.find(m.id);
        if (k == run.workload().kernels.end()) continue;
        for (const Command& c : k->second.commands) layer_of[&c] = layers.size() - 1;
    }
    // A transfer's bytes (a cross-cube read, a staged exchange) count to the
    // layer it feeds; its time does not (the layer starts after it).
    std::map<const Command*, std::size_t> bytes_of = layer_of;
    for (const model::MappedTransfer& t : mapping.transfers) {
        const auto k = run.workload().kernels.find(t.id);
        const auto at = index.find(t.consumer);
        if (k == run.workload().kernels.end() || at == index.end()) continue;
        for (const Command& c : k->second.commands) bytes_of[&c] = at->second;
    }
    // Compiled kernels (one a PE): each command's layer as the mapping says.
    for (const model::CompiledKernel& ck : mapping.compiled) {
        const auto k = run.workload().kernels.find(ck.kernel);
        if (k == run.workload().kernels.end()) continue;
        const std::vector<Command>& commands = k->second.commands;
        for (std::size_t i = 0; i < commands.size() && i < ck.time_layer.size(); ++i) {
            if (ck.time_layer[i] >= 0) layer_of[&commands[i]] = static_cast<std::size_t>(ck.time_layer[i]);
            if (ck.bytes_layer[i] >= 0) bytes_of[&commands[i]] = static_cast<std::size_t>(ck.bytes_layer[i]);
        }
    }
    const std::uint64_t sram_base = topo.cube.memory_map.sram_base;
    for (const CommandResult& c : run.commands()) {
        const auto counted = bytes_of.find(c.command);
        if (counted != bytes_of.end()) {
            LayerResult& l = layers[counted->second];
            LevelBytes own;
            add_command_bytes(*c.command, sram_base, own);
            l.energy_pj += command_compute_pj(*c.command, topo) + hbm_pj(own, topo.energy) + sram_pj(own, topo.energy);
            l.hbm_read = sat_add(l.hbm_read, own.hbm_read), l.hbm_write = sat_add(l.hbm_write, own.hbm_write);
            l.sram_read = sat_add(l.sram_read, own.sram_read), l.sram_write = sat_add(l.sram_write, own.sram_write);
        }
        const auto it = layer_of.find(c.command);
        if (it == layer_of.end()) continue;
        LayerResult& l = layers[it->second];
        l.start_ps = l.end_ps == 0 ? c.started_ps : std::min(l.start_ps, c.started_ps);
        l.end_ps = std::max(l.end_ps, c.finished_ps);
    }
    // Each layer's slowest PE (the longest run of its kernel): its DMA time
    // in parts.
    std::vector<std::uint64_t> longest(layers.size(), 0);
    for (const Pe* pe : run.launched())
        for (const PeCpu::KernelRun& k : pe->cpu().runs()) {
            const auto it = index.find(k.kernel->name);
            if (it == index.end() || !k.done) continue;
            const std::uint64_t took = (k.finish - k.start).value();
            if (took < longest[it->second]) continue;
            longest[it->second] = took;
            take_dma_parts(layers[it->second], k.dma);
        }
    for (const auto& r : run.host()->requests()) {
        const auto it = index.find(r.request->id);
        if (it == index.end()) continue;
        LayerResult& l = layers[it->second];
        l.compute_ps = ns_to_ps(r.result.compute_ns, "a layer's compute_ns");
        l.bound = bound_of(l, ns_to_ps(r.result.pe_exec_ns, "a layer's pe_exec_ns"));
        if (l.end_ps > l.start_ps) l.tflops = static_cast<double>(l.flops) / static_cast<double>(l.end_ps - l.start_ps);
    }
    if (!mapping.compiled.empty()) compiled_parts(mapping, run, layers);
    // What each waited for: the input layer that finished last.
    for (std::size_t i = 0; i < layers.size(); ++i) {
        std::uint64_t latest = 0;
        for (std::string id : mapping.layers[i].after) {
            // A cross-cube input read stands for the layer it reads.
            for (const model::MappedTransfer& t : mapping.transfers)
                if (t.id == id) id = t.producer;
            const auto found = index.find(id);
            if (found == index.end()) continue;
            const LayerResult& p = layers[found->second];
            if (p.end_ps >= latest) latest = p.end_ps, layers[i].waited_for = id;
        }
    }
    // The critical path: back from the layer that ends last.
    std::size_t at = 0;
    for (std::size_t i = 0; i < layers.size(); ++i)
        if (layers[i].end_ps > layers[at].end_ps) at = i;
    while (!layers.empty()) {
        layers[at].critical = true;
        if (layers[at].waited_for.empty()) break;
        at = index.at(layers[at].waited_for);
    }
    return layers;
}

void write_layer_json(std::ostream& out, const LayerResult& l) {
    out << "{\"id\": " << json_string(l.id) << ", \"node\": " << json_string(l.node) << ", \"op\": "
        << json_string(l.op) << ", \"lowering\": " << json_string(l.lowering) << ", \"pes\": " << l.pes
        << ", \"split\": " << json_string(l.split) << ", \"cube\": " << json_string(l.cube) << ", \"start_ns\": " << obs::ps_as_ns(l.start_ps)
        << ", \"end_ns\": " << obs::ps_as_ns(l.end_ps) << ", \"flops\": " << l.flops
        << ", \"hbm_read_bytes\": " << l.hbm_read << ", \"hbm_write_bytes\": " << l.hbm_write
        << ", \"sram_read_bytes\": " << l.sram_read << ", \"sram_write_bytes\": " << l.sram_write
        << ", \"tflops\": " << fixed(l.tflops, 6) << ", \"peak_tflops\": " << fixed(l.peak_tflops, 6)
        << ", \"bound\": " << json_string(l.bound) << ", \"compute_ns\": " << obs::ps_as_ns(l.compute_ps)
        << ", \"dma_startup_ns\": " << obs::ps_as_ns(l.dma_startup_ps)
        << ", \"dma_transfer_ns\": " << obs::ps_as_ns(l.dma_transfer_ps) << ", \"transfer_hop\": " << json_string(l.transfer_hop)
        << ", \"dma_wait_ns\": " << obs::ps_as_ns(l.dma_wait_ps) << ", \"wait_hop\": " << json_string(l.wait_hop)
        << ", \"energy_pj\": " << fixed(l.energy_pj, 3) << ", \"waited_for\": " << json_string(l.waited_for)
        << ", \"critical\": " << (l.critical ? "true" : "false") << "}";
}

const char* layer_markdown_header() {
    return "| layer | node | op / lowering | PEs | split | start ns | end ns | share | GFLOP | HBM read B | "
           "HBM write B | SRAM read B | SRAM write B | TFLOPS | % peak | bound | critical |\n"
           "| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n";
}

void write_layer_markdown(std::ostream& out, const LayerResult& l, std::uint64_t makespan_ps) {
    const double share = makespan_ps ? 100.0 * static_cast<double>(l.end_ps - l.start_ps) / static_cast<double>(makespan_ps) : 0.0;
    out << "| " << l.id << " | " << l.node << " | " << l.op << " / " << l.lowering << " | " << l.pes << " | "
        << l.split << " | " << obs::ps_as_ns(l.start_ps) << " | " << obs::ps_as_ns(l.end_ps) << " | "
        << fixed(share, 1) << " % | " << fixed(static_cast<double>(l.flops) / 1e9, 3) << " | " << l.hbm_read
        << " | " << l.hbm_write << " | " << l.sram_read << " | " << l.sram_write << " | " << fixed(l.tflops, 3) << " | "
        << fixed(l.peak_tflops > 0 ? 100.0 * l.tflops / l.peak_tflops : 0.0, 1) << " % | " << l.bound << " | "
        << (l.critical ? "yes" : "") << " |\n";
}

void print_layers(std::ostream& out, const std::vector<LayerResult>& layers, std::uint64_t makespan_ps) {
    if (layers.empty()) return;
    std::size_t w = 6;
    for (const LayerResult& l : layers) w = std::max(w, l.id.size() + 1);
    const int id_w = static_cast<int>(w);
    out << "layers (share = span / makespan; TFLOPS achieved over its span against the peak of its PEs; "
           "bound = its slowest PE's larger busy time; * = on the critical path)\n"
        << std::left << std::setw(id_w + 2) << "layer" << std::setw(26) << "op / lowering" << std::right
        << std::setw(4) << "PEs" << std::setw(9) << "split" << std::setw(14) << "start ns" << std::setw(14)
        << "end ns" << std::setw(7) << "share" << std::setw(10) << "GFLOP" << std::setw(12) << "HBM rd KiB"
        << std::setw(12) << "HBM wr KiB" << std::setw(13) << "SRAM rd KiB" << std::setw(13) << "SRAM wr KiB"
        << std::setw(9) << "TFLOPS" << std::setw(7) << "%peak"
        << "  bound\n";
    std::size_t critical = 0;
    for (const LayerResult& l : layers) {
        critical += l.critical;
        const double share = makespan_ps ? 100.0 * static_cast<double>(l.end_ps - l.start_ps) / static_cast<double>(makespan_ps) : 0.0;
        const std::string op = l.op + (l.lowering.empty() ? "" : " / " + l.lowering);
        out << (l.critical ? "* " : "  ") << std::left << std::setw(id_w) << l.id << std::setw(26)
            << (op.size() > 25 ? op.substr(0, 25) : op) << std::right << std::setw(4) << l.pes << std::setw(9) << l.split
            << std::setw(14) << obs::ps_as_ns(l.start_ps) << std::setw(14) << obs::ps_as_ns(l.end_ps) << std::setw(6)
            << fixed(share, 1) << "%" << std::setw(10) << fixed(static_cast<double>(l.flops) / 1e9, 3)
            << std::setw(12) << fixed(static_cast<double>(l.hbm_read) / 1024.0, 1) << std::setw(12)
            << fixed(static_cast<double>(l.hbm_write) / 1024.0, 1) << std::setw(13)
            << fixed(static_cast<double>(l.sram_read) / 1024.0, 1) << std::setw(13)
            << fixed(static_cast<double>(l.sram_write) / 1024.0, 1) << std::setw(9) << fixed(l.tflops, 3)
            << std::setw(6) << fixed(l.peak_tflops > 0 ? 100.0 * l.tflops / l.peak_tflops : 0.0, 1) << "%"
            << "  " << l.bound << "\n";
    }
    out << "critical path through layers: " << critical << " of " << layers.size() << " layers";
    std::vector<const LayerResult*> path;
    for (const LayerResult& l : layers)
        if (l.critical) path.push_back(&l);
    std::sort(path.begin(), path.end(), [](const LayerResult* a, const LayerResult* b) { return a->end_ps < b->end_ps; });
    for (std::size_t i = 0; i < path.size(); ++i) out << (i ? " -> " : ": ") << path[i]->id;
    out << "\n\n";
}

}  // namespace npuvp
