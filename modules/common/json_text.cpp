#include "modules/common/json_text.h"

namespace npuvp {

namespace {

bool needs_escape(char c) { return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20; }

// The escape of one character needs_escape() picked, into `buf`; its length.
std::size_t escape(char c, char (&buf)[6]) {
    buf[0] = '\\';
    switch (c) {
    case '"': buf[1] = '"'; return 2;
    case '\\': buf[1] = '\\'; return 2;
    case '\n': buf[1] = 'n'; return 2;
    case '\t': buf[1] = 't'; return 2;
    default: {
        static const char hex[] = "0123456789abcdef";
        buf[1] = 'u', buf[2] = '0', buf[3] = '0', buf[4] = hex[(c >> 4) & 0xf], buf[5] = hex[c & 0xf];
        return 6;
    }
    }
}

}  // namespace

// Plain runs go out in one write each: a character at a time cost a stream
// sentry per character (the timeline writes a label per slice).
void write_json_string(std::ostream& out, std::string_view text) {
    out.put('"');
    std::size_t run = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (!needs_escape(text[i])) continue;
        out.write(text.data() + run, static_cast<std::streamsize>(i - run));
        char buf[6];
        out.write(buf, static_cast<std::streamsize>(escape(text[i], buf)));
        run = i + 1;
    }
    out.write(text.data() + run, static_cast<std::streamsize>(text.size() - run));
    out.put('"');
}

void append_json_string(std::string& out, std::string_view text) {
    out += '"';
    std::size_t run = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (!needs_escape(text[i])) continue;
        out.append(text.data() + run, i - run);
        char buf[6];
        out.append(buf, escape(text[i], buf));
        run = i + 1;
    }
    out.append(text.data() + run, text.size() - run);
    out += '"';
}

}  // namespace npuvp
