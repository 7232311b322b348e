#include "modules/pe/pe_dma.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "modules/common/checked.h"
#include "modules/common/sanitizer_catch.h"
#include "modules/pe/pe_ipcq.h"
#include "modules/pe/pe_data.h"
#include "modules/pe/pe_mmu.h"

namespace npuvp {

struct PeDma::Channel {
    Channel(const std::string& node_id, const char* id, const PeDmaConfig& config)
        : resource(id, 1), hop(node_id + "." + id, ns_to_ps(config.setup_ns, "pe_dma.attrs.setup_ns"), config.bw_gbs) {
        txn(0);
    }
    FifoResource resource;
    Hop hop;
    // One transaction per piece of the stage in flight (txns[0] always
    // exists; more are made when a stage first has more pieces).
    std::vector<std::unique_ptr<Transaction>> txns;
    Transaction& txn(std::size_t piece) {
        while (txns.size() <= piece) txns.push_back(std::make_unique<Transaction>());
        return *txns[piece];
    }
    // Pieces answered later (a target behind a TLM adapter): how many are
    // open, the latest done so far, and who waits for the last.
    int pending = 0;
    ps_t done_ps = 0;                // absolute: the latest done of the stage's pieces
    MethodStageWorker* worker = nullptr;  // the method that owns the stage, or
    bool thread_waits = false;            // a thread (run_on) waiting on all_done
    sc_core::sc_event all_done;
    std::uint64_t bytes = 0;
    // The stage in flight: its bytes and the target of its first piece.
    std::uint64_t stage_bytes = 0;
    const std::string* target = nullptr;
    ps_t busy_ps = 0;
    TraceOrigin origin;  // its engine events' lane: the first stage it traces (begin_transfers)
    TransferShape shape;  // a patterned stage's T1 (its one transaction points at it)
    // The stage's piece that ended last, for PeDma::account(): its route,
    // bytes, engine time (a pattern's) and the hop it waited for most.
    const Route* acct_route = nullptr;
    std::uint64_t acct_bytes = 0;
    ps_t acct_engine_ps = 0;
    const Hop* acct_wait_hop = nullptr;
    // The command and tile in flight (-1: idle).
    std::int32_t cmd = -1;
    std::int32_t tile = -1;
    // The VCD's busy, cmd and tile (set only when traced).
    VcdValue<bool> vcd_busy{false};
    VcdValue<std::int32_t> vcd_cmd{-1};
    VcdValue<std::int32_t> vcd_tile{-1};
    void show(bool busy) {
        if (!vcd_busy.traced()) return;
        vcd_busy.set(busy);
        vcd_cmd.set(cmd);
        vcd_tile.set(tile);
    }
};

// The IPCQ_SEND worker of the vc_comm channel (SPEC §5): ring credit first
// (waiting for it is not busy time), then the channel and the transfer over
// the NoC, and at its done the bytes are delivered into the peer's ring.
class PeDma::CommWorker : public MethodStageWorker {
public:
    CommWorker(PeDma& dma, Channel& channel, TraceSink& trace, RunStatus& status)
        : MethodStageWorker(dma.node_id_ref(), StageType::ipcq_send, dma.inboxes, trace, status),
          m_dma(dma),
          m_channel(channel) {}

protected:
    bool prepare_stage(TileToken& token) override {
        const Stage& stage = token.stage();
        const InflightCommand& cmd = *token.cmd;
        try {
            m_ring = &m_dma.ipcq_of(cmd.command->peer);
        } catch (const std::out_of_range& e) {
            clean_stack_after_catch();
            fail_stage(token, e.what());
            return false;
        }
        // (The loader refuses such a command: a ring set up otherwise.)
        if (m_ring->footprint(stage.bytes) > m_ring->capacity()) {
            fail_stage(token, "ipcq_send of " + std::to_string(stage.bytes) + " bytes can never fit the peer's ring of " +
                                  std::to_string(m_ring->capacity()) + " bytes");
            return false;
        }
        return m_ring->reserve(stage.bytes, m_credit) || wait_for(m_credit);
    }
    FifoResource* stage_resource(const TileToken&) override { return &m_channel.resource; }
    bool fixed_resource() const override { return true; }
    bool begin_stage(TileToken& token, ps_t& time) override {
        const InflightCommand& cmd = *token.cmd;
        const Piece piece{&m_dma.routes->comm(cmd.command->peer), 0, token.stage().bytes};
        time = m_dma.begin_transfers(m_channel, "IPCQ_SEND", MsgKind::ipcq_send, &piece, 1,
                                     static_cast<std::int64_t>(cmd.seq),
                                     static_cast<std::int64_t>(token.plan.tile_id), kernel_ps(),
                                     local_offset_ps());
        if (m_channel.pending != 0) {
            m_channel.worker = this;
            defer_end();  // PeDma::transport_done() ends it
        }
        return true;
    }
    void end_stage(TileToken& token) override {
        m_dma.end_on(m_channel, "IPCQ_SEND", stage_start(), now_ps());
        m_ring->deliver(token.stage().bytes, clock());
    }

private:
    PeDma& m_dma;
    Channel& m_channel;
    IpcqRing* m_ring = nullptr;  // the stage's peer ring (prepare_stage())
    PipelineSignal m_credit;     // signalled when the peer's ring frees space
};

// The worker of one DMA_READ or DMA_WRITE channel: a method (docs/speed.md).
class PeDma::TransferWorker : public MethodStageWorker {
public:
    TransferWorker(PeDma& dma, StageType type, int index, Channel& channel, TraceSink& trace,
                   RunStatus& status)
        : MethodStageWorker(dma.node_id_ref(), type, dma.inboxes, trace, status),
          m_index(index),
          m_dma(dma),
          m_channel(channel) {
        set_unit(static_cast<std::uint32_t>(index));
    }

protected:
    // A virtual address costs the MMU's translate time before the channel
    // is asked for.
    [[gnu::hot]] sc_core::sc_time pre_delay(const TileToken& token) override {
        const InflightCommand& cmd = *token.cmd;
        const MemAddress& addr = type() == StageType::dma_read ? cmd.read_addr : cmd.write_addr;
        const bool va = addr.is_va || (type() == StageType::dma_read && cmd.read_b_addr.is_va);
        return va ? m_dma.mmu->translate_time() : sc_core::SC_ZERO_TIME;
    }
    // The stage's bytes as pieces, one per memory target (seed 000 D1: the
    // MMU translates every page the transfer touches).
    [[gnu::hot]] bool prepare_stage(TileToken& token) override {
        const InflightCommand& cmd = *token.cmd;
        const Stage& stage = token.stage();
        const MemAddress& addr = type() == StageType::dma_read ? cmd.read_addr : cmd.write_addr;
        m_pieces.clear();
        try {
            if (stage.mem_runs == 0) return add_run(cmd, addr, 0, stage.bytes);
            for (std::uint8_t r = 0; r < stage.mem_runs; ++r)
                if (!add_run(cmd, stage.mem[r].base ? cmd.read_b_addr : addr, stage.mem[r].offset,
                             stage.mem[r].bytes))
                    return false;
        } catch (const std::out_of_range& e) {
            clean_stack_after_catch();
            fail("command " + cmd.command->id + ": " + e.what());
            return false;
        }
        return true;
    }
    FifoResource* stage_resource(const TileToken&) override { return &m_channel.resource; }
    bool fixed_resource() const override { return true; }
    [[gnu::hot]] bool begin_stage(TileToken& token, ps_t& time) override {
        time = m_dma.begin_pieces(m_channel, type(), m_pieces, pattern(token),
                                  static_cast<std::int64_t>(token.cmd->seq),
                                  static_cast<std::int64_t>(token.plan.tile_id), kernel_ps(),
                                  local_offset_ps());
        if (m_channel.pending != 0) {
            m_channel.worker = this;
            defer_end();  // PeDma::transport_done() ends it
        }
        return true;
    }
    [[gnu::hot]] void end_stage(TileToken& token) override {
        m_dma.end_on(m_channel, m_stage_name, stage_start(), now_ps());
        if (m_dma.m_data != nullptr) [[unlikely]]
            move_data(token);
        if (token.panel_loaded != nullptr) [[unlikely]]
            panel_loaded(token);
    }

private:
    // Its DMA_READ loaded its operand panel's tile: a token that uses it
    // may fetch it now (tile_token.h).
    [[gnu::cold, gnu::noinline]] void panel_loaded(TileToken& token) {
        *token.panel_loaded = 1;
        token.panel_loaded = nullptr;
        clock().signal(*token.panel_signal);
    }
    // Data mode: the stage's bytes move at its modelled end.
    [[gnu::cold, gnu::noinline]] void move_data(const TileToken& token) {
        try {
            m_dma.m_data->dma(token, type());
        } catch (const std::exception& e) {
            fail("command " + token.cmd->command->id + ": data: " + e.what());
        }
    }

