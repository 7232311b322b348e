// Running npuvp itself as a child process (through /proc/self/exe, so the
// child is exactly this binary): `--compare` runs each variant this way and
// `npuvp sweep` each point. SystemC elaborates once per process (SPEC §1), so
// independent runs are independent processes.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace npuvp {

// How a child ended.
struct ChildExit {
    bool started = false;  // false: the process could not be started
    int code = -1;         // its exit code when it exited
    int signal = 0;        // the signal that ended it, 0 if it exited
    // "exit 1", "signal 9 (Killed)", "not started"
    std::string describe() const;
};

// Starts `program args...` with stdout and stderr to `log` (created or
// truncated); a program name without '/' is looked up on PATH. Returns its
// pid, or -1 when it cannot be started.
pid_t start_process(const std::string& program, const std::vector<std::string>& args,
                    const std::string& log);

// start_process() of this very binary (/proc/self/exe).
pid_t start_self(const std::vector<std::string>& args, const std::string& log);

// Waits for a child started by start_self().
ChildExit wait_child(pid_t pid);

// Waits for any child of this process; sets *pid to the one that ended
// (-1 when there is none).
ChildExit wait_any_child(pid_t* pid);

// start_self() then wait_child().
ChildExit run_self(const std::vector<std::string>& args, const std::string& log);

// A scratch folder for child runs' files (summaries, logs), made under the
// temporary directory from `prefix` and removed with what it holds when it
// goes. Throws std::runtime_error when it cannot be made.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& prefix);
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

// The absolute path of this executable (for scripts that other machines or
// schedulers run); throws std::runtime_error when it cannot be read.
std::string self_path();

}  // namespace npuvp
