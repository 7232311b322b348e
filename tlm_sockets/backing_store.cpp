#include "tlm_sockets/backing_store.h"

#include <sys/mman.h>

#include <new>

namespace npuvp {

unsigned char* detail::grow_payload_store(PayloadStore& store, std::uint64_t bytes) {
    std::uint64_t grown = store.size ? store.size : 4096;
    while (grown < bytes) grown *= 2;
    void* p = mmap(nullptr, grown, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // The old region stays mapped: a payload still in flight may point into it.
    store.region = static_cast<unsigned char*>(p);
    store.size = grown;
    return store.region;
}

}  // namespace npuvp