    // A simple command's pattern; a composite's tiles are contiguous.
    static const DmaPattern& pattern(const TileToken& token) {
        static const DmaPattern contiguous;
        const Command& command = *token.cmd->command;
        return command.kind == CommandKind::composite ? contiguous : command.pattern;
    }

    // Adds [addr + offset, + bytes) to m_pieces. A physical range is one
    // piece; a virtual one is translated page by page, and a page whose
    // target differs from the last piece's starts a new piece. False (the
    // run stopped) on an unmapped page, naming its first address.
    // (The physical path inline: a composite's tile runs through it twice
    // per DMA_READ; the rest out of line.)
    [[gnu::always_inline]] bool add_run(const InflightCommand& cmd, const MemAddress& addr,
                                        std::uint64_t offset, std::uint64_t bytes) {
        std::uint64_t start = 0, end = 0;
        if (__builtin_add_overflow(addr.value, offset, &start) ||
            __builtin_add_overflow(start, bytes, &end))
            return past_the_end(cmd);
        if (addr.is_va) return add_va_run(cmd, start, end);
        // The last window's route, while the address stays in it.
        if (m_window_route == nullptr || start - m_window_lo >= m_window_size) [[unlikely]]
            m_window_route = &m_dma.routes->dma(type() == StageType::dma_read ? DmaDirection::read
                                                                             : DmaDirection::write,
                                                m_index, start, m_window_lo, m_window_size);
        add_piece(*m_window_route, start, bytes);
        return true;
    }
    [[gnu::cold, gnu::noinline]] bool past_the_end(const InflightCommand& cmd) {
        fail("command " + cmd.command->id +
                                      ": its transfer runs past the end of the address space");
        return false;
    }
    [[gnu::noinline]] bool add_va_run(const InflightCommand& cmd, std::uint64_t start, std::uint64_t end) {
        const DmaDirection dir = type() == StageType::dma_read ? DmaDirection::read : DmaDirection::write;
        const std::uint64_t page = m_dma.mmu->page_bytes();
        for (std::uint64_t at = start; at < end;) {
            const std::uint64_t n = std::min(end, (at / page + 1) * page) - at;
            const auto translated = m_dma.mmu->translate(at);
            if (!translated) {
                char va[32];
                std::snprintf(va, sizeof va, "0x%llx", static_cast<unsigned long long>(at));
                fail(std::string("MMU fault: command ") + cmd.command->id +
                                              " accesses unmapped virtual address " + va);
                return false;
            }
            add_piece(m_dma.routes->dma(dir, m_index, *translated), *translated, n);
            at += n;
        }
        return true;
    }
    // Bytes bound for the same target as the last piece join it: one
    // transfer to one target costs what its bytes cost, wherever they lie.
    void add_piece(const Route& route, std::uint64_t pa, std::uint64_t bytes) {
        if (!m_pieces.empty() && m_pieces.back().route == &route)
            m_pieces.back().bytes += bytes;
        else
            m_pieces.emplace_back(&route, pa, bytes);
    }

