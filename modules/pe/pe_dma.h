// PE_DMA (seed 000 §D1, §D4; SPEC §3 T2, T3, §5): moves data between the PE's
// TCM and memory targets over the cube NoC.
//  - `rd_engines` DMA_READ and `wr_engines` DMA_WRITE channels, virtual
//    channel vc_compute: each channel is a FIFO-fair resource of capacity 1,
//    the first hop of its transfers (setup_ns, bw_gbs) and a stage worker that
//    takes DMA_READ / DMA_WRITE tokens from the PE's inbox. A channel is held
//    from the start of a transfer to its done: READ ∥ WRITE, never two
//    transfers on one channel.
//  - one vc_comm channel for IPCQ sends (SPEC §5): its own resource and hop,
//    so collective traffic never queues behind tiles; it still shares the NoC
//    links and the peer's ports with them.
// Every access to a virtual address is translated by the PE's PE_MMU first
// (translate_ns, once per transfer): every page the transfer touches, so a
// transfer whose pages map to different targets is split into one piece per
// target, each with its own route and T1 reservations; an unmapped page stops
// the run with a fault naming the PE, the command and the page's address.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "modules/common/config.h"
#include "modules/common/fifo_resource.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/common/vcd_value.h"
#include "modules/pe/command.h"
#include "modules/pe/pe_routes.h"
#include "modules/pe/stage_worker.h"
#include "tlm_sockets/hop.h"
#include "tlm_sockets/npu_extension.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class AddressTranslator;
class IpcqPeers;
class IpcqRing;
class PeData;

class PeDma : public RoutedNode, public BusyTime {
public:
    // Parameters
    const PeDmaConfig& config;

    // Ports
    sc_core::sc_port<PeRoutes> routes;           // every route it transfers on
    sc_core::sc_port<AddressTranslator> mmu;     // the PE's MMU (virtual addresses)
    // The IPCQ of every PE of the cube, by PE index (IPCQ_SEND's peer); a
    // PE that sends to no peer may leave it unbound.
    sc_core::sc_port<IpcqPeers, 1, sc_core::SC_ZERO_OR_MORE_BOUND> peers;
    // The PE's stage inboxes: DMA_READ, DMA_WRITE and IPCQ_SEND tokens in,
    // each token out to its next stage's inbox.
    StageInboxPort inboxes;

    PeDma(const sc_core::sc_module_name& name, const PeDmaConfig& config, const PeTcmConfig& tcm,
          TraceSink& trace, RunStatus& status);
    ~PeDma() override;
    const char* kind() const override { return "pe_dma"; }

    int channels(DmaDirection dir) const;
    // The channel's hop, for the platform's DMA routes (head hop of T2).
    Hop& channel_hop(DmaDirection dir, int channel);
    Hop& comm_hop();
    FifoResource& channel(DmaDirection dir, int channel);

    // The stage workers (one per channel).
    std::vector<StageWorker*> workers();

    // Runs one transfer on `channel` along `route`: waits for the channel in
    // request order, transports, waits once for the T1 done, releases the
    // channel. Returns the done time. Traces engine_start / engine_complete.
    sc_core::sc_time transfer(DmaDirection dir, int channel, const Route& route,
                              std::uint64_t address, std::uint64_t bytes, std::int64_t cmd,
                              std::int64_t tile = -1);

    // Data mode (docs/workload.md "Operand data"): a composite's DMA_READ
    // copies its operand tiles memory -> TCM, its DMA_WRITE the output tile
    // TCM -> memory, at the end of the stage. Null (the default): no data.
    void set_data(PeData* data) { m_data = data; }

    // VCD: per channel busy, cmd, tile, and its resource's in_use / owner.
    // Its values reach the file through `clock` (its PE's PipelineClock).
    void add_traces(sc_core::sc_trace_file* tf, VcdClock& clock) const;

