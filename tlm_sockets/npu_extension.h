// What travels: the npuvp extension of tlm_generic_payload and the
// Transaction that owns a payload with its extension.
//
// Every payload keeps the TLM-2.0 base protocol (IEEE 1666-2011 §14): command,
// the physical address the interconnect decodes, a data pointer and a length
// equal to the bytes the transfer moves (the shared scratch store of
// backing_store.h: no allocation per transfer), streaming width = length, no
// byte enables, response status TLM_INCOMPLETE_RESPONSE until the target sets
// it. A control message (T1's n = 0) carries an 8-byte descriptor.
//
// The extension is ignorable (§14.21): a node that finds none routes the
// payload by its address and answers it as a plain memory access; where it is
// present it carries npuvp's route and T1 bookkeeping.
#pragma once

#include <cstdint>
#include <memory>

#include <systemc>
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
    // A kernel launch held on the device (resolve_after: device): the
    // barrier its PEs started at, the latest over its cubes.
    std::uint64_t start_ps = 0;
};

class NpuExtension : public tlm::tlm_extension<NpuExtension> {
public:
    MsgKind kind = MsgKind::control;
    std::uint64_t request_id = 0;
    std::uint64_t command_id = 0;
    std::int64_t tile_id = -1;
    std::uint64_t bytes = 0;          // modelled byte count n of T1
    const Route* route = nullptr;
    TransferShape* shape = nullptr;   // a patterned transfer's T1; nullptr = plain T1
    const void* body = nullptr;       // what the message carries (e.g. a Command)
    std::uint32_t path_index = 0;     // position of the node now holding the payload
    std::uint32_t step_cursor = 0;    // next RouteStep to apply
    std::uint32_t sender = 0;         // the sender's T4 rank (RoutedNode::request_rank)
    std::uint64_t base_ps = 0;        // the kernel time the delay annotation counts from
    ResultData result;
    class Transaction* txn = nullptr;  // the Transaction that owns this extension

    tlm::tlm_extension_base* clone() const override { return new NpuExtension(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const NpuExtension&>(other);
    }
};

// A payload with its extension, owned together; a value type that an
// initiator keeps for the whole transport (no allocation per transfer).
// It is the payload's memory manager (IEEE 1666-2011 §14.5: a payload sent
// with nb_transport has one): RoutedNode::transport() acquires it for the
// transport and releases it at the response; free() has nothing to give
// back, since the Transaction owns the payload.
class Transaction : private tlm::tlm_mm_interface {
public:
    Transaction() {
        m_payload.set_mm(this);
        m_payload.set_extension(&m_ext);
        m_ext.txn = this;
    }
    ~Transaction() { m_payload.clear_extension(&m_ext); }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    // Sets every base-protocol attribute for a fresh transport along `route`.
    // Throws std::length_error when `bytes` exceeds the 32-bit data length
    // of a generic payload.
    void prepare(MsgKind kind, const Route& route, std::uint64_t address, std::uint64_t bytes) {
        prepare(kind, route, address, bytes, sc_core::sc_time_stamp().value());
    }
    // The same with the kernel time the annotation counts from given (a
    // decoupled PE's DMA knows it: no call into the library).
    void prepare(MsgKind kind, const Route& route, std::uint64_t address, std::uint64_t bytes,
                 std::uint64_t base_ps);

    tlm::tlm_generic_payload& payload() { return m_payload; }
    NpuExtension& ext() { return m_ext; }
    const NpuExtension& ext() const { return m_ext; }

    // Asynchronous completion (RoutedNode::transport): a target on the path
    // answered BEGIN_REQ with END_REQ and will send BEGIN_RESP later on the
    // backward path. Until then pending(); then done_at() is the T1 `done`
    // (tail hops and drain included) and done_event() fires at it.
    bool pending() const { return m_pending; }
    const sc_core::sc_time& done_at() const { return m_done; }
    const sc_core::sc_event& done_event();

private:
    friend class RoutedNode;
    void free(tlm::tlm_generic_payload*) override {}
    tlm::tlm_generic_payload m_payload;
    NpuExtension m_ext;
    std::uint64_t m_descriptor = 0;  // a control message's 8 bytes: the modelled size n
    bool m_pending = false;
    sc_core::sc_time m_done;
    std::unique_ptr<sc_core::sc_event> m_done_event;  // made on the first asynchronous answer
};

}  // namespace npuvp
