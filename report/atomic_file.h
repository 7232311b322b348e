// Writing a result file so that a reader never sees half of it: the body goes
// to a temporary file beside the target, is flushed and synced, then renamed
// over the target (rename is atomic within one file system). A run killed
// mid-write leaves the old file, or none, and a stray `.tmp.<pid>` that
// nothing reads. Used for `--summary` and the sweep's per-point results.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace npuvp {

// Throws std::runtime_error naming the path when the file cannot be written.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& body);

}  // namespace npuvp
