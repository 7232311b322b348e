// PE_IPCQ (SPEC §5; ADR-0023 by reference in seed 000): the PE's collective
// ring buffer of `slots` × `slot_bytes`. A peer's PE_DMA sends into it over
// its vc_comm channel: the sender first reserves ring space (waiting while
// the ring is full: credit-based flow control), moves the data over the NoC,
// then delivers it. An ipcq_recv command waits until enough data has arrived
// and consumes it, freeing the space: a message holds whole slots, and the
// slots are freed as the read passes them (a receive of several small
// messages frees all their slots, not the slots its byte count would fill).
//
// Both sides are method stage workers that wait through their PE's
// PipelineClock (a PipelineSignal: the receiver's "data arrived", each
// sender's "credit"), so a PE that exchanges data runs on either time base;
// the Decoupler puts a sender and its peer on one calendar, or both per
// stage (docs/architecture.md "The decoupled pipeline").
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "modules/common/config.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/pe/pipeline_clock.h"
#include "modules/pe/stage_worker.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

// The sender's side of a PE's IPCQ ring, as a peer's PE_DMA sees it (its
// `peers` port).
class IpcqRing : public virtual sc_core::sc_interface {
public:
    virtual std::uint64_t capacity() const = 0;
    // Ring space a message of `bytes` takes: whole slots.
    virtual std::uint64_t footprint(std::uint64_t bytes) const = 0;
    // Holds the space `bytes` take if it is free now (true). Otherwise
    // (false) `credit` is signalled, through the receiver's clock, when a
    // receive next frees space, and the sender asks again then.
    virtual bool reserve(std::uint64_t bytes, PipelineSignal& credit) = 0;
    // The reserved bytes have arrived (one message: a reservation's bytes
    // arrive in one delivery) and can be received; `clock` is the
    // sender's time base (it signals the receiver's "data arrived").
    virtual void deliver(std::uint64_t bytes, PipelineClock& clock) = 0;
};

// The IPCQs of every PE of a cube, by PE index, as a PE_DMA sees them (its
// `peers` port). The cube's owner builds one list and binds it to each of
// its PEs: a binding per pair of PEs made a cube of 256 PEs cost 65,536
// bindings and their memory (issue 38).
class IpcqPeers : public virtual sc_core::sc_interface {
public:
    virtual int count() const = 0;
    virtual IpcqRing& ring(int pe) const = 0;  // 0 <= pe < count()
};

// An IpcqPeers holding the rings it is given, in the order given.
class IpcqList final : public IpcqPeers {
public:
    void add(IpcqRing& ring) { m_rings.push_back(&ring); }
    int count() const override { return static_cast<int>(m_rings.size()); }
    IpcqRing& ring(int pe) const override { return *m_rings[static_cast<std::size_t>(pe)]; }

private:
    std::vector<IpcqRing*> m_rings;
};

class PeIpcq : public RoutedNode, public IpcqRing {
public:
    // Parameters
    const PeIpcqConfig& config;

    // Ports: the PE's stage inboxes (IPCQ_RECV tokens in, each token out to
    // its next stage's inbox)
    StageInboxPort inboxes;

    PeIpcq(const sc_core::sc_module_name& name, const PeIpcqConfig& config, TraceSink& trace,
           RunStatus& status);
    ~PeIpcq() override;
    const char* kind() const override { return "pe_ipcq"; }

    // IpcqRing (the sender side: a peer's PE_DMA)
    std::uint64_t capacity() const override { return config.slots * config.slot_bytes; }
    std::uint64_t footprint(std::uint64_t bytes) const override;
    bool reserve(std::uint64_t bytes, PipelineSignal& credit) override;
    void deliver(std::uint64_t bytes, PipelineClock& clock) override;

    StageWorker& receiver();
    std::uint64_t bytes_received() const { return m_received; }
    // Ring bytes reserved by senders or holding data no ipcq_recv has taken:
    // at the end of a run, data nobody received (WorkloadRun::finished()).
    std::uint64_t bytes_held() const { return m_held; }

private:
    class Receiver;

    std::unique_ptr<Receiver> m_receiver;
    // Takes `bytes` of the data that has arrived (m_readable has them):
    // frees the ring slots the read passes.
    void take(std::uint64_t bytes);

    std::uint64_t m_held = 0;       // ring bytes reserved or holding data
    std::uint64_t m_readable = 0;   // delivered, not yet received
    // The messages delivered and not yet read to their end, in arrival
    // order, each its bytes left to read: [m_first, size()) (emptied when
    // all are read, so it does not grow with the run).
    std::vector<std::uint64_t> m_messages;
    std::size_t m_first = 0;
    std::uint64_t m_received = 0;
    PipelineSignal m_arrived;  // the receiver waits on it (its event made at the first use)
    // Senders waiting for space, in the order they asked: each signalled
    // when a receive frees space (then the list is empty again).
    std::vector<PipelineSignal*> m_credit_waiters;
};

}  // namespace npuvp
