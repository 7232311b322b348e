#include "modules/pe/pipeline_calendar.h"

#include <algorithm>
#include <string>

namespace npuvp {

[[gnu::hot]] void PipelineCalendar::push_timed(ps_t time, Activity& a) {
    if (m_thead == m_timed.size()) {
        m_timed.clear();
        m_thead = 0;
    } else if (m_thead > 32 && 2 * m_thead > m_timed.size()) {
        m_timed.erase_front(m_thead);
        m_thead = 0;
    }
    // Among wake-ups at one time, the earlier pushed runs first.
    Timed* at = &m_timed.append();
    Timed* const first = m_timed.begin() + m_thead;
    for (; at != first && at[-1].time > time; --at) *at = at[-1];
    at->set(time, a);
}

void PipelineCalendar::ask_while_serving() {
    SC_REPORT_ERROR("npuvp/invariant", "a request was made while a round was being served");
}

void PipelineCalendar::schedule(Activity& a) {
    if (m_running) {
        next_round(a);
        return;
    }
    // A process of this PE, in the kernel's evaluation phase at its time:
    // the calendar has run nothing past it (the Decoupler's horizon).
    const ps_t now = sc_core::sc_time_stamp().value();
    if (m_now > now) {
        SC_REPORT_ERROR("npuvp/invariant",
                        ("a decoupled PE had run ahead to " + std::to_string(m_now) +
                         " ps when a kernel process handed it work at " + std::to_string(now) + " ps")
                            .c_str());
        return;
    }
    if (m_now < now) advance_to(now);
    const std::uint64_t round = round_at(now, sc_core::sc_delta_count());
    m_list.append().set(round + 1, a);
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

[[gnu::hot]] bool PipelineCalendar::run_round(bool check) {
    // Round 0's wake-ups first: the timed ones due now (they stay in the
    // timed queue, in push order, until they run).
    while (timed_due()) {
        Activity& a = *m_timed[m_thead].activity;
        if (check && a.may_be_kernel_visible() && a.kernel_visible()) return false;
        ++m_thead;
        --m_due;
        ++m_activations;
        a.activate();
    }
    while (m_head < m_list.size() && m_list[m_head].round <= m_round) {
        Activity& a = *m_list[m_head].activity;
        if (check && a.may_be_kernel_visible() && a.kernel_visible()) return false;
        ++m_head;
        ++m_activations;
        a.activate();
    }
    if (m_head == m_list.size()) {
        m_list.clear();
        m_head = 0;
    }
    return true;
}

[[gnu::hot]] void PipelineCalendar::serve_and_commit() {
    // As the update phase: the round's requests in key order, then the
    // commits asked for in it (freed tile buffers, which only schedule the
    // next round; a decoupled inbox settles by itself, StageInbox).
    // No request can be made while serving (ask() checks), so the list is
    // served in place.
    if (!m_asks.empty()) {
        m_serving_now = true;
        serve_in_key_order(m_asks.begin(), m_asks.end());
        m_serving_now = false;
        m_asks.clear();
    }
    // A commit asked for by a commit belongs to the next round's end.
    const std::size_t commits = m_commits.size();
    if (commits != 0) {
        for (std::size_t i = 0; i < commits; ++i) {
            RoundCommit* c = m_commits[i];
            c->m_commit_asked = false;
            c->commit();
        }
        if (m_commits.size() == commits)
            m_commits.clear();
        else
            m_commits.erase_front(commits);
    }
}

void PipelineCalendar::run_in_step() {
    const ps_t now = sc_core::sc_time_stamp().value();
    if (m_now < now) advance_to(now);
    m_round = round_at(now, sc_core::sc_delta_count());
    m_kernel = now;
    m_running = true;
    const std::uint64_t before = m_activations;
    run_round(false);
    end_round();
    m_in_step += m_activations - before;
    m_running = false;
}

[[gnu::hot]] void PipelineCalendar::run_ahead(ps_t horizon) {
    m_kernel = sc_core::sc_time_stamp().value();
    m_running = true;
    for (;;) {
        if (timed_due()) {
            if (m_now >= horizon) break;
            m_round = 0;
        } else if (m_head != m_list.size()) {
            if (m_now >= horizon) break;
            m_round = m_list[m_head].round;
        } else {
            if (m_thead == m_timed.size() || m_timed[m_thead].time >= horizon) break;
            advance_to(m_timed[m_thead].time);  // its wake-ups are round 0's
        }
        if (!run_round(true)) break;  // it runs in step, at m_now (its round's end with it)
        end_round();
    }
    m_running = false;
}

}  // namespace npuvp
