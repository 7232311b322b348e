#include "tlm_sockets/npu_extension.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "tlm_sockets/backing_store.h"

namespace npuvp {

const char* to_string(MsgKind kind) {
    switch (kind) {
    case MsgKind::control: return "control";
    case MsgKind::dma_read: return "dma_read";
    case MsgKind::dma_write: return "dma_write";
    case MsgKind::kernel_launch: return "kernel_launch";
    case MsgKind::mmu_map: return "mmu_map";
    case MsgKind::mmu_unmap: return "mmu_unmap";
    case MsgKind::response: return "response";
    case MsgKind::ipcq_send: return "ipcq_send";
    }
    return "?";
}

[[gnu::hot]] void Transaction::prepare(MsgKind kind, const Route& route, std::uint64_t address,
                          std::uint64_t bytes, std::uint64_t base_ps) {
    m_payload.set_command(kind == MsgKind::dma_read ? tlm::TLM_READ_COMMAND
                                                    : tlm::TLM_WRITE_COMMAND);
    m_payload.set_address(address);
    if (bytes == 0) {
        // A control message: n = 0 in T1; 8 bytes travel (the descriptor).
        m_descriptor = 0;
        m_payload.set_data_ptr(reinterpret_cast<unsigned char*>(&m_descriptor));
        m_payload.set_data_length(sizeof(m_descriptor));
        m_payload.set_streaming_width(sizeof(m_descriptor));
    } else {
        if (bytes > std::numeric_limits<unsigned int>::max())
            throw std::length_error("a transfer of " + std::to_string(bytes) +
                                    " bytes exceeds the 32-bit data length of a TLM-2.0 "
                                    "generic payload (4 GiB - 1): split it");
        const auto length = static_cast<unsigned int>(bytes);
        m_payload.set_data_ptr(shared_payload_bytes(bytes, kind == MsgKind::dma_read));
        m_payload.set_data_length(length);
        m_payload.set_streaming_width(length);
    }
    m_payload.set_byte_enable_ptr(nullptr);
    m_payload.set_byte_enable_length(0);
    m_payload.set_dmi_allowed(false);
    m_payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    m_pending = false;

    // Every field of the extension back to its default but body,
    // request_id, command_id and tile_id, which the sender set (one store
    // each, not a default extension built and copied: a DMA stage's path).
    // A field added to NpuExtension is reset here too.
    m_ext.kind = kind;
    m_ext.bytes = bytes;
    m_ext.route = &route;
    m_ext.shape = nullptr;
    m_ext.path_index = 0;
    m_ext.step_cursor = 0;
    m_ext.sender = 0;
    m_ext.result = ResultData();
    m_ext.txn = this;
    m_ext.base_ps = base_ps;  // RoutedNode::transport_ps() sets it again
}

const sc_core::sc_event& Transaction::done_event() {
    if (!m_done_event) m_done_event = std::make_unique<sc_core::sc_event>();
    return *m_done_event;
}

}  // namespace npuvp
