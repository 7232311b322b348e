#include "modules/pe/pe_ipcq.h"

namespace npuvp {

// A thread: it waits for data in the middle of its stage.
class PeIpcq::Receiver : public ThreadStageWorker {
public:
    Receiver(PeIpcq& ipcq, TraceSink& trace, RunStatus& status)
        : ThreadStageWorker(ipcq.node_id_ref(), StageType::ipcq_recv, ipcq.inboxes, trace, status),
          m_ipcq(ipcq) {}

protected:
    void process(TileToken& token) override {
        const std::uint64_t bytes = token.stage().bytes;
        // Waiting for data is not busy time; taking it is immediate.
        while (m_ipcq.m_readable < bytes) sc_core::wait(m_ipcq.m_arrived.get());
        const sc_core::sc_time start = sc_core::sc_time_stamp();
        trace_engine(true, token, static_cast<std::int64_t>(bytes));
        m_ipcq.m_readable -= bytes;
        m_ipcq.m_held -= m_ipcq.footprint(bytes);
        m_ipcq.m_received += bytes;
        m_ipcq.m_freed.notify(sc_core::SC_ZERO_TIME);
        record_busy(start);
        trace_engine(false, token, static_cast<std::int64_t>(bytes));
    }

private:
    PeIpcq& m_ipcq;
};

PeIpcq::PeIpcq(const sc_core::sc_module_name& name, const PeIpcqConfig& config, TraceSink& trace,
               RunStatus& status)
    : RoutedNode(name),
      config(config),
      inboxes("inboxes"),
      m_receiver(std::make_unique<Receiver>(*this, trace, status)) {
    m_receiver->spawn("receiver");
}

PeIpcq::~PeIpcq() = default;

std::uint64_t PeIpcq::footprint(std::uint64_t bytes) const {
    return (bytes + config.slot_bytes - 1) / config.slot_bytes * config.slot_bytes;
}

void PeIpcq::reserve(std::uint64_t bytes) {
    const std::uint64_t need = footprint(bytes);
    while (m_held + need > capacity()) sc_core::wait(m_freed.get());
    m_held += need;
}

void PeIpcq::deliver(std::uint64_t bytes) {
    m_readable += bytes;
    m_arrived.notify(sc_core::SC_ZERO_TIME);
}

StageWorker& PeIpcq::receiver() { return *m_receiver; }

}  // namespace npuvp