    int m_index;
    const char* const m_stage_name = to_string(type());  // for the trace
    PeDma& m_dma;
    Channel& m_channel;
    std::vector<Piece> m_pieces;  // prepare_stage() -> begin_stage(); reused
    // The memory window of the last physical address routed, and its route.
    const Route* m_window_route = nullptr;
    std::uint64_t m_window_lo = 0;
    std::uint64_t m_window_size = 0;
};

PeDma::PeDma(const sc_core::sc_module_name& name, const PeDmaConfig& config, const PeTcmConfig& tcm,
             TraceSink& trace, RunStatus& status)
    : RoutedNode(name),
      config(config),
      routes("routes"),
      mmu("mmu"),
      peers("peers"),
      inboxes("inboxes"),
      m_trace(trace),
      m_status(status),
      m_broadcast_per_s(bytes_per_s(std::min(config.bw_gbs, tcm.slice_bw_gbs))),
      m_chunk_ps(ns_to_ps(config.chunk_ns, "pe_dma.attrs.chunk_ns")),
      m_copy_ps(ns_to_ps(config.copy_ns, "pe_dma.attrs.copy_ns")),
      m_piece_ps(ns_to_ps(config.piece_ns, "pe_dma.attrs.piece_ns")) {
    auto make = [&](std::vector<std::unique_ptr<Channel>>& channels, int count, const char* prefix,
                    StageType type) {
        for (int i = 0; i < count; ++i) {
            const std::string id = prefix + std::to_string(i);
            channels.push_back(std::make_unique<Channel>(node_id_ref(), id.c_str(), config));
            m_workers.push_back(
                std::make_unique<TransferWorker>(*this, type, i, *channels.back(), trace, status));
            m_workers.back()->spawn((id + "_worker").c_str());
        }
    };
    make(m_read, config.rd_engines, "rd", StageType::dma_read);
    make(m_write, config.wr_engines, "wr", StageType::dma_write);
    m_comm = std::make_unique<Channel>(node_id_ref(), "vc_comm", config);
    m_workers.push_back(std::make_unique<CommWorker>(*this, *m_comm, trace, status));
    m_workers.back()->spawn("vc_comm_worker");
}

PeDma::~PeDma() = default;

IpcqRing& PeDma::ipcq_of(int peer) {
    if (peers.size() == 0 || peer < 0 || peer >= peers->count())
        throw std::out_of_range(node_id_ref() + ": no IPCQ peer " + std::to_string(peer));
    return peers->ring(peer);
}

int PeDma::channels(DmaDirection dir) const {
    return static_cast<int>(dir == DmaDirection::read ? m_read.size() : m_write.size());
}

PeDma::Channel& PeDma::pick(DmaDirection dir, int channel) {
    auto& channels = dir == DmaDirection::read ? m_read : m_write;
    if (channel < 0 || channel >= static_cast<int>(channels.size()))
        throw std::out_of_range(node_id_ref() + ": no DMA channel " + std::to_string(channel));
    return *channels[channel];
}

Hop& PeDma::channel_hop(DmaDirection dir, int channel) { return pick(dir, channel).hop; }
Hop& PeDma::comm_hop() { return m_comm->hop; }
FifoResource& PeDma::channel(DmaDirection dir, int channel) { return pick(dir, channel).resource; }

std::vector<StageWorker*> PeDma::workers() {
    std::vector<StageWorker*> out;
    for (auto& w : m_workers) out.push_back(w.get());
    return out;
}

sc_core::sc_time PeDma::transfer(DmaDirection dir, int channel, const Route& route,
                                 std::uint64_t address, std::uint64_t bytes, std::int64_t cmd,
                                 std::int64_t tile) {
    const bool read = dir == DmaDirection::read;
    // SPEC T4: in this PE's rank, as its channel's worker would ask.
    const RequestKey key{m_workers.front()->rank(),
                         static_cast<std::uint32_t>(read ? RequestEngine::dma_read
                                                         : RequestEngine::dma_write),
                         static_cast<std::uint64_t>(cmd), static_cast<std::uint64_t>(tile),
                         static_cast<std::uint32_t>(channel)};
    return run_on(pick(dir, channel), read ? "DMA_READ" : "DMA_WRITE",
                  read ? MsgKind::dma_read : MsgKind::dma_write, route, address, bytes, cmd, tile,
                  key);
}

sc_core::sc_time PeDma::run_on(Channel& ch, const char* stage, MsgKind kind, const Route& route,
                               std::uint64_t address, std::uint64_t bytes, std::int64_t cmd,
                               std::int64_t tile, const RequestKey& key) {
    // SPEC T4: the channel is taken, and the transfer's hops reserved at
    // the grant, in key order among the requests of the round.
    sc_core::sc_time busy;
    ch.resource.wait(key, [] {}, [&] { busy = begin_on(ch, stage, kind, route, address, bytes, cmd, tile); });
    // Busy from the grant to done (T3); the wait for the channel is not busy.
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    if (ch.pending != 0) {
        ch.thread_waits = true;  // PeDma::transport_done() notifies at done
        sc_core::wait(ch.all_done);
        ch.thread_waits = false;
    } else {
        sc_core::wait(busy);
    }
    end_on(ch, stage, start.value(), sc_core::sc_time_stamp().value());
    ch.resource.post();
    return sc_core::sc_time_stamp();
}

sc_core::sc_time PeDma::begin_on(Channel& ch, const char* stage, MsgKind kind, const Route& route,
                                 std::uint64_t address, std::uint64_t bytes, std::int64_t cmd,
                                 std::int64_t tile) {
    const Piece piece{&route, address, bytes};
    return sc_core::sc_time::from_value(begin_transfers(ch, stage, kind, &piece, 1, cmd, tile,
                                                        sc_core::sc_time_stamp().value(), 0));
}

[[gnu::hot]] ps_t PeDma::begin_pieces(Channel& ch, StageType type, const std::vector<Piece>& pieces,
                                     const DmaPattern& pattern, std::int64_t cmd, std::int64_t tile,
                                     ps_t kernel, ps_t local) {
    const bool read = type == StageType::dma_read;
    return begin_transfers(ch, read ? "DMA_READ" : "DMA_WRITE", read ? MsgKind::dma_read : MsgKind::dma_write,
                           pieces.data(), pieces.size(), cmd, tile, kernel, local,
                           pattern.plain() ? nullptr : &pattern);
}

// docs/timing.md "DMA transfer patterns": the channel is busy for what the
// engine writes (a broadcast's every copy, each into one TCM slice at
// min(engine, slice) rate) plus, per descriptor after the first, its kind's
// cost (chunk_ns a strided chunk, copy_ns a broadcast copy, piece_ns a
// gathered piece); a
// broadcast's TCM write port takes every copy; the NoC and the memory target
// carry the bytes once.
void PeDma::shape(Channel& ch, const DmaPattern& pattern, std::uint64_t bytes) {
    const bool broadcast = pattern.kind == DmaPatternKind::broadcast;
    const ps_t descriptor_ps = broadcast ? m_copy_ps
                               : pattern.kind == DmaPatternKind::gather ? m_piece_ps : m_chunk_ps;
    const std::uint64_t written = broadcast ? checked_mul(bytes, pattern.chunks, "a broadcast's bytes written") : bytes;
    ch.shape.engine = &ch.hop;
    ch.shape.engine_bytes = written;
    ch.shape.engine_ps = checked_add(serialisation_ps(written, broadcast ? m_broadcast_per_s
                                                                        : ch.hop.bytes_per_second()),
                                     checked_mul(pattern.chunks - 1, descriptor_ps, "a DMA's descriptor time"),
                                     "a patterned DMA's channel time");
    ch.shape.tail_bytes = written;
    ch.shape.drain_ps = 0;
}

// Every piece is sent at the grant, each along its own route (its own T1
// reservations); the stage is done when the last piece is. Pieces share the
// channel's hop, so their bytes still cross it one after the other.
[[gnu::hot]] ps_t PeDma::begin_transfers(Channel& ch, const char* stage, MsgKind kind,
                                        const Piece* pieces, std::size_t count, std::int64_t cmd,
                                        std::int64_t tile, ps_t kernel, ps_t local,
                                        const DmaPattern* pattern) {
    const ps_t now = kernel + local;
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < count; ++i) bytes += pieces[i].bytes;
    if (pattern != nullptr) {
        sc_assert(count == 1);  // the loader takes patterns on physical addresses only
        shape(ch, *pattern, bytes);
        bytes = ch.shape.engine_bytes;
    }
    ch.target = &pieces[0].route->path.back().node->node_id_ref();
    ch.stage_bytes = bytes;
    ch.cmd = static_cast<std::int32_t>(cmd);
    ch.tile = static_cast<std::int32_t>(tile);
    ch.show(true);
    if (m_trace.enabled()) {
        if (ch.origin.node == nullptr) {
            ch.origin.node = &node_id_ref();
            ch.origin.stage = stage;
        }
        m_trace.emit(trace::engine_start(now, node_id_ref(), cmd, tile, stage, static_cast<std::int64_t>(bytes),
                                         ch.target),
                     ch.origin);
    }
    ps_t done = 0;
    ch.pending = 0;
    ch.acct_route = pieces[0].route;
    ch.acct_bytes = pieces[0].bytes;
    ch.acct_engine_ps = pattern != nullptr ? ch.shape.engine_ps : 0;
    ch.acct_wait_hop = nullptr;
    for (std::size_t i = 0; i < count; ++i) {
        Transaction& txn = ch.txn(i);
        txn.ext().command_id = static_cast<std::uint64_t>(cmd);
        txn.ext().tile_id = tile;
        txn.ext().body = &ch;  // transport_done() finds the channel by it
        txn.prepare(kind, *pieces[i].route, pieces[i].pa, pieces[i].bytes, kernel);
        if (pattern != nullptr) txn.ext().shape = &ch.shape;
        const ps_t piece_done = transport_ps(txn, kernel, local);
        if (txn.pending()) {
            ++ch.pending;
        } else if (piece_done >= done) {
            done = piece_done;
            const Route& route = *pieces[i].route;
            ch.acct_route = &route;
            ch.acct_bytes = pieces[i].bytes;
            ch.acct_wait_hop = nullptr;
            // Its hops were reserved just now: when it took longer than
            // uncontended, the one it waited for most.
            if (piece_done > route.latency_ps + std::max(route.drain_ps(pieces[i].bytes), ch.acct_engine_ps)) {
                ps_t most = 0;
                for (const RouteStep& step : route.steps)
                    if (step.hop->last_wait_ps() > most) most = step.hop->last_wait_ps(), ch.acct_wait_hop = step.hop;
            }
        }
    }
    ch.done_ps = now + done;
    return done;
}

