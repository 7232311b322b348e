// Shared by the libFuzzer harnesses (docs/fuzzing.md): what counts as a
// finding. A loader may reject any input, but only with a ConfigError (the
// CLI's exit 2, naming file, line, column and key). Anything else escaping it
// is a finding too, though not a crash: it is written once per distinct
// message to stderr, and the input is kept under NPUVP_FUZZ_KEEP (a folder)
// when that is set; NPUVP_FUZZ_STRICT=1 makes it abort instead, so libFuzzer
// stops and saves the input as a crash. Crashes, sanitizer reports, hangs and
// runaway memory are always fatal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <typeinfo>

#include "config/config_error.h"

namespace npuvp::fuzz {

inline std::string source_dir() { return NPUVP_SOURCE_DIR; }

inline bool strict() {
    const char* s = std::getenv("NPUVP_FUZZ_STRICT");
    return s && std::string(s) == "1";
}

// FNV-1a of the input, for a kept input's name.
inline std::uint64_t hash_of(const std::uint8_t* data, std::size_t size) {
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

// An exception other than ConfigError left the code under test: `what`
// says which kind and its message.
inline void note_unexpected(const char* harness, const std::string& what, const std::uint8_t* data,
                            std::size_t size) {
    static std::set<std::string> seen;
    if (strict()) {
        std::fprintf(stderr, "npuvp fuzz %s: unexpected exception: %s\n", harness, what.c_str());
        std::abort();
    }
    if (!seen.insert(what).second) return;
    std::fprintf(stderr, "npuvp fuzz %s: unexpected exception (not a ConfigError): %s\n", harness,
                 what.c_str());
    if (const char* keep = std::getenv("NPUVP_FUZZ_KEEP")) {
        char name[64];
        std::snprintf(name, sizeof name, "/unexpected-%s-%016llx", harness,
                      static_cast<unsigned long long>(hash_of(data, size)));
        std::ofstream out(std::string(keep) + name, std::ios::binary);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
}

// Runs `body`; a ConfigError is the expected rejection (returns false), any
// other exception is noted (returns false), success returns true.
inline bool guarded(const char* harness, const std::uint8_t* data, std::size_t size,
                    const std::function<void()>& body) {
    try {
        body();
        return true;
    } catch (const ConfigError&) {
        return false;
    } catch (const std::exception& e) {
        note_unexpected(harness, std::string(typeid(e).name()) + ": " + e.what(), data, size);
        return false;
    } catch (...) {
        note_unexpected(harness, "a non-std exception", data, size);
        return false;
    }
}

}  // namespace npuvp::fuzz

// libsystemc's main() calls sc_main; libFuzzer brings its own main(), so the
// harnesses define sc_main only to satisfy the library's reference.
#define NPUVP_FUZZ_SC_MAIN_STUB \
    extern "C" int sc_main(int, char*[]) { return 0; }
