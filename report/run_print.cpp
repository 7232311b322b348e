#include "report/run_print.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "modules/common/time_text.h"
#include "modules/pe/engine_kinds.h"
#include "modules/pe/pe.h"
#include "modules/pe/pe_dma.h"
#include "modules/pe/tile_plan.h"
#include "report/row_fold.h"
#include "report/run_view.h"

namespace npuvp {
namespace {

// Every host request as IO_CPU saw it, with a kernel launch's PE times.
void print_requests(std::ostream& out, const IoCpu& host) {
    // The id column is as wide as the longest id (a mapped model's ids are
    // layer names), at least the 10 it always had.
    std::size_t width = 10;
    for (const auto& r : host.requests()) width = std::max(width, r.request->id.size() + 1);
    const int id_width = static_cast<int>(width);
    out << std::left << std::setw(id_width) << "request" << std::setw(15) << "kind" << std::right
        << std::setw(14) << "issued ns" << std::setw(14) << "done ns" << std::setw(14)
        << "latency ns" << std::setw(14) << "start ns" << std::setw(13) << "pe_exec ns"
        << std::setw(13) << "dma ns" << std::setw(13) << "compute ns" << std::setw(13)
        << "xfer ns" << "  result\n";
    for (const auto& r : host.requests()) {
        const bool launch = r.request->kind == HostRequestKind::kernel_launch;
        auto fixed = [](double v) { return obs::fixed(v, 3); };
        out << std::left << std::setw(id_width) << r.request->id << std::setw(15)
            << to_string(r.request->kind) << std::right << std::setw(14)
            << (r.started ? obs::ps_as_ns(r.issued.value()) : "-") << std::setw(14)
            << (r.done ? obs::ps_as_ns(r.completed.value()) : "-") << std::setw(14)
            << (r.done ? obs::ps_as_ns((r.completed - r.issued).value()) : "-") << std::setw(14)
            << (launch ? obs::ps_as_ns(r.target_start_ps) : "-") << std::setw(13)
            << (launch ? fixed(r.result.pe_exec_ns) : "-") << std::setw(13)
            << (launch ? fixed(r.result.dma_ns) : "-") << std::setw(13)
            << (launch ? fixed(r.result.compute_ns) : "-") << std::setw(13)
            << (launch ? "-" : fixed(r.result.xfer_ns)) << "  "
            << (!r.done ? "incomplete" : r.success ? "ok" : "FAILED: no response from " + r.missing)
            << "\n";
    }
    out << "\n";
}

// Every command's submit, start and finish, and what it waited for.
void print_schedule(std::ostream& out, const WorkloadRun& run) {
    out << "schedule\n" << std::left << std::setw(18) << "PE" << std::setw(12) << "command"
        << std::setw(11) << "kind" << std::setw(6) << "ctx" << std::right << std::setw(7)
        << "tiles" << std::setw(15) << "submitted ns" << std::setw(15) << "started ns"
        << std::setw(15) << "finished ns" << std::setw(13) << "waited ns" << "  wait causes\n";
    std::vector<TableRow> rows;
    for (const CommandResult& c : run.commands()) {
        std::string causes;
        for (std::size_t i = 1; i < wait_cause_count; ++i)
            if (c.waited_ps[i])
                causes += (causes.empty() ? "" : ", ") + std::string(to_string(static_cast<WaitCause>(i))) +
                          " " + obs::ps_as_ns(c.waited_ps[i]);
        std::ostringstream line;
        line << std::left << std::setw(18) << c.pe << std::setw(12) << c.command->id
             << std::setw(11) << to_string(c.command->kind) << std::setw(6)
             << to_string(c.command->context) << std::right << std::setw(7) << c.tiles
             << std::setw(15) << obs::ps_as_ns(c.submitted_ps) << std::setw(15)
             << obs::ps_as_ns(c.started_ps) << std::setw(15) << obs::ps_as_ns(c.finished_ps)
             << std::setw(13) << obs::ps_as_ns(c.started_ps - c.submitted_ps) << "  "
             << (causes.empty() ? "-" : causes);
        rows.push_back({c.pe, line.str()});
    }
    print_rows(out, rows);
}

// Per PE and context, busy and waited time; then the waits by cause. A PE
// whose contexts ran nothing and waited for nothing has no row (a composite
// runs outside the contexts: docs/workload.md "Contexts"); when no PE has
// one, one line says so instead of a table of zeros.
void print_contexts(std::ostream& out, const WorkloadRun& run) {
    const auto ctx = run.contexts();
    const auto idle = [&](std::size_t i) {
        for (std::size_t c = 0; c < exec_context_count; ++c)
            if (ctx[i + c].busy_ps != 0 || ctx[i + c].wait_ps != 0) return false;
        return true;
    };
    std::size_t idle_pes = 0, pes = 0;
    for (std::size_t i = 0; i < ctx.size(); i += exec_context_count, ++pes) idle_pes += idle(i);
    if (idle_pes == pes) {
        out << "\ncontexts no context-scheduled command ran on any PE (composites run outside "
               "the contexts: docs/workload.md \"Contexts\")\n";
        return;
    }
    out << "\ncontext busy / waited ns\n" << std::left << std::setw(18) << "PE";
    for (std::size_t c = 0; c < exec_context_count; ++c)
        out << std::right << std::setw(30) << to_string(static_cast<ExecContext>(c));
    out << "\n";
    std::vector<TableRow> rows;
    for (std::size_t i = 0; i < ctx.size(); i += exec_context_count) {
        if (idle(i)) continue;
        std::ostringstream line;
        line << std::left << std::setw(18) << ctx[i].pe;
        for (std::size_t c = 0; c < exec_context_count; ++c)
            line << std::right << std::setw(30)
                 << obs::ps_as_ns(ctx[i + c].busy_ps) + " / " + obs::ps_as_ns(ctx[i + c].wait_ps);
        rows.push_back({ctx[i].pe, line.str()});
    }
    print_rows(out, rows);
    if (idle_pes != 0)
        out << "(" << idle_pes << " of " << pes
            << " PEs ran no context-scheduled command and are left out)\n";
    const auto waits = run.waits_by_cause();
    out << "waits by cause:";
    for (std::size_t i = 1; i < wait_cause_count; ++i)
        out << " " << to_string(static_cast<WaitCause>(i)) << " " << obs::ps_as_ns(waits[i]) << " ns"
            << (i + 1 < wait_cause_count ? "," : "");
    out << "\n";
}

void print_engines(std::ostream& out, const WorkloadRun& run, std::uint64_t makespan) {
    out << "\nengine busy ns (utilisation of the makespan)\n" << std::left << std::setw(18) << "PE";
    constexpr std::size_t engines_per_pe = busy_row_count();  // as Pe::engine_busy() lists them
    const auto busy = run.engines();
    for (std::size_t j = 0; j < engines_per_pe && j < busy.size(); ++j)
        out << std::right << std::setw(20) << busy[j].engine;
    out << "\n";
    std::vector<TableRow> rows;
    for (std::size_t i = 0; i < busy.size(); i += engines_per_pe) {
        std::ostringstream line;
        line << std::left << std::setw(18) << busy[i].pe;
        for (std::size_t j = 0; j < engines_per_pe; ++j) {
            const std::uint64_t b = busy[i + j].busy_ps;
            std::ostringstream cell;
            cell << obs::ps_as_ns(b) << " (" << std::setw(3)
                 << (makespan ? (b * 100 + makespan / 2) / makespan : 0) << "%)";
            line << std::right << std::setw(20) << cell.str();
        }
        rows.push_back({busy[i].pe, line.str()});
    }
    print_rows(out, rows);
}

// Operand reuse of every GEMM composite (docs/timing.md "Operand reuse"):
// which panel it kept, whether the workload named it or the default chose
// it, and the bytes it read against the same command without reuse.
void print_reuse(std::ostream& out, const WorkloadRun& run) {
    bool any = false;
    for (const auto& [name, kernel] : run.workload().kernels)
        for (const Command& c : kernel.commands) {
            if (c.kind != CommandKind::composite || c.composite.ops.empty()) continue;
            const CompositeSpec& s = c.composite;
            const std::uint64_t mt = (s.m + s.tm - 1) / s.tm, nt = (s.n + s.tn - 1) / s.tn;
            const std::uint64_t none = composite_read_bytes(s, OperandReuse::none);
            const std::uint64_t reads = composite_read_bytes(s, s.reuse);
            if (!any) out << "operand reuse (bytes each PE running it reads from memory)\n";
            any = true;
            out << "  " << std::left << std::setw(24) << (name + "." + c.id) << std::right << " "
                << std::left << std::setw(8) << to_string(s.reuse) << std::right
                << (s.reuse_given ? " (named)  " : " (default)") << " reads " << reads << " B";
            if (reads != none)
                out << " instead of " << none << " B (" << std::fixed << std::setprecision(1)
                    << 100.0 * static_cast<double>(none - reads) / static_cast<double>(none) << " % fewer)";
            else if (!s.reuse_given)
                out << (mt == 1 && nt == 1 ? ": one tile of M and of N, nothing to reuse"
                                           : ": no panel fits in reserved TCM with two tokens in flight");
            if (s.a_resident || s.b_resident)
                out << "; " << (s.a_resident && s.b_resident ? "A and B" : s.a_resident ? "A" : "B")
                    << " resident in TCM";
            out << "\n";
        }
    if (any) out << "\n";
}

}  // namespace

// Each launched PE's DMA busy time (read and write channels) in its parts
// (DmaTimeSplit; docs/outputs.md "What bound a layer").
void print_dma_split(std::ostream& out, const WorkloadRun& run) {
    bool any = false;
    std::vector<TableRow> rows;
    for (const Pe* pe : run.launched()) {
        const DmaTimeSplit* t = pe->dma().time_split();
        if (t == nullptr) continue;
        const std::uint64_t busy = t->startup_ps + t->transfer_ps + t->wait_ps;
        if (busy == 0) continue;
        if (!any)
            out << "dma time (read + write channels' busy time = start-up + transfer at the narrowest hop + "
                   "waiting for a hop held by other transfers)\n"
                << std::left << std::setw(18) << "PE" << std::right << std::setw(14) << "busy ns" << std::setw(10)
                << "start-up" << std::setw(10) << "transfer" << std::setw(8) << "wait" << "  narrowest hop / waited for most\n";
        any = true;
        const auto pct = [&](std::uint64_t ps) { return obs::fixed(100.0 * static_cast<double>(ps) / static_cast<double>(busy), 1) + "%"; };
        const DmaTimeSplit::PerHop* most_t = nullptr;
        const DmaTimeSplit::PerHop* most_w = nullptr;
        for (const DmaTimeSplit::PerHop& h : t->hops) {
            if (h.transfer_ps > 0 && (!most_t || h.transfer_ps > most_t->transfer_ps)) most_t = &h;
            if (h.wait_ps > 0 && (!most_w || h.wait_ps > most_w->wait_ps)) most_w = &h;
        }
        std::ostringstream line;
        line << std::left << std::setw(18) << pe->name() << std::right << std::setw(14) << obs::ps_as_ns(busy)
             << std::setw(10) << pct(t->startup_ps) << std::setw(10) << pct(t->transfer_ps) << std::setw(8)
             << pct(t->wait_ps) << "  " << (most_t ? most_t->hop->name() : "-") << " / "
             << (most_w ? most_w->hop->name() : "-");
        rows.push_back({pe->name(), line.str()});
    }
    print_rows(out, rows);
    if (any) out << "\n";
}

void print_run(std::ostream& out, const WorkloadRun& run, const Bottleneck* bound) {
    const std::uint64_t makespan = run.makespan_ps();
    out << "\nworkload " << (run.workload().name.empty() ? run.workload().source : run.workload().name)
        << ": " << run.launched_pes() << " PE" << (run.launched_pes() == 1 ? "" : "s")
        << "\nmakespan " << obs::ps_as_ns(makespan) << " ns\n";
    if (bound != nullptr) print_bottleneck(out, *bound);
    out << "\n";
    if (run.host()) print_requests(out, *run.host());
    print_schedule(out, run);
    print_reuse(out, run);
    print_contexts(out, run);
    print_engines(out, run, makespan);
    print_dma_split(out, run);
}

}  // namespace npuvp
