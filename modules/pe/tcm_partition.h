// PE_TCM partition (seed 000 §D5.1; SPEC §5, §8): the PE's TCM address space is
// split into two logical regions at configuration time.
//
// Layout decision: SchedulerReservedTCM is [0, reserved_bytes) of the PE's TCM
// address space and AllocatableTCM is [reserved_bytes, size_bytes). Each
// allocator is constructed with only its own range, so PEMemAllocator cannot
// see the reserved region by construction (seed 000 §D5.1: strong isolation);
// every allocation is additionally checked against the range in every build.
//
// Plain C++, no SystemC processes: PE_SCHEDULER owns a ReservedTcm, the
// host / DP path owns a PeMemAllocator.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "modules/common/config.h"

namespace npuvp {

namespace detail {

struct TcmRange {
    // Built in place (emplace_back), member by member: docs/speed.md, "Fifth pass".
    TcmRange() = default;
    TcmRange(std::uint64_t a, std::uint64_t b) : addr(a), bytes(b) {}
    std::uint64_t addr = 0;
    std::uint64_t bytes = 0;
    std::uint64_t end() const { return addr + bytes; }
};

// First-fit allocator over [base, limit): a free list, kept sorted by
// address, and a live list. Free blocks are coalesced on free. The
// vectors only grow, so steady-state alloc/free does not touch the heap.
class TcmRangeMap {
public:
    TcmRangeMap(std::uint64_t base, std::uint64_t limit, std::string owner);

    // Preconditions (checked by the callers): bytes > 0, alignment a power of two.
    std::optional<std::uint64_t> allocate(std::uint64_t bytes, std::uint64_t alignment) {
        const std::uint64_t addr = first_fit(bytes, alignment);
        if (addr == k_no_space) return std::nullopt;
        return addr;
    }
    // Throws std::logic_error when addr is not the start of a live allocation.
    void free(std::uint64_t addr);

    bool overlaps_live(std::uint64_t addr, std::uint64_t bytes) const;
    std::uint64_t in_use() const { return m_in_use; }
    std::uint64_t base() const { return m_base; }
    std::uint64_t limit() const { return m_limit; }
    std::uint64_t capacity() const { return m_limit - m_base; }
    std::uint64_t largest_free() const;
    std::size_t live_count() const { return m_live.size(); }
    std::size_t free_block_count() const { return m_free.size(); }

private:
    // What first_fit() returns for "no block fits": never a range's address
    // (a range holds at least one byte below 2^64). The optional is made
    // inline, in the caller: returned from a call, GCC builds it on the
    // stack with a one-byte store under an eight-byte load, which the store
    // buffer cannot forward (docs/speed.md, "Fifth pass").
    static constexpr std::uint64_t k_no_space = ~std::uint64_t{0};
    std::uint64_t first_fit(std::uint64_t bytes, std::uint64_t alignment);

    std::uint64_t m_base;
    std::uint64_t m_limit;
    std::string m_owner;
    std::vector<TcmRange> m_free;  // sorted by addr, never adjacent (coalesced)
    std::vector<TcmRange> m_live;  // never overlapping, in no particular order (a scan: they are few)
    std::uint64_t m_in_use = 0;
};

}  // namespace detail

// One region of the PE's TCM address space: [base, limit).
struct TcmRegion {
    std::uint64_t base = 0;
    std::uint64_t limit = 0;
};

// The layout above, defined once: the allocators below take their ranges from
// these, and the workload loader checks `tcm` ranges against them, so the
// regions a workload may name and the ones the PE allocates from cannot
// disagree. Both throw std::invalid_argument when reserved_bytes > size_bytes.
// seed 000 §D5.1: SchedulerReservedTCM = [0, reserved_bytes), PE_SCHEDULER's
// tile buffers.
TcmRegion scheduler_reserved_region(const PeTcmConfig& config);
// seed 000 §D5.1: AllocatableTCM = [reserved_bytes, size_bytes), where data
// placed by DMA and the host (workload `tcm` ranges) lives.
TcmRegion allocatable_region(const PeTcmConfig& config);

// SchedulerReservedTCM (seed 000 §D5.1): owned by PE_SCHEDULER alone; holds
// the tile buffers of composite commands. Buffers are 64-byte aligned and
// their sizes are rounded up to 64 bytes. Invariant (SPEC §8, every build):
// live buffers never overlap; a violation throws std::logic_error.
class ReservedTcm {
public:
    static constexpr std::uint64_t k_alignment = 64;

