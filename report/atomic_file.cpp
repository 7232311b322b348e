#include "report/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "config/config_error.h"

namespace npuvp {

namespace {

// Whether `path` is something other than a file or a folder (a device such
// as /dev/null or /dev/stdout, a FIFO): written in place, never replaced by
// a renamed file (which would turn /dev/null into a file, run as root), and
// neither synced nor renamed.
bool special_target(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

}  // namespace

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& body) {
    std::ostringstream text;
    body(text);
    const std::string data = text.str();
    const bool special = special_target(path);
    const std::string tmp = special ? path : path + ".tmp." + std::to_string(getpid());
    auto fail = [&](const char* what) {
        const std::string reason = std::strerror(errno);
        if (!special) std::remove(tmp.c_str());
        throw std::runtime_error("cannot write '" + path + "' (" + what + ": " + reason + ")");
    };
    const int fd = ::open(tmp.c_str(), special ? O_WRONLY | O_CLOEXEC : O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail("open");
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ::close(fd);
            fail("write");
        }
        done += static_cast<std::size_t>(n);
    }
    if (special) {
        if (::close(fd) != 0) fail("close");
        return;
    }
    // Without the sync a crash of the machine (not just of npuvp) could leave
    // a renamed but empty file.
    if (::fsync(fd) != 0) {
        ::close(fd);
        fail("fsync");
    }
    if (::close(fd) != 0) fail("close");
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("rename");
}

AtomicOutput::AtomicOutput(std::string flag, std::string path)
    : m_flag(std::move(flag)),
      m_path(std::move(path)),
      m_special(special_target(m_path)),
      m_tmp(m_special ? m_path : m_path + ".tmp." + std::to_string(getpid())) {
    m_file.open(m_tmp, std::ios::binary | std::ios::trunc);
    if (!m_file)
        throw ConfigError({"command line", 0, 0, ""},
                          m_flag + ": cannot write '" + m_path + "' (open: " + std::strerror(errno) + ")");
}

AtomicOutput::~AtomicOutput() {
    if (m_done) return;
    m_file.close();
    if (!m_special) std::remove(m_tmp.c_str());
}

void AtomicOutput::commit() {
    m_file.flush();
    const bool written = static_cast<bool>(m_file);
    m_file.close();
    auto fail = [&](const std::string& what) {
        m_done = true;
        if (!m_special) std::remove(m_tmp.c_str());
        throw std::runtime_error(m_flag + ": writing '" + m_path + "' failed (" + what + ")");
    };
    if (!written || m_file.fail()) fail("write");
    if (m_special) {  // a device or a FIFO: written in place
        m_done = true;
        return;
    }
    // As write_file_atomically: synced before the rename.
    const int fd = ::open(m_tmp.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
        const std::string reason = std::strerror(errno);
        if (fd >= 0) ::close(fd);
        fail("fsync: " + reason);
    }
    ::close(fd);
    if (std::rename(m_tmp.c_str(), m_path.c_str()) != 0) fail(std::string("rename: ") + std::strerror(errno));
    m_done = true;
}

void check_output_path(const std::string& flag, const std::string& path) {
    auto bad = [&](const std::string& why) {
        throw ConfigError({"command line", 0, 0, ""}, flag + ": cannot write '" + path + "': " + why);
    };
    if (path.empty()) bad("the path is empty");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) bad("it is a folder");
    const std::size_t slash = path.find_last_of('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    if (::stat(folder.c_str(), &st) != 0) bad("the folder '" + folder + "' does not exist");
    if (!S_ISDIR(st.st_mode)) bad("'" + folder + "' is not a folder");
    if (::access(folder.c_str(), W_OK) != 0) bad("the folder '" + folder + "' is not writable");
}

}  // namespace npuvp
