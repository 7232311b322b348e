// AppendList (modules/common/append_list.h), the decoupled calendar's queues:
// an append-only list, cleared as a whole, whose slots are reused. What the
// calendar relies on: entries stay in append order through growth and
// erase_front(), and a cleared list refills without growing (the inner loop
// allocates nothing once the list has grown to its working size).
#include <boost/test/unit_test.hpp>

#include <cstddef>

#include "modules/common/append_list.h"

using npuvp::AppendList;

namespace {

struct Entry {
    std::size_t a;
    std::size_t b;
};

// Appends a..a+n-1, each filled member by member as the calendar does.
void fill(AppendList<Entry>& list, std::size_t a, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        Entry& e = list.append();
        e.a = a + i;
        e.b = 2 * (a + i);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(appends_keep_their_order_through_growth) {
    AppendList<Entry> list;
    BOOST_TEST(list.empty());
    // 100 entries: the first growth gives 16 slots, then 32, 64, 128; every
    // growth must carry the entries before it over, in order.
    fill(list, 0, 100);
    BOOST_TEST(list.size() == 100u);
    BOOST_TEST(list.capacity() >= 100u);
    for (std::size_t i = 0; i < 100; ++i) {
        BOOST_TEST(list[i].a == i);
        BOOST_TEST(list[i].b == 2 * i);
    }
    BOOST_TEST(list.front().a == 0u);
    BOOST_TEST(list.back().a == 99u);
    std::size_t n = 0;
    for (const Entry& e : list) BOOST_TEST(e.a == n++);
    BOOST_TEST(n == 100u);
}

BOOST_AUTO_TEST_CASE(erase_front_keeps_the_rest_in_order) {
    AppendList<Entry> list;
    fill(list, 0, 10);
    list.erase_front(4);
    BOOST_REQUIRE(list.size() == 6u);
    for (std::size_t i = 0; i < 6; ++i) BOOST_TEST(list[i].a == 4 + i);
    // Appends go after what is left.
    fill(list, 10, 3);
    BOOST_REQUIRE(list.size() == 9u);
    BOOST_TEST(list[5].a == 9u);
    BOOST_TEST(list[6].a == 10u);
    BOOST_TEST(list.back().a == 12u);
    list.pop_back();
    BOOST_TEST(list.back().a == 11u);
}

BOOST_AUTO_TEST_CASE(a_cleared_list_refills_without_growing) {
    AppendList<Entry> list;
    fill(list, 0, 40);
    const std::size_t capacity = list.capacity();
    const Entry* const slots = list.begin();
    list.clear();
    BOOST_TEST(list.empty());
    // The same number again: the same slots, no growth (no allocation).
    fill(list, 100, 40);
    BOOST_TEST(list.capacity() == capacity);
    BOOST_TEST(list.begin() == slots);
    BOOST_TEST(list[0].a == 100u);
    BOOST_TEST(list[39].a == 139u);
}
