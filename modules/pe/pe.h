// The PE (seed 000 §D1, §D4, §D6; SPEC §5): one module that owns its nine
// blocks (PE_CPU, PE_SCHEDULER, PE_DMA, PE_FETCH_STORE, PE_GEMM, PE_MATH,
// PE_TCM, PE_MMU, PE_IPCQ), the compute slot GEMM and MATH share
// (`accel_slot`) and the eight stage inboxes, and binds the blocks' ports to
// each other. Each block is made by the factory its `impl:` names.
//
// This is the one place that lists the PE's engines: their stage workers,
// their VCD traces, their work counts, their busy times, their RTL blocks,
// the nodes the cube attaches to its mesh and the template's intra-PE edges.
// (How the outputs show each engine kind is its row in engine_kinds.h.)
// Adding an engine kind is its block, its row and these lists
// (docs/architecture.md, "How to add an engine").
//
// What the PE does not bind, because it reaches outside the PE:
//  - `routes`, which the platform implements (modules never compute routes);
//  - `dma().peers`, the IPCQ of every PE of the cube, by PE index (one list
//    per cube);
//  - `scheduler().set_home_pa()`, the PE's own HBM slice (T2).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <systemc>

#include "modules/common/fifo_resource.h"
#include "modules/common/node_env.h"
#include "modules/common/rtl_block.h"
#include "modules/pe/engine_kinds.h"
#include "modules/pe/pe_cpu.h"
#include "modules/pe/pe_dma.h"
#include "modules/pe/pe_fetch_store.h"
#include "modules/pe/pe_gemm.h"
#include "modules/pe/pe_ipcq.h"
#include "modules/pe/pe_math.h"
#include "modules/pe/pe_mmu.h"
#include "modules/pe/pe_routes.h"
#include "modules/pe/pe_scheduler.h"
#include "modules/pe/pe_tcm.h"
#include "modules/pe/stage_inboxes.h"
#include "modules/pe/stage_worker.h"

namespace npuvp {

class PeData;

class Pe : public sc_core::sc_module, public EngineState {
public:
    // Ports: the routes its blocks use, computed by the platform (SPEC §2);
    // bound through to PE_CPU, PE_DMA and PE_FETCH_STORE.
    sc_core::sc_port<PeRoutes> routes;

    // Builds the blocks in template order, each with the impl the template
    // names, made by `impls` (the ImplRegistry, or anything with
    // create<Base>(kind, impl, name, env)); then accel_slot and the inboxes;
    // then binds them. `env` is the PE's (ids.pe its index in the cube).
    template <class Factory>
    Pe(const sc_core::sc_module_name& name, const NodeEnv& env, const Factory& impls);
    ~Pe() override;

    int index() const { return m_index; }
    PeCpu& cpu() const { return *m_cpu; }
    PeScheduler& scheduler() const { return *m_scheduler; }
    PeDma& dma() const { return *m_dma; }
    PeFetchStore& fetch_store() const { return *m_fetch_store; }
    PeGemm& gemm() const { return *m_gemm; }
    PeMath& math() const { return *m_math; }
    PeTcm& tcm() const { return *m_tcm; }
    PeMmu& mmu() const { return *m_mmu; }
    PeIpcq& ipcq() const { return *m_ipcq; }
    // seed 000 §D4: the one compute slot of PE_GEMM and PE_MATH.
    FifoResource& accel_slot() const { return *m_accel_slot; }
    // SPEC §5 T6: one sc_fifo per StageType, depth inbox_depth.
    StageInboxes& inboxes() const { return *m_inboxes; }
    // EngineState (PE_SCHEDULER's `engines` port): nothing waits in the
    // stage's inbox and one of its workers holds no token.
    bool engine_free(StageType type) const override;
    // Data mode (docs/workload.md "Operand data"), before the simulation
    // starts: the data plane its DMA, STORE, GEMM and MATH stages use.
    void set_data(PeData* data);

    // The blocks in the order they were built, and whether each attaches to
    // the PE's mesh router (the others are reached only inside the PE).
    struct Block {
        RoutedNode* node;
        bool attached;
    };
    const std::vector<Block>& blocks() const { return m_blocks; }
    // The blocks attached to the PE's router, in the order their attach
    // links are made, and whether each sends onto the mesh (PE_MMU and
    // PE_IPCQ only receive: their router-bound link would carry nothing, so
    // it is not made).
    struct Attached {
        RoutedNode* node;
        bool sends;
    };
    std::vector<Attached> attached_nodes() const;
    // seed 000 §D8: the template's directed intra-PE edges that carry
    // transfers, in link order: PE_CPU -> PE_SCHEDULER (commands) and
    // fetch_store <-> TCM (FETCH / STORE data). The other edges seed 000 §D8
    // draws are not made: tokens pass between engines through the stage
    // inboxes, not over a link (the *_mm keys of those edges must be 0,
    // docs/schema.md). `mm` is the wire length (0 for the fetch_store <->
    // TCM pair, whose bandwidth is `bw_gbs`).
    struct Edge {
        RoutedNode* from;
        RoutedNode* to;
        double mm;
        double bw_gbs;
    };
    std::vector<Edge> edges() const;

