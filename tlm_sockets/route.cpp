#include "tlm_sockets/route.h"

#include "tlm_sockets/routed_node.h"

namespace npuvp {

void Route::finalise() {
    min_bw_gbs = 0.0;
    min_hop = nullptr;
    latency_ps = 0;
    for (const auto& step : steps) {
        latency_ps += step.hop->latency_ps();
        if (step.hop->has_bandwidth() &&
            (min_bw_gbs == 0.0 || step.hop->bw_gbs() < min_bw_gbs)) {
            min_bw_gbs = step.hop->bw_gbs();
            min_hop = step.hop;
        }
    }
    min_bytes_per_s = bytes_per_s(min_bw_gbs);
    walkable = path.size() > 1;
    for (const PathNode& node : path)
        if (node.node == nullptr || !node.node->answers_at_once()) walkable = false;
}

}  // namespace npuvp
