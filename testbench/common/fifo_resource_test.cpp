// FifoResource (SPEC §1: simpy.Resource grants in request order). Each
// scenario is a few scripted processes; they record, the test body asserts
// after sc_start().
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <systemc>

#include "modules/common/fifo_resource.h"

namespace {

using npuvp::FifoResource;
using sc_core::sc_time;

constexpr std::uint64_t ns(std::uint64_t v) { return v * 1000; }

std::uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

// Waits until absolute time t (ps); no wait if already there.
void wait_until(std::uint64_t t_ps) {
    if (t_ps > now_ps()) sc_core::wait(sc_time::from_value(t_ps - now_ps()));
}

void hold(std::uint64_t d_ps) { sc_core::wait(sc_time::from_value(d_ps)); }

// One scripted process.
class Proc : public sc_core::sc_module {
public:
    Proc(const sc_core::sc_module_name& name, std::function<void()> body)
        : sc_module(name), m_body(std::move(body)) {
        SC_THREAD(run);
    }
    SC_HAS_PROCESS(Proc);

private:
    void run() { m_body(); }
    std::function<void()> m_body;
};

struct Grant {
    std::string who;
    std::uint64_t at_ps;
    bool operator==(const Grant& o) const { return who == o.who && at_ps == o.at_ps; }
};

std::ostream& operator<<(std::ostream& os, const Grant& g) {
    return os << g.who << "@" << g.at_ps << "ps";
}

using Procs = std::vector<std::unique_ptr<Proc>>;

void add(Procs& procs, const char* name, std::function<void()> body) {
    procs.push_back(std::make_unique<Proc>(name, std::move(body)));
}

}  // namespace

BOOST_AUTO_TEST_CASE(grants_in_request_order) {
    FifoResource res("res", 1);
    std::vector<Grant> grants;
    Procs procs;
    add(procs, "p0", [&] {
        res.wait();
        grants.push_back({"p0", now_ps()});
        hold(ns(10));
        res.post();
    });
    // Each of P1..P3 asks at k ns and holds 5 ns once granted.
    for (int k = 1; k <= 3; ++k) {
        const std::string who = "p" + std::to_string(k);
        add(procs, who.c_str(), [&, who, k] {
            wait_until(ns(k));
            res.wait();
            grants.push_back({who, now_ps()});
            hold(ns(5));
            res.post();
        });
    }
    sc_core::sc_start();

    // P0 holds 0..10. Queue at 3 ns: P1, P2, P3 (request order).
    // P0 posts at 10 -> P1 @10, holds to 15 -> P2 @15, to 20 -> P3 @20.
    const std::vector<Grant> expected{{"p0", 0}, {"p1", ns(10)}, {"p2", ns(15)}, {"p3", ns(20)}};
    BOOST_TEST(grants == expected, boost::test_tools::per_element());
    // Waits: P1 10-1=9, P2 15-2=13, P3 20-3=17 -> 39 ns; 4 grants.
    BOOST_TEST(res.grants() == 4u);
    BOOST_TEST(res.total_wait() == sc_time(39, sc_core::SC_NS));
    BOOST_TEST(res.get_value() == 1);
    BOOST_TEST(res.queue_length() == 0u);
}

