// Field tables (issue 14 point 1, STYLE "Configuration in two layers"): each
// config struct is described once by a table of fields, and the table drives
// loading (through MapReader: unknown keys, defaults, bounds, file:line:column
// errors), dumping (a complete YAML that loads back equal) and the reference
// tables of docs/schema.md. A field is its YAML key, where it lives in the
// struct (a pointer to member, or a generic lambda for a nested member), its
// default (a named constant of config/config_defaults.h, which cites where the
// number comes from), its bound, its unit and one line of doc.
//
// Adding a parameter: one line in the struct's table (and the member it
// fills), plus its use. docs/architecture.md "How to add a parameter".
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/yaml_reader.h"

namespace npuvp::schema {

// One row of a reference table in docs/schema.md.
struct DocRow {
    std::string key;         // dotted, relative to the table's section
    std::string type;        // number, int, string, map
    std::string unit;        // ns, GB/s, MiB, ... ("" for none)
    std::string fallback;    // the default as the docs show it, or **required**
    std::string constraint;  // the bound the loader checks
    std::string doc;         // one line
};

// The docs of one section: a heading and its rows (a section may open
// further sections, e.g. `system` below the top level).
struct DocSection {
    std::string title;
    std::vector<DocRow> rows;
};
using Docs = std::vector<DocSection>;

template <class T>
struct Field {
    std::string key;
    std::function<void(const MapReader&, T&)> read;
    // Null for a table that is only read (the sweep file).
    std::function<void(YAML::Emitter&, const T&)> dump;
    // Appends this field's rows to docs[section] (key prefixed by `prefix`).
    std::function<void(const std::string& prefix, Docs& docs, std::size_t section)> document;
};

template <class T>
struct Table {
    std::vector<Field<T>> fields;
    // A check across fields, after all are read (pe_tcm: reserved_mb < size_mb).
    std::function<void(const MapReader&, const T&)> check = nullptr;
    // Flow style (`{ a: 1, b: 2 }`) or block style when dumped.
    bool flow = true;

    std::vector<std::string> keys() const {
        std::vector<std::string> keys;
        for (const auto& field : fields) keys.push_back(field.key);
        return keys;
    }
};

// Reads the fields of `table` from a map already opened as `reader`.
template <class T>
void read_fields(const MapReader& reader, const Table<T>& table, T& object) {
    for (const auto& field : table.fields) field.read(reader, object);
    if (table.check) table.check(reader, object);
}

// Opens `item` as a map of exactly the table's keys and reads them.
template <class T>
void read_map(YamlReader& yaml, const Item& item, const Table<T>& table, T& object) {
    const MapReader reader(yaml, item, table.keys());
    read_fields(reader, table, object);
}

template <class T>
void dump_fields(YAML::Emitter& out, const Table<T>& table, const T& object) {
    for (const auto& field : table.fields) field.dump(out, object);
}

// `key: { ... }` in the table's style.
template <class T>
void dump_map(YAML::Emitter& out, const std::string& key, const Table<T>& table, const T& object) {
    out << YAML::Key << key << YAML::Value;
    if (table.flow) out << YAML::Flow;
    out << YAML::BeginMap;
    dump_fields(out, table, object);
    out << YAML::EndMap;
}

template <class T>
void document(const Table<T>& table, const std::string& prefix, Docs& docs, std::size_t section) {
    for (const auto& field : table.fields) field.document(prefix, docs, section);
}

// The full key path of `key` in `section` (the top level has no title).
inline std::string path_in(const DocSection& section, const std::string& key) {
    return section.title.empty() ? key : section.title + "." + key;
}

// The docs as markdown: one `###` heading and one table per section.
std::string markdown(const Docs& docs);

// `field`, documented with a section of its own after its row: titled with
// the field's path and `suffix` ("[]" for the elements of a list), its rows
// appended by `rows` (e.g. with document() of the table its value is read by).
template <class T>
Field<T> with_section(Field<T> field, const std::string& suffix,
                      std::function<void(Docs& docs, std::size_t section)> rows) {
    field.document = [own = field.document, key = field.key, suffix, rows](
                         const std::string& prefix, Docs& docs, std::size_t section) {
        own(prefix, docs, section);
        docs.push_back({path_in(docs[section], prefix + key) + suffix, {}});
        rows(docs, docs.size() - 1);
    };
    return field;
}

// What a list field needs: at least `min` elements, and whether it must be
// given. `expected` is the error when it is not a list or too short (and,
// when required, absent), in the file's own words ("expected a non-empty
// list of axes").
struct ListRule {
    std::size_t min = 0;
    bool required = false;
    std::string expected;
};

// The elements of the list at `key`, each the Item `key[i]`; none when the
// key is absent and not required.
std::vector<Item> list_items(const MapReader& reader, const std::string& key, const ListRule& rule);

// ---------------------------------------------------------------- emitters

inline void emit(YAML::Emitter& out, const std::string& key, double value) {
    out << YAML::Key << key << YAML::Value << format_double(value);
}
inline void emit(YAML::Emitter& out, const std::string& key, const std::optional<double>& value) {
    // Absent is how the schema says "none" (unlimited, off).
    if (value) emit(out, key, *value);
}
template <class V>
void emit(YAML::Emitter& out, const std::string& key, const V& value) {
    out << YAML::Key << key << YAML::Value << value;
}

// "must be 'a'", "must be 'a' or 'b'", "must be 'a', 'b' or 'c'".
std::string one_of(const std::vector<std::string>& names);

std::string bound_text(Bound bound);
std::string int_text(long long value);

// The accepted range of a topology number by its unit (docs/limits.md): a
// physical bound that no block of an NPU reaches, chosen so that every
// conversion to integer ps, bytes/s or cycles, and every sum of them over a
// run, stays far inside 64 bits. `min` is an exclusive lower bound beyond
// the key's own (0 when none); `max` inclusive; `why` names the reason.
struct UnitLimit {
    double min = 0.0, max = 0.0;
    const char* why = "";
};
// Null when the unit has no limit of its own.
const UnitLimit* unit_limit(const std::string& unit);
// Throws ConfigError at `item` when `value` is outside unit_limit(unit).
void check_unit_limit(const Item& item, double value, const std::string& unit);
// "> 0, <= 1e9" for the docs' bound column.
std::string bound_text(Bound bound, const std::string& unit);
std::string int_bound_text(long long min, const std::string& unit);

// ---------------------------------------------------------------- builders

// Field builders for struct T. `at` is a pointer to member, or a generic
// lambda `[](auto& t) -> auto& { return t.link.bw_gbs; }` for a nested one.
template <class T>
struct Fields {
    // A field with a read of its own (and a dump, or null if only read).
    static Field<T> leaf(std::string key, DocRow row,
                         std::function<void(const MapReader&, T&)> read,
                         std::function<void(YAML::Emitter&, const T&)> dump) {
        row.key = key;
        return Field<T>{key, std::move(read), std::move(dump),
                        [row](const std::string& prefix, Docs& docs, std::size_t section) {
                            DocRow out = row;
                            out.key = prefix + out.key;
                            docs[section].rows.push_back(out);
                        }};
    }

