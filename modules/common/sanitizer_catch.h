// An exception caught inside the simulation, under AddressSanitizer.
//
// Debian's SystemC 2.3.4 tells ASan about each coroutine switch, but hands
// it wrong bounds for the main stack when control comes back from a
// coroutine (sc_main/sanitizer_stack.h). A throw on the main stack (in a
// method process, in the scheduler's update phase) then cannot clean the
// frames it unwinds ("ASan is ignoring requested __asan_handle_no_return"),
// and their stale redzones are reported in the next calls made from the
// catching frame: a false stack-buffer-overflow (google/sanitizers#189).
//
// clean_stack_after_catch(), called in a catch block on the main stack,
// gives ASan the main stack's real bounds back (a switch from the main stack
// to itself) and unpoisons the dead stack below the catching frame, as the
// throw would have. On a coroutine's stack, and without ASan, it does
// nothing.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace npuvp {

// Gives ASan the main thread's real stack (a switch from the main stack to
// itself) when called on it; returns false elsewhere (a coroutine's stack)
// or when the bounds cannot be read. `low` and `size` are the stack's.
inline bool restore_main_stack_bounds([[maybe_unused]] const char*& low, [[maybe_unused]] std::size_t& size) {
#if defined(__SANITIZE_ADDRESS__)
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return false;
    void* bottom = nullptr;
    const int got = pthread_attr_getstack(&attr, &bottom, &size);
    pthread_attr_destroy(&attr);
    if (got != 0) return false;
    low = static_cast<const char*>(bottom);
    const char* frame = static_cast<const char*>(__builtin_frame_address(0));
    if (frame < low || frame >= low + size) return false;  // a coroutine's stack: ASan knows it
    void* fake_stack = nullptr;
    __sanitizer_start_switch_fiber(&fake_stack, bottom, size);
    __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
    return true;
#else
    return false;
#endif
}

inline void clean_stack_after_catch() {
#if defined(__SANITIZE_ADDRESS__)
    const char* low = nullptr;
    std::size_t size = 0;
    if (!restore_main_stack_bounds(low, size)) return;
    // What __asan_handle_no_return() would clean: the dead stack below this
    // frame. (Not that call itself: it reads the signal stack into a frame
    // of its own, which may lie on a stale redzone.)
    const char* frame = static_cast<const char*>(__builtin_frame_address(0));
    __asan_unpoison_memory_region(low, static_cast<std::size_t>(frame - low));
#endif
}

}  // namespace npuvp
