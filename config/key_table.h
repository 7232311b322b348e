// Key tables (issue 14 point 1) for files whose keys are read with more than
// the map they sit in: a workload command reads against the topology (TCM
// windows, math ops, PE ranges) and the kernel it belongs to (ipcq peers, the
// host list's `after`). Each key is one row: its YAML key, the member it
// fills, its default (or **required**), bound, unit and one line of doc, and
// the function that reads it with the reader's scope `S`. The table drives
// loading (the allowed-key list of its MapReader, the reads in table order,
// the checks across keys) and generates the key reference of the docs
// (docs/workload.md, checked by workload_doc_test). It is the sibling of
// config/schema.h's Field, which needs no scope; the rows share
// schema::DocRow and add the member they fill.
//
// Adding a key: one row in its table (and the member it fills), plus its use.
// docs/architecture.md "How to add a parameter".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "config/schema.h"
#include "config/yaml_reader.h"

namespace npuvp::schema {

// One row of a key reference: the DocRow and the members the key fills, as
// `Owner::member` (none for a row that fills nothing by itself).
struct KeyDocRow {
    DocRow row;
    std::vector<std::string> fills;
};

// One `###` section of a key reference: a title, one paragraph, a table.
struct KeyDocSection {
    std::string title;
    std::string intro;
    std::vector<KeyDocRow> rows;
};
using KeyDocs = std::vector<KeyDocSection>;

// The docs as markdown: `### title`, the intro, then the table (none when
// the section has no rows).
std::string key_markdown(const KeyDocs& docs);

// A YAML list as Items whose key paths index it: `reads[0]`, `reads[1]`.
std::vector<Item> list_items(const Item& item, bool allow_empty);

// An integer > 0 over the whole 64-bit range (sizes in bytes or elements).
std::uint64_t read_size(const YamlReader& yaml, const Item& item);
// The same, at most size_limit(unit) (docs/limits.md): 2^40 bytes (1 TiB,
// above any memory of the machine), 2^32 elements.
std::uint64_t read_size(const YamlReader& yaml, const Item& item, const std::string& unit);
std::uint64_t size_limit(const std::string& unit);
std::string size_limit_text(const std::string& unit);

template <class T, class S>
struct Key {
    std::string key;
    std::function<void(const MapReader&, T&, const S&)> read;
    // Appends this key's rows to docs[section], the key prefixed by
    // `prefix`, the member by `owner::`.
    std::function<void(const std::string& prefix, const std::string& owner, KeyDocs& docs,
                       std::size_t section)>
        document;
};

template <class T, class S>
struct KeyTable {
    std::string owner;  // the struct the keys fill, as the docs name it
    std::vector<Key<T, S>> keys;
    // A check of which keys are given, before any is read (a range names
    // exactly one space).
    std::function<void(const MapReader&, const S&)> given = nullptr;
    // A check across keys, after all are read (a composite's tile fit).
    std::function<void(const MapReader&, T&, const S&)> check = nullptr;

    std::vector<std::string> names() const {
        std::vector<std::string> names;
        for (const auto& key : keys) names.push_back(key.key);
        return names;
    }
};

// Reads the keys of `table` from a map already opened as `reader` (whose
// allowed keys may span several tables), in table order.
template <class T, class S>
void read_keys(const MapReader& reader, const KeyTable<T, S>& table, T& object, const S& scope) {
    if (table.given) table.given(reader, scope);
    for (const auto& key : table.keys) key.read(reader, object, scope);
    if (table.check) table.check(reader, object, scope);
}

// Opens `item` as a map of exactly the table's keys and reads them.
template <class T, class S>
void read_key_map(YamlReader& yaml, const Item& item, const KeyTable<T, S>& table, T& object,
                  const S& scope) {
    const MapReader reader(yaml, item, table.names());
    read_keys(reader, table, object, scope);
}

template <class T, class S>
void document_keys(const KeyTable<T, S>& table, const std::string& prefix, KeyDocs& docs,
                   std::size_t section) {
    for (const auto& key : table.keys) key.document(prefix, table.owner, docs, section);
}

// "Owner::a", "Owner::b" from "a, b".
std::vector<std::string> members(const std::string& owner, const std::string& fills);

// ---------------------------------------------------------------- builders

// What a nested map left out (absent or null) means.
enum class Absent {
    error,     // it must be given
    defaults,  // every key takes its default
    skip,      // it is not read at all (the member keeps its value)
};

// Key builders for struct T read with scope S. `at` is a pointer to member,
// or a generic lambda `[](auto& c) -> auto& { return c.composite.m; }` for a
// nested one; `fills` names it for the docs ("composite.m"; several members
// a key fills together: "sip, cube").
template <class T, class S>
struct Keys {
    using Read = std::function<void(const MapReader&, T&, const S&)>;

