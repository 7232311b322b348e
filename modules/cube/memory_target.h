// A memory target on the NoC: an HBM controller slice or a cube's shared SRAM
// (SPEC §3 T2). Its port is a hop of every route that ends here (bw_gbs,
// latency_ns), applied by the target itself when the payload arrives.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "modules/common/data_store.h"
#include "tlm_sockets/hop.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class MemoryTarget : public RoutedNode {
public:
    // Parameters
    const std::uint64_t size_bytes;

    MemoryTarget(const sc_core::sc_module_name& name, const char* kind, double bw_gbs,
                 double latency_ns, std::uint64_t size_bytes);

    const char* kind() const override { return m_kind; }

    // Elaboration: the first physical address of this target's window.
    // Payload addresses are physical (never rewritten in flight); an address
    // outside [base, base + size) is answered with TLM_ADDRESS_ERROR_RESPONSE.
    void set_base(std::uint64_t base) { m_base = base; }
    std::uint64_t base() const { return m_base; }
    Hop* service_hop() override { return &m_port; }
    const Hop& port() const { return m_port; }

    // Data mode (docs/workload.md "Operand data"): the bytes it holds, by
    // physical address; null (the default) when the run carries no data.
    void enable_data() {
        if (!m_data) m_data = std::make_unique<DataStore>();
    }
    DataStore* data() { return m_data.get(); }

    // Statistics
    std::uint64_t bytes_read() const { return m_bytes_read; }
    std::uint64_t bytes_written() const { return m_bytes_written; }

protected:
    void serve(tlm::tlm_generic_payload& payload, NpuExtension& ext,
               sc_core::sc_time& delay) override;
    // A payload without npuvp's extension (a third-party initiator): a plain
    // memory access, answered with the port's uncontended time
    // (latency + length / bandwidth) added to the delay, nothing reserved.
    void serve_plain(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override;

private:
    const char* m_kind;
    Hop m_port;
    std::uint64_t m_base = 0;
    std::uint64_t m_bytes_read = 0;
    std::uint64_t m_bytes_written = 0;
    std::unique_ptr<DataStore> m_data;
};

}  // namespace npuvp