// A piece answered later has arrived (its done is txn.done_at()); after the
// stage's last one, the stage ends at the latest done of all its pieces.
void PeDma::transport_done(Transaction& txn) {
    Channel& ch = *static_cast<Channel*>(const_cast<void*>(txn.ext().body));
    if (txn.payload().get_response_status() != tlm::TLM_OK_RESPONSE)
        m_status.fail(node_id_ref(), "transport to " + txn.ext().route->path.back().node->node_id() +
                                         " failed: " + txn.payload().get_response_string());
    ch.done_ps = std::max<ps_t>(ch.done_ps, txn.done_at().value());
    if (--ch.pending != 0) return;
    const sc_core::sc_time delay =
        sc_core::sc_time::from_value(ch.done_ps - sc_core::sc_time_stamp().value());
    if (ch.thread_waits) {
        ch.all_done.notify(delay);
    } else {
        ch.worker->end_stage_after(delay);
        ch.worker = nullptr;
    }
}

[[gnu::hot]] DmaTimeSplit::PerHop& PeDma::share_of(const Hop* hop) {
    // The last hop asked for first: a channel mostly carries one route.
    if (m_last_share < m_time.hops.size() && m_time.hops[m_last_share].hop == hop) return m_time.hops[m_last_share];
    for (std::size_t i = 0; i < m_time.hops.size(); ++i)
        if (m_time.hops[i].hop == hop) return m_time.hops[m_last_share = i];
    m_last_share = m_time.hops.size();
    return m_time.hops.emplace_back(DmaTimeSplit::PerHop{hop, 0, 0});  // once per hop a PE ever uses
}

