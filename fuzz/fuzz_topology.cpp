// libFuzzer harness: the topology loader (config/topology_loader.h) on the
// input as a topology file's text. Seeds: configs/topologies/*.yaml.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/topology_loader.h"
#include "fuzz/fuzz_common.h"
#include "platform/impl_registry.h"

NPUVP_FUZZ_SC_MAIN_STUB

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    npuvp::fuzz::guarded("topology", data, size, [&] {
        const npuvp::TopologyConfig topo =
            npuvp::load_topology_text(text, "fuzz-topology.yaml", {}, npuvp::builtin_registry());
        // What loads must dump to a YAML that loads back (the round trip
        // npuvp --list --dump-config relies on).
        const std::string dumped = npuvp::dump_topology_yaml(topo);
        npuvp::load_topology_text(dumped, "fuzz-topology-dumped.yaml", {}, npuvp::builtin_registry());
    });
    return 0;
}