    // Throws std::invalid_argument when reserved_bytes > size_bytes.
    explicit ReservedTcm(const PeTcmConfig& config);

    // First fit; std::nullopt when no free block is large enough right now
    // (the feeder waits for space, SPEC §5). bytes == 0 is std::invalid_argument.
    std::optional<std::uint64_t> try_alloc(std::uint64_t bytes) {
        if (bytes == 0) zero_bytes();
        if (!can_ever_fit(bytes)) return std::nullopt;
        return m_map.allocate((bytes + k_alignment - 1) / k_alignment * k_alignment, k_alignment);
    }
    // seed 000 §D5.1: a buffer is released once its tile's DMA_WRITE completes.
    // Throws std::logic_error on a double free or an address never allocated.
    void free(std::uint64_t addr);

    std::uint64_t in_use() const { return m_map.in_use(); }
    // Usable bytes: reserved_bytes rounded down to the 64-byte alignment.
    std::uint64_t capacity() const { return m_map.capacity(); }
    // True when a buffer of `bytes` fits an empty reserved region (SPEC §8: a
    // tile that can never fit is a configuration error, not a wait).
    bool can_ever_fit(std::uint64_t bytes) const {
        if (bytes == 0 || bytes > capacity()) return false;
        return (bytes + k_alignment - 1) / k_alignment * k_alignment <= capacity();
    }
    // True when [addr, addr + bytes) intersects a live buffer.
    bool overlaps_live(std::uint64_t addr, std::uint64_t bytes) const;

private:
    [[noreturn]] static void zero_bytes();  // throws std::invalid_argument

    detail::TcmRangeMap m_map;
};

// Raised by PeMemAllocator when a request cannot be satisfied.
class TcmOutOfMemory : public std::runtime_error {
public:
    TcmOutOfMemory(std::uint64_t requested, std::uint64_t alignment,
                   std::uint64_t largest_free, std::uint64_t capacity);

    std::uint64_t requested() const { return m_requested; }
    std::uint64_t largest_free() const { return m_largest_free; }
    std::uint64_t capacity() const { return m_capacity; }

private:
    std::uint64_t m_requested;
    std::uint64_t m_largest_free;
    std::uint64_t m_capacity;
};

// AllocatableTCM (seed 000 §D5.1): the general-purpose, host / DP visible
// region managed by PEMemAllocator. It only knows [reserved_bytes, size_bytes).
class PeMemAllocator {
public:
    // Throws std::invalid_argument when reserved_bytes > size_bytes.
    explicit PeMemAllocator(const PeTcmConfig& config);

    // alignment must be a power of two >= 1 and bytes > 0, else
    // std::invalid_argument; TcmOutOfMemory when nothing fits. The result lies
    // in [reserved_bytes, size_bytes) together with its bytes.
    std::uint64_t allocate(std::uint64_t bytes, std::uint64_t alignment);
    // Throws std::logic_error on an unknown address or a double free.
    void free(std::uint64_t addr);

    std::uint64_t in_use() const { return m_map.in_use(); }
    std::uint64_t capacity() const { return m_map.capacity(); }
    std::uint64_t base() const { return m_map.base(); }
    std::uint64_t limit() const { return m_map.limit(); }

private:
    detail::TcmRangeMap m_map;
};

}  // namespace npuvp
