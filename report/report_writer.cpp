#include "report/report_writer.h"

#include "report/bottleneck.h"
#include "report/row_fold.h"
#include "report/run_answers.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace npuvp {
namespace {

// A Markdown table cell: '|' would end the cell and '<' open an HTML tag;
// everything else (node ids, "a -> b") stays as it is.
std::string md_cell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += "\\|";
        else if (c == '<') out += "&lt;";
        else out += c;
    }
    return out;
}


using obs::json_string;
using obs::ps_as_ns;
using obs::fixed;

double gbs(std::uint64_t bytes, std::uint64_t ps) {
    return ps ? static_cast<double>(bytes) * 1000.0 / static_cast<double>(ps) : 0.0;
}

std::string peak_text(double peak) { return peak > 0.0 ? fixed(peak, 1) : "unlimited"; }

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

namespace {

// The chain through the PEs' commands (see Report::Step): from the command
// that finishes last among `cmds` of the PE that finished last (`pe`, or
// any when empty) back through what held each one, first to last, with the
// way each was held ("" for the first). `cmds` may hold other PEs'
// commands: an IPCQ receive is held by the send that completed it, on
// another PE ("ipcq"), and the chain goes on there.
std::vector<std::pair<const obs::CommandSpan*, std::string>> pe_chain(
    const std::vector<const obs::CommandSpan*>& cmds, const std::string& pe = "") {
    std::vector<std::pair<const obs::CommandSpan*, std::string>> rev;
    std::size_t cur = cmds.size();
    for (std::size_t i = 0; i < cmds.size(); ++i)
        if ((pe.empty() || cmds[i]->pe == pe) && (cur == cmds.size() || cmds[i]->finished_ps >= cmds[cur]->finished_ps))
            cur = i;
    if (cur == cmds.size()) return rev;
    // Each PE's commands, and the IPCQ sends to each PE, in `cmds` order.
    std::unordered_map<std::string_view, std::vector<std::size_t>> of_pe, sends_to;
    for (std::size_t i = 0; i < cmds.size(); ++i) {
        of_pe[cmds[i]->pe].push_back(i);
        if (!cmds[i]->peer.empty()) sends_to[cmds[i]->peer].push_back(i);
    }
    std::set<std::size_t> seen;
    for (;;) {
        seen.insert(cur);
        const obs::CommandSpan& c = *cmds[cur];
        const std::vector<std::size_t>& mine = of_pe[c.pe];
        std::size_t pred = cmds.size();
        std::string via;
        if (c.kind == "ipcq_recv") {
            // The send whose bytes arrived last: it completed the receive
            // (both finish at the delivery).
            if (const auto to = sends_to.find(c.pe); to != sends_to.end())
                for (const std::size_t i : to->second)
                    if (cmds[i]->finished_ps == c.finished_ps) pred = i, via = "ipcq";
        }
        if (pred == cmds.size() && c.gated_by >= 0) {
            for (const std::size_t i : mine)
                if (static_cast<std::int64_t>(cmds[i]->seq) == c.gated_by) pred = i;
            via = c.gated_cause.empty() ? "wait" : c.gated_cause;
        }
        if (pred == cmds.size()) {
            // Not held by the scheduler: PE_CPU issued it after the latest
            // command of its PE that had completed by then (a program wait).
            for (const std::size_t i : mine) {
                if (i == cur || cmds[i]->finished_ps > c.submitted_ps) continue;
                if (pred == cmds.size() || cmds[i]->finished_ps > cmds[pred]->finished_ps ||
                    (cmds[i]->finished_ps == cmds[pred]->finished_ps && cmds[i]->seq > cmds[pred]->seq))
                    pred = i;
            }
            via = "issue";
        }
        if (pred == cmds.size() || seen.count(pred)) {
            rev.push_back({cmds[cur], ""});
            break;
        }
        rev.push_back({cmds[cur], via});
        cur = pred;
    }
    return {rev.rbegin(), rev.rend()};
}

Report::Step command_step(const obs::CommandSpan& c, const std::string& via) {
    return {c.pe, c.id, c.kind, c.lane, via, c.submitted_ps, c.started_ps, c.finished_ps, 0};
}

// The requests from the last one to complete back along what each was sent
// after (its `after`, or the previous request): the latest-completing done
// predecessor each time. Last request first.
std::vector<std::size_t> request_chain(const std::vector<obs::RunView::Request>& reqs) {
    std::size_t cur = reqs.size();
    for (std::size_t i = 0; i < reqs.size(); ++i)
        if (reqs[i].done && (cur == reqs.size() || reqs[i].completed_ps >= reqs[cur].completed_ps)) cur = i;
    // Request ids are unique: an index (a scan of every request per link of
    // the chain was quadratic in requests).
    std::unordered_map<std::string_view, std::size_t> by_id;
    for (std::size_t i = 0; i < reqs.size(); ++i) by_id.emplace(reqs[i].id, i);
    std::vector<std::size_t> chain;
    for (std::set<std::size_t> seen; cur < reqs.size() && seen.insert(cur).second;) {
        chain.push_back(cur);
        std::size_t pred = reqs.size();
        for (const std::string& id : reqs[cur].after) {
            const auto it = by_id.find(id);
            if (it == by_id.end()) continue;
            const std::size_t i = it->second;
            if (reqs[i].done && (pred == reqs.size() || reqs[i].completed_ps > reqs[pred].completed_ps)) pred = i;
        }
        cur = pred;
    }
    return chain;
}

// The view's fan-outs, commands and kernel starts indexed once for the
// request chain (each lookup scanned all of them: quadratic in launches).
class HostIndex {
public:
    explicit HostIndex(const obs::RunView& view) : m_view(view) {
        for (const auto& f : view.fanouts) m_fanouts[f.id].push_back(&f);
        for (std::size_t i = 0; i < view.commands.size(); ++i) {
            const std::string& pe = view.commands[i].pe;
            m_by_cube[pe.substr(0, pe.rfind('.') + 1)].push_back(i);
        }
        for (auto& [cube, list] : m_by_cube)
            std::stable_sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
                return view.commands[a].submitted_ps < view.commands[b].submitted_ps;
            });
        for (const auto& k : view.kernel_starts) m_starts[k.pe].push_back(k.t_ps);
    }

    // The fan-out of request `r` that completed last (a launch may span cubes).
    const obs::RunView::Fanout* last_fanout(const obs::RunView::Request& r) const {
        const obs::RunView::Fanout* fan = nullptr;
        const auto it = m_fanouts.find(r.id);
        if (it == m_fanouts.end()) return nullptr;
        for (const obs::RunView::Fanout* f : it->second)
            if (f->start_ps >= r.issued_ps && f->end_ps <= r.completed_ps && (!fan || f->end_ps > fan->end_ps)) fan = f;
        return fan;
    }

    // On the fan-out's cube, the commands within the fan-out, in the view's
    // order, and the PE whose last command in it finished last (the first
    // such in the view's order).
    std::vector<const obs::CommandSpan*> launch_commands(const obs::RunView::Fanout& fan, std::string& pe) const {
        const auto it = m_by_cube.find(fan.node.substr(0, fan.node.rfind('.') + 1));  // "sip0.cube0."
        if (it == m_by_cube.end()) return {};
        const std::vector<std::size_t>& list = it->second;
        const auto& cmds = m_view.commands;
        // Commands within the fan-out were submitted in [start, end].
        auto from = std::lower_bound(list.begin(), list.end(), fan.start_ps,
                                     [&](std::size_t i, std::uint64_t t) { return cmds[i].submitted_ps < t; });
        std::vector<std::size_t> within;
        for (auto i = from; i != list.end() && cmds[*i].submitted_ps <= fan.end_ps; ++i)
            if (cmds[*i].finished_ps <= fan.end_ps) within.push_back(*i);
        std::sort(within.begin(), within.end());
        const obs::CommandSpan* last = nullptr;
        for (const std::size_t i : within)
            if (!last || cmds[i].finished_ps > last->finished_ps) last = &cmds[i];
        std::vector<const obs::CommandSpan*> out;
        if (last) {
            pe = last->pe;
            for (const std::size_t i : within) out.push_back(&cmds[i]);
        }
        return out;
    }

    // When the kernel started on `pe` within [from, by] (its first such start
    // in run order), else `by`.
    std::uint64_t kernel_start(const std::string& pe, std::uint64_t from, std::uint64_t by) const {
        const auto it = m_starts.find(pe);
        if (it != m_starts.end())
            for (const std::uint64_t t : it->second)
                if (t >= from && t <= by) return t;
        return by;
    }

    // When the last kernel on `pe` to start by `by` started, else `by`.
    std::uint64_t latest_kernel_start(const std::string& pe, std::uint64_t by) const {
        std::uint64_t at = by;
        bool found = false;
        const auto it = m_starts.find(pe);
        if (it != m_starts.end())
            for (const std::uint64_t t : it->second)
                if (t <= by && (!found || t > at)) at = t, found = true;
        return at;
    }

