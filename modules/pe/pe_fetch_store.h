// PE_FETCH_STORE (seed 000 §D1, §D5; SPEC §3 T2): the only gateway between TCM
// and the register file, so GEMM and MATH stay pure compute and TCM contention
// shows. Two workers, as the seed's separate fetch and store units: FETCH
// (TCM read port -> fetch link) and STORE (store link -> TCM write port), each
// a T1 transfer over the PE's fetch-store <-> TCM link (fetch_store_to_tcm_bw_gbs)
// plus latency_ns.
#pragma once

#include <memory>
#include <vector>

#include "modules/common/config.h"
#include "modules/common/run_status.h"
#include "modules/common/trace.h"
#include "modules/pe/pe_routes.h"
#include "modules/pe/stage_worker.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeFetchStore : public RoutedNode {
public:
    // Parameters
    const PeFetchStoreConfig& config;

    PeFetchStore(const sc_core::sc_module_name& name, const PeFetchStoreConfig& config,
                 TraceSink& trace, RunStatus& status);
    ~PeFetchStore() override;
    const char* kind() const override { return "pe_fetch_store"; }

    void attach(PeRoutes& routes) { m_routes = &routes; }
    std::vector<StageWorker*> workers();

private:
    class Worker;
    PeRoutes* m_routes = nullptr;
    std::unique_ptr<Worker> m_fetch;
    std::unique_ptr<Worker> m_store;
};

}  // namespace npuvp