namespace {

// P0 holds from 0; P1 asks at 1 ns and waits; at 10 ns P0 posts and at once
// (same delta, no wait in between) asks again. Each holds 5 ns per grant.
template <typename Resource>
std::vector<Grant> post_then_ask_again(Resource& res) {
    std::vector<Grant> grants;
    Procs procs;
    add(procs, "p0", [&] {
        res.wait();
        grants.push_back({"p0", now_ps()});
        hold(ns(10));
        res.post();
        res.wait();
        grants.push_back({"p0", now_ps()});
        hold(ns(5));
        res.post();
    });
    add(procs, "p1", [&] {
        wait_until(ns(1));
        res.wait();
        grants.push_back({"p1", now_ps()});
        hold(ns(5));
        res.post();
    });
    sc_core::sc_start();
    return grants;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sc_semaphore_lets_the_poster_barge) {
    // IEEE 1666 says nothing of the order in which sc_semaphore (or
    // sc_mutex) serves waiting processes. The Accellera 2.3.4 kernel's post()
    // only increments the count and notifies; P0 is still running, so its
    // next wait() finds the count at 1 and takes it again before P1 runs.
    // P1 wakes, finds the count at 0 and waits on: P0 barges ahead.
    //   P0 @0, P0 @10 (again), P0 posts at 15 -> P1 @15.
    sc_core::sc_semaphore sem("sem", 1);
    const auto grants = post_then_ask_again(sem);
    const std::vector<Grant> expected{{"p0", 0}, {"p0", ns(10)}, {"p1", ns(15)}};
    BOOST_TEST(grants == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(fifo_resource_hands_over_to_the_oldest_waiter) {
    // Same scenario: P0's post at 10 ns hands the unit to P1 (waiting since
    // 1 ns); P0's wait() queues behind P1 and is granted at P1's post.
    //   P0 @0, P1 @10, P1 posts at 15 -> P0 @15.
    FifoResource res("res", 1);
    const auto grants = post_then_ask_again(res);
    const std::vector<Grant> expected{{"p0", 0}, {"p1", ns(10)}, {"p0", ns(15)}};
    BOOST_TEST(grants == expected, boost::test_tools::per_element());
    // Waits: P1 10-1=9 ns, P0 15-10=5 ns.
    BOOST_TEST(res.grants() == 3u);
    BOOST_TEST(res.total_wait() == sc_time(14, sc_core::SC_NS));
}

BOOST_AUTO_TEST_CASE(capacity_two_third_waits_for_first_release) {
    FifoResource res("res", 2);
    std::vector<Grant> grants;
    std::vector<int> value_after_two;
    Procs procs;
    add(procs, "a", [&] {
        res.wait();
        grants.push_back({"a", now_ps()});
        hold(ns(10));
        res.post();
    });
    add(procs, "b", [&] {
        wait_until(ns(1));
        res.wait();
        grants.push_back({"b", now_ps()});
        value_after_two.push_back(res.get_value());
        hold(ns(20));
        res.post();
    });
    add(procs, "c", [&] {
        wait_until(ns(2));
        res.wait();
        grants.push_back({"c", now_ps()});
        hold(ns(1));
        res.post();
    });
    sc_core::sc_start();

    // A @0 (1 left), B @1 (0 left), C asks at 2 and waits; A posts at 10 ->
    // C @10. B is still holding then: the third waited for the first release.
    const std::vector<Grant> expected{{"a", 0}, {"b", ns(1)}, {"c", ns(10)}};
    BOOST_TEST(grants == expected, boost::test_tools::per_element());
    BOOST_TEST(value_after_two == std::vector<int>{0}, boost::test_tools::per_element());
    BOOST_TEST(res.get_value() == 2);
    BOOST_TEST(res.total_wait() == sc_time(8, sc_core::SC_NS));
}

BOOST_AUTO_TEST_CASE(trywait_never_overtakes_a_waiter) {
    FifoResource res("res", 1);
    int first_try = 99, poster_retry = 99, newcomer_try = 99, late_try = 99;
    std::vector<Grant> grants;
    Procs procs;
    add(procs, "p0", [&] {
        first_try = res.trywait();  // free, nobody waits: 0
        hold(ns(10));
        res.post();                 // P1 has waited since 1 ns: handed to P1
        poster_retry = res.trywait();  // same delta: must not take P1's unit
    });
    add(procs, "p1", [&] {
        wait_until(ns(1));
        res.wait();
        grants.push_back({"p1", now_ps()});
        hold(ns(5));
        res.post();
    });
    add(procs, "p2", [&] {
        wait_until(ns(10));
        newcomer_try = res.trywait();  // at the handover instant
        wait_until(ns(20));
        late_try = res.trywait();      // free and nobody waits: 0
    });
    sc_core::sc_start();

    BOOST_TEST(first_try == 0);
    BOOST_TEST(poster_retry == -1);
    BOOST_TEST(newcomer_try == -1);
    BOOST_TEST(late_try == 0);
    const std::vector<Grant> expected{{"p1", ns(10)}};
    BOOST_TEST(grants == expected, boost::test_tools::per_element());
    // Grants: P0's trywait, P1, P2's late trywait; only P1 waited (9 ns).
    BOOST_TEST(res.grants() == 3u);
    BOOST_TEST(res.total_wait() == sc_time(9, sc_core::SC_NS));
}

BOOST_AUTO_TEST_CASE(mutex_unlock_by_non_owner_and_post_on_full) {
    FifoResource mutex("mutex", 1);
    FifoResource pair("pair", 2);
    int lock = 99, other_unlock = 99, other_trylock = 99, owner_unlock = 99,
        second_unlock = 99, post_full = 99, pair_lock = 99, pair_unlock = 99;
    int value_after_bad_post = 99;
    Procs procs;
    add(procs, "owner", [&] {
        lock = mutex.lock();
        hold(ns(2));
        owner_unlock = mutex.unlock();
        second_unlock = mutex.unlock();  // no longer the owner
    });
    add(procs, "other", [&] {
        wait_until(ns(1));
        other_unlock = mutex.unlock();   // not the owner: -1, mutex stays locked
        other_trylock = mutex.trylock(); // held by owner: -1
        wait_until(ns(3));
        post_full = mutex.post();        // nothing taken: -1
        value_after_bad_post = mutex.get_value();
        pair_lock = pair.lock();
        pair_unlock = pair.unlock();     // mutex use needs capacity 1: -1
    });
    sc_core::sc_start();

    BOOST_TEST(lock == 0);
    BOOST_TEST(other_unlock == -1);
    BOOST_TEST(other_trylock == -1);
    BOOST_TEST(owner_unlock == 0);
    BOOST_TEST(second_unlock == -1);
    BOOST_TEST(post_full == -1);
    BOOST_TEST(value_after_bad_post == 1);
    BOOST_TEST(pair_lock == 0);
    BOOST_TEST(pair_unlock == -1);
    BOOST_TEST(mutex.get_value() == 1);
}

BOOST_AUTO_TEST_CASE(statistics_count_grants_and_waits) {
    FifoResource res("res", 2);
    Procs procs;
    auto user = [&](const char* name, std::uint64_t ask, std::uint64_t holds, bool releases) {
        add(procs, name, [&res, ask, holds, releases] {
            wait_until(ask);
            res.wait();
            hold(holds);
            if (releases) res.post();
        });
    };
    // name, asks at, holds for, releases?
    user("a", 0, ns(10), true);
    user("b", 0, ns(4), true);
    user("c", ns(2), ns(3), true);
    user("d", ns(5), ns(1), false);
    user("e", ns(6), ns(1), true);
    user("f", ns(12), ns(1), false);
    user("g", ns(13), ns(1), true);
    sc_core::sc_start();

    // Capacity 2.
    //   0: A, B granted at once.          2: C asks, waits.
    //   4: B posts -> C (waited 2).       5: D asks, waits (A, C hold).
    //   6: E asks, waits behind D.        7: C posts -> D (waited 2); D never posts.
    //  10: A posts -> E (waited 4).      11: E posts, one unit free.
    //  12: F granted at once; never posts. 13: G asks: both units held for
    //      good, G is never granted and is not counted.
    // grants = A B C D E F = 6; total_wait = 2 + 2 + 4 = 8 ns.
    BOOST_TEST(res.grants() == 6u);
    BOOST_TEST(res.total_wait() == sc_time(8, sc_core::SC_NS));
    BOOST_TEST(res.queue_length() == 1u);
    BOOST_TEST(res.in_use() == 2);
}