private:
    const obs::RunView& m_view;
    std::unordered_map<std::string_view, std::vector<const obs::RunView::Fanout*>> m_fanouts;
    std::map<std::string, std::vector<std::size_t>> m_by_cube;
    std::unordered_map<std::string_view, std::vector<std::uint64_t>> m_starts;
};

// Host workloads: the request chain, in issue order. A kernel launch on the
// chain opens into its segments: IO_CPU until M_CPU starts the fan-out, M_CPU
// until the kernel starts on the PE that finishes last, that PE's command
// chain, M_CPU until its fan-out completes, IO_CPU until the response is in.
// Other requests are one step.
std::vector<Report::Step> host_path(const obs::RunView& view) {
    std::vector<Report::Step> out;
    const auto& reqs = view.requests;
    const std::vector<std::size_t> chain = request_chain(reqs);
    const HostIndex index(view);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const obs::RunView::Request& r = reqs[*it];
        const std::string via = out.empty() ? "" : "issue";
        auto io_step = [&](const std::string& how, std::uint64_t from, std::uint64_t to) {
            out.push_back({r.node, r.id, r.kind, "request", how, r.issued_ps, from, to, 0});
        };
        const obs::RunView::Fanout* fan = index.last_fanout(r);
        std::vector<const obs::CommandSpan*> cmds;
        std::string last_pe;
        if (fan && r.kind == "kernel_launch") cmds = index.launch_commands(*fan, last_pe);
        if (cmds.empty()) {
            io_step(via, r.issued_ps, r.completed_ps);
            continue;
        }
        const auto steps = pe_chain(cmds, last_pe);
        // The kernel the chain starts in: on the PE that finished last, or,
        // when the chain went back through IPCQ to a PE another launch
        // started earlier (a compiled kernel), on that PE: the host's steps
        // then end where it started.
        const std::string& first_pe = steps.front().first->pe;
        const obs::CommandSpan* first = nullptr;
        for (const obs::CommandSpan* c : cmds)
            if (c->pe == first_pe) {
                first = c;
                break;
            }
        const std::uint64_t kernel = first_pe == last_pe
                                         ? index.kernel_start(first_pe, fan->start_ps, first->submitted_ps)
                                         : index.latest_kernel_start(first_pe, first->submitted_ps);
        const std::uint64_t until = std::min(fan->start_ps, kernel);
        if (r.device && !out.empty()) {
            // Held by M_CPU (resolve_after: device): released when its
            // predecessor's fan-out completed on the device, not when that
            // one's response reached the host, which is off the path.
            if (out.back().context == "request" && out.back().via == "response") out.pop_back();
            out.push_back({fan->node, r.id, r.kind, "device", "release", r.issued_ps, out.back().finished_ps,
                           until, 0});
        } else {
            io_step(via, r.issued_ps, until);
        }
        out.push_back({fan->node, r.id, r.kind, "fan-out", "request", fan->start_ps, until, kernel, 0});
        for (std::size_t i = 0; i < steps.size(); ++i)
            out.push_back(command_step(*steps[i].first, i ? steps[i].second : "launch"));
        out.push_back({fan->node, r.id, r.kind, "fan-out", "response", fan->start_ps,
                       steps.back().first->finished_ps, fan->end_ps, 0});
        io_step("response", fan->end_ps, r.completed_ps);
    }
    return out;
}

}  // namespace

