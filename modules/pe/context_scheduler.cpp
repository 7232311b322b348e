#include "modules/pe/context_scheduler.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace npuvp {
namespace {

std::string range_text(const MemRange& r) {
    char text[96];
    std::snprintf(text, sizeof text, "%s [0x%llx, +0x%llx)", to_string(r.space),
                  static_cast<unsigned long long>(r.base), static_cast<unsigned long long>(r.bytes));
    return text;
}

// The first overlap of two range lists: the intersection, if any.
std::optional<MemRange> first_overlap(const std::vector<MemRange>& mine,
                                      const std::vector<MemRange>& theirs) {
    for (const MemRange& a : mine)
        for (const MemRange& b : theirs)
            if (a.overlaps(b)) {
                const std::uint64_t lo = std::max(a.base, b.base);
                const std::uint64_t hi = std::min(a.base + a.bytes, b.base + b.bytes);
                return MemRange{a.space, lo, hi - lo};
            }
    return std::nullopt;
}

}  // namespace

const char* to_string(WaitCause cause) {
    switch (cause) {
    case WaitCause::none: return "none";
    case WaitCause::context: return "context";
    case WaitCause::dependency: return "dependency";
    case WaitCause::resource: return "resource";
    case WaitCause::bank: return "bank";
    case WaitCause::feed: return "feed";
    }
    return "?";
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> ContextScheduler::bank_runs(
    const Command& c) const {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
    const auto banks = static_cast<std::uint64_t>(m_tcm.banks);
    if (c.access.given) {
        // Walk the pattern; the bank sequence repeats with a period of at most
        // `banks` steps once the addresses wrap the interleave, so a bounded
        // walk gives every run except the all-one-bank case, counted exactly.
        const std::uint64_t span = banks * m_tcm.bank_interleave_bytes;
        std::vector<std::uint32_t> best(banks, 0);
        auto bank_of = [&](std::uint64_t i) {
            return static_cast<std::uint32_t>(((c.access.base + i * c.access.stride) %
                                               span) / m_tcm.bank_interleave_bytes);
        };
        if (c.access.stride % span == 0) {
            best[bank_of(0)] = static_cast<std::uint32_t>(std::min<std::uint64_t>(c.access.count, UINT32_MAX));
        } else {
            const std::uint64_t steps = std::min<std::uint64_t>(c.access.count, 4 * span + 4);
            std::uint32_t current = bank_of(0), run = 0;
            for (std::uint64_t i = 0; i < steps; ++i) {
                const std::uint32_t b = bank_of(i);
                run = b == current ? run + 1 : 1;
                current = b;
                best[b] = std::max(best[b], run);
            }
        }
        for (std::uint32_t b = 0; b < banks; ++b)
            if (best[b]) runs.emplace_back(b, best[b]);
    } else if (c.context == ExecContext::dma) {
        for (int b = 0; b < m_dma.banks_per_transfer; ++b) runs.emplace_back(b, 1);
    }
    return runs;
}

void ContextScheduler::finish(InflightCommand& cmd) {
    m_running.erase(std::remove(m_running.begin(), m_running.end(), &cmd), m_running.end());
}

const InflightCommand* ContextScheduler::running_in(ExecContext context) const {
    for (const InflightCommand* r : m_running)
        if (r->context() == context) return r;
    return nullptr;
}

std::optional<std::string> ContextScheduler::over_limit(const InflightCommand* extra,
                                                        const std::vector<InflightCommand*>& inflight) const {
    const auto composite_runs = [&](const InflightCommand* c) {
        return c->command->kind == CommandKind::composite && ((c->begun && !c->done) || c == extra);
    };
    // Only a DMA can starve (seed 002): without one, no sums.
    bool dma = extra != nullptr && extra->context() == ExecContext::dma;
    for (const InflightCommand* cmd : m_running) dma = dma || cmd->context() == ExecContext::dma;
    for (const InflightCommand* c : inflight) dma = dma || composite_runs(c);
    if (!dma) return std::nullopt;
    const auto add = [&](std::uint32_t bank, ExecContext context, std::uint64_t run) {
        if (m_sums.size() <= bank) m_sums.resize(bank + 1, {});
        auto& by = m_sums[bank];
        if (by[0] == 0 && by[1] == 0 && by[2] == 0) m_touched.push_back(bank);
        by[static_cast<std::size_t>(context)] += run;
    };
    m_touched.clear();
    const auto count = [&](const InflightCommand* cmd) {
        if (cmd->context() == ExecContext::none) return;
        for (const auto& [bank, run] : cmd->bank_runs)
            if (run != 0) add(bank, cmd->context(), run);
    };
    for (const InflightCommand* cmd : m_running) count(cmd);
    if (extra) count(extra);
    // Composites with tiles in flight: their DMA stages (issue 39 point 4).
    for (const InflightCommand* c : inflight)
        if (composite_runs(c))
            for (int b = 0; b < m_dma.banks_per_transfer; ++b) add(static_cast<std::uint32_t>(b), ExecContext::dma, 1);
    // The first bank at or over the limit, in bank order; the sums cleared
    // for the next call.
    std::sort(m_touched.begin(), m_touched.end());
    std::optional<std::uint32_t> over;
    for (const std::uint32_t bank : m_touched) {
        const auto& by = m_sums[bank];
        if (!over && by[2] != 0 && by[0] + by[1] + by[2] >= static_cast<std::uint64_t>(m_scheduler.bank_limit))
            over = bank;
    }
    if (!over) {
        for (const std::uint32_t bank : m_touched) m_sums[bank] = {};
        return std::nullopt;
    }
    std::vector<const InflightCommand*> set(m_running.begin(), m_running.end());
    if (extra) set.push_back(extra);
    for (const InflightCommand* c : inflight)
        if (composite_runs(c) && c != extra) set.push_back(c);  // (`extra` is in it already)
    const std::uint32_t bank = *over;
    const auto by = m_sums[bank];
    for (const std::uint32_t b : m_touched) m_sums[b] = {};
    const std::uint64_t total = by[0] + by[1] + by[2];
    std::string names;
    for (const InflightCommand* cmd : set) {
        const bool composite = cmd->command->kind == CommandKind::composite;
        bool on_bank = composite && bank < static_cast<std::uint32_t>(m_dma.banks_per_transfer);
        for (const auto& br : cmd->bank_runs) on_bank = on_bank || br.first == bank;
        if (on_bank) names += (names.empty() ? "" : ", ") + std::string(composite ? "composite " : "") + cmd->command->id;
    }
    return "bank " + std::to_string(bank) + ": main " + std::to_string(by[0]) + " + sub " + std::to_string(by[1]) +
           " + DMA " + std::to_string(by[2]) + " = " + std::to_string(total) + " >= " +
           std::to_string(m_scheduler.bank_limit) + " (" + names + ")";
}

std::string WaitInfo::detail() const {
    using Form = WaitKey::Form;
    const auto other = [&]() -> const std::string& { return key.other->command->id; };
    switch (key.form) {
        case Form::text: return text;
        case Form::raw:
        case Form::war:
        case Form::waw:
            return std::string(key.form == Form::raw ? "RAW" : key.form == Form::war ? "WAR" : "WAW") + " on " +
                   range_text(key.range) + " with " + other();
        case Form::in_order: return std::string(to_string(key.context)) + " in order behind " + other();
        case Form::busy_with: return std::string(to_string(key.context)) + " busy with " + other();
        case Form::held_by: return *key.name + " held by " + other();
        case Form::feed_behind: return "feed behind " + other();
    }
    return text;
}

WaitInfo ContextScheduler::wait_on(WaitCause cause, WaitKey::Form form, const InflightCommand* other, MemRange range,
                                   ExecContext context, const std::string* name) {
    WaitInfo w;
    w.cause = cause;
    w.key.form = form;
    w.key.other = other;
    w.key.range = range;
    w.key.context = context;
    w.key.name = name;
    return w;
}

WaitInfo ContextScheduler::hazard(const InflightCommand& x,
                                  const std::vector<InflightCommand*>& inflight) const {
    for (const InflightCommand* y : inflight) {
        if (y == &x || y->command->index >= x.command->index) continue;
        WaitKey::Form form = WaitKey::Form::raw;
        std::optional<MemRange> r = first_overlap(x.reads, y->writes);
        if (!r && (r = first_overlap(x.writes, y->reads))) form = WaitKey::Form::war;
        if (!r && (r = first_overlap(x.writes, y->writes))) form = WaitKey::Form::waw;
        if (r) return wait_on(WaitCause::dependency, form, y, *r);
    }
    return {};
}

WaitInfo ContextScheduler::blocked(const InflightCommand& x,
                                   const std::vector<InflightCommand*>& inflight,
                                   const std::vector<InflightCommand*>& waiting_before) const {
    const Command& cx = *x.command;
    // 1. Memory hazards against every earlier command still in flight.
    if (WaitInfo h = hazard(x, inflight); h.cause != WaitCause::none) return h;
    // 2. The context: in order, one at a time.
    for (const InflightCommand* w : waiting_before)
        if (w->context() == x.context())
            return wait_on(WaitCause::context, WaitKey::Form::in_order, w, {}, x.context());
    if (const InflightCommand* r = running_in(x.context()))
        return wait_on(WaitCause::context, WaitKey::Form::busy_with, r, {}, x.context());
    // 3. Scheduling resources.
    for (const std::string& res : cx.resources)
        for (const InflightCommand* r : m_running)
            if (std::find(r->command->resources.begin(), r->command->resources.end(), res) !=
                r->command->resources.end())
                return wait_on(WaitCause::resource, WaitKey::Form::held_by, r, {}, ExecContext::none, &res);
    // 4. The cumulative same-bank access limit.
    if (m_scheduler.bank_policy == BankPolicy::serialize && !x.bank_runs.empty())
        if (auto over = over_limit(&x, inflight)) return {WaitCause::bank, *over};
    return {};
}

std::optional<std::string> ContextScheduler::composite_over_limit(
    const InflightCommand& composite, const std::vector<InflightCommand*>& inflight) const {
    if (m_running.empty()) return std::nullopt;  // nothing else running: its 1 a bank is within any limit
    return over_limit(&composite, inflight);
}

std::optional<std::string> ContextScheduler::violation(const InflightCommand& x,
                                                       const std::vector<InflightCommand*>& inflight) const {
    if (x.bank_runs.empty()) return std::nullopt;
    return over_limit(&x, inflight);
}

bool ContextScheduler::sub_stalled(const InflightCommand& sub) const {
    for (const InflightCommand* m : m_running) {
        if (m->context() != ExecContext::main || !m->begun) continue;
        for (const auto& a : m->bank_runs)
            for (const auto& b : sub.bank_runs)
                if (a.first == b.first) return true;
    }
    return false;
}

}  // namespace npuvp
