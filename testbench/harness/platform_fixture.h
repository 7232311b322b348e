// Loads a shipped topology (with optional overrides) for platform tests.
#pragma once

#include <string>
#include <vector>

#include "platform/impl_registry.h"
#include "config/topology_loader.h"

namespace npuvp::test {

inline std::string shipped_topology(const std::string& name) {
    return std::string(NPUVP_SOURCE_DIR) + "/configs/topologies/" + name + ".yaml";
}

inline TopologyConfig load_shipped(const std::string& name,
                                   const std::vector<std::string>& sets = {}) {
    std::vector<Override> overrides;
    for (const auto& s : sets) overrides.push_back(parse_override(s));
    return load_topology_file(shipped_topology(name), overrides, builtin_registry());
}

}  // namespace npuvp::test
