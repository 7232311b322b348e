// The builtin.* factories. Each takes its own config section from the
// topology and hands the module nothing else (STYLE: modules take a const& to
// their config). A new variant of a block is one more add() here.
#include "modules/cube/memory_target.h"
#include "modules/cube/mesh_noc.h"
#include "platform/impl_registry.h"
#include "modules/pe/pe_ipcq.h"
#include "modules/pe/pe_scheduler.h"
#include "platform/platform.h"
#include "platform/rtl_support.h"

namespace npuvp {
namespace {

template <class Module, class Make>
void add(ImplRegistry& registry, const char* kind, const char* impl, Make make) {
    registry.add<Module>(kind, impl,
                         ImplRegistry::Factory<Module>(
                             [make](const sc_core::sc_module_name& name, const NodeEnv& env) {
                                 return std::unique_ptr<Module>(make(name, env));
                             }));
}

ImplRegistry make_builtin_registry() {
    ImplRegistry r;
    using Name = const sc_core::sc_module_name&;
    using Env = const NodeEnv&;
    add<IoCpu>(r, "io_cpu", "builtin.io_cpu",
               [](Name n, Env c) {
                   return new IoCpu(n, c.topo.system.io_cpu, c.topo.cube.m_cpu, c.topo.system,
                                    c.ids.sip, c.trace, c.status);
               });
    add<MCpu>(r, "m_cpu", "builtin.m_cpu",
              [](Name n, Env c) {
                  return new MCpu(n, c.topo.cube.m_cpu, c.ids.sip, c.ids.cube, c.trace, c.status);
              });
    add<Noc>(r, "noc", "builtin.mesh_noc", [](Name n, Env c) {
        return new MeshNoc(n, c.topo.cube.noc, c.topo.cube.pe_layout, c.topo.wire);
    });
    add<MemoryTarget>(r, "hbm_ctrl", "builtin.hbm_ctrl", [](Name n, Env c) {
        const auto& cfg = c.topo.cube.hbm_ctrl;
        return new MemoryTarget(n, "hbm_ctrl", cfg.bw_gbs, cfg.latency_ns,
                                c.topo.cube.memory_map.hbm_slice_bytes);
    });
    add<MemoryTarget>(r, "shared_sram", "builtin.shared_sram", [](Name n, Env c) {
        const auto& cfg = c.topo.cube.shared_sram;
        return new MemoryTarget(n, "shared_sram", cfg.bw_gbs, cfg.latency_ns, cfg.size_bytes);
    });
    add<PeCpu>(r, "pe_cpu", "builtin.pe_cpu",
               [](Name n, Env c) { return new PeCpu(n, c.topo.cube.pe_template.cpu, c.trace); });
    add<PeScheduler>(r, "pe_scheduler", "builtin.pe_scheduler", [](Name n, Env c) {
        const auto& t = c.topo.cube.pe_template;
        return new PeScheduler(n, t.scheduler, t.tcm, t.dma, c.trace, c.status);
    });
    add<PeDma>(r, "pe_dma", "builtin.pe_dma",
               [](Name n, Env c) {
                   return new PeDma(n, c.topo.cube.pe_template.dma, c.topo.cube.pe_template.tcm, c.trace, c.status);
               });
    add<PeFetchStore>(r, "pe_fetch_store", "builtin.pe_fetch_store", [](Name n, Env c) {
        return new PeFetchStore(n, c.topo.cube.pe_template.fetch_store, c.trace, c.status);
    });
    add<PeGemm>(r, "pe_gemm", "builtin.pe_gemm",
                [](Name n, Env c) {
                    return new PeGemm(n, c.topo.cube.pe_template.gemm, c.trace, c.status);
                });
    add<PeMath>(r, "pe_math", "builtin.pe_math",
                [](Name n, Env c) {
                    return new PeMath(n, c.topo.cube.pe_template.math, c.trace, c.status);
                });
    add<PeTcm>(r, "pe_tcm", "builtin.pe_tcm",
               [](Name n, Env c) { return new PeTcm(n, c.topo.cube.pe_template.tcm); });
    add<PeMmu>(r, "pe_mmu", "builtin.pe_mmu",
               [](Name n, Env c) { return new PeMmu(n, c.topo.cube.pe_template.mmu); });
    add<PeIpcq>(r, "pe_ipcq", "builtin.pe_ipcq",
                [](Name n, Env c) {
                    return new PeIpcq(n, c.topo.cube.pe_template.ipcq, c.trace, c.status);
                });
    add_rtl_impls(r);  // rtl.* (docs/rtl.md), when built with Verilator
    return r;
}

}  // namespace

const ImplRegistry& builtin_registry() {
    static const ImplRegistry registry = make_builtin_registry();
    return registry;
}

}  // namespace npuvp