std::vector<Report::Step> critical_path(const obs::RunView& view) {
    std::uint64_t pe_last = 0, host_last = 0;
    for (const auto& c : view.commands) pe_last = std::max(pe_last, c.finished_ps);
    for (const auto& r : view.requests)
        if (r.done) host_last = std::max(host_last, r.completed_ps);
    std::vector<Report::Step> chain;
    if (host_last > 0 && host_last >= pe_last) {
        chain = host_path(view);
    } else {
        std::vector<const obs::CommandSpan*> cmds;
        for (const auto& c : view.commands) cmds.push_back(&c);
        for (const auto& [c, via] : pe_chain(cmds)) chain.push_back(command_step(*c, via));
    }
    for (std::size_t i = 1; i < chain.size(); ++i)
        chain[i].gap_ps = chain[i].started_ps > chain[i - 1].finished_ps
                              ? chain[i].started_ps - chain[i - 1].finished_ps
                              : 0;
    return chain;
}

std::vector<Report::Traffic> measure_traffic(const WorkloadRun& run, const Platform& platform,
                                             std::uint64_t makespan_ps) {
    std::vector<Report::Traffic> traffic;
    auto add = [&](const std::string& kind, const std::string& name, std::uint64_t bytes,
                   std::uint64_t busy, std::uint64_t transfers, double peak) {
        traffic.push_back({kind, name, bytes, busy, transfers, gbs(bytes, busy), gbs(bytes, makespan_ps), peak,
                           makespan_ps ? static_cast<double>(busy) / static_cast<double>(makespan_ps) : 0.0});
    };
    // DMA per launched PE (in the run's PE order), read and write direction.
    const PeDmaConfig& dma = platform.config().cube.pe_template.dma;
    std::vector<std::string> pes;
    for (const EngineBusy& e : run.engines())
        if (pes.empty() || pes.back() != e.pe) pes.push_back(e.pe);
    // The PEs by id, made once (a scan of every PE per PE was quadratic).
    std::unordered_map<std::string_view, const Pe*> by_id;  // lookup only
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            for (const Pe* p : cube.pes) by_id.emplace(p->name(), p);
    for (const std::string& id : pes)
        if (const auto found = by_id.find(id); found != by_id.end()) {
            const Pe* pe = found->second;
            const std::uint64_t rb = pe->dma().bytes_moved(DmaDirection::read);
            const std::uint64_t wb = pe->dma().bytes_moved(DmaDirection::write);
            if (rb) add("dma", id + ".pe_dma read", rb, pe->dma().busy_time(DmaDirection::read).value(), 0,
                        dma.bw_gbs * dma.rd_engines);
            if (wb) add("dma", id + ".pe_dma write", wb, pe->dma().busy_time(DmaDirection::write).value(), 0,
                        dma.bw_gbs * dma.wr_engines);
            // Its TCM ports (DMA, FETCH and STORE all cross them).
            for (const Hop* port : {&pe->tcm().read_port(), &pe->tcm().write_port()})
                if (port->bytes())
                    add("tcm", port->name(), port->bytes(), port->busy_ps(), port->transfers(), port->bw_gbs());
        }
    for (const auto& link : platform.links()) {
        const Hop& hop = *link->hop;
        if (hop.bytes() == 0 || !hop.has_bandwidth()) continue;  // a pure-latency hop is never busy
        add("link", link->from->node_id_ref() + " -> " + link->to->node_id_ref() + " (" + link->kind + ")",
            hop.bytes(), hop.busy_ps(), hop.transfers(), hop.bw_gbs());
    }
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes) {
            std::vector<const MemoryTarget*> targets(cube.hbm.begin(), cube.hbm.end());
            if (cube.shared_sram) targets.push_back(cube.shared_sram);
            for (const MemoryTarget* t : targets) {
                const Hop& port = t->port();
                if (port.bytes() == 0) continue;
                add("memory", t->node_id_ref(), port.bytes(), port.busy_ps(), port.transfers(), port.bw_gbs());
            }
        }
    return traffic;
}