    // A list, read into a std::vector member: each element by
    // `element(reader, item)` (`reader`: the map that holds the list; `item`:
    // the element, `key[i]`), checked against `rule`. `loc_at`, when given,
    // keeps where the list is, for later errors about it as a whole. Only
    // read, never dumped (files that npuvp does not write back: the sweep file).
    template <class At, class Element, class LocAt = std::nullptr_t>
    static Field<T> list(const std::string& key, At at, ListRule rule, Element element, DocRow row,
                         LocAt loc_at = nullptr) {
        return leaf(key, std::move(row),
                    [=](const MapReader& r, T& t) {
                        if constexpr (!std::is_null_pointer_v<LocAt>) std::invoke(loc_at, t) = r.child(key).loc;
                        auto& values = std::invoke(at, t);
                        for (const Item& item : list_items(r, key, rule)) values.push_back(element(r, item));
                    },
                    nullptr);
    }

    // A finite number with a default.
    template <class At>
    static Field<T> number(const std::string& key, At at, double fallback, Bound bound,
                           std::string unit, std::string doc) {
        return leaf(key, {"", "number", unit, format_double(fallback), bound_text(bound, unit), std::move(doc)},
                    [=](const MapReader& r, T& t) {
                        const double v = r.number(key, fallback, bound);
                        if (r.child(key).present) check_unit_limit(r.child(key), v, unit);
                        std::invoke(at, t) = v;
                    },
                    [=](YAML::Emitter& out, const T& t) { emit(out, key, std::invoke(at, t)); });
    }

    // A finite number whose absence means something (`absent` says what).
    template <class At>
    static Field<T> optional_number(const std::string& key, At at, Bound bound, std::string unit,
                                    const std::string& absent, std::string doc) {
        return leaf(key, {"", "number", unit, "absent = " + absent, bound_text(bound, unit), std::move(doc)},
                    [=](const MapReader& r, T& t) {
                        const std::optional<double> v = r.optional_number(key, bound);
                        if (v) check_unit_limit(r.child(key), *v, unit);
                        std::invoke(at, t) = v;
                    },
                    [=](YAML::Emitter& out, const T& t) { emit(out, key, std::invoke(at, t)); });
    }

    // An integer >= min with a default.
    template <class At>
    static Field<T> integer(const std::string& key, At at, long long fallback, long long min,
                            std::string unit, std::string doc) {
        using V = std::remove_reference_t<decltype(std::invoke(at, std::declval<T&>()))>;
        return leaf(key, {"", "int", unit, int_text(fallback), int_bound_text(min, unit), std::move(doc)},
                    [=](const MapReader& r, T& t) {
                        const long long v = r.integer(key, fallback, min);
                        if (r.child(key).present) check_unit_limit(r.child(key), static_cast<double>(v), unit);
                        std::invoke(at, t) = static_cast<V>(v);
                    },
                    [=](YAML::Emitter& out, const T& t) { emit(out, key, std::invoke(at, t)); });
    }

