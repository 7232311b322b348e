// What every module factory receives besides its own config section: where the
// node sits in the machine and the services it may use (the one trace sink).
#pragma once

#include "modules/common/config.h"

namespace npuvp {

class TraceSink;
class RunStatus;

struct NodeIds {
    int sip = -1;
    int cube = -1;  // index within its SIP
    int pe = -1;    // index within its cube
    int router = -1;  // mesh router index, for NoC routers
};

struct NodeEnv {
    const TopologyConfig& topo;
    NodeIds ids;
    TraceSink& trace;
    RunStatus& status;
};

}  // namespace npuvp
