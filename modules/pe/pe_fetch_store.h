// PE_FETCH_STORE (seed 000 §D1, §D5): the only TCM <-> register-file
// gateway; its fetch-store-to-TCM link carries fetch_store_to_tcm_bw_gbs.
#pragma once

#include "modules/common/config.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeFetchStore : public RoutedNode {
public:
    // Parameters
    const PeFetchStoreConfig& config;

    PeFetchStore(const sc_core::sc_module_name& name, const PeFetchStoreConfig& config)
        : RoutedNode(name), config(config) {}
    const char* kind() const override { return "pe_fetch_store"; }
};

}  // namespace npuvp