Report build_report(const WorkloadRun& run, const Platform& platform, const obs::RunView& view,
                    const std::string& workload_name, const RunAnswers* answers) {
    std::optional<RunAnswers> own;
    if (answers == nullptr) answers = &own.emplace(answer_run(run, platform, view, {}));
    Report r;
    r.workload = workload_name;
    r.makespan_ps = run.makespan_ps();
    if (view.failed) {
        r.status = "failed";
        r.failure = view.failure;
        r.makespan_ps = view.stopped_ps;
    }
    r.tile_detail = view.detail;  // the window only: not the aggregate's tracks
    std::map<std::pair<std::string, std::string>, std::uint64_t> slices;
    for (const auto& l : view.lane_totals) slices[{l.group, l.lane}] += l.slices;
    for (const EngineBusy& e : run.engines()) {
        Report::Engine x{e.pe, e.engine, e.busy_ps, 0, 0.0};
        const auto it = slices.find({e.pe, e.engine});
        if (it != slices.end()) x.slices = it->second;
        x.utilisation = r.makespan_ps ? static_cast<double>(e.busy_ps) / static_cast<double>(r.makespan_ps) : 0.0;
        r.engines.push_back(x);
    }

    r.traffic = measure_traffic(run, platform, r.makespan_ps);

    const auto waits = run.waits_by_cause();
    for (std::size_t i = 1; i < wait_cause_count; ++i)
        r.waits.push_back({to_string(static_cast<WaitCause>(i)), waits[i]});
    r.critical_path = answers->critical_path;
    r.bound = answers->bound.parts;
    r.unused = answers->bound.unused;
    r.roofline = answers->roofline;
    r.energy = answers->energy;
    if (const IoCpu* host = run.host()) {
        for (const auto& q : host->requests()) {
            Report::Request x;
            x.id = q.request->id;
            x.kind = to_string(q.request->kind);
            x.status = !q.done ? "incomplete" : q.success ? "ok" : "failed";
            x.issued_ps = q.started ? q.issued.value() : 0;
            x.completed_ps = q.done ? q.completed.value() : 0;
            x.latency_ps = q.done ? (q.completed - q.issued).value() : 0;
            r.requests.push_back(x);
        }
    }
    return r;
}

