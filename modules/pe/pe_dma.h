// PE_DMA (seed 000 §D1, §D4; SPEC §3 T2, T3): moves data between the PE's TCM
// and memory targets over the cube NoC. `rd_engines` DMA_READ and
// `wr_engines` DMA_WRITE channels; each channel is a FIFO-fair resource of
// capacity 1 and the first hop of its transfers (latency setup_ns, bandwidth
// bw_gbs). A channel is held from the start of a transfer to its done:
// READ ∥ WRITE, never two transfers on one channel.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "modules/common/config.h"
#include "modules/common/fifo_resource.h"
#include "modules/common/trace.h"
#include "tlm_sockets/hop.h"
#include "tlm_sockets/npu_extension.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

enum class DmaDirection { read, write };

class PeDma : public RoutedNode {
public:
    // Parameters
    const PeDmaConfig& config;

    PeDma(const sc_core::sc_module_name& name, const PeDmaConfig& config, TraceSink& trace);
    const char* kind() const override { return "pe_dma"; }

    int channels(DmaDirection dir) const {
        return static_cast<int>(dir == DmaDirection::read ? m_read.size() : m_write.size());
    }
    // The channel's hop, for the elaborator's DMA routes (head hop of T2).
    Hop& channel_hop(DmaDirection dir, int channel);
    FifoResource& channel(DmaDirection dir, int channel);

    // Runs one transfer on `channel` along `route` (built by the platform with
    // this channel's hop): waits for the channel in request order, transports,
    // waits once for the T1 done, releases the channel. Returns the done time.
    // Traces engine_start / engine_complete with stage DMA_READ / DMA_WRITE.
    sc_core::sc_time transfer(DmaDirection dir, int channel, const Route& route,
                              std::uint64_t address, std::uint64_t bytes, std::int64_t cmd);

    // Statistics
    std::uint64_t bytes_moved(DmaDirection dir) const;
    sc_core::sc_time busy_time(DmaDirection dir) const;

private:
    struct Channel {
        std::unique_ptr<FifoResource> resource;
        std::unique_ptr<Hop> hop;
        std::unique_ptr<Transaction> txn;
        std::uint64_t bytes = 0;
        sc_core::sc_time busy;
    };

    Channel& pick(DmaDirection dir, int channel);

    TraceSink& m_trace;
    std::vector<Channel> m_read;
    std::vector<Channel> m_write;
};

}  // namespace npuvp
