// The one error type for bad input (SPEC §8): it names the file, line, column
// and key path of the offending value, and the CLI turns it into exit code 2.
#pragma once

#include <stdexcept>
#include <string>

#include "modules/common/config.h"

namespace npuvp {

class ConfigError : public std::runtime_error {
public:
    ConfigError(SourceLoc loc, const std::string& message)
        : std::runtime_error(format(loc, message)), m_loc(std::move(loc)) {}

    const SourceLoc& loc() const { return m_loc; }

    // "file:line:column: key.path: message"; parts that are unknown are left out.
    static std::string format(const SourceLoc& loc, const std::string& message) {
        std::string out = loc.file.empty() ? std::string("<input>") : loc.file;
        if (loc.line > 0) {
            out += ":" + std::to_string(loc.line);
            if (loc.column > 0) out += ":" + std::to_string(loc.column);
        }
        out += ": ";
        if (!loc.key_path.empty()) out += loc.key_path + ": ";
        return out + message;
    }

private:
    SourceLoc m_loc;
};

}  // namespace npuvp
