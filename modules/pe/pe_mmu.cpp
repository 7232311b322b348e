#include "modules/pe/pe_mmu.h"

#include <stdexcept>
#include <string>

namespace npuvp {

PeMmu::PeMmu(const sc_core::sc_module_name& name, const PeMmuConfig& config)
    : RoutedNode(name), config(config) {
    SC_HAS_PROCESS(PeMmu);
    SC_METHOD(apply_messages);
}

void PeMmu::serve(tlm::tlm_generic_payload& payload, NpuExtension& ext, sc_core::sc_time& delay) {
    if (ext.kind != MsgKind::mmu_map && ext.kind != MsgKind::mmu_unmap) {
        payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    m_inbox.push(static_cast<const MmuMsg*>(ext.body), delay);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

// A method, not a thread: a thread's stack is a memory mapping of its own
// (two with its guard page), and Linux allows 65,530 a process (issue 38).
void PeMmu::apply_messages() {
    const MmuMsg* msg = nullptr;
    while (m_inbox.pop_ready(msg)) {
        if (msg->map)
            map(msg->va, msg->pa, msg->bytes);
        else
            unmap(msg->va, msg->bytes);
    }
}

void PeMmu::map(std::uint64_t va, std::uint64_t pa, std::uint64_t bytes) {
    const std::uint64_t page = config.page_bytes;
    if (va % page || pa % page || bytes % page || bytes == 0)
        throw std::invalid_argument(node_id() + ": map of " + std::to_string(bytes) +
                                    " bytes at va " + std::to_string(va) + " -> pa " +
                                    std::to_string(pa) + " is not whole pages of " +
                                    std::to_string(page) + " bytes");
    for (std::uint64_t off = 0; off < bytes; off += page) m_pages[(va + off) / page] = (pa + off) / page;
}

void PeMmu::unmap(std::uint64_t va, std::uint64_t bytes) {
    const std::uint64_t page = config.page_bytes;
    for (std::uint64_t off = 0; off < bytes; off += page) m_pages.erase((va + off) / page);
}

std::optional<std::uint64_t> PeMmu::translate(std::uint64_t va) const {
    const std::uint64_t page = config.page_bytes;
    auto it = m_pages.find(va / page);
    if (it == m_pages.end()) return std::nullopt;
    return it->second * page + va % page;
}

}  // namespace npuvp
