// Data mode (docs/workload.md "Operand data"): set up when a workload has
// `data` or `dump` entries, before the simulation starts. It gives every
// memory target and every TCM of the machine a sparse store, writes the
// workload's initial data into them, and attaches a PeData (the PE's data
// plane, modules/pe/pe_data.h) to every PE, so that composites move and
// compute real bytes. After the run, write_dumps() writes the `dump`
// regions to their files. Off, none of this exists.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "modules/common/data_store.h"
#include "modules/pe/command.h"

namespace npuvp {

class Platform;
class PeData;

class DataMode final : public MemoryData {
public:
    // Elaboration. Throws std::out_of_range for a region outside every
    // memory window (the loader has checked them).
    DataMode(Platform& platform, const WorkloadConfig& workload);
    ~DataMode();

    // MemoryData: by physical address, across memory targets.
    void read(std::uint64_t pa, std::uint8_t* dst, std::uint64_t bytes) override;
    void write(std::uint64_t pa, const std::uint8_t* src, std::uint64_t bytes) override;

    // A region's bytes now (tests; write_dumps()).
    std::vector<std::uint8_t> region(const DataRegion& at);
    // After the run: each `dump` region to its file. Throws
    // std::runtime_error naming the file and the entry when one cannot be
    // written.
    void write_dumps(const WorkloadConfig& workload);

private:
    DataStore& store_at(std::uint64_t pa, std::uint64_t& window_left);
    template <typename Part>
    void each_target(std::uint64_t pa, std::uint64_t bytes, Part part);

    Platform& m_platform;
    std::vector<std::unique_ptr<PeData>> m_pes;
};

}  // namespace npuvp
