// PE_TCM (seed 000 §D1, §D5.1; SPEC §3 T2): the PE's scratchpad. Its read and
// write ports are T1 hops (read_bw_gbs, write_bw_gbs, latency_ns) that DMA,
// fetch and store routes include. Its address space is split (§D5.1):
// [0, reserved) is SchedulerReservedTCM, owned by PE_SCHEDULER (tile buffers);
// [reserved, size) is AllocatableTCM, managed here by the host-visible
// PEMemAllocator, which cannot see or return an address in the reserved range.
#pragma once

#include <memory>
#include <string>

#include "modules/common/data_store.h"
#include "modules/common/config.h"
#include "modules/pe/tcm_partition.h"
#include "tlm_sockets/hop.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeTcm : public RoutedNode {
public:
    // Parameters
    const PeTcmConfig& config;

    PeTcm(const sc_core::sc_module_name& name, const PeTcmConfig& config)
        : RoutedNode(name),
          config(config),
          m_read_port(node_id() + ".read_port", ns_to_ps(config.latency_ns, "pe_tcm.attrs.latency_ns"), config.read_bw_gbs),
          m_write_port(node_id() + ".write_port", ns_to_ps(config.latency_ns, "pe_tcm.attrs.latency_ns"),
                       config.write_bw_gbs),
          m_allocator(config) {}
    const char* kind() const override { return "pe_tcm"; }

    Hop& read_port() { return m_read_port; }
    Hop& write_port() { return m_write_port; }
    // AllocatableTCM (host / DP visible).
    PeMemAllocator& allocator() { return m_allocator; }
    // Data mode (docs/workload.md "Operand data"): the bytes it holds, by
    // offset; null (the default) when the run carries no data.
    void enable_data() {
        if (!m_data) m_data = std::make_unique<DataStore>();
    }
    DataStore* data() { return m_data.get(); }

private:
    Hop m_read_port;
    Hop m_write_port;
    PeMemAllocator m_allocator;
    std::unique_ptr<DataStore> m_data;
};

}  // namespace npuvp
