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
        each_page(addr, bytes, [&](std::uint64_t page, std::uint64_t in_page, std::uint64_t done, std::uint64_t n) {
            const auto it = m_pages.find(page);
            if (it == m_pages.end())
                std::memset(dst + done, 0, n);
            else
                std::memcpy(dst + done, it->second.get() + in_page, n);
        });
    }
    void write(std::uint64_t addr, const std::uint8_t* src, std::uint64_t bytes) {
        each_page(addr, bytes, [&](std::uint64_t page, std::uint64_t in_page, std::uint64_t done, std::uint64_t n) {
            auto& p = m_pages[page];
            if (!p) p = std::make_unique<std::uint8_t[]>(kPageBytes);  // zeroed
            std::memcpy(p.get() + in_page, src + done, n);
        });
    }
    // Pages written so far (a statistic; each is kPageBytes of host memory).
    std::size_t pages() const { return m_pages.size(); }

private:
    // [addr, + bytes) page by page: fn(page index, offset in the page, bytes
    // done before this piece, bytes in this piece).
    template <class Fn>
    static void each_page(std::uint64_t addr, std::uint64_t bytes, Fn&& fn) {
        for (std::uint64_t done = 0; done != bytes;) {
            const std::uint64_t at = addr + done;
            const std::uint64_t in_page = at % kPageBytes;
            const std::uint64_t n = std::min(bytes - done, kPageBytes - in_page);
            fn(at / kPageBytes, in_page, done, n);
            done += n;
        }
    }

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
