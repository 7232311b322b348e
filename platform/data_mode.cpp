#include "platform/data_mode.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "modules/pe/pe_data.h"
#include "platform/platform.h"
#include "report/atomic_file.h"

namespace npuvp {

const char* to_string(DataSpace space) {
    switch (space) {
        case DataSpace::hbm: return "hbm";
        case DataSpace::sram: return "sram";
        case DataSpace::tcm: return "tcm";
    }
    return "?";
}

DataMode::DataMode(Platform& platform, const WorkloadConfig& workload) : m_platform(platform) {
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes) {
            for (MemoryTarget* hbm : cube.hbm) hbm->enable_data();
            if (cube.shared_sram) cube.shared_sram->enable_data();
            for (Pe* pe : cube.pes) {
                pe->tcm().enable_data();
                m_pes.push_back(std::make_unique<PeData>(*pe->tcm().data(), *this, pe->mmu()));
                pe->set_data(m_pes.back().get());
            }
        }
    for (const DataInit& init : workload.data) {
        const DataRegion& at = init.at;
        if (at.space == DataSpace::tcm)
            platform.pe(at.sip, at.cube, at.pe).tcm().data()->write(at.addr, init.bytes.data(), at.bytes);
        else
            write(at.addr, init.bytes.data(), at.bytes);
    }
}

DataMode::~DataMode() = default;

DataStore& DataMode::store_at(std::uint64_t pa, std::uint64_t& window_left) {
    const AddressLocation at = m_platform.resolver().locate(pa);
    CubeNodes& cube = m_platform.cube(at.sip, at.cube);
    MemoryTarget& target = at.slice < 0 ? *cube.shared_sram : *cube.hbm.at(static_cast<std::size_t>(at.slice));
    window_left = target.size_bytes - at.offset;
    return *target.data();
}

// A range may cross from one HBM slice into the next: `part(store, pa,
// done, n)` for each part, with its own target's store.
template <typename Part>
void DataMode::each_target(std::uint64_t pa, std::uint64_t bytes, Part part) {
    for (std::uint64_t done = 0; done < bytes;) {
        std::uint64_t left = 0;
        DataStore& store = store_at(pa + done, left);
        const std::uint64_t n = std::min(bytes - done, left);
        part(store, pa + done, done, n);
        done += n;
    }
}

void DataMode::read(std::uint64_t pa, std::uint8_t* dst, std::uint64_t bytes) {
    each_target(pa, bytes, [&](DataStore& s, std::uint64_t at, std::uint64_t done, std::uint64_t n) {
        s.read(at, dst + done, n);
    });
}

void DataMode::write(std::uint64_t pa, const std::uint8_t* src, std::uint64_t bytes) {
    each_target(pa, bytes, [&](DataStore& s, std::uint64_t at, std::uint64_t done, std::uint64_t n) {
        s.write(at, src + done, n);
    });
}

std::vector<std::uint8_t> DataMode::region(const DataRegion& at) {
    std::vector<std::uint8_t> out(at.bytes);
    if (at.space == DataSpace::tcm)
        m_platform.pe(at.sip, at.cube, at.pe).tcm().data()->read(at.addr, out.data(), at.bytes);
    else
        read(at.addr, out.data(), at.bytes);
    return out;
}

void DataMode::write_dumps(const WorkloadConfig& workload) {
    for (const DataDump& dump : workload.dumps) {
        const std::vector<std::uint8_t> bytes = region(dump.at);
        // Whole or absent, as every output file (docs/cli.md "Outputs").
        try {
            write_file_atomically(dump.file, [&](std::ostream& out) {
                out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
            });
        } catch (const std::exception& e) {
            throw std::runtime_error(dump.at.loc.file + ":" + std::to_string(dump.at.loc.line) + ":" +
                                     std::to_string(dump.at.loc.column) + ": " + dump.at.loc.key_path +
                                     ": cannot write " + dump.file + ": " + e.what());
        }
    }
}

}  // namespace npuvp
