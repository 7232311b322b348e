#include "config/schema.h"

namespace npuvp::schema {

std::string one_of(const std::vector<std::string>& names) {
    std::string text = "must be ";
    for (std::size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("'" + names[i] + "'");
    return text;
}

std::string bound_text(Bound bound) { return bound == Bound::positive ? "> 0" : ">= 0"; }

std::string int_text(long long value) { return std::to_string(value); }

std::vector<Item> list_items(const MapReader& reader, const std::string& key, const ListRule& rule) {
    const Item list = reader.child(key);
    if (!list.present) {
        if (rule.required) throw ConfigError(list.loc, rule.expected);
        return {};
    }
    if (!list.node.IsSequence() || list.node.size() < rule.min) throw ConfigError(list.loc, rule.expected);
    std::vector<Item> items;
    for (std::size_t i = 0; i < list.node.size(); ++i) items.push_back(reader.reader().element(list, i));
    return items;
}

std::string markdown(const Docs& docs) {
    std::string out;
    for (const auto& section : docs) {
        out += section.title.empty() ? std::string("### Top level\n\n") : "### `" + section.title + "`\n\n";
        out += "| key | type | unit | default | constraint | meaning |\n";
        out += "| --- | --- | --- | --- | --- | --- |\n";
        for (const auto& row : section.rows)
            out += "| `" + row.key + "` | " + row.type + " | " + row.unit + " | " + row.fallback +
                   " | " + row.constraint + " | " + row.doc + " |\n";
        out += "\n";
    }
    return out;
}

}  // namespace npuvp::schema