    // Any key: its doc row (the key is filled in) and how it is read.
    static Key<T, S> leaf(const std::string& key, DocRow row, const std::string& fills, Read read) {
        row.key = key;
        return Key<T, S>{key, std::move(read),
                         [row, fills](const std::string& prefix, const std::string& owner, KeyDocs& docs,
                                      std::size_t section) {
                             DocRow out = row;
                             out.key = prefix + out.key;
                             docs[section].rows.push_back({out, members(owner, fills)});
                         }};
    }

    // A size (an integer > 0) that must be given.
    template <class At>
    static Key<T, S> size(const std::string& key, At at, const std::string& fills, std::string unit,
                          std::string doc) {
        return leaf(key, {"", "size", unit, "**required**", "> 0, <= " + size_limit_text(unit), std::move(doc)}, fills,
                    [=](const MapReader& r, T& t, const S&) {
                        std::invoke(at, t) = read_size(r.reader(), r.required(key), unit);
                    });
    }

    // `true` or `false`, false when absent.
    template <class At>
    static Key<T, S> flag(const std::string& key, At at, const std::string& fills, std::string doc) {
        return leaf(key, {"", "bool", "", "`false`", "", std::move(doc)}, fills,
                    [=](const MapReader& r, T& t, const S&) {
                        const Item item = r.child(key);
                        if (item.present) std::invoke(at, t) = r.reader().to_bool(item);
                    });
    }

    // A nested map read by its own table; documented as its own row and
    // then one row per key, prefixed `key.`.
    template <class At, class M>
    static Key<T, S> section(const std::string& key, At at, const KeyTable<M, S>& table, Absent absent,
                             std::string constraint, const std::string& fills, std::string doc) {
        const std::string fallback = absent == Absent::error      ? "**required**"
                                     : absent == Absent::defaults ? "all defaults"
                                                                  : "none";
        const Key<T, S> row = leaf(key, {"", "map", "", fallback, std::move(constraint), std::move(doc)}, fills, nullptr);
        return Key<T, S>{
            key,
            [=](const MapReader& r, T& t, const S& s) {
                const Item item = absent == Absent::error ? r.required(key) : r.child(key);
                if (absent == Absent::skip && (!item.present || item.node.IsNull())) return;
                read_key_map(r.reader(), item, table, std::invoke(at, t), s);
            },
            [=](const std::string& prefix, const std::string& owner, KeyDocs& docs, std::size_t section) {
                row.document(prefix, owner, docs, section);
                document_keys(table, prefix + key + ".", docs, section);
            }};
    }

    // A list of maps, each read by `table` into one element appended to the
    // vector at `at`; absent, null or `[]` = none. The entries' keys are
    // documented in a section of their own, `heading` (once, however many
    // keys share it), or when `heading` is empty as rows prefixed `key[].`.
    template <class At, class M>
    static Key<T, S> entries(const std::string& key, At at, const KeyTable<M, S>& table,
                             const std::string& type, const std::string& heading, const std::string& fills,
                             std::string doc) {
        const Key<T, S> row = leaf(key, {"", type, "", "none", "", std::move(doc)}, fills, nullptr);
        return Key<T, S>{
            key,
            [=](const MapReader& r, T& t, const S& s) {
                const Item item = r.child(key);
                if (!item.present || item.node.IsNull()) return;
                for (const Item& entry : list_items(item, true)) {
                    M element{};
                    read_key_map(r.reader(), entry, table, element, s);
                    std::invoke(at, t).push_back(std::move(element));
                }
            },
            [=](const std::string& prefix, const std::string& owner, KeyDocs& docs, std::size_t section) {
                row.document(prefix, owner, docs, section);
                if (heading.empty()) {
                    document_keys(table, prefix + key + "[].", docs, section);
                    return;
                }
                for (const auto& existing : docs)
                    if (existing.title == heading) return;
                docs.push_back({heading, "", {}});
                document_keys(table, "", docs, docs.size() - 1);
            }};
    }
};

}  // namespace npuvp::schema
