// The bytes a payload's data pointer points at (TLM-2.0 base protocol: the
// data pointer and length describe the bytes the transaction moves).
//
// npuvp models time, not values: no npuvp target reads or writes payload
// data. A third-party target may (a memory model copies into or out of it),
// so every payload's data pointer is real memory of the payload's length.
// Payloads share two scratch stores, one for writes (whose bytes nobody
// changes while they travel, as §14.7 asks) and one for reads (whose bytes a
// target fills), each grown to the largest transfer so far:
// anonymous memory mapped without reserve, so pages nobody touches cost no
// RAM, and no payload allocates.
#pragma once

#include <cstdint>

namespace npuvp {

// A buffer of at least `bytes` bytes for a read (`read`) or a write (its
// content is unspecified and shared by every payload of that command). Pointers handed out stay valid for the whole process:
// growing maps a larger region and keeps the old ones.
// (Inline while the store is large enough, as it is for every transfer
// after the first of its size: a DMA stage's path.)
namespace detail {
struct PayloadStore {
    unsigned char* region = nullptr;
    std::uint64_t size = 0;
};
inline PayloadStore g_payload_stores[2];  // for writes, for reads
unsigned char* grow_payload_store(PayloadStore& store, std::uint64_t bytes);
}  // namespace detail

inline unsigned char* shared_payload_bytes(std::uint64_t bytes, bool read) {
    detail::PayloadStore& store = detail::g_payload_stores[read ? 1 : 0];
    return bytes <= store.size ? store.region : detail::grow_payload_store(store, bytes);
}

}  // namespace npuvp
