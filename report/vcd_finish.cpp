#include "report/vcd_finish.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "report/atomic_file.h"
#include "report/run_view.h"

namespace npuvp {

namespace {

// The kernel's files not yet taken by finish_vcd(): removed at exit.
struct KernelFiles {
    std::vector<std::string> paths;
    ~KernelFiles() {
        for (const std::string& p : paths) std::remove(p.c_str());
    }
    void taken(const std::string& p) { paths.erase(std::remove(paths.begin(), paths.end(), p), paths.end()); }
};
KernelFiles& kernel_files() {
    static KernelFiles files;
    return files;
}

}  // namespace

std::string vcd_kernel_path(const std::string& path) {
    const std::string stem = path.size() > 4 ? path.substr(0, path.size() - 4) : path;
    std::string kernel = stem + ".tmp." + std::to_string(getpid()) + ".vcd";
    KernelFiles& files = kernel_files();
    if (std::find(files.paths.begin(), files.paths.end(), kernel) == files.paths.end())
        files.paths.push_back(kernel);
    return kernel;
}

void finish_vcd(const std::string& path, const Energy* energy) {
    const std::string from = vcd_kernel_path(path);
    // Removed however this ends (written, or failed half-way).
    struct Remove {
        const std::string& path;
        ~Remove() {
            std::remove(path.c_str());
            kernel_files().taken(path);
        }
    } remove_after{from};
    std::ifstream in(from, std::ios::binary);
    if (!in) throw std::runtime_error("--vcd: cannot read the kernel's '" + from + "' back");
    const bool power = energy != nullptr && !energy->power.empty();
    AtomicOutput file("--vcd", path);
    {
        std::ostream& out = file.stream();
        std::string line;
        bool in_date = false, dated = false, declared = false, body = false;
        std::size_t next = 0;  // the next power step to write
        auto value = [&](const Energy::Step& s) { out << "r" << obs::fixed(s.w, 6) << " " << vcd_power_id << "\n"; };
        // Every step before time t, each at its own time.
        auto steps_before = [&](std::uint64_t t) {
            for (; next < energy->power.size() && energy->power[next].at_ps < t; ++next)
                out << "#" << energy->power[next].at_ps << "\n", value(energy->power[next]);
        };
        while (std::getline(in, line)) {
            if (!dated && line.rfind("$date", 0) == 0) {
                in_date = true;
                out << "$date\n     (npuvp: no wall-clock date, so identical runs give identical files)\n";
                continue;
            }
            if (in_date) {
                if (line.rfind("$end", 0) == 0) {
                    in_date = false;
                    dated = true;
                    out << line << "\n";
                }
                continue;
            }
            if (power && !declared && line.rfind("$scope", 0) == 0) {
                out << "$scope module npuvp $end\n$var real 64 " << vcd_power_id << " power_w $end\n$upscope $end\n";
                declared = true;
            }
            if (power && line.rfind("$dumpvars", 0) == 0) {
                out << line << "\n";
                value(energy->power[0]);  // power[0] is at time 0
                next = 1;
                body = true;
                continue;
            }
            if (power && body && !line.empty() && line[0] == '#') {
                const std::uint64_t t = std::stoull(line.substr(1));
                steps_before(t);
                out << line << "\n";
                if (next < energy->power.size() && energy->power[next].at_ps == t) value(energy->power[next++]);
                continue;
            }
            out << line << "\n";
        }
        if (power && body) steps_before(UINT64_MAX);
    }
    file.commit();
}

}  // namespace npuvp
