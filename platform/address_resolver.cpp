#include "platform/address_resolver.h"

#include <sstream>
#include <stdexcept>

namespace npuvp {
namespace {

std::string cube_prefix(int sip, int cube) {
    return "sip" + std::to_string(sip) + ".cube" + std::to_string(cube);
}

}  // namespace

std::uint64_t AddressResolver::hbm_end() const {
    const auto& mm = m_topo.cube.memory_map;
    const std::uint64_t cubes =
        static_cast<std::uint64_t>(m_topo.system.sips) * m_topo.system.cubes_per_sip;
    return cubes * mm.hbm_slices_per_cube * mm.hbm_slice_bytes;
}

std::uint64_t AddressResolver::hbm_base(int sip, int cube, int slice) const {
    const auto& mm = m_topo.cube.memory_map;
    const std::uint64_t global_cube =
        static_cast<std::uint64_t>(sip) * m_topo.system.cubes_per_sip + cube;
    return (global_cube * mm.hbm_slices_per_cube + slice) * mm.hbm_slice_bytes;
}

std::uint64_t AddressResolver::sram_base(int sip, int cube) const {
    const std::uint64_t global_cube =
        static_cast<std::uint64_t>(sip) * m_topo.system.cubes_per_sip + cube;
    return m_topo.cube.memory_map.sram_base + global_cube * m_topo.cube.shared_sram.size_bytes;
}

AddressLocation AddressResolver::locate(std::uint64_t pa) const {
    const auto& mm = m_topo.cube.memory_map;
    const int cubes_per_sip = m_topo.system.cubes_per_sip;
    const std::uint64_t cubes = static_cast<std::uint64_t>(m_topo.system.sips) * cubes_per_sip;
    if (pa < hbm_end()) {
        const std::uint64_t g = pa / mm.hbm_slice_bytes;
        const int global_cube = static_cast<int>(g / mm.hbm_slices_per_cube);
        return {global_cube / cubes_per_sip, global_cube % cubes_per_sip,
                static_cast<int>(g % mm.hbm_slices_per_cube), pa % mm.hbm_slice_bytes};
    }
    const std::uint64_t sram_bytes = m_topo.cube.shared_sram.size_bytes;
    if (pa >= mm.sram_base && pa - mm.sram_base < cubes * sram_bytes) {
        const int global_cube = static_cast<int>((pa - mm.sram_base) / sram_bytes);
        return {global_cube / cubes_per_sip, global_cube % cubes_per_sip, -1,
                (pa - mm.sram_base) % sram_bytes};
    }
    std::ostringstream msg;
    msg << "physical address 0x" << std::hex << pa << " is outside every memory window (HBM [0x0, 0x"
        << hbm_end() << "), shared SRAM [0x" << mm.sram_base << ", 0x"
        << mm.sram_base + cubes * sram_bytes << "))";
    throw std::out_of_range(msg.str());
}

DecodedAddress AddressResolver::resolve(std::uint64_t pa) const {
    const AddressLocation at = locate(pa);
    const std::string prefix = cube_prefix(at.sip, at.cube);
    return {at.slice < 0 ? prefix + ".shared_sram" : prefix + ".hbm_ctrl.pe" + std::to_string(at.slice),
            at.offset, at.sip, at.cube, at.slice};
}

}  // namespace npuvp
