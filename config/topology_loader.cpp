// Topology YAML -> validated TopologyConfig (SPEC §2, STYLE "Configuration in
// two layers"). Every section of the schema is a field table (config/schema.h):
// the tables below say each key, its member, default, bound, unit and doc once,
// and drive the load (through the shared YamlReader / MapReader, so every error
// carries the node's file, line, column and key path), the dump and the
// reference tables of docs/schema.md. Cross-section checks (layout fit, what an
// impl checks of the whole topology) run last.
//
// Overrides are written into the tree before the walk. The nodes they create
// are remembered, so a value that came from --set is reported as "--set" with
// its key path instead of a line of the file.
#include "config/topology_loader.h"

#include <limits>
#include <algorithm>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "config/config_defaults.h"
#include "config/schema.h"
#include "config/yaml_document.h"
#include "config/yaml_reader.h"
#include "platform/impl_registry.h"

namespace npuvp {
namespace {

namespace dflt = npuvp::defaults;
using schema::Docs;
using schema::Field;
using schema::Fields;
using schema::Table;

const std::vector<std::string>& pe_kinds() {
    static const std::vector<std::string> kinds = {
        "pe_cpu", "pe_scheduler", "pe_dma", "pe_fetch_store", "pe_gemm",
        "pe_math", "pe_tcm", "pe_mmu", "pe_ipcq"};
    return kinds;
}

std::vector<std::string> math_ops() {
    std::vector<std::string> ops;
    for (const auto& entry : dflt::kPeMathOpCost) ops.emplace_back(entry.op);
    return ops;
}

bool is_identifier(const std::string& name) {
    if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

void check_impl(const ImplRegistry& impls, const std::string& kind, const std::string& impl,
                const SourceLoc& loc) {
    if (impls.knows(kind, impl)) return;
    if (const std::string* reason = impls.unavailable(kind, impl))
        throw ConfigError(loc, "impl '" + impl + "' is not in this build of npuvp: " + *reason);
    const std::vector<std::string> known = impls.impls_of(kind);
    throw ConfigError(loc, "unknown impl '" + impl + "' for kind '" + kind + "' (" +
                               (known.empty() ? "no impl of this kind is registered"
                                              : "known: " + join(known)) +
                               ")");
}

// What the tables need beyond the document: the registry that checks each
// `impl:` and may give an impl attrs of its own (null when the tables only
// dump or document), and the topology's impl attrs (read into, dumped from).
struct ImplScope {
    const ImplRegistry* impls = nullptr;
    std::map<std::string, ImplAttrs>* impl_attrs = nullptr;
};

// A block's `attrs:`: the kind's table, plus the table of the attrs its impl
// brings (ImplRegistry::add_attrs), both read from the one map, so a key of
// neither is an unknown-key error.
template <class C>
void read_attrs(const ImplScope& scope, YamlReader& yaml, const Item& item, const std::string& kind,
                const std::string& impl, const Table<C>& attrs, C& config) {
    const ImplRegistry::AttrsSpec* spec = scope.impls->attrs_spec(kind, impl);
    std::vector<std::string> keys = attrs.keys();
    if (spec) keys.insert(keys.end(), spec->keys.begin(), spec->keys.end());
    const MapReader reader(yaml, item, keys);
    schema::read_fields(reader, attrs, config);
    if (spec) (*scope.impl_attrs)[kind] = spec->read(reader);
}

void dump_impl_attrs(const ImplScope& scope, YAML::Emitter& out, const std::string& kind) {
    if (!scope.impl_attrs) return;
    const auto it = scope.impl_attrs->find(kind);
    if (it == scope.impl_attrs->end()) return;
    for (const auto& [key, text] : it->second.text) out << YAML::Key << key << YAML::Value << text;
}

// `key: { kind: ..., impl: ..., attrs: { ... } }`; the caller writes the
// attrs (flow style) between begin and end.
void begin_block(YAML::Emitter& out, const std::string& key, const std::string& kind,
                 const std::string& impl) {
    out << YAML::Key << key << YAML::Value << YAML::BeginMap;
    schema::emit(out, "kind", kind);
    schema::emit(out, "impl", impl);
    out << YAML::Key << "attrs" << YAML::Value << YAML::Flow << YAML::BeginMap;
}
void end_block(YAML::Emitter& out) { out << YAML::EndMap << YAML::EndMap; }

// A block whose kind is its key (io_cpu and the cube-level blocks):
// `{ kind?, impl, attrs }`, its attrs read by `attrs`. `impls` is null when
// the table only dumps or documents.
template <class T, class At, class LocAt, class C>
Field<T> block(const ImplScope& scope, const std::string& key, At at, LocAt impl_loc_at,
               const char* default_impl, const Table<C>& attrs) {
    return Field<T>{
        key,
        [=](const MapReader& r, T& t) {
            YamlReader& yaml = r.reader();
            const MapReader entry(yaml, r.child(key), {"kind", "impl", "attrs"});
            const Item kind = entry.child("kind");
            if (kind.present && yaml.to_string(kind) != key)
                throw ConfigError(kind.loc, "kind must be '" + key + "' (got '" +
                                                yaml.to_string(kind) + "')");
            const Item impl_item = entry.child("impl");
            C& config = std::invoke(at, t);
            config.impl = impl_item.present ? yaml.to_string(impl_item) : std::string(default_impl);
            std::invoke(impl_loc_at, t) = impl_item.loc;
            check_impl(*scope.impls, key, config.impl, impl_item.loc);
            read_attrs(scope, yaml, entry.child("attrs"), key, config.impl, attrs, config);
        },
        [=](YAML::Emitter& out, const T& t) {
            const C& config = std::invoke(at, t);
            begin_block(out, key, key, config.impl);
            schema::dump_fields(out, attrs, config);
            dump_impl_attrs(scope, out, key);
            end_block(out);
        },
        [=](const std::string& prefix, Docs& docs, std::size_t section) {
            docs[section].rows.push_back({prefix + key + ".impl", "string", "",
                                          std::string("`") + default_impl + "`",
                                          "registered for kind `" + key + "`", ""});
            schema::document(attrs, prefix + key + ".attrs.", docs, section);
        }};
}

// ---------------------------------------------------------------- tables

Table<LinkConfig> link_table(double latency_ns, double bw_gbs, const std::string& doc) {
    using F = Fields<LinkConfig>;
    return {{F::number("latency_ns", &LinkConfig::latency_ns, latency_ns, Bound::non_negative, "ns", doc),
             F::number("bw_gbs", &LinkConfig::bw_gbs, bw_gbs, Bound::positive, "GB/s", "")}};
}

const Table<IoCpuConfig>& io_cpu_attrs() {
    using F = Fields<IoCpuConfig>;
    static const Table<IoCpuConfig> table{{
        F::number("overhead_ns", &IoCpuConfig::overhead_ns, dflt::kIoCpuOverheadNs, Bound::non_negative, "ns", "per transaction, responses included"),
    }};
    return table;
}

const Table<UcieConfig>& ucie_table() {
    using F = Fields<UcieConfig>;
    static const Table<UcieConfig> table{{
        F::number("latency_ns", [](auto& u) -> auto& { return u.link.latency_ns; }, dflt::kUcieLatencyNs, Bound::non_negative, "ns", "between consecutive cubes of a SIP"),
        F::number("bw_gbs", [](auto& u) -> auto& { return u.link.bw_gbs; }, dflt::kUcieBwGbs, Bound::positive, "GB/s", ""),
        F::integer("router", &UcieConfig::router, dflt::kUcieRouter, 0, "", "mesh router of the cube's UCIe port, in [0, rows × cols)"),
    }};
    return table;
}

Table<SystemConfig> system_table(const ImplScope& scope) {
    using F = Fields<SystemConfig>;
    Table<SystemConfig> table{{
        F::required_integer("sips", &SystemConfig::sips, 1, "", ""),
        F::required_integer("cubes_per_sip", &SystemConfig::cubes_per_sip, 1, "", "`sips × cubes_per_sip` <= 64"),
        block<SystemConfig>(scope, "io_cpu", &SystemConfig::io_cpu, &SystemConfig::io_cpu_impl_loc, dflt::kIoCpuImpl, io_cpu_attrs()),
        F::section("io_link", &SystemConfig::io_link, link_table(dflt::kIoLinkLatencyNs, dflt::kIoLinkBwGbs, "IO_CPU ↔ each cube's M_CPU")),
        F::section("ucie", &SystemConfig::ucie, ucie_table()),
        F::section("sip_link", &SystemConfig::sip_link, link_table(dflt::kSipLinkLatencyNs, dflt::kSipLinkBwGbs, "IO_CPU of SIP s ↔ SIP s+1")),
    }};
    table.flow = false;
    return table;
}

const Table<MCpuConfig>& m_cpu_attrs() {
    using F = Fields<MCpuConfig>;
    static const Table<MCpuConfig> table{{
        F::number("overhead_ns", &MCpuConfig::overhead_ns, dflt::kMCpuOverheadNs, Bound::non_negative, "ns", "per message, transit included"),
        F::integer("router", &MCpuConfig::router, dflt::kMCpuRouter, 0, "", "mesh router, in [0, rows × cols)"),
        F::optional_number("response_timeout_ns", &MCpuConfig::response_timeout_ns, Bound::positive, "ns", "watchdog off",
                           "a fan-out whose PE responses have not all arrived this long after dispatch ends with `success = false` naming the missing PEs (docs/workload.md \"Watchdog\")"),
    }};
    return table;
}

const Table<NocConfig>& noc_attrs() {
    using F = Fields<NocConfig>;
    static const Table<NocConfig> table{{
        F::number("link_bw_gbs", &NocConfig::link_bw_gbs, dflt::kNocLinkBwGbs, Bound::positive, "GB/s", "router ↔ router"),
        F::number("router_latency_ns", &NocConfig::router_latency_ns, dflt::kNocRouterLatencyNs, Bound::non_negative, "ns", "per router passed"),
        F::number("attach_latency_ns", [](auto& n) -> auto& { return n.attach.latency_ns; }, dflt::kNocAttachLatencyNs, Bound::non_negative, "ns", "node ↔ its router"),
        F::optional_number("attach_bw_gbs", [](auto& n) -> auto& { return n.attach.bw_gbs; }, Bound::positive, "GB/s", "unlimited", "node ↔ its router"),
    }};
    return table;
}

const Table<HbmCtrlConfig>& hbm_ctrl_attrs() {
    using F = Fields<HbmCtrlConfig>;
    static const Table<HbmCtrlConfig> table{{
        F::number("bw_gbs", &HbmCtrlConfig::bw_gbs, dflt::kHbmCtrlBwGbs, Bound::positive, "GB/s", "per HBM slice (one controller per PE)"),
        F::number("latency_ns", &HbmCtrlConfig::latency_ns, dflt::kHbmCtrlLatencyNs, Bound::non_negative, "ns", ""),
    }};
    return table;
}

const Table<SharedSramConfig>& shared_sram_attrs() {
    using F = Fields<SharedSramConfig>;
    static const Table<SharedSramConfig> table{{
        F::size("size_mb", &SharedSramConfig::size_bytes, dflt::kSharedSramSizeMb, 20, "MiB", ""),
        F::number("bw_gbs", &SharedSramConfig::bw_gbs, dflt::kSharedSramBwGbs, Bound::positive, "GB/s", ""),
        F::number("latency_ns", &SharedSramConfig::latency_ns, dflt::kSharedSramLatencyNs, Bound::non_negative, "ns", ""),
        F::integer("router", &SharedSramConfig::router, dflt::kSharedSramRouter, 0, "", "mesh router, in [0, rows × cols)"),
    }};
    return table;
}

// A key whose default follows another key (issue 39 point 8): its value
// when given (an int >= 1), else 0 until resolve_derived() sets it.
template <typename Config>
auto derived_int_reader(int Config::*member, const char* key) {
    return [member, key](const MapReader& r, Config& c) {
        c.*member = r.child(key).present ? static_cast<int>(r.integer(key, 1, 1)) : 0;
    };
}
template <typename Config>
auto int_emitter(int Config::*member, const char* key) {
    return [member, key](YAML::Emitter& out, const Config& c) { schema::emit(out, key, c.*member); };
}

const Table<MemoryMapConfig>& memory_map_table() {
    using F = Fields<MemoryMapConfig>;
    static const Table<MemoryMapConfig> table{{
        // Derived from the PE layout when left out (issue 39 point 8): one
        // slice per PE. 0 here until resolve_derived() sets it.
        F::leaf("hbm_slices_per_cube", {"", "int", "", "`pe_layout.rows × cols`", "> 0, <= 65536",
                 "must equal `pe_layout.rows × cols` (one slice per PE); left out it follows the layout"},
                derived_int_reader(&MemoryMapConfig::hbm_slices_per_cube, "hbm_slices_per_cube"),
                int_emitter(&MemoryMapConfig::hbm_slices_per_cube, "hbm_slices_per_cube")),
        F::size("hbm_slice_gb", &MemoryMapConfig::hbm_slice_bytes, dflt::kHbmSliceGb, 30, "GiB", ""),
        F::address("sram_base", &MemoryMapConfig::sram_base, dflt::kSramBase, "PA of cube 0's shared SRAM window"),
    }};
    return table;
}

const Table<PeLayoutConfig>& pe_layout_table() {
    using F = Fields<PeLayoutConfig>;
    static const Table<PeLayoutConfig> table{{
        F::required_integer("rows", &PeLayoutConfig::rows, 1, "", "`rows × cols` <= 256"),
        F::required_integer("cols", &PeLayoutConfig::cols, 1, "", ""),
        F::number("pitch_mm", &PeLayoutConfig::pitch_mm, dflt::kPePitchMm, Bound::non_negative, "mm", "distance between neighbouring PEs"),
    }};
    return table;
}

// ---------------------------------------------------------------- PE components

const Table<PeCpuConfig>& pe_cpu_attrs() {
    using F = Fields<PeCpuConfig>;
    static const Table<PeCpuConfig> table{{
        F::number("overhead_ns", &PeCpuConfig::overhead_ns, dflt::kPeCpuOverheadNs, Bound::non_negative, "ns", "per command issued"),
        F::number("kernel_start_ns", &PeCpuConfig::kernel_start_ns, dflt::kPeCpuKernelStartNs, Bound::non_negative, "ns", "from a kernel's start (its launch, or its barrier) to its first command: program load and set-up"),
        F::number("kernel_end_ns", &PeCpuConfig::kernel_end_ns, dflt::kPeCpuKernelEndNs, Bound::non_negative, "ns", "from the completion of a kernel's last command to the kernel's end (its completion phase: the PE is done, M_CPU is answered, a barrier's next kernel may start); the furiosa-opt book's MNIST timeline shows ~600 cycles on its Core lane (docs/mnist.md)"),
    }};
    return table;
}

const Table<PeSchedulerConfig>& pe_scheduler_attrs() {
    using F = Fields<PeSchedulerConfig>;
    static const Table<PeSchedulerConfig> table{{
        F::number("overhead_ns", &PeSchedulerConfig::overhead_ns, dflt::kPeSchedulerOverheadNs, Bound::non_negative, "ns", "per dispatch"),
        F::integer("inbox_depth", &PeSchedulerConfig::inbox_depth, dflt::kPeSchedulerInboxDepth, 1, "tokens", "depth of every stage inbox"),
        F::choice("bank_policy", &PeSchedulerConfig::bank_policy, dflt::kPeSchedulerBankPolicy,
                  std::vector<std::pair<std::string, BankPolicy>>{{"serialize", BankPolicy::serialize}, {"detect", BankPolicy::detect}},
                  "what the scheduler does with a command that would break the bank limit (seed 002; see workload.md \"Schedule semantics\")"),
        F::integer("bank_limit", &PeSchedulerConfig::bank_limit, dflt::kPeSchedulerBankLimit, 1, "accesses",
                   "per TCM bank, the consecutive same-bank accesses of all running commands must stay below it (CALIBRATION: NoC timeout 4096 cycles, `(256/128)·N·32 < 4096` → N < 64)"),
    }};
    return table;
}

const Table<PeDmaConfig>& pe_dma_attrs() {
    using F = Fields<PeDmaConfig>;
    static const Table<PeDmaConfig> table{{
        F::integer("rd_engines", &PeDmaConfig::rd_engines, dflt::kPeDmaRdEngines, 1, "", "DMA_READ channels"),
        F::integer("wr_engines", &PeDmaConfig::wr_engines, dflt::kPeDmaWrEngines, 1, "", "DMA_WRITE channels"),
        F::number("setup_ns", &PeDmaConfig::setup_ns, dflt::kPeDmaSetupNs, Bound::non_negative, "ns", "per transfer"),
        F::number("bw_gbs", &PeDmaConfig::bw_gbs, dflt::kPeDmaBwGbs, Bound::positive, "GB/s", "per engine"),
        // <= pe_tcm banks is checked in check_fit (the components come in
        // any order); left out it is 16 or pe_tcm's banks when fewer
        // (issue 39 point 8): 0 here until resolve_derived() sets it.
        F::leaf("banks_per_transfer", {"", "int", "banks", "16, or `pe_tcm.banks` when fewer", "> 0, <= `pe_tcm.banks`",
                 "TCM banks a DMA transfer occupies at a time (seed 002: 16); left out it follows a TCM of fewer banks"},
                derived_int_reader(&PeDmaConfig::banks_per_transfer, "banks_per_transfer"),
                int_emitter(&PeDmaConfig::banks_per_transfer, "banks_per_transfer")),
        F::number("chunk_ns", &PeDmaConfig::chunk_ns, dflt::kPeDmaChunkNs, Bound::non_negative, "ns", "per strided chunk after a transfer's first (docs/timing.md \"DMA transfer patterns\")"),
        F::number("copy_ns", &PeDmaConfig::copy_ns, dflt::kPeDmaCopyNs, Bound::non_negative, "ns", "per broadcast copy after the first, beyond its bytes' time"),
        F::number("piece_ns", &PeDmaConfig::piece_ns, dflt::kPeDmaPieceNs, Bound::non_negative, "ns", "per gathered piece after the first, beyond its bytes' time"),
    }};
    return table;
}

const Table<PeFetchStoreConfig>& pe_fetch_store_attrs() {
    using F = Fields<PeFetchStoreConfig>;
    static const Table<PeFetchStoreConfig> table{{
        F::number("latency_ns", &PeFetchStoreConfig::latency_ns, dflt::kPeFetchStoreLatencyNs, Bound::non_negative, "ns", "per fetch or store: a command's and a composite's tile's"),
        F::number("command_ns", &PeFetchStoreConfig::command_ns, dflt::kPeFetchStoreCommandNs, Bound::non_negative, "ns", "more per `fetch` or `store` command (its issue, set-up and completion), not paid by a composite's tiles"),
    }};
    return table;
}

const std::vector<std::pair<std::string, std::string>> kAccelSlotOnly = {{dflt::kAccelSlot, dflt::kAccelSlot}};
const std::vector<std::pair<std::string, GemmCostModel>> kGemmCostModels = {
    {"dataflow", GemmCostModel::dataflow}, {"array_pass", GemmCostModel::array_pass}};

const Table<PeGemmConfig>& pe_gemm_attrs() {
    using F = Fields<PeGemmConfig>;
    static const Table<PeGemmConfig> table{{
        F::choice("shared_resource", &PeGemmConfig::shared_resource, dflt::kAccelSlot, kAccelSlotOnly, "the slot GEMM and MATH share (seed 000 D8)"),
        F::integer("rows", &PeGemmConfig::rows, dflt::kPeGemmRows, 1, "", "with `impl: rtl.pe_gemm` it must equal the RTL array's (docs/rtl.md)"),
        F::integer("cols", &PeGemmConfig::cols, dflt::kPeGemmCols, 1, "", "as `rows`"),
        F::number("freq_ghz", &PeGemmConfig::freq_ghz, dflt::kPeGemmFreqGhz, Bound::positive, "GHz", "with `rtl.pe_gemm` the RTL clock, period `1000 / freq_ghz` ps to the nearest ps (at least 2)"),
        F::integer("fill_cycles", &PeGemmConfig::fill_cycles, dflt::kPeGemmFillCycles, 0, "cycles", "not used by `rtl.pe_gemm`, whose latency is the RTL's"),
        F::choice("cost_model", &PeGemmConfig::cost_model, dflt::kPeGemmCostModel, kGemmCostModels, "`dataflow`: max(array cycles with K folded onto idle rows / columns, operand bytes / fetch rate) + fill (+ reducer when folded); `array_pass`: ceil(m/rows)·ceil(n/cols)·k + fill (docs/timing.md T3); not used by `rtl.pe_gemm`"),
        F::integer("fetch_bytes_per_cycle", &PeGemmConfig::fetch_bytes_per_cycle, dflt::kPeGemmFetchBytesPerCycle, 1, "bytes", "operand bytes fetched into the array per cycle (`dataflow`)"),
        F::integer("reducer_cycles", &PeGemmConfig::reducer_cycles, dflt::kPeGemmReducerCycles, 0, "cycles", "reduction of the partial sums of a folded K (`dataflow`)"),
        F::integer("command_cycles", &PeGemmConfig::command_cycles, dflt::kPeGemmCommandCycles, 0, "cycles", "more per `gemm` command (its issue, set-up and completion), not paid by a composite's tiles; paid by `rtl.pe_gemm` too"),
    }};
    return table;
}

// op_cost: one number per math op; an op left out keeps its default cost, so
// a topology may tune one op.
Field<PeMathConfig> op_cost_field() {
    const std::string key = "op_cost";
    std::string costs;
    for (const auto& entry : dflt::kPeMathOpCost)
        costs += std::string(costs.empty() ? "" : ", ") + "`" + entry.op + "` " + format_double(entry.cycles);
    return Field<PeMathConfig>{
        key,
        [key](const MapReader& r, PeMathConfig& math) {
            const MapReader reader(r.reader(), r.child(key), math_ops());
            math.op_cost.clear();
            for (const auto& entry : dflt::kPeMathOpCost)
                math.op_cost[entry.op] = reader.number(entry.op, entry.cycles, Bound::non_negative);
        },
        [key](YAML::Emitter& out, const PeMathConfig& math) {
            out << YAML::Key << key << YAML::Value << YAML::BeginMap;
            for (const auto& [op, cycles] : math.op_cost) schema::emit(out, op, cycles);
            out << YAML::EndMap;
        },
        [key, costs](const std::string& prefix, Docs& docs, std::size_t section) {
            docs[section].rows.push_back({prefix + key + ".<op>", "number", "cycles", "see meaning", ">= 0",
                                          "per element and lane; the ops and their defaults: " + costs});
        }};
}

const Table<PeMathConfig>& pe_math_attrs() {
    using F = Fields<PeMathConfig>;
    static const Table<PeMathConfig> table{{
        F::choice("shared_resource", &PeMathConfig::shared_resource, dflt::kAccelSlot, kAccelSlotOnly, "the slot GEMM and MATH share (seed 000 D8)"),
        F::integer("lanes", &PeMathConfig::lanes, dflt::kPeMathLanes, 1, "", "vector lanes for 8- and 16-bit elements; with `impl: rtl.pe_math` it must equal the RTL unit's (docs/rtl.md)"),
        // Derived from `lanes` when left out (issue 39 point 8): a 32-bit
        // element is twice a 16-bit one, so half as many fit the same lanes
        // (CALIBRATION: 8 or 4 elements per cycle per lane group).
        F::leaf("lanes_32bit",
                {"", "int", "", "`lanes` / 2 (at least 1)", ">= 1, <= `lanes`",
                 "vector lanes for 32-bit elements; as `lanes`. Left out it follows `lanes` (a 32-bit element takes "
                 "two 16-bit lanes: 512 → 256); more than `lanes` is an error (it would run wider elements on more "
                 "lanes)"},
                [](const MapReader& r, PeMathConfig& m) {
                    m.lanes_32bit = r.child("lanes_32bit").present
                                        ? static_cast<int>(r.integer("lanes_32bit", dflt::kPeMathLanes32, 1))
                                        : std::max(1, m.lanes / 2);
                },
                [](YAML::Emitter& out, const PeMathConfig& m) { schema::emit(out, "lanes_32bit", m.lanes_32bit); }),
        F::number("freq_ghz", &PeMathConfig::freq_ghz, dflt::kPeMathFreqGhz, Bound::positive, "GHz", ""),
        F::integer("fill_cycles", &PeMathConfig::fill_cycles, dflt::kPeMathFillCycles, 0, "cycles", "pipeline fill; not used by `rtl.pe_math`, whose timing is the RTL's"),
        F::integer("command_cycles", &PeMathConfig::command_cycles, dflt::kPeMathCommandCycles, 0, "cycles", "more per `math` command (its issue, set-up and completion), not paid by a composite's epilogues; paid by `rtl.pe_math` too"),
        op_cost_field(),
    },
    [](const MapReader& r, const PeMathConfig& m) {
        if (m.lanes_32bit > m.lanes)
            throw ConfigError(r.child("lanes_32bit").loc,
                              "lanes_32bit " + std::to_string(m.lanes_32bit) + " is more than lanes " +
                                  std::to_string(m.lanes) +
                                  ": a 32-bit element is twice as wide as a 16-bit one, so at most as many "
                                  "fit the same lanes (leave it out: lanes / 2)");
    }};
    return table;
}

const Table<PeTcmConfig>& pe_tcm_attrs() {
    using F = Fields<PeTcmConfig>;
    static const Table<PeTcmConfig> table{
        {
            F::size("size_mb", &PeTcmConfig::size_bytes, dflt::kPeTcmSizeMb, 20, "MiB", ""),
            F::size("reserved_mb", &PeTcmConfig::reserved_bytes, dflt::kPeTcmReservedMb, 20, "MiB", "SchedulerReservedTCM, the first `reserved_mb` of the TCM: PE_SCHEDULER's tile buffers; workload `tcm` ranges lie above it (AllocatableTCM); must be < `size_mb`"),
            F::number("read_bw_gbs", &PeTcmConfig::read_bw_gbs, dflt::kPeTcmReadBwGbs, Bound::positive, "GB/s", ""),
            F::number("write_bw_gbs", &PeTcmConfig::write_bw_gbs, dflt::kPeTcmWriteBwGbs, Bound::positive, "GB/s", ""),
            F::number("latency_ns", &PeTcmConfig::latency_ns, dflt::kPeTcmLatencyNs, Bound::non_negative, "ns", ""),
            F::integer("banks", &PeTcmConfig::banks, dflt::kPeTcmBanks, 1, "", "TCM banks (CALIBRATION: bank index = address bits 3–6)"),
            F::integer("bank_interleave_bytes", &PeTcmConfig::bank_interleave_bytes, dflt::kPeTcmBankInterleaveBytes, 1, "bytes",
                       "bank of TCM offset `a` = `(a / bank_interleave_bytes) % banks`"),
            F::integer("slices", &PeTcmConfig::slices, dflt::kPeTcmSlices, 1, "", "DM slices of the PE; a broadcast DMA writes at most one copy into each"),
            F::number("slice_bw_gbs", &PeTcmConfig::slice_bw_gbs, dflt::kPeTcmSliceBwGbs, Bound::positive, "GB/s", "one slice's write rate: a broadcast copy goes into one slice at min(this, `pe_dma.bw_gbs`)"),
        },
        // Checked here rather than in check_fit: the component's name is in the path.
        [](const MapReader& a, const PeTcmConfig& tcm) {
            if (tcm.reserved_bytes >= tcm.size_bytes)
                throw ConfigError(a.child("reserved_mb").loc,
                                  "must be < size_mb (got " + std::to_string(tcm.reserved_bytes >> 20) +
                                      " >= " + std::to_string(tcm.size_bytes >> 20) + ")");
        }};
    return table;
}

const Table<PeMmuConfig>& pe_mmu_attrs() {
    using F = Fields<PeMmuConfig>;
    static const Table<PeMmuConfig> table{{
        F::size("page_kb", &PeMmuConfig::page_bytes, dflt::kPeMmuPageKb, 10, "KiB", ""),
        F::number("translate_ns", &PeMmuConfig::translate_ns, dflt::kPeMmuTranslateNs, Bound::non_negative, "ns", "per DMA stage"),
    }};
    return table;
}

const Table<PeIpcqConfig>& pe_ipcq_attrs() {
    using F = Fields<PeIpcqConfig>;
    static const Table<PeIpcqConfig> table{{
        F::integer("slots", &PeIpcqConfig::slots, dflt::kPeIpcqSlots, 1, "", "ring slots"),
        F::size("slot_kb", &PeIpcqConfig::slot_bytes, dflt::kPeIpcqSlotKb, 10, "KiB", ""),
    }};
    return table;
}

// One kind of PE component: where its config lives in the template and the
// table of its attrs.
struct ComponentKind {
    std::string kind;
    std::function<void(const ImplScope&, YamlReader&, const Item& attrs, const std::string& impl, PeTemplateConfig&)> read;
    std::function<void(const ImplScope&, YAML::Emitter&, const std::string& name, const PeTemplateConfig&)> dump;
    std::function<void(const std::string& components_path, Docs&)> document;
};

template <class C>
ComponentKind component(const std::string& kind, C PeTemplateConfig::*member, const Table<C>& attrs) {
    return ComponentKind{
        kind,
        [=](const ImplScope& scope, YamlReader& yaml, const Item& item, const std::string& impl, PeTemplateConfig& tmpl) {
            C& config = tmpl.*member;
            config.impl = impl;
            read_attrs(scope, yaml, item, kind, impl, attrs, config);
        },
        [=](const ImplScope& scope, YAML::Emitter& out, const std::string& name, const PeTemplateConfig& tmpl) {
            const C& config = tmpl.*member;
            begin_block(out, name, kind, config.impl);
            schema::dump_fields(out, attrs, config);
            dump_impl_attrs(scope, out, kind);
            end_block(out);
        },
        [=](const std::string& components_path, Docs& docs) {
            docs.push_back({components_path + ".<name>` of kind `" + kind, {}});
            docs.back().rows.push_back({"impl", "string", "", "**required**",
                                        "registered for kind `" + kind + "`", ""});
            schema::document(attrs, "attrs.", docs, docs.size() - 1);
        }};
}

// In pe_kinds() order: the order they are dumped in.
const std::vector<ComponentKind>& component_kinds() {
    static const std::vector<ComponentKind> kinds = {
        component("pe_cpu", &PeTemplateConfig::cpu, pe_cpu_attrs()),
        component("pe_scheduler", &PeTemplateConfig::scheduler, pe_scheduler_attrs()),
        component("pe_dma", &PeTemplateConfig::dma, pe_dma_attrs()),
        component("pe_fetch_store", &PeTemplateConfig::fetch_store, pe_fetch_store_attrs()),
        component("pe_gemm", &PeTemplateConfig::gemm, pe_gemm_attrs()),
        component("pe_math", &PeTemplateConfig::math, pe_math_attrs()),
        component("pe_tcm", &PeTemplateConfig::tcm, pe_tcm_attrs()),
        component("pe_mmu", &PeTemplateConfig::mmu, pe_mmu_attrs()),
        component("pe_ipcq", &PeTemplateConfig::ipcq, pe_ipcq_attrs()),
    };
    return kinds;
}

// `components: { <name>: { kind, impl, attrs } }`: exactly one of each kind,
// named freely.
Field<PeTemplateConfig> components_field(const ImplScope& scope) {
    const std::string key = "components";
    return Field<PeTemplateConfig>{
        key,
        [=](const MapReader& r, PeTemplateConfig& tmpl) {
            YamlReader& yaml = r.reader();
            const MapReader components(yaml, r.required(key), {}, /*any_key=*/true);
            for (const auto& [name, entry_item] : components.entries()) {
                if (!is_identifier(name))
                    throw ConfigError(components.key_loc(name),
                                      "component name must match [a-z][a-z0-9_]*");
                const MapReader entry(yaml, entry_item, {"kind", "impl", "attrs"});
                const Item kind_item = entry.required("kind");
                const std::string kind = yaml.to_string(kind_item);
                const auto& kinds = component_kinds();
                const auto it = std::find_if(kinds.begin(), kinds.end(),
                                             [&](const ComponentKind& k) { return k.kind == kind; });
                if (it == kinds.end())
                    throw ConfigError(kind_item.loc, "unknown component kind '" + kind +
                                                         "' (known kinds: " + join(pe_kinds()) + ")");
                if (tmpl.names.count(kind))
                    throw ConfigError(kind_item.loc, "kind '" + kind + "' given twice (components '" +
                                                         tmpl.names[kind] + "' and '" + name + "')");
                tmpl.names[kind] = name;
                const Item impl_item = entry.required("impl");
                const std::string impl = yaml.to_string(impl_item);
                check_impl(*scope.impls, kind, impl, impl_item.loc);
                tmpl.impl_loc[kind] = impl_item.loc;
                it->read(scope, yaml, entry.child("attrs"), impl, tmpl);
            }
            for (const auto& kind : pe_kinds())
                if (!tmpl.names.count(kind))
                    throw ConfigError(components.item().loc, "missing component of kind '" + kind +
                                                                 "' (exactly one of each: " +
                                                                 join(pe_kinds()) + ")");
        },
        [=](YAML::Emitter& out, const PeTemplateConfig& tmpl) {
            out << YAML::Key << key << YAML::Value << YAML::BeginMap;
            for (const auto& kind : component_kinds()) {
                const auto it = tmpl.names.find(kind.kind);
                kind.dump(scope, out, it != tmpl.names.end() ? it->second : kind.kind, tmpl);
            }
            out << YAML::EndMap;
        },
        [=](const std::string& prefix, Docs& docs, std::size_t section) {
            docs[section].rows.push_back({prefix + key, "map", "", "**required**", "",
                                          "`name: { kind, impl, attrs }`, exactly one of each kind below"});
            const std::string path = schema::path_in(docs[section], prefix + key);
            for (const auto& kind : component_kinds()) kind.document(path, docs);
        }};
}

const Table<PeLinksConfig>& pe_links_table() {
    using F = Fields<PeLinksConfig>;
    const auto mm = [](const char* key, double PeLinksConfig::*member) {
        return F::number(key, member, dflt::kPeLinkMm, Bound::non_negative, "mm", "T1 hop of `mm × wire.ns_per_mm` (seed 000 §D8)");
    };
    // Edges seed 000 §D8 draws that no transfer crosses in npuvp: an engine
    // hands a token to the next through the PE's stage inboxes. Accepted at
    // 0 (the seed's value) so seed-shaped configs load; any other value
    // would change nothing, so it is an error that says so.
    const auto unmodelled = [](const char* key, double PeLinksConfig::*member) {
        return F::number(key, member, dflt::kPeLinkMm, Bound::non_negative, "mm",
                         "must be 0: not modelled (seed 000 §D8 draws the edge; npuvp hands tokens "
                         "between engines through the stage inboxes, over no link)");
    };
    struct Edge {
        const char* key;
        double PeLinksConfig::*member;
    };
    static constexpr Edge unmodelled_edges[] = {
        {"scheduler_to_dma_mm", &PeLinksConfig::scheduler_to_dma_mm},
        {"scheduler_to_fetch_store_mm", &PeLinksConfig::scheduler_to_fetch_store_mm},
        {"scheduler_to_gemm_mm", &PeLinksConfig::scheduler_to_gemm_mm},
        {"scheduler_to_math_mm", &PeLinksConfig::scheduler_to_math_mm},
        {"dma_to_fetch_store_mm", &PeLinksConfig::dma_to_fetch_store_mm},
        {"fetch_store_to_gemm_mm", &PeLinksConfig::fetch_store_to_gemm_mm},
        {"fetch_store_to_math_mm", &PeLinksConfig::fetch_store_to_math_mm},
        {"gemm_to_fetch_store_mm", &PeLinksConfig::gemm_to_fetch_store_mm},
        {"gemm_to_math_mm", &PeLinksConfig::gemm_to_math_mm},
        {"math_to_fetch_store_mm", &PeLinksConfig::math_to_fetch_store_mm},
        {"fetch_store_to_dma_mm", &PeLinksConfig::fetch_store_to_dma_mm},
    };
    static const Table<PeLinksConfig> table = [&] {
        Table<PeLinksConfig> t{{mm("cpu_to_scheduler_mm", &PeLinksConfig::cpu_to_scheduler_mm)}};
        for (const Edge& e : unmodelled_edges) t.fields.push_back(unmodelled(e.key, e.member));
        t.fields.push_back(F::number("fetch_store_to_tcm_bw_gbs", &PeLinksConfig::fetch_store_to_tcm_bw_gbs, dflt::kPeFetchStoreToTcmBwGbs, Bound::positive, "GB/s", "fetch / store ↔ TCM hop"));
        t.flow = false;
        t.check = [](const MapReader& r, const PeLinksConfig& l) {
            for (const Edge& e : unmodelled_edges)
                if (l.*e.member != 0.0)
                    throw ConfigError(r.child(e.key).loc,
                                      "must be 0: npuvp does not model this edge (an engine hands "
                                      "a token to the next through the PE's stage inboxes, over "
                                      "no link), so a length here would change nothing; only "
                                      "cpu_to_scheduler_mm and fetch_store_to_tcm_bw_gbs are "
                                      "modelled (docs/schema.md)");
        };
        return t;
    }();
    return table;
}

Table<PeTemplateConfig> pe_template_table(const ImplScope& scope) {
    using F = Fields<PeTemplateConfig>;
    Table<PeTemplateConfig> table{{
        components_field(scope),
        F::section("links", &PeTemplateConfig::links, pe_links_table(), false, true, "intra-PE edges"),
    }};
    table.flow = false;
    return table;
}

Table<CubeConfig> cube_table(const ImplScope& scope) {
    using F = Fields<CubeConfig>;
    const auto impl_loc = [](const char* kind) {
        return [kind](auto& cube) -> auto& { return cube.impl_loc[kind]; };
    };
    Table<CubeConfig> table{{
        block<CubeConfig>(scope, "m_cpu", &CubeConfig::m_cpu, impl_loc("m_cpu"), dflt::kMCpuImpl, m_cpu_attrs()),
        block<CubeConfig>(scope, "noc", &CubeConfig::noc, impl_loc("noc"), dflt::kNocImpl, noc_attrs()),
        block<CubeConfig>(scope, "hbm_ctrl", &CubeConfig::hbm_ctrl, impl_loc("hbm_ctrl"), dflt::kHbmCtrlImpl, hbm_ctrl_attrs()),
        block<CubeConfig>(scope, "shared_sram", &CubeConfig::shared_sram, impl_loc("shared_sram"), dflt::kSharedSramImpl, shared_sram_attrs()),
        F::section("memory_map", &CubeConfig::memory_map, memory_map_table()),
        F::section("pe_layout", &CubeConfig::pe_layout, pe_layout_table(), /*required=*/true),
        F::section("pe_template", &CubeConfig::pe_template, pe_template_table(scope), true, true, "the template every PE is built from"),
    }};
    table.flow = false;
    return table;
}

const Table<WireConfig>& wire_table() {
    using F = Fields<WireConfig>;
    static const Table<WireConfig> table = [] {
        Table<WireConfig> t{{F::number("ns_per_mm", &WireConfig::ns_per_mm, dflt::kWireNsPerMm, Bound::non_negative, "ns/mm", "T1 latency per mm of distance")}};
        t.flow = false;
        return t;
    }();
    return table;
}

const Table<EnergyConfig>& energy_table() {
    using F = Fields<EnergyConfig>;
    using E = EnergyConfig;
    static const Table<EnergyConfig> table = [] {
        Table<EnergyConfig> t{{
            F::number("mac_int8_pj", &E::mac_int8_pj, dflt::kMacInt8Pj, Bound::non_negative, "pJ", "per MAC of int8 operands"),
            F::number("mac_bf16_pj", &E::mac_bf16_pj, dflt::kMacBf16Pj, Bound::non_negative, "pJ", "per MAC of bf16 operands"),
            F::number("mac_fp32_pj", &E::mac_fp32_pj, dflt::kMacFp32Pj, Bound::non_negative, "pJ", "per MAC of fp32 operands"),
            F::number("math_element_pj", &E::math_element_pj, dflt::kMathElementPj, Bound::non_negative, "pJ", "per PE_MATH element and cycle of its op's `op_cost`"),
            F::number("hbm_read_pj_per_byte", &E::hbm_read_pj_per_byte, dflt::kHbmReadPjPerByte, Bound::non_negative, "pJ/B", "read from an HBM slice"),
            F::number("hbm_write_pj_per_byte", &E::hbm_write_pj_per_byte, dflt::kHbmWritePjPerByte, Bound::non_negative, "pJ/B", "written to an HBM slice"),
            F::number("sram_read_pj_per_byte", &E::sram_read_pj_per_byte, dflt::kSramReadPjPerByte, Bound::non_negative, "pJ/B", "read from shared SRAM"),
            F::number("sram_write_pj_per_byte", &E::sram_write_pj_per_byte, dflt::kSramWritePjPerByte, Bound::non_negative, "pJ/B", "written to shared SRAM"),
            F::number("tcm_read_pj_per_byte", &E::tcm_read_pj_per_byte, dflt::kTcmReadPjPerByte, Bound::non_negative, "pJ/B", "through a TCM read port (DMA write, FETCH)"),
            F::number("tcm_write_pj_per_byte", &E::tcm_write_pj_per_byte, dflt::kTcmWritePjPerByte, Bound::non_negative, "pJ/B", "through a TCM write port (DMA read, STORE)"),
            F::number("noc_pj_per_byte_hop", &E::noc_pj_per_byte_hop, dflt::kNocPjPerByteHop, Bound::non_negative, "pJ/B", "per mesh or attach link crossed"),
            F::number("ucie_pj_per_byte", &E::ucie_pj_per_byte, dflt::kUciePjPerByte, Bound::non_negative, "pJ/B", "per UCIe crossing"),
            F::number("offchip_pj_per_byte", &E::offchip_pj_per_byte, dflt::kOffchipPjPerByte, Bound::non_negative, "pJ/B", "per io link or SIP link crossing"),
            F::number("dma_descriptor_pj", &E::dma_descriptor_pj, dflt::kDmaDescriptorPj, Bound::non_negative, "pJ", "per DMA transfer"),
            F::number("pe_static_mw", &E::pe_static_mw, dflt::kPeStaticMw, Bound::non_negative, "mW", "static power per PE"),
            F::number("hbm_static_mw", &E::hbm_static_mw, dflt::kHbmStaticMw, Bound::non_negative, "mW", "static power per HBM slice"),
            F::number("cube_static_mw", &E::cube_static_mw, dflt::kCubeStaticMw, Bound::non_negative, "mW", "static power per cube (shared SRAM, NoC, M_CPU)"),
        }};
        t.flow = false;
        return t;
    }();
    return table;
}

Table<TopologyConfig> topology_table(const ImplScope& scope) {
    using F = Fields<TopologyConfig>;
    return Table<TopologyConfig>{{
        F::string("name", &TopologyConfig::name, dflt::kTopologyName, ""),
        F::section("wire", &TopologyConfig::wire, wire_table()),
        F::section("system", &TopologyConfig::system, system_table(scope), true, true, ""),
        F::section("cube", &TopologyConfig::cube, cube_table(scope), true, true, "describes every cube"),
        F::section("energy", &TopologyConfig::energy, energy_table(), false, true,
                   "energy per action and static power (docs/outputs.md \"Energy and power\")"),
    }, nullptr, false};
}

// ---------------------------------------------------------------- overrides

std::vector<std::string> split_key_path(const std::string& key_path) {
    std::vector<std::string> segments;
    std::string::size_type start = 0;
    while (true) {
        const auto dot = key_path.find('.', start);
        segments.push_back(key_path.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return segments;
}

YAML::Node parse_override_value(const Override& override_) {
    try {
        return YAML::Load(override_.value);
    } catch (const YAML::ParserException& e) {
        throw ConfigError(SourceLoc{kSetFile, 0, 0, override_.key_path},
                          "malformed value '" + override_.value + "': " + e.msg);
    }
}

void apply_override(YamlReader& yaml, YAML::Node& root, const Override& override_) {
    const std::vector<std::string> segments = split_key_path(override_.key_path);
    const YAML::Node value = parse_override_value(override_);
    yaml.add_set_node(value);

    YAML::Node current(root);
    std::string path;
    for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
        path = child_path(path, segments[i]);
        YAML::Node next;
        bool found = false;
        // Look up through iteration: operator[] on a non-const node inserts.
        for (auto it = current.begin(); it != current.end(); ++it) {
            if (it->first.IsScalar() && it->first.Scalar() == segments[i]) {
                next.reset(it->second);
                found = true;
                break;
            }
        }
        if (!found || next.IsNull()) {
            const YAML::Node fresh(YAML::NodeType::Map);
            current[segments[i]] = fresh;
            yaml.add_set_node(fresh);
            next.reset(fresh);
        } else if (!next.IsMap()) {
            throw ConfigError(SourceLoc{kSetFile, 0, 0, override_.key_path},
                              "cannot set a key inside '" + path + "', which is " +
                                  describe(next) + ", not a map");
        }
        current.reset(next);
    }
    current[segments.back()] = value;
}

// ---------------------------------------------------------------- checks

// Keys left out whose default follows another key (issue 39 point 8; the
// schema's default column says which): read as 0, set here once every key is
// read, before check_fit.
void resolve_derived(TopologyConfig& config) {
    CubeConfig& cube = config.cube;
    if (cube.memory_map.hbm_slices_per_cube == 0) {
        const long long pes = static_cast<long long>(cube.pe_layout.rows) * cube.pe_layout.cols;
        cube.memory_map.hbm_slices_per_cube = static_cast<int>(std::min<long long>(pes, dflt::kMaxPesPerCube + 1));
    }
    PeTemplateConfig& tmpl = cube.pe_template;
    if (tmpl.dma.banks_per_transfer == 0)
        tmpl.dma.banks_per_transfer = std::min(dflt::kPeDmaBanksPerTransfer, tmpl.tcm.banks);
}

void check_fit(const YamlReader& yaml, const TopologyConfig& config) {
    const SystemConfig& sys = config.system;
    const long long cubes = static_cast<long long>(sys.sips) * sys.cubes_per_sip;
    if (cubes > dflt::kMaxCubes)
        throw ConfigError(yaml.loc_at("system.cubes_per_sip"),
                          "sips × cubes_per_sip = " + std::to_string(cubes) + " exceeds " +
                              std::to_string(dflt::kMaxCubes) + " cubes");

    const CubeConfig& cube = config.cube;
    const long long pes = static_cast<long long>(cube.pe_layout.rows) * cube.pe_layout.cols;
    if (pes > dflt::kMaxPesPerCube)
        throw ConfigError(yaml.loc_at("cube.pe_layout"),
                          "rows × cols = " + std::to_string(pes) + " PEs exceeds " +
                              std::to_string(dflt::kMaxPesPerCube));
    const std::string mesh = std::to_string(cube.pe_layout.rows) + " × " +
                             std::to_string(cube.pe_layout.cols);
    if (cube.memory_map.hbm_slices_per_cube != pes)
        throw ConfigError(yaml.loc_at("cube.memory_map.hbm_slices_per_cube"),
                          "must equal pe_layout rows × cols = " + std::to_string(pes) +
                              " (one HBM slice per PE; got " +
                              std::to_string(cube.memory_map.hbm_slices_per_cube) + ")");

    const auto check_router = [&](const std::string& path, int router) {
        if (router >= pes)
            throw ConfigError(yaml.loc_at(path), "must be a router of the " + mesh + " mesh, in [0, " +
                                                std::to_string(pes) + ") (got " +
                                                std::to_string(router) + ")");
    };
    check_router("cube.m_cpu.attrs.router", cube.m_cpu.router);
    check_router("cube.shared_sram.attrs.router", cube.shared_sram.router);
    check_router("system.ucie.router", sys.ucie.router);

    // The memory windows AddressResolver decodes: HBM [0, cubes · slices ·
    // slice bytes) and shared SRAM [sram_base, + cubes · SRAM bytes) must
    // fit 64-bit addresses and must not overlap (issue 21 point 3).
    using u128 = unsigned __int128;
    const u128 hbm_end = static_cast<u128>(cubes) * static_cast<u128>(cube.memory_map.hbm_slices_per_cube) *
                         static_cast<u128>(cube.memory_map.hbm_slice_bytes);
    const u128 max = std::numeric_limits<std::uint64_t>::max();
    if (hbm_end > max)
        throw ConfigError(yaml.loc_at("cube.memory_map.hbm_slice_gb"),
                          "the HBM window (sips × cubes_per_sip × hbm_slices_per_cube × hbm_slice_gb) does not fit "
                          "64-bit physical addresses");
    const u128 sram_end = static_cast<u128>(cube.memory_map.sram_base) +
                          static_cast<u128>(cubes) * static_cast<u128>(cube.shared_sram.size_bytes);
    if (sram_end > max)
        throw ConfigError(yaml.loc_at("cube.memory_map.sram_base"),
                          "the shared SRAM window (sram_base + sips × cubes_per_sip × shared_sram size_mb) does not "
                          "fit 64-bit physical addresses");
    if (static_cast<u128>(cube.memory_map.sram_base) < hbm_end)
        throw ConfigError(yaml.loc_at("cube.memory_map.sram_base"),
                          "the shared SRAM window starts at " + std::to_string(cube.memory_map.sram_base) +
                              ", inside the HBM window [0, " + std::to_string(static_cast<std::uint64_t>(hbm_end)) +
                              "): the windows must not overlap (give sram_base >= " +
                              std::to_string(static_cast<std::uint64_t>(hbm_end)) + ")");

    const PeTemplateConfig& tmpl = cube.pe_template;
    if (tmpl.dma.banks_per_transfer > tmpl.tcm.banks) {
        const std::string components = "cube.pe_template.components.";
        throw ConfigError(yaml.loc_at(components + tmpl.names.at("pe_dma") + ".attrs.banks_per_transfer"),
                          "must be <= pe_tcm banks = " + std::to_string(tmpl.tcm.banks) +
                              " (got " + std::to_string(tmpl.dma.banks_per_transfer) + ")");
    }
}

// What an impl checks beyond its kind's schema (ImplRegistry::add_check),
// for every block of the topology.
void check_impls(const YamlReader& yaml, const ImplRegistry& impls, const TopologyConfig& config) {
    const PeTemplateConfig& t = config.cube.pe_template;
    const std::pair<const char*, const std::string*> blocks[] = {
        {"io_cpu", &config.system.io_cpu.impl}, {"m_cpu", &config.cube.m_cpu.impl},
        {"noc", &config.cube.noc.impl},         {"hbm_ctrl", &config.cube.hbm_ctrl.impl},
        {"shared_sram", &config.cube.shared_sram.impl},
        {"pe_cpu", &t.cpu.impl},                {"pe_scheduler", &t.scheduler.impl},
        {"pe_dma", &t.dma.impl},                {"pe_fetch_store", &t.fetch_store.impl},
        {"pe_gemm", &t.gemm.impl},              {"pe_math", &t.math.impl},
        {"pe_tcm", &t.tcm.impl},                {"pe_mmu", &t.mmu.impl},
        {"pe_ipcq", &t.ipcq.impl}};
    const ImplRegistry::Where where = [&yaml](const std::string& path) {
        auto it = yaml.locs().find(path);
        return it != yaml.locs().end() ? it->second : SourceLoc{yaml.source(), 0, 0, path};
    };
    for (const auto& [kind, impl] : blocks) impls.check(kind, *impl, config, where);
}


}  // namespace

// ---------------------------------------------------------------- public API

Override parse_override(const std::string& arg) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos)
        throw ConfigError(SourceLoc{kSetFile, 0, 0, ""},
                          "expected key.path=value (got '" + arg + "')");
    Override result{arg.substr(0, eq), arg.substr(eq + 1)};
    if (result.key_path.empty())
        throw ConfigError(SourceLoc{kSetFile, 0, 0, ""}, "empty key path in '" + arg + "'");
    for (const auto& segment : split_key_path(result.key_path))
        if (segment.empty() || segment.find_first_of(" \t") != std::string::npos)
            throw ConfigError(SourceLoc{kSetFile, 0, 0, result.key_path},
                              "malformed key path (want dotted names, e.g. cube.noc.attrs.link_bw_gbs)");
    parse_override_value(result);  // reject bad YAML now, before any file is read
    return result;
}

TopologyConfig load_topology_file(const std::string& path, const std::vector<Override>& overrides,
                                  const ImplRegistry& impls) {
    return load_topology_text(read_input_file(path), path, overrides, impls);
}

TopologyConfig load_topology_text(const std::string& text, const std::string& source_name,
                                  const std::vector<Override>& overrides,
                                  const ImplRegistry& impls) {
    YAML::Node root = parse_map_document(text, source_name, "topology keys");
    YamlReader yaml(source_name);
    return translate_yaml_errors(source_name, [&] {
        for (const auto& override_ : overrides) apply_override(yaml, root, override_);
        TopologyConfig config;
        config.source = source_name;
        read_map(yaml, yaml.root(root), topology_table(ImplScope{&impls, &config.impl_attrs}), config);
        resolve_derived(config);
        check_fit(yaml, config);
        check_impls(yaml, impls, config);
        return config;
    });
}

// ---------------------------------------------------------------- dump

std::string dump_topology_yaml(const TopologyConfig& config) {
    YAML::Emitter out;
    out << YAML::BeginMap;
    std::map<std::string, ImplAttrs> impl_attrs = config.impl_attrs;
    schema::dump_fields(out, topology_table(ImplScope{nullptr, &impl_attrs}), config);
    out << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
}

std::string topology_schema_markdown() {
    Docs docs{{"", {}}};
    schema::document(topology_table(ImplScope{}), "", docs, 0);
    return schema::markdown(docs);
}

}  // namespace npuvp
