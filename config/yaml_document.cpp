#include "config/yaml_document.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace npuvp {

std::string read_input_file(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw ConfigError(SourceLoc{path, 0, 0, ""},
                          std::string("cannot open file: ") + std::strerror(errno));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
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