    // Every stage worker, in a fixed order.
    std::vector<StageWorker*> workers() const;

    // The decoupled pipeline (docs/architecture.md): the PE's PipelineClock
    // runs on `calendar` from now on, and with it the method stage workers,
    // the inboxes and the scheduler's feed loop and dispatch pass (before
    // the simulation starts; the platform's Decoupler decides).
    void decouple(PipelineCalendar& calendar);
    bool decoupled() const { return m_decoupled; }
    // Every block whose engine is Verilated RTL (docs/rtl.md).
    std::vector<RtlBlock*> rtl_blocks() const;

    // Work the pipeline did so far (docs/speed.md): tiles fed, stage events
    // (DMA channel grants + FETCH, STORE, GEMM, MATH stages), commands
    // completed, method activations (stage workers, feed loop, completion).
    struct Work {
        std::uint64_t tiles = 0, stage_events = 0, commands = 0, activations = 0;
    };
    Work work() const;
    // The busy time so far of the engine that runs `stage`: its workers'
    // (for PE_DMA, its channels' of that direction or vc_comm).
    sc_core::sc_time busy_time(StageType stage) const;
    // The busy time of each engine kind with a busy row (engine_kinds.h),
    // by its lane (DMA_READ, ...), in engine_kinds order.
    struct EngineBusy {
        const char* engine;
        sc_core::sc_time busy;
    };
    std::vector<EngineBusy> engine_busy() const;

    // VCD (SPEC §7): the shadow signals of each block whose id `wanted`
    // accepts, and of the PE itself (accel_slot, inbox fills) if its id is
    // wanted; appends the ids traced to `traced`, in a fixed order.
    void add_traces(sc_core::sc_trace_file* tf,
                    const std::function<bool(const std::string&)>& wanted,
                    std::vector<std::string>& traced) const;

private:
    // accel_slot, the inboxes and every binding inside the PE.
    void build_channels(const NodeEnv& env);

    int m_index;
    const PeLinksConfig& m_links;
    std::vector<Block> m_blocks;
    std::unique_ptr<PeCpu> m_cpu;
    std::unique_ptr<PeScheduler> m_scheduler;
    std::unique_ptr<PeDma> m_dma;
    std::unique_ptr<PeFetchStore> m_fetch_store;
    std::unique_ptr<PeGemm> m_gemm;
    std::unique_ptr<PeMath> m_math;
    std::unique_ptr<PeTcm> m_tcm;
    std::unique_ptr<PeMmu> m_mmu;
    std::unique_ptr<PeIpcq> m_ipcq;
    std::unique_ptr<FifoResource> m_accel_slot;
    std::unique_ptr<StageInboxes> m_inboxes;
    std::array<std::vector<StageWorker*>, stage_type_count> m_workers_of{};  // by stage type
    bool m_decoupled = false;
};

template <class Factory>
Pe::Pe(const sc_core::sc_module_name& name, const NodeEnv& env, const Factory& impls)
    : sc_core::sc_module(name),
      routes("routes"),
      m_index(env.ids.pe),
      m_links(env.topo.cube.pe_template.links) {
    const PeTemplateConfig& t = env.topo.cube.pe_template;
    // Each block's name inside the PE is its key in pe_template.components.
    auto make = [&](auto& block, const char* kind, const std::string& impl, bool attached) {
        using Base = typename std::remove_reference_t<decltype(block)>::element_type;
        block = impls.template create<Base>(kind, impl,
                                            sc_core::sc_module_name(t.names.at(kind).c_str()), env);
        m_blocks.push_back({block.get(), attached});
    };
    make(m_cpu, "pe_cpu", t.cpu.impl, true);
    make(m_scheduler, "pe_scheduler", t.scheduler.impl, false);
    make(m_dma, "pe_dma", t.dma.impl, true);
    make(m_fetch_store, "pe_fetch_store", t.fetch_store.impl, false);
    make(m_gemm, "pe_gemm", t.gemm.impl, false);
    make(m_math, "pe_math", t.math.impl, false);
    make(m_tcm, "pe_tcm", t.tcm.impl, false);
    make(m_mmu, "pe_mmu", t.mmu.impl, true);
    make(m_ipcq, "pe_ipcq", t.ipcq.impl, true);
    build_channels(env);
}

}  // namespace npuvp
