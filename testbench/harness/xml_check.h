// Well-formedness of an XML document (the --svg output) without a parser:
// tag balance, quoted attributes, no stray '<' / '&' in text. Counts the
// SVG's boxes (rect) by class on the way.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace npuvp::test {

// Tag balance of an XML document without a parser: every start tag closed in
// order, comments / declarations skipped, attribute values quoted, no stray
// '<' or '&' in text.
inline std::string xml_problem(const std::string& doc, std::map<std::string, int>& counts) {
    std::vector<std::string> stack;
    std::size_t i = 0;
    while (i < doc.size()) {
        if (doc[i] == '&') {
            const std::size_t semi = doc.find(';', i);
            if (semi == std::string::npos || semi - i > 6) return "bare & at " + std::to_string(i);
            i = semi + 1;
            continue;
        }
        if (doc[i] != '<') {
            if (doc[i] == '>') return "stray > at " + std::to_string(i);
            ++i;
            continue;
        }
        if (doc.compare(i, 4, "<!--") == 0) {
            i = doc.find("-->", i);
            if (i == std::string::npos) return "open comment";
            i += 3;
            continue;
        }
        if (doc.compare(i, 2, "<?") == 0) {
            i = doc.find("?>", i);
            if (i == std::string::npos) return "open declaration";
            i += 2;
            continue;
        }
        // Find the tag's end, honouring quoted attribute values.
        std::size_t j = i + 1;
        char quote = 0;
        for (; j < doc.size(); ++j) {
            if (quote) {
                if (doc[j] == quote) quote = 0;
                else if (doc[j] == '<') return "< inside an attribute at " + std::to_string(j);
            } else if (doc[j] == '"' || doc[j] == '\'') {
                quote = doc[j];
            } else if (doc[j] == '>') {
                break;
            } else if (doc[j] == '<') {
                return "< inside a tag at " + std::to_string(j);
            }
        }
        if (j >= doc.size()) return "unterminated tag";
        std::string tag = doc.substr(i + 1, j - i - 1);
        i = j + 1;
        if (tag.empty()) return "empty tag";
        if (tag[0] == '/') {
            const std::string name = tag.substr(1);
            if (stack.empty() || stack.back() != name)
                return "</" + name + "> closes " + (stack.empty() ? "nothing" : stack.back());
            stack.pop_back();
            continue;
        }
        const bool self = tag.back() == '/';
        const std::string name = tag.substr(0, tag.find_first_of(" \t\n/"));
        const std::size_t cls = tag.find("class=\"");
        if (name == "rect" && cls != std::string::npos)  // boxes by class: op, wait, unfinished, occ, ...
            ++counts[tag.substr(cls + 7, tag.find('"', cls + 7) - cls - 7)];
        if (!self) stack.push_back(name);
        if (stack.empty() && !self) return "no root";
    }
    if (!stack.empty()) return "unclosed <" + stack.back() + ">";
    return "";
}

}  // namespace npuvp::test
