// One T1 hop (SPEC §3): a fixed latency, an optional bandwidth, and the time
// until which its bandwidth is reserved. Times are integer picoseconds (the
// simulation's time resolution), so reservations are exact and repeatable.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "modules/common/checked.h"

namespace npuvp {

using ps_t = std::uint64_t;

// Serialisation time of n bytes at bw GB/s (= bytes/ns), in ps, rounded up:
// a transfer never ends before its last byte has passed. Computed in integers
// (bandwidth taken to 1 byte/s): in floating point, bytes * 1000 / bw lands a
// few ulps above an exact quotient (21 B at 0.7 GB/s = 30000.000000000004)
// and rounding up would add a spurious picosecond.
//
// The bandwidth in whole bytes per second (0 = unlimited); hops and routes
// compute it once, so the per-transfer cost is one integer division.
inline std::uint64_t bytes_per_s(double bw_gbs) {
    if (bw_gbs <= 0.0) return 0;
    return std::max<std::uint64_t>(1, checked_u64(std::round(bw_gbs * 1e9), "a bandwidth", "bytes/s"));
}

inline ps_t serialisation_ps(std::uint64_t bytes, std::uint64_t per_s) {
    if (bytes == 0 || per_s == 0) return 0;
    constexpr std::uint64_t ps_per_s = 1000000000000ull;
    // Up to 18 MB the product fits 64 bits (the common case: one 64-bit
    // division); beyond, 128-bit arithmetic gives the same exact result.
    if (bytes <= (UINT64_MAX - per_s) / ps_per_s) return (bytes * ps_per_s + per_s - 1) / per_s;
    const unsigned __int128 scaled = static_cast<unsigned __int128>(bytes) * ps_per_s;
    const unsigned __int128 ps = (scaled + per_s - 1) / per_s;
    if (ps > UINT64_MAX) [[unlikely]]
        checked_u64(static_cast<double>(ps), "a transfer's serialisation time", "ps");  // throws
    return static_cast<ps_t>(ps);
}

inline ps_t serialisation_ps(std::uint64_t bytes, double bw_gbs) {
    return serialisation_ps(bytes, bytes_per_s(bw_gbs));
}

// serialisation_ps() at one bandwidth, remembering the last answer: a hop
// mostly carries one tile size after another, and the division it saves is
// among the slowest instructions of a reservation.
class SerialisationCache {
public:
    ps_t ps(std::uint64_t bytes, std::uint64_t per_s) const {
        if (bytes != m_bytes || per_s != m_per_s) {
            m_bytes = bytes;
            m_per_s = per_s;
            m_ps = serialisation_ps(bytes, per_s);
        }
        return m_ps;
    }

private:
    mutable std::uint64_t m_bytes = 0;  // serialisation_ps(0, any) = 0
    mutable std::uint64_t m_per_s = 0;
    mutable ps_t m_ps = 0;
};

// A time in ns (a key's value: `what` names it) in whole ps, rounded to the
// nearest; out of range is an Overflow (modules/common/checked.h).
inline ps_t ns_to_ps(double ns, const char* what) { return checked_u64(std::round(ns * 1000.0), what, "ps"); }

class Hop {
public:
    Hop(std::string name, ps_t latency_ps, double bw_gbs)
        : m_name(std::move(name)),
          m_latency_ps(latency_ps),
          m_bw_gbs(bw_gbs),
          m_bytes_per_s(bytes_per_s(bw_gbs)) {}

    const std::string& name() const { return m_name; }
    ps_t latency_ps() const { return m_latency_ps; }
    double bw_gbs() const { return m_bw_gbs; }  // 0 = unlimited (pure latency)
    bool has_bandwidth() const { return m_bw_gbs > 0.0; }
    ps_t free_ps() const { return m_free_ps; }

    // T1, one hop: t = max(t, free); free = t + n/B; t = t + L.
    // A control message (n = 0) and a hop without bandwidth reserve nothing.
    ps_t reserve(ps_t t, std::uint64_t bytes) {
        // Checked arithmetic (modules/common/checked.h), one branch for the
        // reservation's four sums.
        bool over = false;
        m_last_wait_ps = 0;
        m_bytes = add_flagged(m_bytes, bytes, over);  // a pure-latency hop still carries them (energy per byte)
        if (bytes != 0 && m_bytes_per_s != 0) {  // has_bandwidth(), in integers
            if (m_free_ps > t) {  // waits behind the transfers before it
                m_last_wait_ps = m_free_ps - t;
                m_wait_ps = add_flagged(m_wait_ps, m_last_wait_ps, over);
                t = m_free_ps;
            }
            const ps_t busy = m_ser.ps(bytes, m_bytes_per_s);
            m_free_ps = add_flagged(t, busy, over);
            m_busy_ps += busy;  // <= m_free_ps: busy intervals never overlap
        }
        ++m_transfers;
        const ps_t arrival = add_flagged(t, m_latency_ps, over);
        if (over) [[unlikely]]
            overflowed();
        return arrival;
    }

    // T1 for a hop whose busy time is not n / B (a patterned DMA's channel,
    // docs/timing.md "DMA transfer patterns"): free = t + busy.
    ps_t reserve_for(ps_t t, std::uint64_t bytes, ps_t busy) {
        bool over = false;
        m_last_wait_ps = 0;
        m_bytes = add_flagged(m_bytes, bytes, over);
        if (bytes != 0 && has_bandwidth()) {
            if (m_free_ps > t) {
                m_last_wait_ps = m_free_ps - t;
                m_wait_ps = add_flagged(m_wait_ps, m_last_wait_ps, over);
                t = m_free_ps;
            }
            m_free_ps = add_flagged(t, busy, over);
            m_busy_ps += busy;
        }
        ++m_transfers;
        const ps_t arrival = add_flagged(t, m_latency_ps, over);
        if (over) [[unlikely]]
            overflowed();
        return arrival;
    }
    std::uint64_t bytes_per_second() const { return m_bytes_per_s; }
    // A reservation's sum left 64 bits: an Overflow naming this hop.
    [[noreturn, gnu::cold, gnu::noinline]] void overflowed() const {
        throw_overflow("hop " + m_name + ": a T1 reservation (its reserved time, arrival, total wait or bytes)");
    }

    // Statistics for the report.
    std::uint64_t bytes() const { return m_bytes; }
    ps_t busy_ps() const { return m_busy_ps; }
    std::uint64_t transfers() const { return m_transfers; }
    // Time transfers spent waiting for this hop's bandwidth (reserved by
    // earlier ones), in all and at the last reservation.
    ps_t wait_ps() const { return m_wait_ps; }
    ps_t last_wait_ps() const { return m_last_wait_ps; }

private:
    std::string m_name;
    ps_t m_latency_ps;
    double m_bw_gbs;
    std::uint64_t m_bytes_per_s;
    SerialisationCache m_ser;
    ps_t m_free_ps = 0;
    std::uint64_t m_bytes = 0;
    ps_t m_busy_ps = 0;
    std::uint64_t m_transfers = 0;
    ps_t m_wait_ps = 0;
    ps_t m_last_wait_ps = 0;
};

}  // namespace npuvp
