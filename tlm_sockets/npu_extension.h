// What travels: the npuvp extension of tlm_generic_payload and the
// Transaction that owns a payload with its extension and data buffer.
//
// The modelled byte count (which may be megabytes) lives in the extension;
// the payload's data pointer and length describe the few bytes that really
// travel (a descriptor word), so every payload obeys the TLM-2.0 base protocol
// (IEEE 1666 §14.x: command, address, data pointer and a non-zero length set,
// streaming width = length, no byte enables, response status initialised to
// TLM_INCOMPLETE_RESPONSE and set by the target).
#pragma once

#include <cstdint>

#include <tlm>

#include "tlm_sockets/route.h"

namespace npuvp {

enum class MsgKind : std::uint8_t {
    control,        // n = 0 command or notification
    dma_read,       // data moves target -> initiator
    dma_write,      // data moves initiator -> target
    kernel_launch,
    mmu_map,
    mmu_unmap,
    response,
    ipcq_send,
};

const char* to_string(MsgKind kind);

// Result data a response carries back (seed 001 D6: merged with max).
struct ResultData {
    double pe_exec_ns = 0.0;
    double dma_ns = 0.0;
    double compute_ns = 0.0;
    double xfer_ns = 0.0;
    bool success = true;
};

class NpuExtension : public tlm::tlm_extension<NpuExtension> {
public:
    MsgKind kind = MsgKind::control;
    std::uint64_t request_id = 0;
    std::uint64_t command_id = 0;
    std::int64_t tile_id = -1;
    std::uint64_t bytes = 0;          // modelled byte count n of T1
    const Route* route = nullptr;
    const void* body = nullptr;       // what the message carries (e.g. a Command)
    std::uint32_t path_index = 0;     // position of the node now holding the payload
    std::uint32_t step_cursor = 0;    // next RouteStep to apply
    std::uint32_t sender = 0;         // the sender's T4 rank (RoutedNode::request_rank)
    ResultData result;

    tlm::tlm_extension_base* clone() const override { return new NpuExtension(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const NpuExtension&>(other);
    }
};

// A payload with its extension and descriptor buffer, owned together; a
// value type that an initiator keeps for the whole transport (no allocation
// per transfer).
class Transaction {
public:
    Transaction() { m_payload.set_extension(&m_ext); }
    ~Transaction() { m_payload.clear_extension(&m_ext); }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    // Sets every base-protocol attribute for a fresh transport along `route`.
    void prepare(MsgKind kind, const Route& route, std::uint64_t address, std::uint64_t bytes);

    tlm::tlm_generic_payload& payload() { return m_payload; }
    NpuExtension& ext() { return m_ext; }
    const NpuExtension& ext() const { return m_ext; }

private:
    tlm::tlm_generic_payload m_payload;
    NpuExtension m_ext;
    std::uint64_t m_descriptor = 0;  // the bytes that really travel: the modelled size
};

}  // namespace npuvp
