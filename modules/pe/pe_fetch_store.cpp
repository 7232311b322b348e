#include "modules/pe/pe_fetch_store.h"

#include <algorithm>
#include <stdexcept>

#include "modules/pe/pe_data.h"

namespace npuvp {

// FETCH or STORE: a method (docs/speed.md).
class PeFetchStore::Worker : public MethodStageWorker {
public:
    Worker(PeFetchStore& unit, StageType type, TraceSink& trace, RunStatus& status)
        : MethodStageWorker(unit.node_id_ref(), type, unit.inboxes, trace, status), m_unit(unit) {}

protected:
    bool fixed_resource() const override { return true; }  // none: FETCH and STORE hold no resource
    [[gnu::hot]] bool begin_stage(TileToken& token, ps_t& time) override {
        const std::uint64_t bytes = token.stage().bytes;
        const bool fetch = type() == StageType::fetch;
        // The route is the same for every stage: asked for once.
        if (m_route == nullptr) m_route = fetch ? &m_unit.routes->fetch() : &m_unit.routes->store();
        const Route& route = *m_route;
        trace_engine(true, token, static_cast<std::int64_t>(bytes));
        ps_t t1 = 0;
        if (route.direct) {
            // PE-internal (docs/architecture.md "Where TLM payloads flow"):
            // transport() would reserve the same steps, with no payload.
            t1 = route.reserve_direct(now_ps(), bytes);
        } else {
            m_txn.ext().tile_id = static_cast<std::int64_t>(token.plan.tile_id);
            m_txn.prepare(fetch ? MsgKind::dma_read : MsgKind::dma_write, route, 0, bytes);
            t1 = m_unit.transport_ps(m_txn, kernel_ps(), local_offset_ps());
        }
        // A fetch or store command (not a composite's tile) also pays its
        // fixed cost (issue, set-up, completion: docs/timing.md T3).
        time = t1 + m_latency_ps + (token.stage().command ? m_command_ps : 0);
        return true;
    }
    // A sub-context transfer with bank runs stops while a main command
    // shares its bank (schedule semantics, bank rule).
    const sc_core::sc_event* stall_event(const TileToken& token) const override {
        const InflightCommand& cmd = *token.cmd;
        if (cmd.bank_runs.empty() || cmd.context() != ExecContext::sub) return nullptr;
        return &m_unit.banks->bank_event();
    }
    bool stalled(const TileToken& token) const override {
        return m_unit.banks->sub_stalled(*token.cmd);
    }
    [[gnu::hot]] void end_stage(TileToken& token) override {
        record_busy(stage_start());
        trace_engine(false, token, static_cast<std::int64_t>(token.stage().bytes));
        if (m_unit.m_data != nullptr) [[unlikely]]
            store_data(token);
    }

private:
    // Data mode: STORE writes the register file's tile to TCM (FETCH moves
    // the operands the GEMM then reads from TCM itself: nothing to do).
    [[gnu::cold, gnu::noinline]] void store_data(const TileToken& token) {
        if (type() != StageType::store) return;
        try {
            m_unit.m_data->store(token);
        } catch (const std::exception& e) {
            fail("command " + token.cmd->command->id + ": data: " + e.what());
        }
    }

    PeFetchStore& m_unit;
    const Route* m_route = nullptr;  // fetch() or store() of the routes port
    Transaction m_txn;
    const ps_t m_latency_ps = ns_to_ps(m_unit.config.latency_ns, "pe_fetch_store.attrs.latency_ns");
    const ps_t m_command_ps = ns_to_ps(m_unit.config.command_ns, "pe_fetch_store.attrs.command_ns");
};

// FETCH: a fetch from an operand panel waits for its tile's load (with more
// than one read channel; tile_token.h). STORE keeps the base's hook.
class PeFetchStore::FetchWorker final : public PeFetchStore::Worker {
public:
    using Worker::Worker;

protected:
    [[gnu::hot]] bool prepare_stage(TileToken& token) override {
        return token.panel_ready == nullptr || panel_tile_loaded(token);
    }
};

PeFetchStore::PeFetchStore(const sc_core::sc_module_name& name, const PeFetchStoreConfig& config,
                           TraceSink& trace, RunStatus& status)
    : RoutedNode(name),
      config(config),
      routes("routes"),
      banks("banks"),
      inboxes("inboxes"),
      m_fetch(std::make_unique<FetchWorker>(*this, StageType::fetch, trace, status)),
      m_store(std::make_unique<Worker>(*this, StageType::store, trace, status)) {
    m_fetch->spawn("fetch_worker");
    m_store->spawn("store_worker");
}

PeFetchStore::~PeFetchStore() = default;

std::vector<StageWorker*> PeFetchStore::workers() { return {m_fetch.get(), m_store.get()}; }

}  // namespace npuvp
