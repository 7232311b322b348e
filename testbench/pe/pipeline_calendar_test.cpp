// PipelineCalendar (modules/pe/pipeline_calendar.h) on its own: the rules it
// keeps so that a decoupled PE computes the per-stage times (SPEC T4). A
// round's requests are served at its end in key order, whatever order they
// were asked in; a hand-off is seen in the next round; a round-end commit runs
// once per round, after the serves; a later instant starts at its first
// round; running ahead stops before an activity that would wake the kernel.
// The calendar runs alone here (run_ahead), as the Decoupler runs it while the
// kernel has nothing pending; nothing is started on the kernel.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "modules/pe/pipeline_calendar.h"
#include "testbench/harness/report_guard.h"

using namespace npuvp;

namespace {

// What happened, in order: "name@time" for an activation, "serve name@time",
// "commit@time".
std::vector<std::string> g_log;

std::string at(const std::string& what, const PipelineCalendar& c) {
    return what + "@" + std::to_string(c.time_ps());
}

// An activity that asks for a grant with `key` when it runs, and is served
// at the round's end; then, if `next` is set, hands off to it (next round)
// or wakes it `delay` ps later.
struct Stage : Activity, RoundRequester {
    PipelineCalendar& cal;
    std::string name;
    RequestKey key;
    Stage* next = nullptr;
    ps_t delay = 0;
    bool visible = false;

