// Data mode (docs/workload.md "Operand data", docs/rtl.md "Data mode"): the
// bytes a memory target or a TCM holds, when the workload carries data.
//
// Off (the default: no `data` in the workload), no store exists and nothing
// here runs. On, a memory target (HBM slice, shared SRAM) and each PE's TCM
// own a DataStore: sparse pages, each allocated on its first write; a page
// never written reads as zeros. Addresses are the target's own (a physical
// address for memory, an offset for TCM), any 64-bit value.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>

namespace npuvp {

class DataStore {
public:
    static constexpr std::uint64_t kPageBytes = 4096;

    void read(std::uint64_t addr, std::uint8_t* dst, std::uint64_t bytes) const {
        while (bytes != 0) {
            const std::uint64_t in_page = addr % kPageBytes;
            const std::uint64_t n = std::min(bytes, kPageBytes - in_page);
            const auto it = m_pages.find(addr / kPageBytes);
            if (it == m_pages.end())
                std::memset(dst, 0, n);
            else
                std::memcpy(dst, it->second.get() + in_page, n);
            addr += n;
            dst += n;
            bytes -= n;
        }
    }
    void write(std::uint64_t addr, const std::uint8_t* src, std::uint64_t bytes) {
        while (bytes != 0) {
            const std::uint64_t in_page = addr % kPageBytes;
            const std::uint64_t n = std::min(bytes, kPageBytes - in_page);
            auto& page = m_pages[addr / kPageBytes];
            if (!page) page = std::make_unique<std::uint8_t[]>(kPageBytes);  // zeroed
            std::memcpy(page.get() + in_page, src, n);
            addr += n;
            src += n;
            bytes -= n;
        }
    }
    // Pages written so far (a statistic; each is kPageBytes of host memory).
    std::size_t pages() const { return m_pages.size(); }

private:
    std::unordered_map<std::uint64_t, std::unique_ptr<std::uint8_t[]>> m_pages;
};

// The machine's memory by physical address, as a PE's DMA sees it in data
// mode: each access goes to the stores of the memory targets it covers
// (platform/data_mode.cpp). Throws std::out_of_range outside every window.
class MemoryData {
public:
    virtual void read(std::uint64_t pa, std::uint8_t* dst, std::uint64_t bytes) = 0;
    virtual void write(std::uint64_t pa, const std::uint8_t* src, std::uint64_t bytes) = 0;

protected:
    ~MemoryData() = default;
};

}  // namespace npuvp
