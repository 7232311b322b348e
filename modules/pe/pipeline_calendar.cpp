#include "modules/pe/pipeline_calendar.h"

#include <algorithm>
#include <string>

namespace npuvp {

void PipelineCalendar::push(ps_t time, std::uint64_t round, Activity& a) {
    m_heap.push_back({time, round, m_seq++, &a});
    std::push_heap(m_heap.begin(), m_heap.end(), Later{});
}

void PipelineCalendar::at(ps_t t, Activity& a) {
    if (t > m_now)
        push(t, 0, a);  // a later instant: its first round, as a timed notification
    else
        next_round(a);  // a zero wait: the next round, as a delta notification
}

void PipelineCalendar::ask(const RequestKey& key, RoundRequester& requester) {
    if (m_serving_now) {
        SC_REPORT_ERROR("npuvp/invariant", "a request was made while a round was being served");
        return;
    }
    m_asks.push_back({key, m_seq++, &requester});
}

void PipelineCalendar::commit_at_round_end(RoundCommit& c) {
    if (c.m_commit_asked) return;
    c.m_commit_asked = true;
    m_commits.push_back(&c);
}

void PipelineCalendar::schedule(Activity& a) {
    if (m_running) {
        next_round(a);
        return;
    }
    // A process of this PE, in the kernel's evaluation phase at its time.
    const ps_t now = sc_core::sc_time_stamp().value();
    if (m_now > now)
        SC_REPORT_ERROR("npuvp/invariant",
                        ("a decoupled PE had run ahead to " + std::to_string(m_now) +
                         " ps when a kernel process handed it work at " + std::to_string(now) + " ps")
                            .c_str());
    const std::uint64_t round = round_at(now, sc_core::sc_delta_count());
    push(now, round + 1, a);
    m_wake.notify(sc_core::SC_ZERO_TIME);
}

std::uint64_t PipelineCalendar::round_at(ps_t now, std::uint64_t delta) {
    if (now != m_sync_instant) {
        // The first delta cycle the calendar meets at this instant is the
        // round it is at here: 0 unless it ran ahead into this instant and
        // stopped before a kernel-visible activity of round m_round.
        m_sync_instant = now;
        m_sync_base = delta;
        m_sync_offset = m_now == now ? m_round : 0;
    }
    return delta - m_sync_base + m_sync_offset;
}

bool PipelineCalendar::due_now() const {
    return !m_heap.empty() && m_heap.front().time == sc_core::sc_time_stamp().value();
}

bool PipelineCalendar::run_round(bool check) {
    while (!m_heap.empty()) {
        const Entry& top = m_heap.front();
        if (top.time != m_now || top.round > m_round) break;
        Activity& a = *top.activity;
        if (check && a.kernel_visible()) return false;
        std::pop_heap(m_heap.begin(), m_heap.end(), Later{});
        m_heap.pop_back();
        ++m_activations;
        a.activate();
    }
    return true;
}

void PipelineCalendar::end_round() {
    // As the update phase: the round's requests in key order, then the
    // inboxes' and buffers' commits (which only schedule the next round).
    if (!m_asks.empty()) {
        m_serving.swap(m_asks);
        if (m_serving.size() > 1)
            std::sort(m_serving.begin(), m_serving.end(), [](const Ask& a, const Ask& b) {
                return a.key < b.key || (!(b.key < a.key) && a.seq < b.seq);
            });
        m_serving_now = true;
        for (const Ask& a : m_serving) a.requester->serve_round();
        m_serving_now = false;
        m_serving.clear();
    }
    if (!m_commits.empty()) {
        m_committing.swap(m_commits);
        for (RoundCommit* c : m_committing) {
            c->m_commit_asked = false;
            c->commit();
        }
        m_committing.clear();
    }
}

void PipelineCalendar::run_in_step() {
    const ps_t now = sc_core::sc_time_stamp().value();
    const std::uint64_t round = round_at(now, sc_core::sc_delta_count());
    m_now = now;
    m_round = round;
    m_running = true;
    const std::uint64_t before = m_activations;
    run_round(false);
    end_round();
    m_in_step += m_activations - before;
    m_running = false;
}

void PipelineCalendar::run_ahead(ps_t horizon) {
    m_running = true;
    while (!m_heap.empty()) {
        const Entry& top = m_heap.front();
        if (top.time >= horizon) break;
        m_now = top.time;
        m_round = top.round;
        if (!run_round(true)) break;  // it runs in step, at m_now (its round's end with it)
        end_round();
    }
    m_running = false;
}

}  // namespace npuvp
