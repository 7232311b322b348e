// Writing a result file so that a reader never sees half of it: the body goes
// to a temporary file beside the target, is flushed and synced, then renamed
// over the target (rename is atomic within one file system). A run killed
// mid-write leaves the old file, or none, and a stray `.tmp.<pid>` that
// nothing reads. Used for `--summary` and the sweep's per-point results.
// A target that is neither a file nor a folder (/dev/null, /dev/stdout, a
// FIFO) is written in place: renaming a file over it would replace the
// device.
#pragma once

#include <fstream>
#include <functional>
#include <ostream>
#include <string>

namespace npuvp {

// Throws std::runtime_error naming the path when the file cannot be written.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& body);

// The same for a file written as the run goes (--trace, the VCD's last
// pass, the timeline and pictures): stream() writes to `<path>.tmp.<pid>`;
// commit() flushes, syncs and renames it over `path`; an output never
// committed (the run threw) is removed. `flag` names the option in errors.
class AtomicOutput {
public:
    // Throws ConfigError ("--trace: cannot write 'x' (open: ...)") when the
    // temporary file cannot be created.
    AtomicOutput(std::string flag, std::string path);
    ~AtomicOutput();
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;

    std::ostream& stream() { return m_file; }
    const std::string& path() const { return m_path; }
    bool committed() const { return m_done; }
    // Throws std::runtime_error naming the flag and path when writing failed.
    void commit();

private:
    std::string m_flag, m_path;
    bool m_special;  // a device or a FIFO (/dev/null): written in place
    std::string m_tmp;
    std::ofstream m_file;
    bool m_done = false;
};

// Checks, before a run starts, that `path` can be written by `flag`: not
// empty, not a directory, its folder exists and is writable. Throws
// ConfigError ("command line") naming the flag, the path and what is wrong:
// every output option is checked the same way, with exit 2.
void check_output_path(const std::string& flag, const std::string& path);

}  // namespace npuvp
