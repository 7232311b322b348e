#include "report/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace npuvp {

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& body) {
    std::ostringstream text;
    body(text);
    const std::string data = text.str();
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    auto fail = [&](const char* what) {
        const std::string reason = std::strerror(errno);
        std::remove(tmp.c_str());
        throw std::runtime_error("cannot write '" + path + "' (" + what + ": " + reason + ")");
    };
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
    // Without the sync a crash of the machine (not just of npuvp) could leave
    // a renamed but empty file.
    if (::fsync(fd) != 0) {
        ::close(fd);
        fail("fsync");
    }
    if (::close(fd) != 0) fail("close");
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("rename");
}

}  // namespace npuvp
