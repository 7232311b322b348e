// What the cube- and system-level command processors (IO_CPU, M_CPU) may ask
// of the elaborated machine: routes (computed by the platform once, SPEC §2)
// and the nodes they talk to. Implemented by platform::Platform.
#pragma once

#include <cstdint>

#include "tlm_sockets/route.h"

namespace npuvp {

class RoutedNode;

enum class NodeRole { io_cpu, m_cpu, pe_cpu, pe_mmu, hbm_slice };

class Fabric {
public:
    virtual ~Fabric() = default;
    virtual const Route& route(RoutedNode& from, RoutedNode& to) = 0;
    // The route of a read: the request goes from -> to, the data comes back,
    // so the link hops are those of the to -> from direction (T1: directions
    // are separate hops).
    virtual const Route& read_route(RoutedNode& from, RoutedNode& to) = 0;
    // `pe` is the PE (or HBM slice) index; ignored for io_cpu and m_cpu,
    // `cube` ignored for io_cpu.
    virtual RoutedNode& node(NodeRole role, int sip, int cube, int pe) = 0;
    virtual std::uint64_t hbm_base(int sip, int cube, int slice) const = 0;
    virtual std::uint64_t hbm_slice_bytes() const = 0;
    virtual int pes_per_cube() const = 0;
};

}  // namespace npuvp
