#include "config/key_table.h"

#include <algorithm>

namespace npuvp::schema {

std::string key_markdown(const KeyDocs& docs) {
    std::string out;
    for (const auto& section : docs) {
        out += "### " + section.title + "\n\n";
        if (!section.intro.empty()) out += section.intro + "\n\n";
        if (section.rows.empty()) continue;
        out += "| key | type | unit | default | constraint | fills | meaning |\n";
        out += "| --- | --- | --- | --- | --- | --- | --- |\n";
        for (const auto& [row, fills] : section.rows) {
            std::string members;
            for (const auto& member : fills) members += (members.empty() ? "`" : ", `") + member + "`";
            out += "| `" + row.key + "` | " + row.type + " | " + row.unit + " | " + row.fallback + " | " +
                   row.constraint + " | " + members + " | " + row.doc + " |\n";
        }
        out += "\n";
    }
    return out;
}

std::vector<std::string> members(const std::string& owner, const std::string& fills) {
    std::vector<std::string> out;
    std::size_t begin = 0;
    while (begin < fills.size()) {
        const std::size_t end = std::min(fills.find(", ", begin), fills.size());
        out.push_back(owner + "::" + fills.substr(begin, end - begin));
        begin = end + 2;
    }
    return out;
}

std::vector<Item> list_items(const Item& item, bool allow_empty) {
    if (!item.node.IsSequence())
        throw ConfigError(item.loc, "expected a list, got " + describe(item.node));
    if (!allow_empty && item.node.size() == 0) throw ConfigError(item.loc, "must not be empty");
    std::vector<Item> items;
    for (std::size_t i = 0; i < item.node.size(); ++i) {
        Item entry;
        entry.node.reset(item.node[i]);
        entry.present = true;
        const YAML::Mark mark = entry.node.Mark();
        const std::string path = item.loc.key_path + "[" + std::to_string(i) + "]";
        entry.loc = mark.is_null() ? SourceLoc{item.loc.file, 0, 0, path}
                                   : SourceLoc{item.loc.file, mark.line + 1, mark.column + 1, path};
        items.push_back(entry);
    }
    return items;
}

std::uint64_t read_size(const YamlReader& yaml, const Item& item) {
    // "must be > 0" rather than to_unsigned's ">= 0" for a negative size.
    if (item.node.IsScalar() && item.node.Tag() != "!" && !item.node.Scalar().empty() &&
        item.node.Scalar()[0] == '-')
        throw ConfigError(item.loc, "must be > 0 (got " + item.node.Scalar() + ")");
    const std::uint64_t value = yaml.to_unsigned(item);
    if (value == 0) throw ConfigError(item.loc, "must be > 0 (got " + item.node.Scalar() + ")");
    return value;
}

std::uint64_t size_limit(const std::string& unit) {
    return unit == "elements" ? std::uint64_t{1} << 32 : std::uint64_t{1} << 40;
}

std::string size_limit_text(const std::string& unit) { return unit == "elements" ? "2^32" : "2^40"; }

std::uint64_t read_size(const YamlReader& yaml, const Item& item, const std::string& unit) {
    const std::uint64_t value = read_size(yaml, item);
    if (value > size_limit(unit))
        throw ConfigError(item.loc, "must be <= " + size_limit_text(unit) + " " + unit + " (got " +
                                        item.node.Scalar() + "): " +
                                        (unit == "elements" ? "4 G elements per dimension"
                                                            : "1 TiB, above any memory of the machine") +
                                        " (docs/limits.md)");
    return value;
}

}  // namespace npuvp::schema
