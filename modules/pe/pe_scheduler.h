// PE_SCHEDULER (seed 000 §D1, §D2): the PE's only dispatcher and the only
// writer of completion state; overhead_ns per dispatch, stage inboxes of depth
// inbox_depth. Dispatch lands with the PE pipeline issue.
#pragma once

#include "modules/common/config.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

class PeScheduler : public RoutedNode {
public:
    // Parameters
    const PeSchedulerConfig& config;

    PeScheduler(const sc_core::sc_module_name& name, const PeSchedulerConfig& config)
        : RoutedNode(name), config(config) {}
    const char* kind() const override { return "pe_scheduler"; }
};

}  // namespace npuvp
