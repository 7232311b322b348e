// What every module factory receives besides its own config section: where the
// node sits in the machine and the services it may use (the one trace sink).
#pragma once

#include <cstdint>

#include "modules/common/config.h"

namespace npuvp {

class TraceSink;
class RunStatus;

struct NodeIds {
    int sip = -1;
    int cube = -1;  // index within its SIP
    int pe = -1;    // index within its cube
    int router = -1;  // mesh router index, for NoC routers
};

struct NodeEnv {
    const TopologyConfig& topo;
    NodeIds ids;
    TraceSink& trace;
    RunStatus& status;
};

// SPEC T4: a requester's node rank (RequestKey::node): every PE in (sip,
// cube, pe) order, then every M_CPU in (sip, cube) order, then every IO_CPU
// in sip order.
inline std::uint32_t pe_rank(const TopologyConfig& topo, const NodeIds& ids) {
    const auto cubes = static_cast<std::uint32_t>(topo.system.cubes_per_sip);
    const auto pes = static_cast<std::uint32_t>(topo.pes_per_cube());
    return (static_cast<std::uint32_t>(ids.sip) * cubes + static_cast<std::uint32_t>(ids.cube)) * pes +
           static_cast<std::uint32_t>(ids.pe);
}
inline std::uint32_t m_cpu_rank(const TopologyConfig& topo, const NodeIds& ids) {
    const auto cubes = static_cast<std::uint32_t>(topo.system.cubes_per_sip);
    const auto all_pes = static_cast<std::uint32_t>(topo.system.sips) * cubes *
                         static_cast<std::uint32_t>(topo.pes_per_cube());
    return all_pes + static_cast<std::uint32_t>(ids.sip) * cubes + static_cast<std::uint32_t>(ids.cube);
}
inline std::uint32_t io_cpu_rank(const TopologyConfig& topo, const NodeIds& ids) {
    const auto all_cubes = static_cast<std::uint32_t>(topo.system.sips) *
                           static_cast<std::uint32_t>(topo.system.cubes_per_sip);
    return m_cpu_rank(topo, {0, 0, -1, -1}) + all_cubes + static_cast<std::uint32_t>(ids.sip);
}

}  // namespace npuvp
