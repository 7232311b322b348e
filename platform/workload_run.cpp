#include "platform/workload_run.h"

#include <algorithm>
#include <sstream>

#include "modules/common/time_text.h"
#include "config/config_error.h"
#include "platform/data_mode.h"

namespace npuvp {
namespace {

std::string pe_id(const Pe& pe) { return pe.name(); }

}  // namespace

WorkloadRun::WorkloadRun(Platform& platform, const WorkloadConfig& workload)
    : m_platform(platform), m_workload(workload) {
    for (const MmuMapping& map : workload.mmu)
        for (int p : map.pes) platform.pe(map.sip, map.cube, p).mmu().map(map.va, map.pa, map.bytes);
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
            Pe& pe = platform.pe(launch.sip, launch.cube, p);
            if (pe.cpu().kernel() != nullptr || !pe.cpu().runs().empty())
                throw ConfigError(launch.loc, pe_id(pe) + " is launched twice (kernels '" +
                                                  pe.cpu().kernel()->name + "' and '" +
                                                  kernel.name + "')");
            pe.cpu().launch(kernel);
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
    // Data mode (docs/workload.md "Operand data"): stores, initial data,
    // each PE's data plane. Its copies happen when each stage ends in the
    // kernel's time, so every PE runs per stage (Decoupler::plan).
    if (workload.data_mode()) m_data = std::make_unique<DataMode>(platform, workload);
    // docs/speed.md: which launched PEs may run the decoupled pipeline.
    platform.decoupler().plan(platform, workload, m_launched);
}

std::uint64_t WorkloadRun::completed_commands() const {
    std::uint64_t done = 0;
    for (const Pe* pe : m_launched) done += pe->scheduler().completions().size();
    return done;
}

// PEs whose IPCQ ring still holds data at the end: sent, never received
// (issue 21 point 3: a run that leaves it is not finished).
std::vector<const Pe*> WorkloadRun::unreceived_ipcq() const {
    std::vector<const Pe*> out;
    for (const SipNodes& sip : m_platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            for (const Pe* pe : cube.pes)
                if (pe->ipcq().bytes_held() > 0) out.push_back(pe);
    return out;
}

bool WorkloadRun::finished() const {
    if (m_platform.status().failed()) return false;
    if (!unreceived_ipcq().empty()) return false;
    if (m_host) {
        for (const auto& r : m_host->requests())
            if (!r.done || !r.success) return false;
    }
    return std::all_of(m_launched.begin(), m_launched.end(),
                       [](const Pe* pe) { return pe->cpu().finished(); });
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
            else if (!r.done) {
                out << "incomplete: " << r.received << " of " << r.expected << " cubes answered";
                // Held by M_CPU (resolve_after: device): what it waits for.
                std::string waits;
                for (const DeviceDep& d : r.device_after)
                    if (!m_host->requests().at(d.request).done)
                        waits += (waits.empty() ? "'" : ", '") + m_host->requests().at(d.request).request->id + "'";
                if (!waits.empty()) out << " (resolve_after: device: its M_CPUs hold it until " << waits << " completes)";
            }
            else
                out << "failed: no response from " << r.missing;
            out << "\n";
        }
    }
    for (const Pe* pe : unreceived_ipcq())
        out << pe_id(*pe) << ": " << pe->ipcq().bytes_held()
            << " bytes sent into its IPCQ ring (ipcq_send) were never received: no ipcq_recv on it took them\n";
    for (const Pe* pe : m_launched) {
        if (pe->cpu().finished() || pe->cpu().kernel() == nullptr) continue;
        const Kernel& kernel = *pe->cpu().kernel();
        out << pe_id(*pe) << ": kernel '" << kernel.name << "' did not finish; ";
        const std::uint32_t at = pe->cpu().position();
        if (at < kernel.commands.size())
            out << "PE_CPU is at command " << at << " '" << kernel.commands[at].id << "' ("
                << to_string(kernel.commands[at].kind) << ")";
        else
            out << "PE_CPU issued every command";
        out << "; in flight:";
        const auto& inflight = pe->scheduler().inflight();
        if (inflight.empty()) out << " none";
        for (const InflightCommand* cmd : inflight)
            out << " '" << cmd->command->id << "' (" << to_string(cmd->command->kind) << ", "
                << cmd->completed_tiles << "/" << cmd->total_tiles << " tiles)";
        // What an IPCQ command waits on (a deadlock names both ends).
        for (const InflightCommand* cmd : inflight) {
            const Command& c = *cmd->command;
            if (c.kind == CommandKind::ipcq_recv) {
                out << "; '" << c.id << "' waits for " << c.bytes << " bytes in " << pe_id(*pe)
                    << "'s IPCQ ring, which holds " << pe->ipcq().bytes_held()
                    << " (no ipcq_send to it is left to run)";
                break;
            }
            if (c.kind == CommandKind::ipcq_send && cmd->completed_tiles == 0) {
                const Pe* peer = nullptr;
                for (const SipNodes& sip : m_platform.sips())
                    for (const CubeNodes& cube : sip.cubes)
                        for (const Pe* p : cube.pes)
                            if (p == pe) peer = c.peer >= 0 && c.peer < static_cast<int>(cube.pes.size()) ? cube.pes[c.peer] : nullptr;
                if (peer != nullptr)
                    out << "; '" << c.id << "' waits for room in " << pe_id(*peer) << "'s IPCQ ring ("
                        << peer->ipcq().bytes_held() << " of " << peer->ipcq().capacity()
                        << " bytes held: nothing receives there)";
                break;
            }
        }
        out << "\n";
    }
    return out.str();
}

std::uint64_t WorkloadRun::makespan_ps() const {
    std::uint64_t makespan = 0;
    for (const Pe* pe : m_launched)
        makespan = std::max<std::uint64_t>(makespan, pe->cpu().finish_time().value());
    if (m_host)
        for (const auto& r : m_host->requests())
            if (r.done) makespan = std::max<std::uint64_t>(makespan, r.completed.value());
    return makespan;
}

std::vector<CommandResult> WorkloadRun::commands() const {
    std::vector<CommandResult> out;
    for (const Pe* pe : m_launched)
        for (const auto& r : pe->scheduler().completions()) {
            CommandResult c{pe_id(*pe), r.command, r.tiles, r.submitted.value(), r.started.value(),
                            r.finished.value(), {}};
            for (std::size_t i = 0; i < wait_cause_count; ++i) c.waited_ps[i] = r.waited[i].value();
            out.push_back(c);
        }
    return out;
}

std::vector<ContextTotals> WorkloadRun::contexts() const {
    std::vector<ContextTotals> out;
    for (const Pe* pe : m_launched) {
        const std::size_t first = out.size();
        for (std::size_t c = 0; c < exec_context_count; ++c)
            out.push_back({pe_id(*pe), static_cast<ExecContext>(c), 0, 0});
        for (const auto& r : pe->scheduler().completions()) {
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
    for (Pe* pe : m_launched) {
        const std::string id = pe_id(*pe);
        for (const Pe::EngineBusy& e : pe->engine_busy()) out.push_back({id, e.engine, e.busy.value()});
    }
    return out;
}

}  // namespace npuvp
