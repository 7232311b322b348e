#include "report/bottleneck.h"

#include <algorithm>
#include <map>

#include "modules/pe/pe.h"
#include "modules/pe/pe_cpu.h"
#include "platform/platform.h"
#include "platform/workload_run.h"
#include "modules/pe/pe_dma.h"
#include "modules/pe/pe_scheduler.h"
#include "report/run_view.h"
#include "tlm_sockets/hop.h"

namespace npuvp {

namespace {


struct Tally {
    double ps = 0.0;
    std::map<std::string, double> by_where;
};

}  // namespace

Bottleneck find_bottleneck(const WorkloadRun& run, const std::vector<Report::Step>& critical_path,
                           std::uint64_t makespan_ps) {
    std::map<std::string, Tally> tally;  // by what
    const auto add = [&](const std::string& what, const std::string& where, double ps) {
        if (ps <= 0.0) return;
        Tally& t = tally[what];
        t.ps += ps;
        t.by_where[where] += ps;
    };
    std::map<std::string, const Pe*> pes;
    for (const Pe* pe : run.launched()) pes[pe->name()] = pe;
    // A kernel's start-up and end phases (pe_cpu kernel_start_ns and
    // kernel_end_ns): the part of [from, to) they cover is named as such,
    // not spread over the engines' work.
    struct Phases {
        std::uint64_t start_from = 0, start_to = 0, end_from = 0, end_to = 0;
    };
    const auto phases = [](const Pe& pe, const PeCpu::KernelRun& r) {
        const PeCpuConfig& c = pe.cpu().config;
        const std::uint64_t start = r.start.value(), finish = r.finish.value();
        const auto ps = [](double ns) { return static_cast<std::uint64_t>(ns * 1000.0 + 0.5); };
        return Phases{start, std::min(finish, start + ps(c.kernel_start_ns)),
                      finish - std::min(finish - start, ps(c.kernel_end_ns)), finish};
    };
    const auto overlap = [](std::uint64_t a, std::uint64_t b, std::uint64_t lo, std::uint64_t hi) {
        return std::min(b, hi) > std::max(a, lo) ? std::min(b, hi) - std::max(a, lo) : 0;
    };
    const Pe* last_pe = nullptr;
    const PeCpu::KernelRun* last_run = nullptr;
    std::uint64_t last_finish = 0;
    std::uint64_t previous_finish = 0;
    for (const Report::Step& s : critical_path) {
        std::uint64_t from = s.started_ps - std::min(s.started_ps, s.gap_ps);
        // An IPCQ receive held by the send that completed it (via "ipcq")
        // began before that send ended: only what follows the send is its.
        if (s.via == "ipcq") from = std::min(s.finished_ps, std::max(from, previous_finish));
        previous_finish = s.finished_ps;
        const auto pe = pes.find(s.pe);
        if (pe == pes.end()) {
            double ps = static_cast<double>(s.finished_ps - from);
            last_finish = std::max(last_finish, s.finished_ps);
            // After a PE's step (M_CPU's response): the kernel's end phase
            // comes first.
            if (last_run) {
                const Phases p = phases(*last_pe, *last_run);
                const std::uint64_t end = overlap(from, s.finished_ps, p.end_from, p.end_to);
                add("kernel end", last_pe->name(), static_cast<double>(end));
                ps -= static_cast<double>(end);
            }
            last_run = nullptr;
            // A launch the device held (resolve_after: device): M_CPU's
            // release after its inputs' fan-outs, and the notices between cubes.
            if (s.context == "device") add("device launch path", "", ps);
            else add("host launch path", "", ps);  // IO_CPU, the io link, M_CPU
            continue;
        }
        // The kernel run the step belongs to.
        const PeCpu::KernelRun* k = nullptr;
        for (const PeCpu::KernelRun& r : pe->second->cpu().runs())
            if (r.start.value() <= s.started_ps && s.finished_ps <= r.finish.value()) k = &r;
        // A path that starts on a PE (a direct launch) starts at its kernel's
        // start, before the first command.
        if (k && &s == &critical_path.front()) from = std::min<std::uint64_t>(from, k->start.value());
        double ps = static_cast<double>(s.finished_ps - from);
        last_finish = std::max(last_finish, s.finished_ps);
        if (k) {
            const Phases p = phases(*pe->second, *k);
            const std::uint64_t start = overlap(from, s.finished_ps, p.start_from, p.start_to);
            add("kernel start-up", s.pe, static_cast<double>(start));
            ps -= static_cast<double>(start);
            last_pe = pe->second, last_run = k;
        }
        // IPCQ (an exchange between PEs, a compiled kernel's barrier) is
        // named as such, not spread over the kernel's DMA and compute: a
        // send's time is its own transfer; a receive reached through the
        // send that completed it (via "ipcq") has none left (above), and one
        // reached otherwise waited for a PE the path does not show.
        if (s.kind == "ipcq_send") {
            add("IPCQ send", s.pe, ps);
            continue;
        }
        if (s.kind == "ipcq_recv") {
            add("waiting for another PE (ipcq_recv)", s.pe, ps);
            continue;
        }
        const double dma = k ? static_cast<double>(k->dma.startup_ps + k->dma.transfer_ps + k->dma.wait_ps) : 0.0;
        const double busy = k ? dma + static_cast<double>(k->compute_ps) : 0.0;
        if (busy <= 0.0) {
            add("PE control", s.pe, ps);  // issue, dispatch, waits with no engine busy
            continue;
        }
        const double scale = ps / busy;
        add("compute", s.pe, scale * static_cast<double>(k->compute_ps));
        add("DMA start-up", s.pe, scale * static_cast<double>(k->dma.startup_ps));
        for (const DmaTimeSplit::PerHop& h : k->dma.hops) {
            add(hop_kind(h.hop->name()) + " transfer", h.hop->name(), scale * static_cast<double>(h.transfer_ps));
            add("wait " + hop_kind(h.hop->name()), h.hop->name(), scale * static_cast<double>(h.wait_ps));
        }
        // Parts no hop was credited with (a piece answered later).
        std::uint64_t credited_t = 0, credited_w = 0;
        for (const DmaTimeSplit::PerHop& h : k->dma.hops) credited_t += h.transfer_ps, credited_w += h.wait_ps;
        add("DMA transfer", s.pe, scale * static_cast<double>(k->dma.transfer_ps - std::min(k->dma.transfer_ps, credited_t)));
        add("wait DMA", s.pe, scale * static_cast<double>(k->dma.wait_ps - std::min(k->dma.wait_ps, credited_w)));
    }
    // A path that ends on a PE (a direct launch): the kernel's end phase
    // after its last command closes the makespan.
    if (last_run) {
        const Phases p = phases(*last_pe, *last_run);
        add("kernel end", last_pe->name(), static_cast<double>(overlap(last_finish, makespan_ps, p.end_from, p.end_to)));
    }
    Bottleneck b;
    b.makespan_ps = makespan_ps;
    for (const auto& [what, t] : tally) {
        const auto most = std::max_element(t.by_where.begin(), t.by_where.end(),
                                           [](const auto& x, const auto& y) { return x.second < y.second; });
        b.parts.push_back({what, most->first, static_cast<std::uint64_t>(t.ps + 0.5)});
    }
    // Largest first; ties by name, so the order never depends on anything else.
    std::sort(b.parts.begin(), b.parts.end(), [](const Bottleneck::Part& x, const Bottleneck::Part& y) {
        return x.ps != y.ps ? x.ps > y.ps : x.what < y.what;
    });
    return b;
}

namespace {

std::string share(const Bottleneck& b, const Bottleneck::Part& p) {
    const double s = b.makespan_ps ? 100.0 * static_cast<double>(p.ps) / static_cast<double>(b.makespan_ps) : 0.0;
    return std::to_string(static_cast<int>(s + 0.5)) + "%";
}

std::string part_text(const Bottleneck& b, const Bottleneck::Part& p) {
    return p.what + " " + share(b, p) + (p.where.empty() ? "" : " (" + p.where + ")");
}

}  // namespace

std::string bottleneck_text(const Bottleneck& b) {
    return b.parts.empty() ? "nothing ran" : part_text(b, b.parts.front());
}

void print_bottleneck(std::ostream& out, const Bottleneck& b) {
    out << "bound    ";
    if (b.parts.empty()) {
        out << "nothing ran\n";
        return;
    }
    out << part_text(b, b.parts.front()) << " of the makespan";
    // The next three, each at least half a percent of the makespan.
    for (std::size_t i = 1; i < std::min<std::size_t>(b.parts.size(), 4); ++i) {
        if (b.parts[i].ps * 200 < b.makespan_ps) break;
        out << (i == 1 ? ", then " : ", ") << part_text(b, b.parts[i]);
    }
    out << "\n         (the critical path's time, each step given to what held it: the host path, or its kernel's "
           "compute and DMA parts; docs/outputs.md \"What bound the run\")\n";
    for (const std::string& u : b.unused) out << "unused   " << u << "\n";
}

void write_bottleneck_json(std::ostream& out, const Bottleneck& b) {
    out << "[";
    for (std::size_t i = 0; i < b.parts.size(); ++i) {
        const auto& p = b.parts[i];
        const double s = b.makespan_ps ? static_cast<double>(p.ps) / static_cast<double>(b.makespan_ps) : 0.0;
        out << (i ? ", " : "") << "{\"what\": " << obs::json_string(p.what) << ", \"where\": " << obs::json_string(p.where)
            << ", \"ns\": " << obs::ps_as_ns(p.ps) << ", \"share\": " << obs::fixed(s, 4) << "}";
    }
    out << "]";
}

std::vector<std::string> unused_parts(const WorkloadRun& run, const Platform& platform) {
    std::vector<std::string> out;
    const std::vector<Pe*>& pes = run.launched();
    if (pes.empty()) return out;
    // Engines no launched PE kept busy.
    std::map<std::string, std::uint64_t> engine_busy;
    for (const EngineBusy& e : run.engines()) engine_busy[e.engine] += e.busy_ps;
    std::string idle;
    for (const auto& [engine, busy] : engine_busy)
        if (busy == 0) idle += (idle.empty() ? "" : ", ") + engine;
    if (!idle.empty()) out.push_back("engines never busy on any launched PE: " + idle);
    // DMA channels past the first that never carried a byte.
    for (const DmaDirection dir : {DmaDirection::read, DmaDirection::write}) {
        const int channels = pes.front()->dma().channels(dir);
        int unused = 0;
        for (int c = 1; c < channels; ++c) {
            bool used = false;
            for (const Pe* pe : pes) used = used || pe->dma().channel_hop(dir, c).bytes() > 0;
            unused += !used;
        }
        if (unused > 0)
            out.push_back(std::to_string(unused) + " of " + std::to_string(channels) + " DMA " +
                          (dir == DmaDirection::read ? "read" : "write") +
                          " channels per PE never used (pe_dma " +
                          (dir == DmaDirection::read ? "rd_engines" : "wr_engines") + ")");
    }
    // Reserved TCM: its peak use over the launched PEs.
    std::uint64_t peak = 0;
    std::string at;
    for (const Pe* pe : pes)
        if (pe->scheduler().reserved_peak() > peak) peak = pe->scheduler().reserved_peak(), at = pe->name();
    const std::uint64_t reserved = platform.config().cube.pe_template.tcm.reserved_bytes;
    if (peak == 0)
        out.push_back("reserved TCM (pe_tcm reserved_mb): no command used it");
    else if (peak * 2 <= reserved)
        out.push_back("reserved TCM (pe_tcm reserved_mb): at most " + std::to_string(peak) + " of " +
                      std::to_string(reserved) + " bytes held at once (" + at +
                      "); the rest held nothing in this run");
    // Links and memory targets nothing crossed.
    std::size_t links = 0, idle_links = 0;
    for (const auto& link : platform.links()) {
        ++links;
        idle_links += link->hop->bytes() == 0 && link->hop->transfers() == 0;
    }
    if (idle_links > 0)
        out.push_back(std::to_string(idle_links) + " of " + std::to_string(links) + " links carried nothing");
    std::size_t targets = 0, idle_targets = 0;
    std::string idle_sram;
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes) {
            for (const MemoryTarget* t : cube.hbm) {
                ++targets;
                idle_targets += t->port().transfers() == 0;
            }
            if (cube.shared_sram && cube.shared_sram->port().transfers() == 0)
                idle_sram += (idle_sram.empty() ? "" : ", ") + cube.shared_sram->node_id_ref();
        }
    if (idle_targets > 0)
        out.push_back(std::to_string(idle_targets) + " of " + std::to_string(targets) + " HBM slices untouched");
    if (!idle_sram.empty()) out.push_back("shared SRAM untouched: " + idle_sram);
    return out;
}

}  // namespace npuvp
