#include "modules/cube/memory_target.h"

namespace npuvp {

MemoryTarget::MemoryTarget(const sc_core::sc_module_name& name, const char* kind,
                           double bw_gbs, double latency_ns, std::uint64_t size_bytes)
    : RoutedNode(name),
      size_bytes(size_bytes),
      m_kind(kind),
      m_port(std::string(this->name()) + ".port", ns_to_ps(latency_ns, "a memory target's attrs.latency_ns"), bw_gbs) {}

[[gnu::hot]] void MemoryTarget::serve(tlm::tlm_generic_payload& payload, NpuExtension& ext,
                         sc_core::sc_time&) {
    const std::uint64_t address = payload.get_address();
    if (address < m_base || address - m_base >= size_bytes) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (ext.kind == MsgKind::dma_read)
        m_bytes_read += ext.bytes;
    else if (ext.kind == MsgKind::dma_write)
        m_bytes_written += ext.bytes;
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void MemoryTarget::serve_plain(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const std::uint64_t address = payload.get_address();
    const std::uint64_t length = payload.get_data_length();
    if (address < m_base || address - m_base >= size_bytes || length > size_bytes - (address - m_base)) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (payload.get_byte_enable_ptr() != nullptr || payload.get_streaming_width() < length) {
        // A model of time, not of bytes: no byte lanes, no streaming.
        payload.set_response_status(payload.get_byte_enable_ptr() != nullptr
                                        ? tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE
                                        : tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    if (payload.is_read())
        m_bytes_read += length;
    else if (payload.is_write())
        m_bytes_written += length;
    delay += sc_core::sc_time::from_value(m_port.latency_ps() + serialisation_ps(length, m_port.bw_gbs()));
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace npuvp
