#include "modules/pe/pe_ipcq.h"

namespace npuvp {

// docs/timing.md T3: waits (not busy) until the bytes have arrived, then
// takes them at once. The data is taken when the method finds it (as the
// senders' space is freed), the stage's start and end are traced at that
// time.
class PeIpcq::Receiver : public MethodStageWorker {
public:
    Receiver(PeIpcq& ipcq, TraceSink& trace, RunStatus& status)
        : MethodStageWorker(ipcq.node_id_ref(), StageType::ipcq_recv, ipcq.inboxes, trace, status),
          m_ipcq(ipcq) {}

protected:
    bool prepare_stage(TileToken& token) override {
        const std::uint64_t bytes = token.stage().bytes;
        if (m_ipcq.m_readable < bytes) return wait_for(m_ipcq.m_arrived);
        m_ipcq.m_readable -= bytes;
        m_ipcq.take(bytes);
        m_ipcq.m_received += bytes;
        // Every sender waiting for space asks again in the next round, in
        // the order they asked.
        for (PipelineSignal* credit : m_ipcq.m_credit_waiters) clock().signal(*credit);
        m_ipcq.m_credit_waiters.clear();
        return true;
    }
    bool begin_stage(TileToken& token, ps_t& time) override {
        trace_engine(true, token, static_cast<std::int64_t>(token.stage().bytes));
        time = 0;  // taking is immediate
        return true;
    }
    void end_stage(TileToken& token) override {
        record_busy(stage_start());
        trace_engine(false, token, static_cast<std::int64_t>(token.stage().bytes));
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

bool PeIpcq::reserve(std::uint64_t bytes, PipelineSignal& credit) {
    const std::uint64_t need = footprint(bytes);
    if (m_held + need > capacity()) {
        m_credit_waiters.push_back(&credit);
        return false;
    }
    m_held += need;
    return true;
}

void PeIpcq::deliver(std::uint64_t bytes, PipelineClock& clock) {
    m_readable += bytes;
    m_messages.push_back(bytes);
    clock.signal(m_arrived);
}

// The read goes through the messages in the order they arrived; the slots
// it has passed are free: all of a message's once it is read to its end,
// and of one read in part, its slots before the first byte left.
void PeIpcq::take(std::uint64_t bytes) {
    while (bytes > 0) {
        std::uint64_t& left = m_messages[m_first];
        const std::uint64_t n = std::min(bytes, left);
        const std::uint64_t held = footprint(left);
        left -= n, bytes -= n;
        m_held -= held - footprint(left);
        if (left == 0 && ++m_first == m_messages.size()) m_messages.clear(), m_first = 0;
    }
}

StageWorker& PeIpcq::receiver() { return *m_receiver; }

}  // namespace npuvp
