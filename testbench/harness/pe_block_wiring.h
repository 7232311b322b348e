// How a bench wires one PE block to its stub neighbours: one small helper per
// block binding its typed ports (its `inboxes` to the stub scheduler's) as the
// Pe module does
// (modules/pe/pe.cpp), so that when a block's ports change only these lines
// change, not the benches.
#pragma once

#include <vector>

#include "modules/pe/compute_worker.h"
#include "modules/pe/pe_dma.h"
#include "modules/pe/pe_fetch_store.h"
#include "modules/pe/pe_ipcq.h"
#include "modules/pe/pe_mmu.h"
#include "modules/pe/pe_scheduler.h"
#include "testbench/harness/stub_scheduler.h"

namespace npuvp::test {

// PE_IPCQ: the inboxes (its receiver takes IPCQ_RECV tokens).
inline void wire_pe_ipcq(PeIpcq& ipcq, StubScheduler& scheduler) {
    ipcq.inboxes.bind(scheduler.inboxes());
}

// PE_DMA: routes, the PE's MMU, the cube's IPCQs (by PE index), inboxes.
inline void wire_pe_dma(PeDma& dma, PeRoutes& routes, PeMmu& mmu, IpcqPeers& ipcqs,
                        StubScheduler& scheduler) {
    dma.routes.bind(routes);
    dma.mmu.bind(mmu);
    dma.peers.bind(ipcqs);
    dma.inboxes.bind(scheduler.inboxes());
}

// PE_FETCH_STORE: routes, the bank monitor (seed 002 starvation), inboxes.
inline void wire_pe_fetch_store(PeFetchStore& unit, PeRoutes& routes, BankMonitor& banks,
                                StubScheduler& scheduler) {
    unit.routes.bind(routes);
    unit.banks.bind(banks);
    unit.inboxes.bind(scheduler.inboxes());
}

// PE_SCHEDULER: the PE's inboxes it feeds, and the PA of the PE's own HBM
// slice (the DMA side a workload leaves out).
inline void wire_pe_scheduler(PeScheduler& scheduler, StageInboxes& inboxes, std::uint64_t home_pa) {
    for (std::size_t i = 0; i < stage_type_count; ++i) scheduler.inboxes.bind(inboxes.fifo(static_cast<StageType>(i)));
    scheduler.set_home_pa(home_pa);
}

// PE_GEMM / PE_MATH: the accel_slot they share, inboxes.
inline void wire_compute_engine(ComputeEngine& engine, FifoResource& accel_slot, StubScheduler& scheduler) {
    engine.accel_slot.bind(accel_slot);
    engine.inboxes.bind(scheduler.inboxes());
}

}  // namespace npuvp::test
