#include "tlm_sockets/backing_store.h"

#include <sys/mman.h>

#include <new>

namespace npuvp {

unsigned char* shared_payload_bytes(std::uint64_t bytes, bool read) {
    static unsigned char* regions[2] = {nullptr, nullptr};
    static std::uint64_t sizes[2] = {0, 0};
    unsigned char*& region = regions[read ? 1 : 0];
    std::uint64_t& size = sizes[read ? 1 : 0];
    if (bytes <= size) return region;
    std::uint64_t grown = size ? size : 4096;
    while (grown < bytes) grown *= 2;
    void* p = mmap(nullptr, grown, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // The old region stays mapped: a payload still in flight may point into it.
    region = static_cast<unsigned char*>(p);
    size = grown;
    return region;
}

}  // namespace npuvp
