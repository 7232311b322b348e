#include "report/run_summary.h"

#include "report/bottleneck.h"

#include <iomanip>
#include <sstream>

namespace npuvp {
namespace {

using obs::json_string;
using obs::ps_as_ns;
using obs::fixed;

}  // namespace

const char* summary_status(int exit_code) {
    switch (exit_code) {
        case 0: return "ok";
        case 1: return "failed";
        case 2: return "bad_input";
        default: return "internal_error";
    }
}

void RunSummary::take_results(const WorkloadRun& run, const Platform& platform) {
    makespan_ps = run.makespan_ps();
    const auto by_cause = run.waits_by_cause();
    waits.clear();
    for (std::size_t i = 1; i < wait_cause_count; ++i)
        waits.push_back({to_string(static_cast<WaitCause>(i)), by_cause[i]});
    contexts = run.contexts();
    engines.clear();
    for (const EngineBusy& e : run.engines())
        engines.push_back({e.pe, e.engine, e.busy_ps, 0,
                           makespan_ps ? static_cast<double>(e.busy_ps) / static_cast<double>(makespan_ps)
                                       : 0.0});
    traffic = measure_traffic(run, platform, makespan_ps);
    commands.clear();
    for (const CommandResult& c : run.commands())
        commands.push_back({c.pe, c.command->id, to_string(c.command->kind),
                            to_string(c.command->context), c.submitted_ps, c.started_ps,
                            c.finished_ps});
}

void RunSummary::take_answers(const RunAnswers& answers) {
    bound = answers.bound.parts;
    unused = answers.bound.unused;
    energy = answers.energy;
    roofline = answers.roofline;
    // Energy::commands is in WorkloadRun::commands() order, as `commands`.
    if (answers.energy.commands.size() == commands.size())
        for (std::size_t i = 0; i < commands.size(); ++i) commands[i].energy_pj = answers.energy.commands[i].pj;
}

namespace {

// One JSON array of one object per line, each written by `row`.
template <class T, class Row>
void write_rows(std::ostream& out, const std::vector<T>& items, Row row) {
    for (std::size_t i = 0; i < items.size(); ++i) {
        out << (i ? ",\n    " : "\n    ");
        row(items[i]);
    }
}

void write_waits(std::ostream& out, const RunSummary& s) {
    if (s.waits.empty()) {  // no run: every cause, zero
        for (std::size_t i = 1; i < wait_cause_count; ++i)
            out << (i > 1 ? ", " : "") << json_string(to_string(static_cast<WaitCause>(i))) << ": 0.000";
    }
    for (std::size_t i = 0; i < s.waits.size(); ++i)
        out << (i ? ", " : "") << json_string(s.waits[i].first) << ": " << ps_as_ns(s.waits[i].second);
}

// Totals over the traffic table: what one CSV row of a sweep needs.
void write_totals(std::ostream& out, const RunSummary& s) {
    std::uint64_t dma_read = 0, dma_write = 0, link = 0, memory = 0;
    for (const Report::Traffic& t : s.traffic) {
        const bool read = t.name.size() >= 5 && t.name.compare(t.name.size() - 5, 5, " read") == 0;
        if (t.kind == "dma") (read ? dma_read : dma_write) += t.bytes;
        else if (t.kind == "link") link += t.bytes;
        else if (t.kind == "memory") memory += t.bytes;
    }
    auto gbs = [&](std::uint64_t bytes) {
        return fixed(s.makespan_ps ? static_cast<double>(bytes) * 1000.0 / static_cast<double>(s.makespan_ps) : 0.0, 3);
    };
    out << "{\"dma_read_bytes\": " << dma_read << ", \"dma_write_bytes\": " << dma_write
        << ", \"link_bytes\": " << link << ", \"memory_bytes\": " << memory
        << ", \"dma_read_gbs\": " << gbs(dma_read) << ", \"dma_write_gbs\": " << gbs(dma_write) << "}";
}

// Wall-clock figures: the only fields that differ between identical runs.
void write_speed(std::ostream& out, const std::optional<SimSpeed>& speed) {
    if (!speed) {
        out << "null";
        return;
    }
    out << "{\"wall_s\": " << fixed(speed->wall_s, 6) << ", \"delta_cycles\": "
        << speed->delta_cycles << ", \"delta_cycles_per_s\": "
        << fixed(speed->delta_cycles_per_s(), 1) << ", \"sim_ns_per_s\": "
        << fixed(speed->sim_ns_per_s(), 1) << ", \"stage_events\": " << speed->stage_events
        << ", \"stage_events_per_s\": " << fixed(speed->stage_events_per_s(), 1)
        << ", \"tiles\": " << speed->tiles << ", \"tiles_per_s\": "
        << fixed(speed->tiles_per_s(), 1) << ", \"pes\": " << speed->pes
        << ", \"decoupled_pes\": " << speed->decoupled_pes << ", \"per_stage\": [";
    for (std::size_t i = 0; i < speed->per_stage.size(); ++i)
        out << (i ? ", " : "") << "{\"pes\": " << json_string(speed->per_stage[i].first)
            << ", \"why\": " << json_string(speed->per_stage[i].second) << "}";
    out << "]}";
}

}  // namespace

void write_summary_json(std::ostream& out, const RunSummary& s) {
    out << "{\n  \"schema\": \"npuvp.summary/2\",\n  \"inputs\": {\"topology\": "
        << json_string(s.inputs.topology) << ", \"workload\": " << json_string(s.inputs.workload)
        << ", \"sets\": [";
    for (std::size_t i = 0; i < s.inputs.sets.size(); ++i)
        out << (i ? ", " : "") << json_string(s.inputs.sets[i]);
    out << "]},\n  \"status\": " << json_string(s.status) << ",\n  \"exit_code\": " << s.exit_code
        << ",\n  \"error\": " << json_string(s.error)
        << ",\n  \"makespan_ns\": " << ps_as_ns(s.makespan_ps) << ",\n  \"bound\": ";
    write_bottleneck_json(out, Bottleneck{s.bound, s.makespan_ps, {}});
    out << ",\n  \"unused\": [";
    for (std::size_t i = 0; i < s.unused.size(); ++i) out << (i ? ", " : "") << json_string(s.unused[i]);
    out << "],\n  \"energy\": ";
    if (s.energy) write_energy_json(out, *s.energy);
    else out << "null";
    out << ",\n  \"roofline\": ";
    if (s.roofline && !s.roofline->points.empty()) {
        // The machine's roofs and the run's point; the report has every point.
        Roofline run_only = *s.roofline;
        run_only.points.resize(1);
        write_roofline_json(out, run_only);
    } else {
        out << "null";
    }
    out << ",\n  \"waits_ns\": {";
    write_waits(out, s);
    out << "},\n  \"totals\": ";
    write_totals(out, s);
    out << ",\n  \"contexts\": [";
    write_rows(out, s.contexts, [&](const ContextTotals& c) {
        out << "{\"pe\": " << json_string(c.pe) << ", \"context\": " << json_string(to_string(c.context))
            << ", \"busy_ns\": " << ps_as_ns(c.busy_ps) << ", \"wait_ns\": " << ps_as_ns(c.wait_ps) << "}";
    });
    out << "],\n  \"engines\": [";
    write_rows(out, s.engines, [&](const Report::Engine& e) {
        out << "{\"pe\": " << json_string(e.pe) << ", \"engine\": " << json_string(e.engine)
            << ", \"busy_ns\": " << ps_as_ns(e.busy_ps) << ", \"utilisation\": " << fixed(e.utilisation, 6)
            << "}";
    });
    out << "],\n  \"traffic\": [";
    write_rows(out, s.traffic, [&](const Report::Traffic& t) {
        out << "{\"kind\": " << json_string(t.kind) << ", \"name\": " << json_string(t.name)
            << ", \"bytes\": " << t.bytes << ", \"busy_ns\": " << ps_as_ns(t.busy_ps)
            << ", \"transfers\": " << t.transfers << ", \"utilisation\": " << fixed(t.utilisation, 4)
            << ", \"achieved_gbs\": " << fixed(t.achieved_gbs, 3)
            << ", \"average_gbs\": " << fixed(t.average_gbs, 3) << ", \"peak_gbs\": " << fixed(t.peak_gbs, 3)
            << "}";
    });
    out << "],\n  \"commands\": [";
    write_rows(out, s.commands, [&](const RunSummary::Command& c) {
        out << "{\"pe\": " << json_string(c.pe) << ", \"id\": " << json_string(c.id)
            << ", \"kind\": " << json_string(c.kind) << ", \"context\": " << json_string(c.context)
            << ", \"submitted_ns\": " << ps_as_ns(c.submitted_ps) << ", \"started_ns\": "
            << ps_as_ns(c.started_ps) << ", \"finished_ns\": " << ps_as_ns(c.finished_ps)
            << ", \"energy_pj\": " << fixed(c.energy_pj, 3) << "}";
    });
    out << "],\n  \"layers\": [";
    write_rows(out, s.layers, [&](const LayerResult& l) { write_layer_json(out, l); });
    out << "],\n  \"speed\": ";
    write_speed(out, s.speed);
    out << "\n}\n";
}

}  // namespace npuvp
