// libFuzzer harness: the workload loader (config/workload_loader.h) on the
// input as a workload file's text, checked against the default topology and
// against two_sip (two SiPs, host CPU). Seeds: configs/workloads/*.yaml.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "fuzz/fuzz_common.h"
#include "platform/impl_registry.h"

NPUVP_FUZZ_SC_MAIN_STUB

namespace {

const npuvp::TopologyConfig& topology(const char* name) {
    static std::map<std::string, npuvp::TopologyConfig> loaded;
    auto it = loaded.find(name);
    if (it == loaded.end())
        it = loaded
                 .emplace(name, npuvp::load_topology_file(npuvp::fuzz::source_dir() + "/configs/topologies/" +
                                                              name + ".yaml",
                                                          {}, npuvp::builtin_registry()))
                 .first;
    return it->second;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (const char* topo : {"default", "rngd_pe", "two_sip"}) {
        const npuvp::TopologyConfig& t = topology(topo);
        npuvp::fuzz::guarded("workload", data, size,
                             [&] { npuvp::load_workload_text(text, "fuzz-workload.yaml", t); });
    }
    return 0;
}
