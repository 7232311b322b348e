#include "modules/pe/pe.h"

namespace npuvp {

Pe::~Pe() = default;

void Pe::build_channels(const NodeEnv& env) {
    // seed 000 §D4: one compute slot shared by PE_GEMM and PE_MATH.
    m_accel_slot = std::make_unique<FifoResource>("accel_slot", 1);
    m_gemm->accel_slot.bind(*m_accel_slot);
    m_math->accel_slot.bind(*m_accel_slot);

    // SPEC §5 T6: every stage inbox is an sc_fifo of depth inbox_depth, owned
    // by the PE. The scheduler feeds them; each engine block's workers take
    // their tokens from them and hand tokens on through them.
    m_inboxes = std::make_unique<StageInboxes>(
        name(), env.topo.cube.pe_template.scheduler.inbox_depth, env.trace);
    for (std::size_t i = 0; i < stage_type_count; ++i)
        m_scheduler->inboxes.bind(m_inboxes->fifo(static_cast<StageType>(i)));
    m_dma->inboxes.bind(*m_inboxes);
    m_fetch_store->inboxes.bind(*m_inboxes);
    m_gemm->inboxes.bind(*m_inboxes);
    m_math->inboxes.bind(*m_inboxes);
    m_ipcq->inboxes.bind(*m_inboxes);
    // SPEC T4: the workers ask in this PE's rank (a block alone ranks 0).
    const std::uint32_t rank = env.ids.sip < 0 ? 0 : pe_rank(env.topo, env.ids);
    for (StageWorker* w : workers()) {
        m_workers_of[static_cast<std::size_t>(w->type())].push_back(w);
        w->set_rank(rank);
    }
    for (const Block& block : m_blocks) block.node->set_request_rank(rank);
    m_scheduler->engines.bind(*this);

    m_cpu->routes.bind(routes);
    m_cpu->scheduler.bind(*m_scheduler);
    m_cpu->dma.bind(*m_dma);
    m_cpu->compute.bind(*m_gemm);
    m_cpu->compute.bind(*m_math);
    m_dma->routes.bind(routes);
    m_dma->mmu.bind(*m_mmu);
    m_fetch_store->routes.bind(routes);
    m_fetch_store->banks.bind(*m_scheduler);
}

std::vector<Pe::Attached> Pe::attached_nodes() const {
    return {{m_dma.get(), true}, {m_cpu.get(), true}, {m_mmu.get(), false}, {m_ipcq.get(), false}};
}

std::vector<Pe::Edge> Pe::edges() const {
    const PeLinksConfig& l = m_links;
    return {
        {m_cpu.get(), m_scheduler.get(), l.cpu_to_scheduler_mm, 0.0},
        // The fetch/store <-> TCM link, each direction its own hop.
        {m_fetch_store.get(), m_tcm.get(), 0.0, l.fetch_store_to_tcm_bw_gbs},
        {m_tcm.get(), m_fetch_store.get(), 0.0, l.fetch_store_to_tcm_bw_gbs},
    };
}

bool Pe::engine_free(StageType type) const {
    const auto t = static_cast<std::size_t>(type);
    if (m_inboxes->fifo(type).num_available() > 0) return false;
    for (const StageWorker* w : m_workers_of[t])
        if (!w->holding()) return true;
    return false;
}

std::vector<StageWorker*> Pe::workers() const {
    std::vector<StageWorker*> out = m_dma->workers();
    for (StageWorker* w : m_fetch_store->workers()) out.push_back(w);
    out.push_back(&m_gemm->worker());
    out.push_back(&m_math->worker());
    out.push_back(&m_ipcq->receiver());
    return out;
}

void Pe::decouple(PipelineCalendar& calendar) {
    // The pipeline's one time base: the feed loop, the method workers (the
    // IPCQ sender and receiver among them) and the inboxes all run on it.
    // A PE with a thread worker (an RTL engine) is never decoupled
    // (Decoupler::plan()).
    m_inboxes->clock().decouple(calendar);
    m_decoupled = true;
}

std::vector<RtlBlock*> Pe::rtl_blocks() const {
    std::vector<RtlBlock*> out;
    for (ComputeEngine* engine : {static_cast<ComputeEngine*>(m_gemm.get()),
                                  static_cast<ComputeEngine*>(m_math.get())})
        if (RtlBlock* b = engine->rtl()) out.push_back(b);
    return out;
}

Pe::Work Pe::work() const {
    Work work;
    work.tiles = m_scheduler->tiles_fed();
    work.commands = m_scheduler->completions().size();
    // DMA stages: one channel grant each (the DMA workers keep no stage
    // count of their own); the others count their stages.
    for (auto dir : {DmaDirection::read, DmaDirection::write})
        for (int ch = 0; ch < m_dma->channels(dir); ++ch)
            work.stage_events += m_dma->channel(dir, ch).grants();
    for (StageWorker* w : m_fetch_store->workers()) work.stage_events += w->stages_done();
    work.stage_events += m_gemm->worker().stages_done() + m_math->worker().stages_done();
    // IPCQ: a send's vc_comm grant, a receive's stage.
    work.stage_events += m_dma->comm_grants() + m_ipcq->receiver().stages_done();
    work.activations = m_scheduler->activations();
    for (StageWorker* w : workers()) work.activations += w->activations();
    return work;
}

sc_core::sc_time Pe::busy_time(StageType stage) const {
    switch (stage) {
    case StageType::dma_read: return m_dma->busy_time(DmaDirection::read);
    case StageType::dma_write: return m_dma->busy_time(DmaDirection::write);
    case StageType::fetch: return m_fetch_store->workers()[0]->busy();
    case StageType::store: return m_fetch_store->workers()[1]->busy();
    case StageType::gemm: return m_gemm->worker().busy();
    case StageType::math: return m_math->worker().busy();
    case StageType::ipcq_send: return m_dma->comm_busy_time();
    case StageType::ipcq_recv: return m_ipcq->receiver().busy();
    }
    return sc_core::SC_ZERO_TIME;
}

std::vector<Pe::EngineBusy> Pe::engine_busy() const {
    std::vector<EngineBusy> out;
    for (const EngineKind& kind : engine_kinds)
        if (kind.busy_row) out.push_back({to_string(kind.stage), busy_time(kind.stage)});
    return out;
}

void Pe::add_traces(sc_core::sc_trace_file* tf,
                    const std::function<bool(const std::string&)>& wanted,
                    std::vector<std::string>& traced) const {
    auto block = [&](const RoutedNode& node, const std::function<void()>& add) {
        if (!wanted(node.node_id_ref())) return;
        add();
        traced.push_back(node.node_id_ref());
    };
    // Every value changes in the pipeline's time, which may run ahead of
    // the kernel's: the clock shows each change when the kernel gets there.
    VcdClock& clock = m_inboxes->clock();
    block(*m_dma, [&] { m_dma->add_traces(tf, clock); });
    block(*m_fetch_store, [&] {
        const auto w = m_fetch_store->workers();
        w[0]->add_traces(tf, m_fetch_store->node_id_ref() + ".fetch", clock);
        w[1]->add_traces(tf, m_fetch_store->node_id_ref() + ".store", clock);
    });
    block(*m_gemm, [&] { m_gemm->worker().add_traces(tf, m_gemm->node_id_ref(), clock); });
    block(*m_math, [&] { m_math->worker().add_traces(tf, m_math->node_id_ref(), clock); });
    block(*m_ipcq, [&] { m_ipcq->receiver().add_traces(tf, m_ipcq->node_id_ref() + ".recv", clock); });
    block(*m_scheduler, [&] { m_scheduler->add_traces(tf, clock); });
    const std::string id = name();
    if (!wanted(id)) return;
    m_accel_slot->add_traces(tf, id + ".accel_slot", clock);
    for (std::size_t i = 0; i < stage_type_count; ++i) {
        const StageInbox& inbox = m_inboxes->fifo(static_cast<StageType>(i));
        inbox.trace_fill(tf, std::string(inbox.name()) + ".fill", clock);
    }
    traced.push_back(id);
}

void Pe::set_data(PeData* data) {
    m_dma->set_data(data);
    m_fetch_store->set_data(data);
    m_gemm->set_data(data);
    m_math->set_data(data);
}

}  // namespace npuvp
