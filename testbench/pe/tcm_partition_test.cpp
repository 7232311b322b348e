// PE_TCM partition (seed 000 §D5.1; SPEC §5, §8): SchedulerReservedTCM tile
// buffers and the host-visible PEMemAllocator. Plain C++, no simulation.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "modules/pe/tcm_partition.h"

namespace {

using npuvp::PeMemAllocator;
using npuvp::PeTcmConfig;
using npuvp::ReservedTcm;
using npuvp::TcmOutOfMemory;

PeTcmConfig tcm_config(std::uint64_t size_bytes, std::uint64_t reserved_bytes) {
    PeTcmConfig config;
    config.size_bytes = size_bytes;
    config.reserved_bytes = reserved_bytes;
    return config;
}

// xorshift64: same sequence with every standard library (std::mt19937 is, but
// the distributions on top of it are not).
class XorShift64 {
public:
    explicit XorShift64(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next() {
        m_state ^= m_state << 13;
        m_state ^= m_state >> 7;
        m_state ^= m_state << 17;
        return m_state;
    }
    // Value in [lo, hi]; the modulo bias does not matter for a test sequence.
    std::uint64_t in(std::uint64_t lo, std::uint64_t hi) { return lo + next() % (hi - lo + 1); }

private:
    std::uint64_t m_state;
};

struct Buffer {
    std::uint64_t addr;
    std::uint64_t bytes;
};

bool intersects(const Buffer& a, const Buffer& b) {
    return a.addr < b.addr + b.bytes && b.addr < a.addr + a.bytes;
}

}  // namespace

BOOST_AUTO_TEST_CASE(reserved_first_fit_and_coalescing) {
    ReservedTcm tcm(tcm_config(1 << 20, 64 * 1024));
    BOOST_REQUIRE_EQUAL(tcm.capacity(), 64u * 1024);

    const auto a = tcm.try_alloc(1000);  // rounded to 1024
    const auto b = tcm.try_alloc(4096);
    const auto c = tcm.try_alloc(100);   // rounded to 128
    BOOST_REQUIRE(a && b && c);
    BOOST_CHECK_EQUAL(*a, 0u);
    BOOST_CHECK_EQUAL(*b, 1024u);
    BOOST_CHECK_EQUAL(*c, 1024u + 4096u);
    BOOST_CHECK_EQUAL(tcm.in_use(), 1024u + 4096u + 128u);

    tcm.free(*b);
    BOOST_CHECK(!tcm.overlaps_live(*b, 4096));
    const auto b2 = tcm.try_alloc(4096);  // first fit: B's hole, not the tail
    BOOST_REQUIRE(b2);
    BOOST_CHECK_EQUAL(*b2, *b);
    BOOST_CHECK(tcm.overlaps_live(*b2, 1));

    // Free in an order that needs merging on both sides.
    tcm.free(*a);
    tcm.free(*c);
    tcm.free(*b2);
    BOOST_CHECK_EQUAL(tcm.in_use(), 0u);
    const auto whole = tcm.try_alloc(tcm.capacity());
    BOOST_REQUIRE(whole);
    BOOST_CHECK_EQUAL(*whole, 0u);
    BOOST_CHECK(!tcm.try_alloc(1));
    tcm.free(*whole);
}

BOOST_AUTO_TEST_CASE(reserved_live_buffers_never_overlap_random) {
    ReservedTcm tcm(tcm_config(4 << 20, 256 * 1024));
    XorShift64 rng(0x9e3779b97f4a7c15ull);
    std::vector<Buffer> shadow;  // live buffers with their rounded sizes
    std::uint64_t failures = 0;

    for (int step = 0; step < 20000; ++step) {
        const bool do_alloc = shadow.empty() || rng.in(0, 99) < 55;
        if (do_alloc) {
            const std::uint64_t bytes = rng.in(1, 16 * 1024);
            const auto addr = tcm.try_alloc(bytes);
            if (!addr) {
                ++failures;
                continue;
            }
            const Buffer fresh{*addr, (bytes + 63) / 64 * 64};
            BOOST_REQUIRE_EQUAL(fresh.addr % 64, 0u);
            BOOST_REQUIRE_LE(fresh.addr + fresh.bytes, tcm.capacity());
            for (const Buffer& live : shadow) BOOST_REQUIRE(!intersects(fresh, live));
            shadow.push_back(fresh);
        } else {
            const std::size_t victim = rng.in(0, shadow.size() - 1);
            tcm.free(shadow[victim].addr);
            BOOST_REQUIRE(!tcm.overlaps_live(shadow[victim].addr, shadow[victim].bytes));
            shadow[victim] = shadow.back();
            shadow.pop_back();
        }
        std::uint64_t used = 0;
        for (const Buffer& live : shadow) {
            used += live.bytes;
            BOOST_REQUIRE(tcm.overlaps_live(live.addr, live.bytes));
        }
        BOOST_REQUIRE_EQUAL(tcm.in_use(), used);
    }
    BOOST_TEST_MESSAGE("allocation failures (region full): " << failures);
    BOOST_CHECK_GT(failures, 0u);  // the sequence did exercise a full region

    for (const Buffer& live : shadow) tcm.free(live.addr);
    BOOST_CHECK(tcm.try_alloc(tcm.capacity()));
}

BOOST_AUTO_TEST_CASE(reserved_can_ever_fit) {
    ReservedTcm tcm(tcm_config(1 << 20, 4096 + 40));  // usable: 4096
    BOOST_CHECK_EQUAL(tcm.capacity(), 4096u);
    BOOST_CHECK(tcm.can_ever_fit(1));
    BOOST_CHECK(tcm.can_ever_fit(4096));
    BOOST_CHECK(tcm.can_ever_fit(4033));   // rounds to 4096
    BOOST_CHECK(!tcm.can_ever_fit(4097));  // rounds to 4160
    BOOST_CHECK(!tcm.can_ever_fit(~std::uint64_t{0}));
    BOOST_CHECK(!tcm.can_ever_fit(0));

    // Independent of what is live now.
    const auto a = tcm.try_alloc(2048);
    BOOST_REQUIRE(a);
    BOOST_CHECK(tcm.can_ever_fit(4096));
    BOOST_CHECK(!tcm.try_alloc(4096));
    BOOST_CHECK(!tcm.try_alloc(~std::uint64_t{0}));
    BOOST_CHECK_THROW(tcm.try_alloc(0), std::invalid_argument);

    ReservedTcm none(tcm_config(1 << 20, 0));
    BOOST_CHECK_EQUAL(none.capacity(), 0u);
    BOOST_CHECK(!none.can_ever_fit(1));
    BOOST_CHECK(!none.try_alloc(1));
}

BOOST_AUTO_TEST_CASE(reserved_double_free_throws) {
    ReservedTcm tcm(tcm_config(1 << 20, 64 * 1024));
    const auto a = tcm.try_alloc(256);
    const auto b = tcm.try_alloc(256);
    BOOST_REQUIRE(a && b);
    tcm.free(*a);
    BOOST_CHECK_THROW(tcm.free(*a), std::logic_error);
    BOOST_CHECK_THROW(tcm.free(*b + 64), std::logic_error);  // inside, not the start
    BOOST_CHECK_THROW(tcm.free(60 * 1024), std::logic_error);  // never allocated
    BOOST_CHECK_EQUAL(tcm.in_use(), 256u);
    tcm.free(*b);
    BOOST_CHECK_EQUAL(tcm.in_use(), 0u);
}

BOOST_AUTO_TEST_CASE(reserved_frees_in_any_order_keep_first_fit) {
    // Live buffers are kept in no order (a freed one's place is taken by the
    // last): freeing out of order must change neither first fit nor the
    // checks. Derived by hand: four 1 KiB buffers at 0, 1024, 2048, 3072;
    // free 1024, 0 and 3072 (2048 stays): free blocks [0, 2048) and
    // [3072, 64 KiB).
    ReservedTcm tcm(tcm_config(1 << 20, 64 * 1024));
    std::vector<std::uint64_t> at;
    for (int i = 0; i < 4; ++i) {
        const auto a = tcm.try_alloc(1024);
        BOOST_REQUIRE(a);
        at.push_back(*a);
    }
    BOOST_CHECK_EQUAL(at[0], 0u);
    BOOST_CHECK_EQUAL(at[3], 3072u);
    tcm.free(1024);
    tcm.free(0);
    tcm.free(3072);
    BOOST_CHECK_EQUAL(tcm.in_use(), 1024u);
    BOOST_CHECK(tcm.overlaps_live(2047, 2));
    BOOST_CHECK(!tcm.overlaps_live(0, 2048));
    BOOST_CHECK(!tcm.overlaps_live(3072, 1024));
    BOOST_CHECK_THROW(tcm.free(1024), std::logic_error);  // freed already
    BOOST_CHECK_THROW(tcm.free(3072), std::logic_error);
    // 2 KiB fits the first block exactly; 1 KiB then goes after 2048.
    BOOST_CHECK_EQUAL(*tcm.try_alloc(2048), 0u);
    BOOST_CHECK_EQUAL(*tcm.try_alloc(1024), 3072u);
    BOOST_CHECK(tcm.overlaps_live(1000, 100));
    tcm.free(2048);
    tcm.free(0);
    tcm.free(3072);
    BOOST_CHECK_EQUAL(tcm.in_use(), 0u);
    // All coalesced again: the whole region in one piece.
    BOOST_CHECK_EQUAL(*tcm.try_alloc(64 * 1024), 0u);
}

BOOST_AUTO_TEST_CASE(reserved_exceeding_size_rejected) {
    BOOST_CHECK_THROW(ReservedTcm(tcm_config(4096, 8192)), std::invalid_argument);
    BOOST_CHECK_THROW(PeMemAllocator(tcm_config(4096, 8192)), std::invalid_argument);
}

// seed 000 §D5.1: the two regions tile the TCM, and each allocator manages
// exactly its region (the workload loader checks `tcm` ranges against the
// same definition).
BOOST_AUTO_TEST_CASE(regions_split_at_reserved_bytes) {
    const PeTcmConfig config = tcm_config(32u << 20, 8u << 20);  // default.yaml
    const npuvp::TcmRegion reserved = npuvp::scheduler_reserved_region(config);
    const npuvp::TcmRegion allocatable = npuvp::allocatable_region(config);
    BOOST_CHECK_EQUAL(reserved.base, 0u);
    BOOST_CHECK_EQUAL(reserved.limit, 8u << 20);
    BOOST_CHECK_EQUAL(allocatable.base, 8u << 20);
    BOOST_CHECK_EQUAL(allocatable.limit, 32u << 20);

    const PeMemAllocator alloc(config);
    BOOST_CHECK_EQUAL(alloc.base(), allocatable.base);
    BOOST_CHECK_EQUAL(alloc.limit(), allocatable.limit);
    BOOST_CHECK_EQUAL(ReservedTcm(config).capacity(), reserved.limit - reserved.base);

    BOOST_CHECK_THROW(npuvp::allocatable_region(tcm_config(4096, 8192)), std::invalid_argument);
    BOOST_CHECK_THROW(npuvp::scheduler_reserved_region(tcm_config(4096, 8192)), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(allocator_never_returns_reserved_addresses) {
    // reserved_bytes deliberately not a multiple of any alignment used.
    const std::uint64_t size = 256 * 1024;
    const std::uint64_t reserved = 64 * 1024 + 24;
    PeMemAllocator alloc(tcm_config(size, reserved));
    BOOST_CHECK_EQUAL(alloc.capacity(), size - reserved);

    XorShift64 rng(12345);
    const std::uint64_t alignments[] = {1, 2, 8, 64, 128, 4096};
    std::vector<Buffer> shadow;
    bool out_of_memory = false;
    for (int i = 0; i < 100000 && !out_of_memory; ++i) {
        const std::uint64_t bytes = rng.in(1, 3000) | 1;  // odd sizes
        const std::uint64_t alignment = alignments[rng.in(0, 5)];
        try {
            const std::uint64_t addr = alloc.allocate(bytes, alignment);
            const Buffer fresh{addr, bytes};
            BOOST_REQUIRE_GE(addr, reserved);
            BOOST_REQUIRE_LE(addr + bytes, size);
            BOOST_REQUIRE_EQUAL(addr % alignment, 0u);
            for (const Buffer& live : shadow) BOOST_REQUIRE(!intersects(fresh, live));
            shadow.push_back(fresh);
        } catch (const TcmOutOfMemory&) {
            out_of_memory = true;
        }
    }
    BOOST_CHECK(out_of_memory);
    BOOST_CHECK_GT(shadow.size(), 10u);
    // A tiny request still only ever lands in the allocatable range.
    try {
        const std::uint64_t addr = alloc.allocate(1, 1);
        BOOST_CHECK_GE(addr, reserved);
        BOOST_CHECK_LT(addr, size);
    } catch (const TcmOutOfMemory&) {
    }
}

BOOST_AUTO_TEST_CASE(allocator_out_of_memory_names_size) {
    PeMemAllocator alloc(tcm_config(16 * 1024, 8 * 1024));
    const std::uint64_t a = alloc.allocate(6 * 1024, 64);
    try {
        alloc.allocate(3000, 64);
        BOOST_FAIL("expected TcmOutOfMemory");
    } catch (const TcmOutOfMemory& e) {
        const std::string what = e.what();
        BOOST_TEST_MESSAGE(what);
        BOOST_CHECK_NE(what.find("3000"), std::string::npos);   // the request
        BOOST_CHECK_NE(what.find("2048"), std::string::npos);   // largest free block
        BOOST_CHECK_NE(what.find("8192"), std::string::npos);   // capacity
        BOOST_CHECK_EQUAL(e.requested(), 3000u);
        BOOST_CHECK_EQUAL(e.largest_free(), 2048u);
        BOOST_CHECK_EQUAL(e.capacity(), 8192u);
    }
    BOOST_CHECK_THROW(alloc.allocate(~std::uint64_t{0}, 1), TcmOutOfMemory);
    alloc.free(a);
    BOOST_CHECK_THROW(alloc.allocate(8 * 1024 + 1, 1), TcmOutOfMemory);
    BOOST_CHECK_EQUAL(alloc.allocate(8 * 1024, 1), 8u * 1024);
}

BOOST_AUTO_TEST_CASE(allocator_rejects_bad_alignment) {
    PeMemAllocator alloc(tcm_config(16 * 1024, 8 * 1024));
    BOOST_CHECK_THROW(alloc.allocate(64, 0), std::invalid_argument);
    BOOST_CHECK_THROW(alloc.allocate(64, 3), std::invalid_argument);
    BOOST_CHECK_THROW(alloc.allocate(64, 96), std::invalid_argument);
    BOOST_CHECK_THROW(alloc.allocate(0, 64), std::invalid_argument);
    BOOST_CHECK_EQUAL(alloc.in_use(), 0u);
    // A huge power-of-two alignment is valid but cannot be met here.
    BOOST_CHECK_THROW(alloc.allocate(64, std::uint64_t{1} << 63), TcmOutOfMemory);
    BOOST_CHECK_EQUAL(alloc.allocate(64, 1), 8u * 1024);
}

BOOST_AUTO_TEST_CASE(allocator_free_then_reuse) {
    PeMemAllocator alloc(tcm_config(64 * 1024, 16 * 1024));
    const std::uint64_t a = alloc.allocate(1024, 256);
    const std::uint64_t b = alloc.allocate(2048, 256);
    const std::uint64_t c = alloc.allocate(512, 256);
    BOOST_CHECK_EQUAL(a, 16u * 1024);
    BOOST_CHECK_EQUAL(alloc.in_use(), 1024u + 2048u + 512u);
    alloc.free(b);
    BOOST_CHECK_EQUAL(alloc.allocate(2048, 256), b);
    alloc.free(b);
    BOOST_CHECK_THROW(alloc.free(b), std::logic_error);     // double free
    BOOST_CHECK_THROW(alloc.free(a + 1), std::logic_error); // never allocated
    BOOST_CHECK_THROW(alloc.free(0), std::logic_error);     // reserved range
    alloc.free(a);
    alloc.free(c);
    BOOST_CHECK_EQUAL(alloc.in_use(), 0u);
    BOOST_CHECK_EQUAL(alloc.allocate(alloc.capacity(), 1), 16u * 1024);
}
