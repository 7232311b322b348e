// The routes a PE's components use at run time, computed by the platform
// (SPEC §2: components never decide routes). The platform computes each route
// once and hands back the same object every time.
#pragma once

#include <cstdint>

#include <systemc>

#include "tlm_sockets/route.h"

namespace npuvp {
class RoutedNode;
}

namespace npuvp {

enum class DmaDirection { read, write };

// The interface of a block's `routes` port.
class PeRoutes : public virtual sc_core::sc_interface {
public:

    // This PE's node `from` to any node (e.g. PE_CPU's response to M_CPU).
    virtual const Route& between(RoutedNode& from, RoutedNode& to) = 0;
    // PE_CPU -> PE_SCHEDULER (the template's cpu_to_scheduler edge).
    virtual const Route& to_scheduler() = 0;
    // DMA channel `channel` of `dir` to or from the memory target that holds
    // physical address `pa` (T2). Throws std::out_of_range for an address
    // outside every memory window.
    virtual const Route& dma(DmaDirection dir, int channel, std::uint64_t pa) = 0;
    // The same, and the memory window [lo, lo + size) that holds `pa`: every
    // address in it has this route (a DMA worker keeps it, and asks again
    // only for an address outside it). By default a window of one byte.
    virtual const Route& dma(DmaDirection dir, int channel, std::uint64_t pa, std::uint64_t& lo,
                             std::uint64_t& size) {
        lo = pa;
        size = 1;
        return dma(dir, channel, pa);
    }
    // The vc_comm channel to the IPCQ of PE `peer` of the same cube.
    virtual const Route& comm(int peer) = 0;
    // FETCH: TCM read port -> fetch link; STORE: store link -> TCM write port.
    virtual const Route& fetch() = 0;
    virtual const Route& store() = 0;
};

}  // namespace npuvp