void print_report(std::ostream& out, const Report& r) {
    out << "\nbytes moved (achieved = while busy; average = over the makespan; util = busy / makespan)\n"
        << std::left << std::setw(7) << "kind" << std::setw(72) << "where" << std::right
        << std::setw(12) << "bytes" << std::setw(14) << "busy ns" << std::setw(8) << "util" << std::setw(12) << "achieved"
        << std::setw(12) << "average" << std::setw(12) << "peak GB/s" << "\n";
    std::vector<TableRow> rows;
    for (const auto& t : r.traffic) {
        std::ostringstream line;
        line << std::left << std::setw(7) << t.kind << std::setw(72) << t.name << std::right
             << std::setw(12) << t.bytes << std::setw(14) << ps_as_ns(t.busy_ps) << std::setw(7)
             << fixed(100.0 * t.utilisation, 1) << "%" << std::setw(12)
             << fixed(t.achieved_gbs, 1) << std::setw(12) << fixed(t.average_gbs, 1) << std::setw(12)
             << peak_text(t.peak_gbs);
        rows.push_back({t.name, line.str()});
    }
    print_rows(out, rows);
    out << "\ncritical path (last op back through what held it)\n";
    for (const auto& s : r.critical_path) {
        if (!s.via.empty())
            out << "    | " << s.via << " wait, " << ps_as_ns(s.gap_ps) << " ns\n";
        out << "  " << std::left << std::setw(18) << s.pe << std::setw(12) << s.id << std::setw(14)
            << s.kind << std::setw(8) << s.context << std::right << std::setw(14)
            << ps_as_ns(s.started_ps) << " .. " << ps_as_ns(s.finished_ps) << " ns\n";
    }
}

