#include "config/yaml_document.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace npuvp {

std::string read_input_file(const std::string& path) {
    const SourceLoc where{path, 0, 0, ""};
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw ConfigError(where, "cannot read it: it is a folder, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError(where, std::string("cannot open file: ") + std::strerror(errno));
    // Read in chunks, at most one past the limit: a device or a huge file is
    // refused without reading it whole (docs/limits.md), and a file of a few
    // kilobytes costs a few kilobytes (not a zero-filled buffer of the limit,
    // which was 16 MiB of memory and ~15 ms of start-up per file read).
    std::string text, chunk(std::size_t{1} << 16, '\0');
    while (text.size() <= kMaxInputFileBytes &&
           in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())).gcount() > 0)
        text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw ConfigError(where, std::string("cannot read file: ") + std::strerror(errno));
    if (text.size() > kMaxInputFileBytes)
        throw ConfigError(where, "larger than " + std::to_string(kMaxInputFileBytes >> 20) +
                                     " MiB: not a configuration file (docs/limits.md)");
    if (text.find('\0') != std::string::npos)
        throw ConfigError(where, "holds NUL bytes: a binary file, not YAML text");
    return text;
}

YAML::Node parse_map_document(const std::string& text, const std::string& source_name,
                              const std::string& what) {
    YAML::Node root;
    try {
        root.reset(YAML::Load(text));
    } catch (const YAML::ParserException& e) {
        throw ConfigError(SourceLoc{source_name, e.mark.line + 1, e.mark.column + 1, ""},
                          "malformed YAML: " + e.msg);
    }
    if (!root.IsDefined() || root.IsNull())
        throw ConfigError(SourceLoc{source_name, 0, 0, ""}, "empty document");
    if (!root.IsMap())
        throw ConfigError(SourceLoc{source_name, root.Mark().line + 1, root.Mark().column + 1, ""},
                          "the document must be a map of " + what + ", got " + describe(root));
    return root;
}

std::string describe(const YAML::Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Null: return "null";
        case YAML::NodeType::Sequence: return "a list";
        case YAML::NodeType::Map: return "a map";
        case YAML::NodeType::Scalar: return "'" + node.Scalar() + "'";
        default: return "nothing";
    }
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

std::string child_path(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

}  // namespace npuvp
