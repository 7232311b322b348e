// Physical address -> memory target (SPEC §2; seed 001 D5, ADR-0017 D9).
//
// The PA space of the whole system, as implemented:
//   HBM window  [0, cubes · slices · slice_bytes): cube-major, then slice:
//       g = pa / slice_bytes; cube = g / slices_per_cube; slice = g % slices_per_cube
//       -> sip{cube / cubes_per_sip}.cube{cube % cubes_per_sip}.hbm_ctrl.pe{slice}
//   SRAM window [sram_base, sram_base + cubes · sram_bytes): one window per cube
//       -> sip{s}.cube{c}.shared_sram
// Cubes are numbered globally: cube = sip · cubes_per_sip + cube-in-sip.
// Anything else is out of range, an error naming the address.
#pragma once

#include <cstdint>
#include <string>

#include "modules/common/config.h"

namespace npuvp {

struct DecodedAddress {
    std::string node_id;   // e.g. "sip0.cube0.hbm_ctrl.pe3"
    std::uint64_t offset;  // within that target
    int sip;
    int cube;              // within its SIP
    int slice;             // HBM slice (= PE index); -1 for shared SRAM
};

// The same without the node id string (no allocation): for run-time lookups.
struct AddressLocation {
    int sip;
    int cube;
    int slice;  // -1 for shared SRAM
    std::uint64_t offset;
};

class AddressResolver {
public:
    // Throws std::out_of_range naming the address when it decodes to nothing.
    AddressLocation locate(std::uint64_t pa) const;

    explicit AddressResolver(const TopologyConfig& topo) : m_topo(topo) {}

    // Throws std::out_of_range naming the address when it decodes to nothing.
    DecodedAddress resolve(std::uint64_t pa) const;

    // The first PA of an HBM slice or of a cube's shared SRAM.
    std::uint64_t hbm_base(int sip, int cube, int slice) const;
    std::uint64_t sram_base(int sip, int cube) const;
    std::uint64_t hbm_end() const;

private:
    const TopologyConfig& m_topo;
};

}  // namespace npuvp