void write_report_json(std::ostream& out, const Report& r) {
    out << "{\n  \"schema\": \"npuvp.report/1\",\n  \"workload\": " << json_string(r.workload)
        << ",\n  \"status\": " << json_string(r.status) << ",\n  \"failure\": " << json_string(r.failure)
        << ",\n  \"makespan_ns\": " << ps_as_ns(r.makespan_ps) << ",\n  \"bound\": ";
    write_bottleneck_json(out, Bottleneck{r.bound, r.makespan_ps, {}});
    out << ",\n  \"unused\": [";
    for (std::size_t i = 0; i < r.unused.size(); ++i) out << (i ? ", " : "") << json_string(r.unused[i]);
    out << "],\n  \"roofline\": ";
    write_roofline_json(out, r.roofline);
    out << ",\n  \"energy\": ";
    write_energy_json(out, r.energy, true);
    if (!r.tile_detail.complete) {
        const auto& d = r.tile_detail;
        out << ",\n  \"tile_detail\": {\"complete\": false, \"from_ns\": " << ps_as_ns(d.from_ps)
            << ", \"to_ns\": " << (d.to_ps == obs::open_end ? std::string("null") : ps_as_ns(d.to_ps))
            << ", \"cut_by_cap\": " << (d.cut ? "true" : "false") << ", \"detail_slices\": " << d.max_slices
            << ", \"engine_intervals\": " << d.slices << ", \"engine_intervals_in_detail\": " << d.slices_kept
            << ", \"counter_samples\": " << d.samples << ", \"counter_samples_in_detail\": " << d.samples_kept
            << ", \"bin_ns\": " << ps_as_ns(d.bin_ps) << ", \"note\": " << json_string(obs::detail_note(d)) << "}";
    }
    out << ",\n  \"engines\": [";
    for (std::size_t i = 0; i < r.engines.size(); ++i) {
        const auto& e = r.engines[i];
        out << (i ? ",\n    " : "\n    ") << "{\"pe\": " << json_string(e.pe) << ", \"engine\": "
            << json_string(e.engine) << ", \"busy_ns\": " << ps_as_ns(e.busy_ps)
            << ", \"utilisation\": " << fixed(e.utilisation, 6) << ", \"slices\": " << e.slices << "}";
    }
    out << "],\n  \"traffic\": [";
    for (std::size_t i = 0; i < r.traffic.size(); ++i) {
        const auto& t = r.traffic[i];
        out << (i ? ",\n    " : "\n    ") << "{\"kind\": " << json_string(t.kind) << ", \"name\": "
            << json_string(t.name) << ", \"bytes\": " << t.bytes << ", \"busy_ns\": "
            << ps_as_ns(t.busy_ps) << ", \"transfers\": " << t.transfers << ", \"achieved_gbs\": "
            << fixed(t.achieved_gbs, 3) << ", \"utilisation\": " << fixed(t.utilisation, 4)
            << ", \"average_gbs\": " << fixed(t.average_gbs, 3)
            << ", \"peak_gbs\": " << fixed(t.peak_gbs, 3) << "}";
    }
    out << "],\n  \"waits_ns\": {";
    for (std::size_t i = 0; i < r.waits.size(); ++i)
        out << (i ? ", " : "") << json_string(r.waits[i].first) << ": " << ps_as_ns(r.waits[i].second);
    out << "},\n  \"critical_path\": [";
    for (std::size_t i = 0; i < r.critical_path.size(); ++i) {
        const auto& s = r.critical_path[i];
        out << (i ? ",\n    " : "\n    ") << "{\"pe\": " << json_string(s.pe) << ", \"id\": "
            << json_string(s.id) << ", \"kind\": " << json_string(s.kind) << ", \"context\": "
            << json_string(s.context) << ", \"via\": " << json_string(s.via) << ", \"gap_ns\": "
            << ps_as_ns(s.gap_ps) << ", \"submitted_ns\": " << ps_as_ns(s.submitted_ps)
            << ", \"started_ns\": " << ps_as_ns(s.started_ps) << ", \"finished_ns\": "
            << ps_as_ns(s.finished_ps) << "}";
    }
    out << "],\n  \"layers\": [";
    for (std::size_t i = 0; i < r.layers.size(); ++i) {
        out << (i ? ",\n    " : "\n    ");
        write_layer_json(out, r.layers[i]);
    }
    out << "],\n  \"requests\": [";
    for (std::size_t i = 0; i < r.requests.size(); ++i) {
        const auto& q = r.requests[i];
        out << (i ? ",\n    " : "\n    ") << "{\"id\": " << json_string(q.id) << ", \"kind\": "
            << json_string(q.kind) << ", \"status\": " << json_string(q.status)
            << ", \"issued_ns\": " << ps_as_ns(q.issued_ps) << ", \"completed_ns\": "
            << ps_as_ns(q.completed_ps) << ", \"latency_ns\": " << ps_as_ns(q.latency_ps) << "}";
    }
    out << "]\n}\n";
}