    // Statistics
    std::uint64_t bytes_moved(DmaDirection dir) const;
    sc_core::sc_time busy_time(DmaDirection dir) const;
    std::uint64_t comm_bytes() const;
    std::uint64_t comm_grants() const;  // IPCQ_SEND stages begun on vc_comm
    sc_core::sc_time comm_busy_time() const;

    // The read and write channels' busy time in its parts (DmaTimeSplit).
    const DmaTimeSplit* time_split() const override { return &m_time; }
    // BusyTime: read + write + vc_comm (a kernel response's dma_ns).
    sc_core::sc_time total_busy() const override {
        return busy_time(DmaDirection::read) + busy_time(DmaDirection::write) + comm_busy_time();
    }

protected:
    void transport_done(Transaction& txn) override;

private:
    struct Channel;
    class CommWorker;
    class TransferWorker;
    // One transport of a stage: bytes bound for one target.
    struct Piece {
        // Built in place (emplace_back), member by member: docs/speed.md,
        // "Fifth pass".
        Piece(const Route* r, std::uint64_t a, std::uint64_t b) : route(r), pa(a), bytes(b) {}
        const Route* route;
        std::uint64_t pa;
        std::uint64_t bytes;
    };

    IpcqRing& ipcq_of(int peer);

    Channel& pick(DmaDirection dir, int channel);
    sc_core::sc_time run_on(Channel& ch, const char* stage, MsgKind kind, const Route& route,
                            std::uint64_t address, std::uint64_t bytes, std::int64_t cmd,
                            std::int64_t tile, const RequestKey& key);
    // run_on()'s two halves around its one wait, for a method-mode worker:
    // at the grant (returns the time to done), and at done (before the
    // channel is released). `start` is the grant time, `done` the time now.
    // `kernel` is the kernel's time and `local` how far the worker's local
    // time is ahead of it (its PipelineClock's offset: a decoupled PE's,
    // docs/architecture.md "The decoupled pipeline"; zero per stage).
    sc_core::sc_time begin_on(Channel& ch, const char* stage, MsgKind kind, const Route& route,
                              std::uint64_t address, std::uint64_t bytes, std::int64_t cmd,
                              std::int64_t tile);
    void end_on(Channel& ch, const char* stage, ps_t start, ps_t done);
    // begin_on() for a DMA stage's pieces (one per target); a patterned
    // simple command's stage is one piece with its `pattern`. Each piece
    // goes by RoutedNode::transport_ps(), whose route decides how.
    ps_t begin_pieces(Channel& ch, StageType type, const std::vector<Piece>& pieces,
                      const DmaPattern& pattern, std::int64_t cmd, std::int64_t tile,
                      ps_t kernel, ps_t local);
    ps_t begin_transfers(Channel& ch, const char* stage, MsgKind kind, const Piece* pieces,
                         std::size_t count, std::int64_t cmd, std::int64_t tile, ps_t kernel,
                         ps_t local, const DmaPattern* pattern = nullptr);
    // A patterned transfer's T1 shape on `ch` (docs/timing.md "DMA transfer patterns").
    void shape(Channel& ch, const DmaPattern& pattern, std::uint64_t bytes);
    void account(Channel& ch, ps_t took);
    DmaTimeSplit::PerHop& share_of(const Hop* hop);

    TraceSink& m_trace;
    RunStatus& m_status;
    PeData* m_data = nullptr;
    std::uint64_t m_broadcast_per_s;  // a broadcast copy's rate: min(engine, one TCM slice)
    ps_t m_chunk_ps;                  // chunk_ns: per strided chunk after the first
    ps_t m_copy_ps;                   // copy_ns: per broadcast copy after the first
    ps_t m_piece_ps;                  // piece_ns: per gathered piece after the first
    std::vector<std::unique_ptr<Channel>> m_read;
    std::vector<std::unique_ptr<Channel>> m_write;
    std::unique_ptr<Channel> m_comm;
    DmaTimeSplit m_time;
    std::size_t m_last_share = 0;  // share_of()'s last answer
    std::vector<std::unique_ptr<StageWorker>> m_workers;
};

}  // namespace npuvp
