// A route: the nodes a payload passes through and the T1 hops it reserves
// (SPEC §2, §3). Routes are computed once at elaboration by the platform's
// router; components never decide routes, they only follow `path`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tlm_sockets/hop.h"

namespace npuvp {

class RoutedNode;

// A node on the path, the index of its initiator-socket binding that leads
// to the next node (-1 on the last node), and the index of its target-socket
// binding from the previous one (the backward path of a response).
struct PathNode {
    RoutedNode* node = nullptr;
    int out_port = -1;
    int in_port = -1;  // the `in` binding the previous node's out_port reaches (-1 on the first)
};

// One hop reservation and the path position of the node that applies it.
// `at == path.size()` marks a tail hop, applied by the initiator after the
// target has returned (e.g. the TCM write port at the end of a DMA read).
struct RouteStep {
    Hop* hop = nullptr;
    std::uint32_t at = 0;
};

// A patterned DMA transfer's T1 (docs/timing.md "DMA transfer patterns"):
// its `engine` hop (the DMA channel) is busy `engine_ps` for `engine_bytes`
// (its bytes with a broadcast's copies, at the rate it writes them, plus the
// per-descriptor costs) instead of n / B; its tail hops (a DMA read's TCM
// write port) carry `tail_bytes`; every other hop carries n. The drain is the
// longest of the hops' busy times, which transport fills in `drain_ps`.
struct TransferShape {
    const Hop* engine = nullptr;
    std::uint64_t engine_bytes = 0;
    ps_t engine_ps = 0;
    std::uint64_t tail_bytes = 0;
    ps_t drain_ps = 0;
};

struct Route {
    std::vector<PathNode> path;  // path[0] is the initiator, path.back() the target
    std::vector<RouteStep> steps;  // in T1 order
    double min_bw_gbs = 0.0;       // min over hops with bandwidth; 0 = none has one
    const Hop* min_hop = nullptr;  // the first hop with that bandwidth (its drain's)
    std::uint64_t min_bytes_per_s = 0;  // the same in bytes/s (computed once)
    ps_t latency_ps = 0;           // sum of hop latencies (an uncontended n = 0 message)
    // Inside one PE, between blocks that are not swapped for other models
    // (FETCH / STORE <-> TCM): the initiator reserves the steps itself, with
    // no TLM call (docs/architecture.md, "Where TLM payloads flow"). Only
    // for a path whose nodes do nothing on transit and whose target's
    // serve() accepts without side effect.
    bool direct = false;
    // Every node of the path answers at once (RoutedNode::answers_at_once()),
    // and there is more than one: a transport may walk it, node by node,
    // without the socket calls (RoutedNode::transport_ps(); a direct route
    // is reserved, not walked). Set by finalise().
    bool walkable = false;

    // Recomputes min_bw_gbs, min_hop, min_bytes_per_s, latency_ps and
    // walkable from steps and path.
    void finalise();

    // Uncontended T1 time of n bytes: latency + n / min B.
    ps_t uncontended_ps(std::uint64_t bytes) const {
        return checked_add(latency_ps, serialisation_ps(bytes, min_bytes_per_s), "a route's transfer time (T1), in ps");
    }
    // T1's drain n / min B (the last step of every transfer on the route).
    ps_t drain_ps(std::uint64_t bytes) const { return m_drain.ps(bytes, min_bytes_per_s); }
    // A direct route's T1 (every step along the path, then the drain) for n
    // bytes starting at `start`: the delay from `start` to done.
    ps_t reserve_direct(ps_t start, std::uint64_t bytes) const {
        ps_t t = start;
        for (const RouteStep& step : steps) t = step.hop->reserve(t, bytes);
        return checked_add(t - start, drain_ps(bytes), "a route's transfer time (T1), in ps");
    }

private:
    SerialisationCache m_drain;
};

}  // namespace npuvp
