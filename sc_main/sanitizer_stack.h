// AddressSanitizer and SystemC's coroutines.
//
// Debian's SystemC 2.3.4 tells AddressSanitizer about each coroutine switch
// (__sanitizer_start_switch_fiber), but when control comes back to sc_main
// it hands over the wrong bounds for the main stack. From then on ASan
// refuses to clean the stack when an exception is thrown ("ASan is ignoring
// requested __asan_handle_no_return") and may report a stack-use-after-scope
// in its own frames: a false positive, which made an error raised after the
// simulation (a write to a full disk) abort the sanitizer build.
//
// MainStackAfterSimulation, alive around the sc_start() calls, gives ASan the
// main thread's real stack back (a switch from the main stack to itself) when
// it goes out of scope, normally or by an exception. Without ASan it is
// empty.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace npuvp {

class MainStackAfterSimulation {
public:
    MainStackAfterSimulation() = default;
    MainStackAfterSimulation(const MainStackAfterSimulation&) = delete;
    MainStackAfterSimulation& operator=(const MainStackAfterSimulation&) = delete;
    ~MainStackAfterSimulation() { restore(); }

private:
    static void restore() {
#if defined(__SANITIZE_ADDRESS__)
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
        void* bottom = nullptr;
        std::size_t size = 0;
        const int got = pthread_attr_getstack(&attr, &bottom, &size);
        pthread_attr_destroy(&attr);
        if (got != 0) return;
        void* fake_stack = nullptr;
        __sanitizer_start_switch_fiber(&fake_stack, bottom, size);
        __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
    }
};

}  // namespace npuvp
