#include "modules/pe/pe_dma.h"

#include <stdexcept>

namespace npuvp {

PeDma::PeDma(const sc_core::sc_module_name& name, const PeDmaConfig& config, TraceSink& trace)
    : RoutedNode(name), config(config), m_trace(trace) {
    auto make = [&](std::vector<Channel>& channels, int count, const char* prefix) {
        for (int i = 0; i < count; ++i) {
            const std::string id = std::string(prefix) + std::to_string(i);
            Channel ch;
            ch.resource = std::make_unique<FifoResource>(id.c_str(), 1);
            ch.hop = std::make_unique<Hop>(node_id_ref() + "." + id, ns_to_ps(config.setup_ns),
                                           config.bw_gbs);
            ch.txn = std::make_unique<Transaction>();
            channels.push_back(std::move(ch));
        }
    };
    make(m_read, config.rd_engines, "rd");
    make(m_write, config.wr_engines, "wr");
}

PeDma::Channel& PeDma::pick(DmaDirection dir, int channel) {
    auto& channels = dir == DmaDirection::read ? m_read : m_write;
    if (channel < 0 || channel >= static_cast<int>(channels.size()))
        throw std::out_of_range(node_id_ref() + ": no DMA channel " + std::to_string(channel));
    return channels[channel];
}

Hop& PeDma::channel_hop(DmaDirection dir, int channel) { return *pick(dir, channel).hop; }

FifoResource& PeDma::channel(DmaDirection dir, int channel) {
    return *pick(dir, channel).resource;
}

sc_core::sc_time PeDma::transfer(DmaDirection dir, int channel, const Route& route,
                                 std::uint64_t address, std::uint64_t bytes, std::int64_t cmd) {
    Channel& ch = pick(dir, channel);
    const char* stage = dir == DmaDirection::read ? "DMA_READ" : "DMA_WRITE";
    ch.resource->wait();
    // Busy from the grant to done (T3); the wait for the channel is not busy.
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    m_trace.emit({start.value(), "engine_start", &node_id_ref(), cmd, -1, stage, nullptr,
                  static_cast<std::int64_t>(bytes), &route.path.back().node->node_id_ref()});
    ch.txn->ext().command_id = static_cast<std::uint64_t>(cmd);
    ch.txn->prepare(dir == DmaDirection::read ? MsgKind::dma_read : MsgKind::dma_write, route,
                    address, bytes);
    const sc_core::sc_time delay = transport(*ch.txn);
    sc_core::wait(delay);
    const sc_core::sc_time done = sc_core::sc_time_stamp();
    ch.busy += done - start;
    ch.bytes += bytes;
    m_trace.emit({done.value(), "engine_complete", &node_id_ref(), cmd, -1, stage, nullptr,
                  static_cast<std::int64_t>(bytes), &route.path.back().node->node_id_ref()});
    ch.resource->post();
    return done;
}

std::uint64_t PeDma::bytes_moved(DmaDirection dir) const {
    std::uint64_t total = 0;
    for (const auto& ch : dir == DmaDirection::read ? m_read : m_write) total += ch.bytes;
    return total;
}

sc_core::sc_time PeDma::busy_time(DmaDirection dir) const {
    sc_core::sc_time total;
    for (const auto& ch : dir == DmaDirection::read ? m_read : m_write) total += ch.busy;
    return total;
}

}  // namespace npuvp
