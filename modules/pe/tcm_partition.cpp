#include "modules/pe/tcm_partition.h"

#include <algorithm>
#include <iterator>
#include <sstream>
#include <utility>


namespace npuvp {

namespace {

bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

bool by_addr(const detail::TcmRange& r, std::uint64_t addr) { return r.addr < addr; }

void check_config(const PeTcmConfig& config) {
    if (config.reserved_bytes > config.size_bytes) {
        std::ostringstream os;
        os << "PE_TCM: reserved_bytes (" << config.reserved_bytes << ") exceeds size_bytes ("
           << config.size_bytes << ")";
        throw std::invalid_argument(os.str());
    }
}

}  // namespace

namespace detail {

TcmRangeMap::TcmRangeMap(std::uint64_t base, std::uint64_t limit, std::string owner)
    : m_base(base), m_limit(limit), m_owner(std::move(owner)) {
    if (m_limit > m_base) m_free.push_back({m_base, m_limit - m_base});
}

[[gnu::hot]] std::uint64_t TcmRangeMap::first_fit(std::uint64_t bytes, std::uint64_t alignment) {
    if (bytes == 0 || bytes > capacity()) return k_no_space;
    for (std::size_t i = 0; i < m_free.size(); ++i) {
        const TcmRange block = m_free[i];
        // A power of two: a mask, not two divisions.
        const std::uint64_t pad = (alignment - (block.addr & (alignment - 1))) & (alignment - 1);
        if (pad > block.bytes || block.bytes - pad < bytes) continue;

        const std::uint64_t addr = block.addr + pad;
        const TcmRange lead{block.addr, pad};
        const TcmRange tail{addr + bytes, block.end() - (addr + bytes)};
        if (lead.bytes > 0 && tail.bytes > 0) {
            m_free[i] = lead;
            m_free.insert(m_free.begin() + static_cast<std::ptrdiff_t>(i) + 1, tail);
        } else if (lead.bytes > 0) {
            m_free[i] = lead;
        } else if (tail.bytes > 0) {
            m_free[i] = tail;
        } else {
            m_free.erase(m_free.begin() + static_cast<std::ptrdiff_t>(i));
        }

        // SPEC §8 / seed 000 §D5.1: checked in every build, not assert.
        if (addr < m_base || addr + bytes > m_limit || overlaps_live(addr, bytes)) {
            std::ostringstream os;
            os << m_owner << ": invariant violated: [" << addr << ", " << addr + bytes
               << ") is outside [" << m_base << ", " << m_limit
               << ") or overlaps a live allocation";
            throw std::logic_error(os.str());
        }
        m_live.emplace_back(addr, bytes);
        m_in_use += bytes;
        return addr;
    }
    return k_no_space;
}

[[gnu::hot]] void TcmRangeMap::free(std::uint64_t addr) {
    // The live ranges are few (a PE's tiles in flight) and kept in no order:
    // a scan, and the last one moved into the hole (no shifting).
    auto live = m_live.begin();
    while (live != m_live.end() && live->addr != addr) ++live;
    if (live == m_live.end()) {
        std::ostringstream os;
        os << m_owner << ": free of address " << addr
           << " that is not a live allocation (double free or never allocated)";
        throw std::logic_error(os.str());
    }
    const TcmRange range(live->addr, live->bytes);
    live->addr = m_live.back().addr;
    live->bytes = m_live.back().bytes;
    m_live.pop_back();
    m_in_use -= range.bytes;

    auto next = std::lower_bound(m_free.begin(), m_free.end(), range.addr, by_addr);
    const bool merge_prev = next != m_free.begin() && std::prev(next)->end() == range.addr;
    const bool merge_next = next != m_free.end() && range.end() == next->addr;
    if ((next != m_free.begin() && std::prev(next)->end() > range.addr) ||
        (next != m_free.end() && range.end() > next->addr)) {
        std::ostringstream os;
        os << m_owner << ": invariant violated: freed range [" << range.addr << ", "
           << range.end() << ") overlaps a free block";
        throw std::logic_error(os.str());
    }
    if (merge_prev && merge_next) {
        std::prev(next)->bytes += range.bytes + next->bytes;
        m_free.erase(next);
    } else if (merge_prev) {
        std::prev(next)->bytes += range.bytes;
    } else if (merge_next) {
        next->addr = range.addr;
        next->bytes += range.bytes;
    } else {
        m_free.insert(next, range);
    }
}

[[gnu::hot]] bool TcmRangeMap::overlaps_live(std::uint64_t addr, std::uint64_t bytes) const {
    if (bytes == 0) return false;
    // (a range past 2^64 meets every live range above its start)
    std::uint64_t end = 0;
    if (__builtin_add_overflow(addr, bytes, &end)) end = ~std::uint64_t{0};
    // Live ranges are disjoint and never empty: [addr, end) meets one when
    // it starts before `end` and ends after `addr`.
    // Without a branch per range: whether a range lies below or above is as
    // good as random, and a mispredicted branch per range cost more than
    // the scan (docs/speed.md, "Fifth pass").
    bool meets = false;
    for (const TcmRange& r : m_live) meets |= (r.addr < end) & (r.end() > addr);
    return meets;
}

std::uint64_t TcmRangeMap::largest_free() const {
    std::uint64_t largest = 0;
    for (const TcmRange& r : m_free) largest = std::max(largest, r.bytes);
    return largest;
}

}  // namespace detail

TcmRegion scheduler_reserved_region(const PeTcmConfig& config) {
    check_config(config);
    return {0, config.reserved_bytes};
}

TcmRegion allocatable_region(const PeTcmConfig& config) {
    check_config(config);
    return {config.reserved_bytes, config.size_bytes};
}

// ------------------------------------------------------------ ReservedTcm

namespace {

detail::TcmRangeMap make_reserved_map(const PeTcmConfig& config) {
    // Usable up to the last whole 64-byte granule of the region.
    const TcmRegion region = scheduler_reserved_region(config);
    const std::uint64_t limit = region.limit / ReservedTcm::k_alignment * ReservedTcm::k_alignment;
    return detail::TcmRangeMap(region.base, limit, "SchedulerReservedTCM");
}

}  // namespace

ReservedTcm::ReservedTcm(const PeTcmConfig& config) : m_map(make_reserved_map(config)) {}

void ReservedTcm::zero_bytes() { throw std::invalid_argument("SchedulerReservedTCM: zero-byte tile buffer"); }

void ReservedTcm::free(std::uint64_t addr) { m_map.free(addr); }

bool ReservedTcm::overlaps_live(std::uint64_t addr, std::uint64_t bytes) const {
    return m_map.overlaps_live(addr, bytes);
}

// --------------------------------------------------------- PeMemAllocator

namespace {

std::string oom_message(std::uint64_t requested, std::uint64_t alignment,
                        std::uint64_t largest_free, std::uint64_t capacity) {
    std::ostringstream os;
    os << "PEMemAllocator: out of AllocatableTCM: requested " << requested
       << " bytes (alignment " << alignment << "), largest free block " << largest_free
       << " bytes, capacity " << capacity << " bytes";
    return os.str();
}

detail::TcmRangeMap make_allocatable_map(const PeTcmConfig& config) {
    // seed 000 §D5.1: the reserved range is excluded at configuration time;
    // the allocator only ever knows [reserved_bytes, size_bytes).
    const TcmRegion region = allocatable_region(config);
    return detail::TcmRangeMap(region.base, region.limit, "PEMemAllocator");
}

}  // namespace

TcmOutOfMemory::TcmOutOfMemory(std::uint64_t requested, std::uint64_t alignment,
                               std::uint64_t largest_free, std::uint64_t capacity)
    : std::runtime_error(oom_message(requested, alignment, largest_free, capacity)),
      m_requested(requested),
      m_largest_free(largest_free),
      m_capacity(capacity) {}

PeMemAllocator::PeMemAllocator(const PeTcmConfig& config) : m_map(make_allocatable_map(config)) {}

std::uint64_t PeMemAllocator::allocate(std::uint64_t bytes, std::uint64_t alignment) {
    if (!is_power_of_two(alignment)) {
        throw std::invalid_argument("PEMemAllocator: alignment " + std::to_string(alignment) +
                                    " is not a power of two");
    }
    if (bytes == 0) throw std::invalid_argument("PEMemAllocator: zero-byte allocation");
    const std::optional<std::uint64_t> addr = m_map.allocate(bytes, alignment);
    if (!addr) throw TcmOutOfMemory(bytes, alignment, m_map.largest_free(), capacity());
    return *addr;
}

void PeMemAllocator::free(std::uint64_t addr) { m_map.free(addr); }

}  // namespace npuvp
