// PE_MMU (SPEC §5; seed 000 §D1 "pe_mmu — VA->PA per access"): the PE's page
// table. M_CPU maps and unmaps pages (before the cube command path exists, the
// workload's `mmu:` section does); PE_DMA asks for a translation on every
// access to a virtual address, which costs translate_ns. An unmapped page is a
// fault: the caller reports it, naming PE, command and address.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "modules/common/config.h"
#include "modules/common/timed_inbox.h"
#include "modules/system/messages.h"
#include "tlm_sockets/routed_node.h"

namespace npuvp {

// What PE_DMA asks of the PE's MMU (its `mmu` port).
class AddressTranslator : public virtual sc_core::sc_interface {
public:
    // The physical address of `va`, or nothing on a fault.
    virtual std::optional<std::uint64_t> translate(std::uint64_t va) const = 0;
    // What one translation costs (translate_ns).
    virtual sc_core::sc_time translate_time() const = 0;
    // The page size: a transfer is translated page by page.
    virtual std::uint64_t page_bytes() const = 0;
};

class PeMmu : public RoutedNode, public AddressTranslator {
public:
    // Parameters
    const PeMmuConfig& config;

    PeMmu(const sc_core::sc_module_name& name, const PeMmuConfig& config);
    const char* kind() const override { return "pe_mmu"; }

    // Maps [va, va + bytes) to [pa, pa + bytes), whole pages. Throws
    // std::invalid_argument when va, pa or bytes is not page aligned.
    void map(std::uint64_t va, std::uint64_t pa, std::uint64_t bytes);
    void unmap(std::uint64_t va, std::uint64_t bytes);
    // AddressTranslator
    std::optional<std::uint64_t> translate(std::uint64_t va) const override;
    sc_core::sc_time translate_time() const override {
        return sc_core::sc_time::from_value(ns_to_ps(config.translate_ns, "pe_mmu.attrs.translate_ns"));
    }
    std::uint64_t page_bytes() const override { return config.page_bytes; }
    std::size_t mapped_pages() const { return m_pages.size(); }

protected:
    // MmuMap / MmuUnmap from M_CPU (seed 001 D7), applied when they arrive.
    void serve(tlm::tlm_generic_payload& payload, NpuExtension& ext,
               sc_core::sc_time& delay) override;

private:
    void apply_messages();

    TimedInbox<const MmuMsg*> m_inbox;
    std::map<std::uint64_t, std::uint64_t> m_pages;  // virtual page -> physical page
};

}  // namespace npuvp
