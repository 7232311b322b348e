// libFuzzer harness: the sweep file (config/sweep_file.h) and the sweep plan
// made from it (sc_main/sweep_plan.h: files resolved, constraints parsed,
// points expanded). The input is written as a sweep file in a private
// folder that mirrors configs/ (topologies/, workloads/ and sweeps/gemm_tiles
// linked from the source tree), so the seeds' relative paths resolve.
// Seeds: configs/sweeps/*.yaml.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/sweep_file.h"
#include "fuzz/fuzz_common.h"
#include "sc_main/sweep_plan.h"

NPUVP_FUZZ_SC_MAIN_STUB

namespace {

// <tmp>/npuvp-fuzz-sweep-PID/{topologies,workloads,sweeps/gemm_tiles} -> configs/.
const std::string& sweep_path() {
    static const std::string path = [] {
        namespace fs = std::filesystem;
        const char* tmp = std::getenv("TMPDIR");
        const fs::path dir = fs::path(tmp && *tmp ? tmp : "/tmp") /
                             ("npuvp-fuzz-sweep-" + std::to_string(getpid()));
        fs::create_directories(dir / "sweeps");
        const fs::path configs = fs::path(npuvp::fuzz::source_dir()) / "configs";
        for (const char* sub : {"topologies", "workloads", "sweeps/gemm_tiles"}) {
            std::error_code ec;
            fs::remove(dir / sub, ec);
            fs::create_directory_symlink(configs / sub, dir / sub);
        }
        // Removed at exit; held on the heap, as a static string would be
        // destroyed before the exit handler runs.
        static const std::string* const remove_at_exit = new std::string(dir.string());
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(*remove_at_exit, ec);
        });
        return (dir / "sweeps" / "fuzz.yaml").string();
    }();
    return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = sweep_path();
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    npuvp::fuzz::guarded("sweep", data, size, [&] { npuvp::read_sweep_file(path); });
    npuvp::fuzz::guarded("sweep", data, size, [&] { npuvp::load_sweep_file(path); });
    return 0;
}
