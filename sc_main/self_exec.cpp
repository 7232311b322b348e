#include "sc_main/self_exec.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace npuvp {

std::string ChildExit::describe() const {
    if (!started) return "not started";
    if (signal) return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    return "exit " + std::to_string(code);
}

pid_t start_process(const std::string& program, const std::vector<std::string>& args,
                    const std::string& log) {
    std::vector<std::string> copy{program};
    copy.insert(copy.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = 0;
    const int rc = program.find('/') == std::string::npos
                       ? posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ)
                       : posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    return rc == 0 ? pid : -1;
}

pid_t start_self(const std::vector<std::string>& args, const std::string& log) {
    return start_process("/proc/self/exe", args, log);
}

namespace {

ChildExit wait_for(pid_t which, pid_t* pid) {
    ChildExit e;
    int status = 0;
    pid_t got;
    do got = waitpid(which, &status, 0);
    while (got < 0 && errno == EINTR);
    if (pid) *pid = got;
    if (got < 0) return e;
    e.started = true;
    if (WIFEXITED(status)) e.code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
    return e;
}

}  // namespace

ChildExit wait_child(pid_t pid) {
    if (pid <= 0) return ChildExit{};
    return wait_for(pid, nullptr);
}

ChildExit wait_any_child(pid_t* pid) { return wait_for(-1, pid); }

ChildExit run_self(const std::vector<std::string>& args, const std::string& log) {
    return wait_child(start_self(args, log));
}

std::string self_path() {
    char buffer[4096];
    const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    if (n <= 0)
        throw std::runtime_error(std::string("cannot read /proc/self/exe: ") + std::strerror(errno));
    return std::string(buffer, static_cast<std::size_t>(n));
}

ScratchDir::ScratchDir(const std::string& prefix) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!mkdtemp(tmpl.data()))
        throw std::runtime_error("cannot make a scratch folder in " + std::filesystem::temp_directory_path().string());
    m_path = tmpl;
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

}  // namespace npuvp
