// PE_FETCH_STORE (seed 000 §D1, §D5; SPEC §3 T2): the only gateway between TCM
// and the register file, so GEMM and MATH stay pure compute and TCM contention
// shows. Two workers, as the seed's separate fetch and store units: FETCH
// (TCM read port -> fetch link) and STORE (store link -> TCM write port), each
// a T1 transfer over the PE's fetch-store <-> TCM link (fetch_store_to_tcm_bw_gbs)
// plus latency_ns. A sub-context fetch / store (a simple command) makes no
// progress while a main-context command runs on one of its TCM banks: main
// starves sub (seed 002), so its time stretches by the overlap.
#pragma once

#include <memory>
#include <vector>

#include "modules/common/config.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/pe/context_scheduler.h"
#include "modules/pe/pe_routes.h"
#include "modules/pe/stage_worker.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeData;

class PeFetchStore : public RoutedNode {
public:
    // Parameters
    const PeFetchStoreConfig& config;

    // Ports
    sc_core::sc_port<PeRoutes> routes;    // the fetch and store routes
    // The scheduler that says when a sub-context command is stalled by a
    // main one on its banks (seed 002).
    sc_core::sc_port<BankMonitor> banks;
    // The PE's stage inboxes: FETCH and STORE tokens in, each token out to
    // its next stage's inbox.
    StageInboxPort inboxes;

    PeFetchStore(const sc_core::sc_module_name& name, const PeFetchStoreConfig& config,
                 TraceSink& trace, RunStatus& status);
    ~PeFetchStore() override;
    const char* kind() const override { return "pe_fetch_store"; }

    // The stage workers (fetch, store).
    std::vector<StageWorker*> workers();
    // Data mode (docs/workload.md "Operand data"): STORE writes a
    // composite's result tile to TCM. Null (the default): no data.
    void set_data(PeData* data) { m_data = data; }

private:
    PeData* m_data = nullptr;
    class Worker;
    class FetchWorker;
    std::unique_ptr<Worker> m_fetch;
    std::unique_ptr<Worker> m_store;
};

}  // namespace npuvp
