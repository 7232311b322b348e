// The registry of impl factories (SPEC §2, dependency injection): `impl:`
// names a factory, a variant of a block is a new factory, never an #if.
//
// Factories are registered per kind with the kind's base class, so the
// elaborator gets back the right type without any dynamic_cast.
#pragma once

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "config/schema.h"
#include "modules/common/node_env.h"

namespace npuvp {

class ImplRegistry {
public:
    template <class Base>
    using Factory = std::function<std::unique_ptr<Base>(const sc_core::sc_module_name&,
                                                        const NodeEnv&)>;

    template <class Base>
    void add(const std::string& kind, const std::string& impl, Factory<Base> factory) {
        m_factories[kind][impl] = std::move(factory);
    }

    bool knows_kind(const std::string& kind) const { return m_factories.count(kind) != 0; }

    // A check an impl makes on the whole validated topology beyond its kind's
    // schema (rtl.pe_gemm: the array size its RTL was built with). It throws
    // ConfigError at where(key path), the location of the offending value.
    using Where = std::function<SourceLoc(const std::string& key_path)>;
    using Check = std::function<void(const TopologyConfig&, const Where&)>;
    void add_check(const std::string& kind, const std::string& impl, Check check) {
        m_checks[kind][impl] = std::move(check);
    }
    void check(const std::string& kind, const std::string& impl, const TopologyConfig& topo,
               const Where& where) const {
        auto kit = m_checks.find(kind);
        if (kit == m_checks.end()) return;
        auto iit = kit->second.find(impl);
        if (iit != kit->second.end()) iit->second(topo, where);
    }

    // The attrs an impl brings beyond its kind's: a field table over the
    // impl's own struct (config/schema.h). The loader accepts the table's keys
    // in the block's `attrs:` next to the kind's (any other key is still an
    // unknown-key error naming file, line and key), reads them with the same
    // reader, dumps and documents them; the factory gets the struct through
    // attrs<Attrs>(env.topo, kind). docs/architecture.md "How to add an impl".
    struct AttrsSpec {
        std::vector<std::string> keys;
        std::function<ImplAttrs(const MapReader&)> read;
        std::function<void(const std::string& prefix, schema::Docs&, std::size_t)> document;
    };
    template <class Attrs>
    void add_attrs(const std::string& kind, const std::string& impl, schema::Table<Attrs> table) {
        AttrsSpec spec;
        spec.keys = table.keys();
        spec.read = [table](const MapReader& reader) {
            Attrs values{};
            schema::read_fields(reader, table, values);
            // The dump writes the values as the table dumps them (scalars only).
            YAML::Emitter out;
            out << YAML::BeginMap;
            schema::dump_fields(out, table, values);
            out << YAML::EndMap;
            ImplAttrs attrs;
            for (const auto& entry : YAML::Load(out.c_str()))
                attrs.text.emplace_back(entry.first.Scalar(), entry.second.Scalar());
            attrs.values = std::move(values);
            return attrs;
        };
        spec.document = [table](const std::string& prefix, schema::Docs& docs, std::size_t section) {
            schema::document(table, prefix, docs, section);
        };
        m_attrs[kind][impl] = std::move(spec);
    }
    const AttrsSpec* attrs_spec(const std::string& kind, const std::string& impl) const {
        auto kit = m_attrs.find(kind);
        if (kit == m_attrs.end()) return nullptr;
        auto iit = kit->second.find(impl);
        return iit == kit->second.end() ? nullptr : &iit->second;
    }
    // The attrs of the impl of `kind` in a loaded topology (a programming
    // error, std::logic_error, when that impl registered none or other ones).
    template <class Attrs>
    static const Attrs& attrs(const TopologyConfig& topo, const std::string& kind) {
        auto it = topo.impl_attrs.find(kind);
        const Attrs* values = it == topo.impl_attrs.end() ? nullptr : std::any_cast<Attrs>(&it->second.values);
        if (!values) throw std::logic_error("no impl attrs of this type for kind '" + kind + "'");
        return *values;
    }

    // An impl this build of npuvp leaves out, and why (rtl.* without
    // Verilator), so that naming it is an error that says so.
    void add_unavailable(const std::string& kind, const std::string& impl,
                         const std::string& reason) {
        m_unavailable[kind][impl] = reason;
    }
    const std::string* unavailable(const std::string& kind, const std::string& impl) const {
        auto kit = m_unavailable.find(kind);
        if (kit == m_unavailable.end()) return nullptr;
        auto iit = kit->second.find(impl);
        return iit == kit->second.end() ? nullptr : &iit->second;
    }

    bool knows(const std::string& kind, const std::string& impl) const {
        auto it = m_factories.find(kind);
        return it != m_factories.end() && it->second.count(impl) != 0;
    }

    // Registered impl names of a kind, sorted (for error messages and --list).
    std::vector<std::string> impls_of(const std::string& kind) const {
        std::vector<std::string> names;
        auto it = m_factories.find(kind);
        if (it != m_factories.end())
            for (const auto& entry : it->second) names.push_back(entry.first);
        return names;
    }

    std::vector<std::string> kinds() const {
        std::vector<std::string> names;
        for (const auto& entry : m_factories) names.push_back(entry.first);
        return names;
    }

    // Builds a module; throws std::logic_error when kind/impl is unknown or was
    // registered with another base class (a programming error: the loader has
    // already rejected unknown names with a ConfigError).
    template <class Base>
    std::unique_ptr<Base> create(const std::string& kind, const std::string& impl,
                                 const sc_core::sc_module_name& name,
                                 const NodeEnv& env) const {
        auto kit = m_factories.find(kind);
        if (kit == m_factories.end()) throw std::logic_error("no kind '" + kind + "'");
        auto iit = kit->second.find(impl);
        if (iit == kit->second.end())
            throw std::logic_error("no impl '" + impl + "' of kind '" + kind + "'");
        const auto* factory = std::any_cast<Factory<Base>>(&iit->second);
        if (!factory)
            throw std::logic_error("impl '" + impl + "' registered with another base class");
        return (*factory)(name, env);
    }

private:
    std::map<std::string, std::map<std::string, std::any>> m_factories;
    std::map<std::string, std::map<std::string, Check>> m_checks;
    std::map<std::string, std::map<std::string, std::string>> m_unavailable;
    std::map<std::string, std::map<std::string, AttrsSpec>> m_attrs;
};

// The registry with every builtin.* factory (platform/builtin_impls.cpp).
const ImplRegistry& builtin_registry();

}  // namespace npuvp