void write_report_markdown(std::ostream& out, const Report& r) {
    out << "# npuvp report: " << r.workload << "\n\n";
    if (r.status == "failed") {
        out << "**Run failed**, stopped at **" << ps_as_ns(r.makespan_ps)
            << " ns**; everything below covers what ran until then.\n\n";
        std::istringstream lines(r.failure);
        for (std::string line; std::getline(lines, line);)
            if (!line.empty()) out << "- " << md_cell(line) << "\n";
        out << "\n";
    } else {
        out << "Makespan: **" << ps_as_ns(r.makespan_ps) << " ns**\n\n";
    }
    if (!r.bound.empty()) {
        const Bottleneck b{r.bound, r.makespan_ps, {}};
        out << "Bound by: **" << md_cell(bottleneck_text(b)) << "** of the makespan (docs/outputs.md \"What bound "
               "the run\").\n\n| what | where | ns | share of the makespan |\n| --- | --- | ---: | ---: |\n";
        for (const auto& p : r.bound)
            out << "| " << md_cell(p.what) << " | " << md_cell(p.where) << " | " << ps_as_ns(p.ps) << " | "
                << fixed(r.makespan_ps ? 100.0 * static_cast<double>(p.ps) / static_cast<double>(r.makespan_ps) : 0.0, 1)
                << " % |\n";
        out << "\n";
    }
    if (!r.roofline.points.empty()) {
        const Roofline& f = r.roofline;
        out << "## Roofline\n\nPeak " << fixed(f.peak_tflops, 3) << " TFLOPS (GEMM, every dtype: the array takes one "
            << "MAC per cell per cycle), " << fixed(f.pe_peak_tflops, 3) << " per PE; HBM " << fixed(f.hbm_gbs, 1)
            << " GB/s, " << fixed(f.slice_gbs, 1) << " per slice. Roof = min(its PEs' peak, intensity × their HBM "
            << "bandwidth).\n\n| point | kind | PEs | GFLOP | HBM MiB | FLOP/B | TFLOPS | roof TFLOPS | % of roof | side |\n"
            << "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
        for (const auto& p : f.points)
            out << "| " << md_cell(p.name) << " | " << p.kind << " | " << p.pes << " | " << fixed(p.flops / 1e9, 3) << " | "
                << fixed(p.hbm_bytes / 1048576.0, 3) << " | " << fixed(p.intensity, 2) << " | " << fixed(p.tflops, 3)
                << " | " << fixed(p.roof_tflops, 3) << " | " << fixed(100.0 * p.of_roof, 1) << " % | " << p.side << " |\n";
        out << "\n";
    }
    if (r.energy.total_pj > 0.0) {
        out << "## Energy\n\nTotal **" << fixed(r.energy.total_pj / 1e6, 3) << " µJ**, average "
            << fixed(r.energy.average_w(), 2) << " W over the makespan, " << power_peak_text(r.energy)
            << " (docs/outputs.md \"Energy and power\").\n\n"
            << "| part | group | µJ | share |\n| --- | --- | ---: | ---: |\n";
        for (const auto& p : r.energy.parts)
            out << "| " << p.name << " | " << p.group << " | " << fixed(p.pj / 1e6, 3) << " | "
                << fixed(100.0 * p.pj / r.energy.total_pj, 1) << " % |\n";
        // The commands that drew the most, at most ten.
        const std::vector<const Energy::Command*> top = top_commands(r.energy, 10);
        if (!top.empty()) {
            out << "\nThe commands with the most dynamic energy (their MACs, MATH elements, HBM and SRAM bytes; "
                << "every command's is in the JSON report):\n\n| command | PE | µJ | share | average W over its span |\n"
                << "| --- | --- | ---: | ---: | ---: |\n";
            for (const Energy::Command* c : top)
                out << "| " << md_cell(c->id) << " | " << c->pe << " | " << fixed(c->pj / 1e6, 3) << " | "
                    << fixed(100.0 * c->pj / r.energy.total_pj, 1) << " % | "
                    << fixed(c->finished_ps > c->started_ps ? c->pj / double(c->finished_ps - c->started_ps) : 0.0, 3)
                    << " |\n";
        }
        out << "\n";
    }
    if (!r.unused.empty()) {
        out << "Unused (a knob set here shaped nothing):\n\n";
        for (const std::string& u : r.unused) out << "- " << md_cell(u) << "\n";
        out << "\n";
    }
    if (!r.tile_detail.complete) out << "Note: " << md_cell(obs::detail_note(r.tile_detail)) << ".\n\n";
    out << "## Engines\n\n| PE | engine | busy ns | utilisation | slices |\n| --- | --- | ---: | ---: | ---: |\n";
    for (const auto& e : r.engines)
        out << "| " << e.pe << " | " << e.engine << " | " << ps_as_ns(e.busy_ps) << " | "
            << fixed(e.utilisation * 100.0, 1) << " % | " << e.slices << " |\n";
    out << "\n## Bytes moved\n\nachieved = bytes / busy time; average = bytes / makespan; utilisation = busy / "
           "makespan.\n\n"
           "| kind | where | bytes | busy ns | utilisation | achieved GB/s | average GB/s | peak GB/s |\n"
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const auto& t : r.traffic)
        out << "| " << t.kind << " | " << md_cell(t.name) << " | " << t.bytes << " | "
            << ps_as_ns(t.busy_ps) << " | " << fixed(100.0 * t.utilisation, 1) << " % | " << fixed(t.achieved_gbs, 1) << " | "
            << fixed(t.average_gbs, 1) << " | " << peak_text(t.peak_gbs) << " |\n";
    out << "\n## Waits by cause\n\n| cause | ns |\n| --- | ---: |\n";
    for (const auto& w : r.waits) out << "| " << w.first << " | " << ps_as_ns(w.second) << " |\n";
    out << "\n## Critical path\n\n| # | PE | command | kind | context | held by | gap ns | started ns | finished ns |\n"
           "| ---: | --- | --- | --- | --- | --- | ---: | ---: | ---: |\n";
    for (std::size_t i = 0; i < r.critical_path.size(); ++i) {
        const auto& s = r.critical_path[i];
        out << "| " << i + 1 << " | " << s.pe << " | " << s.id << " | " << s.kind << " | "
            << s.context << " | " << (s.via.empty() ? "-" : s.via) << " | " << ps_as_ns(s.gap_ps)
            << " | " << ps_as_ns(s.started_ps) << " | " << ps_as_ns(s.finished_ps) << " |\n";
    }
    if (!r.layers.empty()) {
        out << "\n## Layers\n\nshare = span / makespan; TFLOPS over its span against the peak of its PEs; "
               "bound = its slowest PE's larger busy time (docs/models.md).\n\n"
            << layer_markdown_header();
        for (const auto& l : r.layers) write_layer_markdown(out, l, r.makespan_ps);
    }
    if (!r.requests.empty()) {
        out << "\n## Host requests\n\n| request | kind | issued ns | done ns | latency ns | status |\n"
               "| --- | --- | ---: | ---: | ---: | --- |\n";
        for (const auto& q : r.requests)
            out << "| " << q.id << " | " << q.kind << " | " << ps_as_ns(q.issued_ps) << " | "
                << ps_as_ns(q.completed_ps) << " | " << ps_as_ns(q.latency_ps) << " | " << q.status
                << " |\n";
    }
}

bool report_format_known(const std::string& path) {
    return ends_with(path, ".json") || ends_with(path, ".md");
}

void write_report(std::ostream& out, const Report& report, const std::string& path) {
    if (ends_with(path, ".json"))
        write_report_json(out, report);
    else if (ends_with(path, ".md"))
        write_report_markdown(out, report);
    else
        throw std::invalid_argument("--report: '" + path + "' must end in .json or .md");
}

}  // namespace npuvp
