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

#include "modules/common/sanitizer_catch.h"

namespace npuvp {

class MainStackAfterSimulation {
public:
    MainStackAfterSimulation() = default;
    MainStackAfterSimulation(const MainStackAfterSimulation&) = delete;
    MainStackAfterSimulation& operator=(const MainStackAfterSimulation&) = delete;
    ~MainStackAfterSimulation() {
        const char* low = nullptr;
        std::size_t size = 0;
        restore_main_stack_bounds(low, size);
    }
};

}  // namespace npuvp