    Stage(PipelineCalendar& c, std::string n, std::uint32_t node) : cal(c), name(std::move(n)) {
        key.node = node;
    }
    void activate() override {
        g_log.push_back(at(name, cal));
        cal.ask(key, *this);
    }
    bool kernel_visible() const override { return visible; }
    void serve_round() override {
        g_log.push_back(at("serve " + name, cal));
        if (next) cal.at(cal.time_ps() + delay, *next);
    }
};

struct Commit : RoundCommit {
    PipelineCalendar& cal;
    explicit Commit(PipelineCalendar& c) : cal(c) {}
    void commit() override { g_log.push_back(at("commit", cal)); }
};

// One activity that, when it runs, asks for a commit twice and schedules the
// others in the order given (to show that the order of asking is no input).
struct Starter : Activity {
    PipelineCalendar& cal;
    std::vector<Activity*> then;
    Commit* commit = nullptr;
    explicit Starter(PipelineCalendar& c) : cal(c) {}
    void activate() override {
        g_log.push_back(at("start", cal));
        for (Activity* a : then) cal.next_round(*a);
        if (commit) {
            cal.commit_at_round_end(*commit);
            cal.commit_at_round_end(*commit);
        }
    }
};

// An activity that only notes when it runs.
struct Mark : Activity {
    PipelineCalendar& cal;
    std::string name;
    Mark(PipelineCalendar& c, std::string n) : cal(c), name(std::move(n)) {}
    void activate() override { g_log.push_back(at(name, cal)); }
};

// An activity that, when it runs, wakes each of `wakes` at its time (in the
// order given).
struct Waker : Activity {
    PipelineCalendar& cal;
    std::vector<std::pair<ps_t, Activity*>> wakes;
    explicit Waker(PipelineCalendar& c) : cal(c) {}
    void activate() override {
        g_log.push_back(at("wake", cal));
        for (const auto& [t, a] : wakes) cal.at(t, *a);
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(requests_of_a_round_are_served_at_its_end_in_key_order) {
    sc_core::sc_event wake;
    PipelineCalendar cal(wake);
    Stage high(cal, "high", 5), low(cal, "low", 1);
    Stage after(cal, "after", 0);
    low.next = &after;  // a hand-off at the same instant: the next round
    Commit commit(cal);
    Starter start(cal);
    start.then = {&high, &low};  // asked in this order; low's key is lower
    start.commit = &commit;
    cal.schedule(start);
    cal.run_ahead(1000);
    // Round 0: start runs, hands to high and low (round 1) and asks for a
    // commit twice: committed once, at round 0's end. Round 1: high and low
    // run in the order they were handed, ask; served at the round's end in
    // key order, low (1) before high (5); low's hand-off runs in round 2.
    const std::vector<std::string> expect = {"start@0", "commit@0", "high@0", "low@0",
                                             "serve low@0", "serve high@0", "after@0",
                                             "serve after@0"};
    BOOST_CHECK_EQUAL_COLLECTIONS(g_log.begin(), g_log.end(), expect.begin(), expect.end());
    BOOST_CHECK(cal.empty());
}

BOOST_AUTO_TEST_CASE(a_later_instant_runs_in_time_order_and_run_ahead_stops_before_the_kernel) {
    sc_core::sc_event wake;
    PipelineCalendar cal(wake);
    Stage a(cal, "a", 0), b(cal, "b", 1), c(cal, "c", 2), done(cal, "done", 3);
    // a wakes b 300 ps after its serve, b wakes `done` 50 ps after its own;
    // c (handed at the start with a) wakes nothing.
    a.next = &b;
    a.delay = 300;
    b.next = &done;
    b.delay = 50;
    done.visible = true;  // e.g. a command's last tile: wakes PE_CPU
    Starter start(cal);
    start.then = {&c, &a};
    cal.schedule(start);
    cal.run_ahead(1000);
    // b at 300, then `done` is due at 350: it would notify a kernel process,
    // so the calendar stops before it, at its time, for the Decoupler to run
    // it in step with the kernel.
    const std::vector<std::string> expect = {"start@0", "c@0", "a@0", "serve a@0", "serve c@0",
                                             "b@300", "serve b@300"};
    BOOST_CHECK_EQUAL_COLLECTIONS(g_log.begin(), g_log.end(), expect.begin(), expect.end());
    BOOST_CHECK(!cal.empty());
    BOOST_CHECK_EQUAL(cal.next_time(), 350u);
}

BOOST_AUTO_TEST_CASE(run_ahead_stops_at_the_horizon) {
    sc_core::sc_event wake;
    PipelineCalendar cal(wake);
    Stage a(cal, "a", 0), b(cal, "b", 1);
    a.next = &b;
    a.delay = 500;
    Starter start(cal);
    start.then = {&a};
    cal.schedule(start);
    // The kernel has something pending at 400 ps: the calendar runs nothing
    // at or after it (b, due at 500, waits).
    cal.run_ahead(400);
    const std::vector<std::string> expect = {"start@0", "a@0", "serve a@0"};
    BOOST_CHECK_EQUAL_COLLECTIONS(g_log.begin(), g_log.end(), expect.begin(), expect.end());
    BOOST_CHECK_EQUAL(cal.next_time(), 500u);
}

BOOST_AUTO_TEST_CASE(timed_wake_ups_run_in_time_order_and_ties_in_push_order) {
    // Wake-ups pushed out of time order are sorted in from the back (the
    // calendar's in-place insertion, and push_timed() once the queue is
    // full); two at one time run in the order they were pushed, as the
    // kernel's timed notifications of one time do. Many of them, so that
    // the queue grows on the way (push_timed()) and sorts in place between.
    g_log.clear();
    sc_core::sc_event wake;
    PipelineCalendar cal(wake);
    std::vector<std::unique_ptr<Mark>> marks;
    Waker first(cal), second(cal);
    std::vector<std::string> expect = {"wake@0"};
    // first wakes, at 0: 300 a, 100 b, 300 c, 200 d, 100 e, then 40 more
    // alternating between 50 and 400 + i.
    const std::pair<ps_t, const char*> order[] = {{300, "a"}, {100, "b"}, {300, "c"}, {200, "d"}, {100, "e"}};
    for (const auto& [t, n] : order) {
        marks.push_back(std::make_unique<Mark>(cal, n));
        first.wakes.push_back({t, marks.back().get()});
    }
    for (int i = 0; i < 40; ++i) {
        const ps_t t = i % 2 ? 50 : 400 + static_cast<ps_t>(i);
        marks.push_back(std::make_unique<Mark>(cal, "m" + std::to_string(i)));
        first.wakes.push_back({t, marks.back().get()});
    }
    // second, woken at 100 after b and e, adds one at 100 (the next round:
    // not a timed wake-up), one at 200 (after d) and one at 300 (after c).
    Mark late200(cal, "late200"), late300(cal, "late300"), now100(cal, "now100");
    second.wakes = {{300, &late300}, {100, &now100}, {200, &late200}};
    first.wakes.push_back({100, &second});
    cal.schedule(first);
    cal.run_ahead(100000);
    for (int i = 1; i < 40; i += 2) expect.push_back("m" + std::to_string(i) + "@50");
    for (const char* n : {"b@100", "e@100", "wake@100", "now100@100", "d@200", "late200@200", "a@300",
                          "c@300", "late300@300"})
        expect.push_back(n);
    for (int i = 0; i < 40; i += 2) expect.push_back("m" + std::to_string(i) + "@" + std::to_string(400 + i));
    BOOST_CHECK_EQUAL_COLLECTIONS(g_log.begin(), g_log.end(), expect.begin(), expect.end());
    BOOST_CHECK(cal.empty());
}