// A stage of `took` ps: its route's start-up, the transfer at its slowest hop
// (or a pattern's engine time), and the rest waiting (at the hop it waited
// for most; a piece answered later, e.g. by an RTL target, at its target).
// (Inlined, with end_on(), into the workers' end_stage(), as the compiler
// chose before the data-mode hook grew end_stage: docs/speed.md.)
[[gnu::always_inline]] inline void PeDma::account(Channel& ch, ps_t took) {
    if (ch.acct_route == nullptr || &ch == m_comm.get()) return;
    const Route& route = *ch.acct_route;
    const ps_t startup = std::min(took, route.latency_ps);
    const ps_t drain = route.drain_ps(ch.acct_bytes);
    const bool engine = ch.acct_engine_ps > drain;
    const ps_t transfer = std::min(took - startup, engine ? ch.acct_engine_ps : drain);
    const ps_t wait = took - startup - transfer;
    m_time.startup_ps += startup;
    m_time.transfer_ps += transfer;
    m_time.wait_ps += wait;
    const Hop* slowest = engine ? ch.shape.engine : route.min_hop;
    if (slowest != nullptr && transfer != 0) share_of(slowest).transfer_ps += transfer;
    if (wait != 0) {
        const Hop* waited = ch.acct_wait_hop != nullptr ? ch.acct_wait_hop : route.min_hop;
        if (waited != nullptr) share_of(waited).wait_ps += wait;
    }
}

