// ProcessPool (modules/common/process_pool.h): a job starts where a thread
// spawned for it would have (start(): the caller's evaluation phase;
// start_next_delta(): the next delta cycle), jobs started together run in
// the order they were started, and a thread whose job ended runs the next
// one instead of a new thread being made. One scripted process drives it;
// the jobs record, the test body asserts after sc_start().
#include <cstdint>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <systemc>

#include "modules/common/process_pool.h"

namespace {

struct Mark {
    std::string job;
    std::uint64_t t_ps, delta;
};

class Driver : public sc_core::sc_module {
public:
    explicit Driver(const sc_core::sc_module_name& name) : sc_module(name) { SC_THREAD(run); }
    SC_HAS_PROCESS(Driver);

    npuvp::ProcessPool pool;
    std::vector<Mark> marks;
    std::vector<std::size_t> threads;  // pool.threads() after each step
    std::uint64_t delta_at_0 = 0, delta_at_5 = 0;

private:
    void mark(const std::string& job) {
        marks.push_back({job, sc_core::sc_time_stamp().value(), sc_core::sc_delta_count()});
    }
    void run() {
        using sc_core::SC_NS;
        // t = 0: A runs 10 ns; B starts a delta later and ends at once.
        delta_at_0 = sc_core::sc_delta_count();
        pool.start([this] {
            mark("A");
            sc_core::wait(10, SC_NS);
            mark("A end");
        });
        pool.start_next_delta([this] { mark("B"); });
        threads.push_back(pool.threads());  // 2: nothing idle yet
        // t = 5 ns: A still runs, B's thread is idle: C runs on it, now.
        sc_core::wait(5, SC_NS);
        delta_at_5 = sc_core::sc_delta_count();
        pool.start([this] { mark("C"); });
        threads.push_back(pool.threads());  // still 2
        // t = 20 ns: both idle; D, E and F started together run in that
        // order, F on a third thread.
        sc_core::wait(15, SC_NS);
        pool.start([this] {
            mark("D");
            sc_core::wait(1, SC_NS);
        });
        pool.start([this] {
            mark("E");
            sc_core::wait(1, SC_NS);
        });
        pool.start([this] { mark("F"); });
        threads.push_back(pool.threads());  // 3
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(jobs_start_where_a_spawned_thread_would_and_threads_are_kept) {
    Driver driver("driver");
    sc_core::sc_start();
    // By hand: A and C in the driver's own delta cycle (a process spawned
    // there runs in that evaluation phase), B one delta cycle later; A ends
    // at 10 ns; D, E, F at 20 ns in start order.
    const std::vector<std::string> order{"A", "B", "C", "A end", "D", "E", "F"};
    BOOST_REQUIRE_EQUAL(driver.marks.size(), order.size());
    for (std::size_t i = 0; i < order.size(); ++i) BOOST_CHECK_EQUAL(driver.marks[i].job, order[i]);
    BOOST_CHECK_EQUAL(driver.marks[0].t_ps, 0u);
    BOOST_CHECK_EQUAL(driver.marks[0].delta, driver.delta_at_0);
    BOOST_CHECK_EQUAL(driver.marks[1].t_ps, 0u);
    BOOST_CHECK_EQUAL(driver.marks[1].delta, driver.delta_at_0 + 1);
    BOOST_CHECK_EQUAL(driver.marks[2].t_ps, 5000u);
    BOOST_CHECK_EQUAL(driver.marks[2].delta, driver.delta_at_5);
    BOOST_CHECK_EQUAL(driver.marks[3].t_ps, 10000u);
    for (std::size_t i = 4; i < 7; ++i) BOOST_CHECK_EQUAL(driver.marks[i].t_ps, 20000u);
    BOOST_CHECK(driver.threads == (std::vector<std::size_t>{2, 2, 3}));
}
