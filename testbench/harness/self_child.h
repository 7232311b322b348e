// Runs this test executable again as a child process with some environment
// variables set, for a test that needs a second scenario (SystemC elaborates
// once per process). The child's global fixture reads the variables, runs its
// scenario and exits before any test case; `any_case` is only there so that
// Boost.Test would have something to run. Returns the child's exit status
// (-1 if it did not exit).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace npuvp::test {

inline int run_self_child(const std::string& any_case,
                          const std::vector<std::pair<std::string, std::string>>& env) {
    const pid_t pid = fork();
    if (pid == 0) {
        for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
        const std::string run_test = "--run_test=" + any_case;
        execl("/proc/self/exe", "self_child", run_test.c_str(), static_cast<char*>(nullptr));
        std::_Exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace npuvp::test