    // An integer >= min that must be given.
    template <class At>
    static Field<T> required_integer(const std::string& key, At at, long long min,
                                     std::string unit, std::string doc) {
        using V = std::remove_reference_t<decltype(std::invoke(at, std::declval<T&>()))>;
        return leaf(key, {"", "int", unit, "**required**", int_bound_text(min, unit), std::move(doc)},
                    [=](const MapReader& r, T& t) {
                        const long long v = r.required_integer(key, min);
                        check_unit_limit(r.child(key), static_cast<double>(v), unit);
                        std::invoke(at, t) = static_cast<V>(v);
                    },
                    [=](YAML::Emitter& out, const T& t) { emit(out, key, std::invoke(at, t)); });
    }

    // A size given in units of 2^shift bytes (`unit`), kept in bytes.
    template <class At>
    static Field<T> size(const std::string& key, At at, long long fallback, int shift,
                         std::string unit, std::string doc) {
        return leaf(key, {"", "int", unit, int_text(fallback), int_bound_text(1, unit), std::move(doc)},
                    [=](const MapReader& r, T& t) {
                        const std::uint64_t v = r.size(key, fallback, shift);
                        if (r.child(key).present) check_unit_limit(r.child(key), static_cast<double>(v >> shift), unit);
                        std::invoke(at, t) = v;
                    },
                    [=](YAML::Emitter& out, const T& t) { emit(out, key, std::invoke(at, t) >> shift); });
    }

    // An address, an integer >= 0, dumped in hex.
    template <class At>
    static Field<T> address(const std::string& key, At at, std::uint64_t fallback, std::string doc) {
        return leaf(key, {"", "int", "bytes", "`" + hex(fallback) + "`", ">= 0", std::move(doc)},
                    [=](const MapReader& r, T& t) { std::invoke(at, t) = r.address(key, fallback); },
                    [=](YAML::Emitter& out, const T& t) { emit(out, key, hex(std::invoke(at, t))); });
    }

    template <class At>
    static Field<T> string(const std::string& key, At at, const std::string& fallback, std::string doc) {
        return leaf(key, {"", "string", "", "`" + fallback + "`", "", std::move(doc)},
                    [=](const MapReader& r, T& t) { std::invoke(at, t) = r.string(key, fallback); },
                    [=](YAML::Emitter& out, const T& t) { emit(out, key, std::invoke(at, t)); });
    }

    // A string that names one of `choices` (value, name), stored as the value.
    template <class At, class V>
    static Field<T> choice(const std::string& key, At at, const std::string& fallback,
                           std::vector<std::pair<std::string, V>> choices, std::string doc) {
        std::vector<std::string> names;
        for (const auto& entry : choices) names.push_back(entry.first);
        std::string constraint;
        for (std::size_t i = 0; i < names.size(); ++i)
            constraint += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("`" + names[i] + "`");
        return leaf(key, {"", "string", "", "`" + fallback + "`", constraint, std::move(doc)},
                    [=](const MapReader& r, T& t) {
                        const std::string name = r.string(key, fallback);
                        for (const auto& [text, value] : choices)
                            if (text == name) {
                                std::invoke(at, t) = value;
                                return;
                            }
                        throw ConfigError(r.child(key).loc, one_of(names) + " (got '" + name + "')");
                    },
                    [=](YAML::Emitter& out, const T& t) {
                        for (const auto& [text, value] : choices)
                            if (value == std::invoke(at, t)) emit(out, key, text);
                    });
    }

    // A nested map described by its own table. `required`: the key must be
    // given; `heading`: the docs give it a section of its own.
    template <class At, class M>
    static Field<T> section(const std::string& key, At at, const Table<M>& table,
                            bool required = false, bool heading = false, std::string doc = "") {
        return Field<T>{
            key,
            [=](const MapReader& r, T& t) {
                const Item item = required ? r.required(key) : r.child(key);
                r.reader().note(item.loc);
                read_map(r.reader(), item, table, std::invoke(at, t));
            },
            [=](YAML::Emitter& out, const T& t) { dump_map(out, key, table, std::invoke(at, t)); },
            [=](const std::string& prefix, Docs& docs, std::size_t section) {
                if (!heading) {
                    document(table, prefix + key + ".", docs, section);
                    return;
                }
                docs[section].rows.push_back({prefix + key, "map", "", required ? "**required**" : "all defaults", "", doc});
                docs.push_back({path_in(docs[section], prefix + key), {}});
                document(table, "", docs, docs.size() - 1);
            }};
    }

private:
    static std::string hex(std::uint64_t value) {
        char text[32];
        std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
        return text;
    }
};

}  // namespace npuvp::schema
