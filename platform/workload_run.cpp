#include "platform/workload_run.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "config/config_error.h"
#include "platform/timeline_writer.h"

namespace npuvp {
namespace {

std::string pe_id(const PeNodes& pe) { return pe.container->name(); }

}  // namespace

WorkloadRun::WorkloadRun(Platform& platform, const WorkloadConfig& workload)
    : m_platform(platform), m_workload(workload) {
    for (const MmuMapping& map : workload.mmu)
        for (int p : map.pes) platform.pe(map.sip, map.cube, p).mmu->map(map.va, map.pa, map.bytes);
    std::vector<bool> seen(platform.sips().size() * platform.config().system.cubes_per_sip *
                               platform.config().pes_per_cube());
    auto note_pe = [&](int sip, int cube, int p) {
        const std::size_t key =
            (static_cast<std::size_t>(sip) * platform.config().system.cubes_per_sip + cube) *
                platform.config().pes_per_cube() + p;
        if (!seen[key]) m_launched.push_back(&platform.pe(sip, cube, p));
        seen[key] = true;
    };
    for (const Launch& launch : workload.launches) {
        const Kernel& kernel = workload.kernels.at(launch.kernel);
        for (int p : launch.pes) {
            PeNodes& pe = platform.pe(launch.sip, launch.cube, p);
            if (pe.cpu->kernel() != nullptr || !pe.cpu->runs().empty())
                throw ConfigError(launch.loc, pe_id(pe) + " is launched twice (kernels '" +
                                                  pe.cpu->kernel()->name + "' and '" +
                                                  kernel.name + "')");
            pe.cpu->launch(kernel);
            note_pe(launch.sip, launch.cube, p);
            m_known_commands += kernel.commands.size();
        }
    }
    if (!workload.host.empty()) {
        // Host requests enter at SIP 0's IO_CPU (SPEC §4).
        m_host = platform.sips().front().io_cpu;
        m_host->host(workload);
        for (const HostRequest& r : workload.host)
            if (r.kind == HostRequestKind::kernel_launch)
                for (const CubeRef& c : r.cubes)
                    for (int p : r.target_pe) {
                        note_pe(c.sip, c.cube, p);
                        m_known_commands += workload.kernels.at(r.kernel).commands.size();
                    }
    }
}

std::uint64_t WorkloadRun::completed_commands() const {
    std::uint64_t done = 0;
    for (const PeNodes* pe : m_launched) done += pe->scheduler->completions().size();
    return done;
}

bool WorkloadRun::finished() const {
    if (m_platform.status().failed()) return false;
    if (m_host) {
        for (const auto& r : m_host->requests())
            if (!r.done || !r.success) return false;
    }
    return std::all_of(m_launched.begin(), m_launched.end(),
                       [](const PeNodes* pe) { return pe->cpu->finished(); });
}

std::string WorkloadRun::diagnosis() const {
    std::ostringstream out;
    if (m_platform.status().failed())
        out << m_platform.status().error() << " (at " << obs::ps_as_ns(m_platform.status().time().value())
            << " ns)\n";
    if (m_host) {
        for (const auto& r : m_host->requests()) {
            if (r.done && r.success) continue;
            out << m_host->node_id_ref() << ": host request '" << r.request->id << "' ("
                << to_string(r.request->kind) << ") ";
            if (!r.started)
                out << "never started (it waits for an earlier request)";
            else if (!r.done)
                out << "incomplete: " << r.received << " of " << r.expected << " cubes answered";
            else
                out << "failed: no response from " << r.missing;
            out << "\n";
        }
    }
    for (const PeNodes* pe : m_launched) {
        if (pe->cpu->finished() || pe->cpu->kernel() == nullptr) continue;
        const Kernel& kernel = *pe->cpu->kernel();
        out << pe_id(*pe) << ": kernel '" << kernel.name << "' did not finish; ";
        const std::uint32_t at = pe->cpu->position();
        if (at < kernel.commands.size())
            out << "PE_CPU is at command " << at << " '" << kernel.commands[at].id << "' ("
                << to_string(kernel.commands[at].kind) << ")";
        else
            out << "PE_CPU issued every command";
        out << "; in flight:";
        const auto& inflight = pe->scheduler->inflight();
        if (inflight.empty()) out << " none";
        for (const PipelineContext* ctx : inflight)
            out << " '" << ctx->command->id << "' (" << to_string(ctx->command->kind) << ", "
                << ctx->completed_tiles << "/" << ctx->total_tiles << " tiles)";
        out << "\n";
    }
    return out.str();
}

std::uint64_t WorkloadRun::makespan_ps() const {
    std::uint64_t makespan = 0;
    for (const PeNodes* pe : m_launched)
        makespan = std::max<std::uint64_t>(makespan, pe->cpu->finish_time().value());
    if (m_host)
        for (const auto& r : m_host->requests())
            if (r.done) makespan = std::max<std::uint64_t>(makespan, r.completed.value());
    return makespan;
}

std::vector<CommandResult> WorkloadRun::commands() const {
    std::vector<CommandResult> out;
    for (const PeNodes* pe : m_launched)
        for (const auto& r : pe->scheduler->completions()) {
            CommandResult c{pe_id(*pe), r.command, r.tiles, r.submitted.value(), r.started.value(),
                            r.finished.value(), {}};
            for (std::size_t i = 0; i < wait_cause_count; ++i) c.waited_ps[i] = r.waited[i].value();
            out.push_back(c);
        }
    return out;
}

std::vector<ContextTotals> WorkloadRun::contexts() const {
    std::vector<ContextTotals> out;
    for (const PeNodes* pe : m_launched) {
        const std::size_t first = out.size();
        for (std::size_t c = 0; c < exec_context_count; ++c)
            out.push_back({pe_id(*pe), static_cast<ExecContext>(c), 0, 0});
        for (const auto& r : pe->scheduler->completions()) {
            if (r.command->context == ExecContext::none) continue;
            ContextTotals& t = out[first + static_cast<std::size_t>(r.command->context)];
            t.busy_ps += (r.finished - r.started).value();
            t.wait_ps += (r.started - r.submitted).value();
        }
    }
    return out;
}

std::vector<std::uint64_t> WorkloadRun::waits_by_cause() const {
    std::vector<std::uint64_t> total(wait_cause_count, 0);
    for (const CommandResult& c : commands())
        for (std::size_t i = 0; i < wait_cause_count; ++i) total[i] += c.waited_ps[i];
    return total;
}

std::vector<EngineBusy> WorkloadRun::engines() const {
    std::vector<EngineBusy> out;
    for (PeNodes* pe : m_launched) {
        const std::string id = pe_id(*pe);
        out.push_back({id, "DMA_READ", pe->dma->busy_time(DmaDirection::read).value()});
        out.push_back({id, "DMA_WRITE", pe->dma->busy_time(DmaDirection::write).value()});
        const auto fs = pe->fetch_store->workers();
        out.push_back({id, "FETCH", fs[0]->busy().value()});
        out.push_back({id, "STORE", fs[1]->busy().value()});
        out.push_back({id, "GEMM", pe->gemm->worker().busy().value()});
        out.push_back({id, "MATH", pe->math->worker().busy().value()});
        out.push_back({id, "IPCQ_SEND", pe->dma->comm_busy_time().value()});
    }
    return out;
}

void WorkloadRun::print(std::ostream& out) const {
    const std::uint64_t makespan = makespan_ps();
    out << "\nworkload " << (m_workload.name.empty() ? m_workload.source : m_workload.name)
        << ": " << m_launched.size() << " PE" << (m_launched.size() == 1 ? "" : "s")
        << "\nmakespan " << obs::ps_as_ns(makespan) << " ns\n\n";

    if (m_host) {
        out << std::left << std::setw(10) << "request" << std::setw(15) << "kind" << std::right
            << std::setw(14) << "issued ns" << std::setw(14) << "done ns" << std::setw(14)
            << "latency ns" << std::setw(14) << "start ns" << std::setw(13) << "pe_exec ns"
            << std::setw(13) << "dma ns" << std::setw(13) << "compute ns" << std::setw(13)
            << "xfer ns" << "  result\n";
        for (const auto& r : m_host->requests()) {
            const bool launch = r.request->kind == HostRequestKind::kernel_launch;
            auto fixed = [](double v) {
                std::ostringstream s;
                s << std::fixed << std::setprecision(3) << v;
                return s.str();
            };
            out << std::left << std::setw(10) << r.request->id << std::setw(15)
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
    out << "schedule\n" << std::left << std::setw(18) << "PE" << std::setw(12) << "command"
        << std::setw(11) << "kind" << std::setw(6) << "ctx" << std::right << std::setw(7)
        << "tiles" << std::setw(15) << "submitted ns" << std::setw(15) << "started ns"
        << std::setw(15) << "finished ns" << std::setw(13) << "waited ns" << "  wait causes\n";
    for (const CommandResult& c : commands()) {
        std::string causes;
        for (std::size_t i = 1; i < wait_cause_count; ++i)
            if (c.waited_ps[i])
                causes += (causes.empty() ? "" : ", ") + std::string(to_string(static_cast<WaitCause>(i))) +
                          " " + obs::ps_as_ns(c.waited_ps[i]);
        out << std::left << std::setw(18) << c.pe << std::setw(12) << c.command->id
            << std::setw(11) << to_string(c.command->kind) << std::setw(6)
            << to_string(c.command->context) << std::right << std::setw(7) << c.tiles
            << std::setw(15) << obs::ps_as_ns(c.submitted_ps) << std::setw(15)
            << obs::ps_as_ns(c.started_ps) << std::setw(15) << obs::ps_as_ns(c.finished_ps)
            << std::setw(13) << obs::ps_as_ns(c.started_ps - c.submitted_ps) << "  "
            << (causes.empty() ? "-" : causes) << "\n";
    }

    out << "\ncontext busy / waited ns\n" << std::left << std::setw(18) << "PE";
    for (std::size_t c = 0; c < exec_context_count; ++c)
        out << std::right << std::setw(30) << to_string(static_cast<ExecContext>(c));
    out << "\n";
    const auto ctx = contexts();
    for (std::size_t i = 0; i < ctx.size(); i += exec_context_count) {
        out << std::left << std::setw(18) << ctx[i].pe;
        for (std::size_t c = 0; c < exec_context_count; ++c)
            out << std::right << std::setw(30)
                << obs::ps_as_ns(ctx[i + c].busy_ps) + " / " + obs::ps_as_ns(ctx[i + c].wait_ps);
        out << "\n";
    }
    const auto waits = waits_by_cause();
    out << "waits by cause:";
    for (std::size_t i = 1; i < wait_cause_count; ++i)
        out << " " << to_string(static_cast<WaitCause>(i)) << " " << obs::ps_as_ns(waits[i]) << " ns"
            << (i + 1 < wait_cause_count ? "," : "");
    out << "\n";

    out << "\nengine busy ns (utilisation of the makespan)\n" << std::left << std::setw(18) << "PE";
    constexpr std::size_t engines_per_pe = 7;  // as engines() lists them
    const auto busy = this->engines();
    for (std::size_t j = 0; j < engines_per_pe && j < busy.size(); ++j)
        out << std::right << std::setw(20) << busy[j].engine;
    out << "\n";
    for (std::size_t i = 0; i < busy.size(); i += engines_per_pe) {
        out << std::left << std::setw(18) << busy[i].pe;
        for (std::size_t j = 0; j < engines_per_pe; ++j) {
            const std::uint64_t b = busy[i + j].busy_ps;
            std::ostringstream cell;
            cell << obs::ps_as_ns(b) << " (" << std::setw(3)
                 << (makespan ? (b * 100 + makespan / 2) / makespan : 0) << "%)";
            out << std::right << std::setw(20) << cell.str();
        }
        out << "\n";
    }
}

}  // namespace npuvp