[[gnu::always_inline]] inline void PeDma::end_on(Channel& ch, const char* stage, ps_t start, ps_t done) {
    const std::int64_t cmd = ch.cmd, tile = ch.tile;
    account(ch, done - start);
    ch.busy_ps += done - start;
    ch.bytes += ch.stage_bytes;
    ch.cmd = ch.tile = -1;
    ch.show(false);
    if (m_trace.enabled())
        m_trace.emit(trace::engine_complete(done, node_id_ref(), cmd, tile, stage,
                                            static_cast<std::int64_t>(ch.stage_bytes), ch.target),
                     ch.origin);
}

std::uint64_t PeDma::bytes_moved(DmaDirection dir) const {
    std::uint64_t total = 0;
    for (const auto& ch : dir == DmaDirection::read ? m_read : m_write) total += ch->bytes;
    return total;
}

sc_core::sc_time PeDma::busy_time(DmaDirection dir) const {
    ps_t total = 0;
    for (const auto& ch : dir == DmaDirection::read ? m_read : m_write) total += ch->busy_ps;
    return sc_core::sc_time::from_value(total);
}

std::uint64_t PeDma::comm_bytes() const { return m_comm->bytes; }
std::uint64_t PeDma::comm_grants() const { return m_comm->resource.grants(); }

void PeDma::add_traces(sc_core::sc_trace_file* tf, VcdClock& clock) const {
    auto add = [&](Channel& ch) {
        const std::string prefix = node_id_ref() + "." + ch.resource.basename();
        ch.vcd_busy.trace(tf, prefix + ".busy", false, clock);
        ch.vcd_cmd.trace(tf, prefix + ".cmd", -1, clock);
        ch.vcd_tile.trace(tf, prefix + ".tile", -1, clock);
        ch.resource.add_traces(tf, prefix, clock);
    };
    for (const auto& ch : m_read) add(*ch);
    for (const auto& ch : m_write) add(*ch);
    add(*m_comm);
}
sc_core::sc_time PeDma::comm_busy_time() const {
    return sc_core::sc_time::from_value(m_comm->busy_ps);
}

}  // namespace npuvp
