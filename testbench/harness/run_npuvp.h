// Runs the npuvp program as a user would, for the CLI suites: its path comes
// from NPUVP_BIN (set by CTest), its output (stdout and stderr) and exit code
// come back.
#pragma once

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace npuvp::test {

struct RunResult {
    int code;
    std::string out;  // stdout and stderr together
};

inline RunResult run_npuvp(const std::string& args) {
    const char* bin = std::getenv("NPUVP_BIN");
    BOOST_REQUIRE_MESSAGE(bin != nullptr, "NPUVP_BIN is not set (run through ctest)");
    const std::string command = std::string(bin) + " " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    BOOST_REQUIRE(pipe != nullptr);
    std::string out;
    char buffer[4096];
    std::size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// npuvp's output without its speed line (docs/cli.md): the one line that
// holds wall-clock figures, so it differs between any two runs; and without
// the pipeline lines after it (which PEs ran decoupled: outputs and
// --per-stage change that, never a simulated time).
inline std::string without_speed_line(std::string out) {
    const std::size_t at = out.find("\nspeed    ");
    if (at != std::string::npos) out.erase(at, out.find('\n', at + 1) - at);
    const std::size_t p = out.find("\npipeline ");
    if (p == std::string::npos) return out;
    std::size_t end = out.find('\n', p + 1);
    while (end != std::string::npos && out.compare(end + 1, 9, "         ") == 0)
        end = out.find('\n', end + 1);
    out.erase(p, end == std::string::npos ? std::string::npos : end - p);
    return out;
}

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Every shipped workload's name (configs/workloads/*.yaml, without the
// extension), sorted: the suites that cover each one check their list by it.
inline std::vector<std::string> shipped_workload_names() {
    std::vector<std::string> shipped;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(NPUVP_SOURCE_DIR) + "/configs/workloads"))
        if (entry.path().extension() == ".yaml") shipped.push_back(entry.path().stem().string());
    std::sort(shipped.begin(), shipped.end());
    return shipped;
}

inline std::string shipped_workload(const std::string& name) {
    return std::string(NPUVP_SOURCE_DIR) + "/configs/workloads/" + name + ".yaml";
}

}  // namespace npuvp::test
