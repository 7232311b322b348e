// Workload YAML -> validated WorkloadConfig (docs/workload.md). Same two-layer
// shape as the topology loader: yaml-cpp gives a node tree with marks, one
// MapReader per YAML map rejects keys it was not told about, and every value is
// read with its file:line:column and key path, so an error points at it.
//
// Each command kind (each form of composite) and each host request kind is
// one row of a kind table, and its keys, like those of a launch and an mmu
// entry, are key tables (config/key_table.h):
// one row per key with the member it fills, its default, bound, unit and doc,
// and the function that reads it. The tables give the allowed-key lists, read
// the keys in table order, run the checks across keys (tile fit, ranges in
// their windows) and generate the key reference of docs/workload.md
// (workload_schema_markdown, checked by workload_doc_test). The checks against
// the topology (cube / PE ranges, math ops, TCM fit, page alignment) run as
// each value is read; `wait` targets and ipcq peers, which depend on the whole
// kernel or on the launch, are resolved afterwards.
#include "config/workload_loader.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <tuple>
#include <stdexcept>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/key_table.h"
#include "config/yaml_document.h"
#include "config/yaml_reader.h"
#include "modules/common/checked.h"
#include "modules/common/run_limit.h"
#include "modules/pe/pe_gemm.h"
#include "model/onnx_import.h"
#include "modules/pe/data_spec.h"
#include "modules/pe/pe_math.h"
#include "modules/pe/tcm_partition.h"

namespace npuvp {
namespace {

using schema::DocRow;

// At most this many PE_MMU page entries in a workload, over every PE: each
// is a table entry in memory (docs/limits.md); 2^22 pages of 64 KiB map
// 256 GiB.
constexpr std::uint64_t kMaxMmuPages = std::uint64_t{1} << 22;

// Reserved-TCM buffers are allocated in 64-byte granules (the fit check
// rounds each buffer up the same way).
constexpr std::uint64_t kTcmGranuleBytes = 64;

const char* const kDefaultCube = "sip0.cube0";

// A composite's element type when `dtype` leaves it out: bf16
// (docs/workload.md, seed 000 §D3.2).
constexpr std::uint32_t kDefaultDtypeBytes = 2;
// Data mode (docs/workload.md "Operand data"): the bytes of all `data`
// entries together, which the loader holds in memory (docs/limits.md).
constexpr std::uint64_t kMaxDataBytes = std::uint64_t{256} << 20;

// Keys kept for the next issues (docs/workload.md "Reserved keys"): rejected
// with a clear message, so no file written now silently changes meaning when
// they arrive. None are reserved at present (context, reads and writes arrived
// with SPEC §6); the mechanism stays for the next ones.
const std::map<std::string, std::string>& reserved_command_keys() {
    static const std::map<std::string, std::string> keys = {};
    return keys;
}

// TCM access element sizes (SPEC §6 `access.elem_bytes`).
const std::vector<std::uint64_t>& access_elem_sizes() {
    static const std::vector<std::uint64_t> sizes = {1, 2, 4, 8, 16, 32, 64};
    return sizes;
}

bool is_resource_name(const std::string& name) {
    if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

// Commands the scheduler runs in an execution context (SPEC §6): the simple
// commands except wait and ipcq_recv. Only they take context, resources, access.
bool context_scheduled(CommandKind kind) {
    return kind != CommandKind::composite && kind != CommandKind::wait &&
           kind != CommandKind::ipcq_recv;
}

const std::vector<std::pair<std::string, std::uint32_t>>& dtypes() {
    static const std::vector<std::pair<std::string, std::uint32_t>> table = {
        {"int8", 1}, {"int32", 4}, {"bf16", 2}, {"fp32", 4}};
    return table;
}

bool is_command_id(const std::string& id) {
    const auto head = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
    if (id.empty() || !head(id[0])) return false;
    return std::all_of(id.begin(), id.end(), [&](char c) {
        return head(c) || std::isdigit(static_cast<unsigned char>(c));
    });
}

std::uint64_t round_up(std::uint64_t value, std::uint64_t granule) {
    return (value + granule - 1) / granule * granule;
}

// `all`, as a plain scalar (a quoted "all" is a string, not the keyword).
bool is_all(const YAML::Node& node) {
    return node.IsScalar() && node.Scalar() == "all" && node.Tag() != "!";
}

// A `wait` list entry, resolved once the whole kernel is known.
struct WaitRef {
    std::size_t command = 0;
    std::string id;
    SourceLoc loc;
};

// An ipcq_send peer, checked against each PE the kernel is launched on.
struct PeerRef {
    int peer = 0;
    SourceLoc loc;
};

struct KernelExtras {
    std::vector<WaitRef> waits;
    std::vector<PeerRef> peers;
};
using Extras = std::map<std::string, KernelExtras>;

class Loader {
public:
    Loader(std::string source, const TopologyConfig& topo)
        : m_source(std::move(source)), m_topo(topo), m_yaml(m_source, {false, true}) {}

    WorkloadConfig load(const YAML::Node& root);

    // ------------------------------------------------------------ values
    // What the key tables read with; each throws ConfigError at the item.
    std::uint64_t to_u64(const Item& item) const { return m_yaml.to_unsigned(item); }
    std::uint64_t size(const Item& item) const { return schema::read_size(m_yaml, item); }  // > 0
    int to_int(const Item& item) const;
    std::string to_string(const Item& item) const { return m_yaml.to_string(item); }
    bool to_bool(const Item& item) const { return m_yaml.to_bool(item); }
    double to_double(const Item& item) const { return m_yaml.to_double(item); }  // finite
    std::uint32_t dtype(const Item& item) const;
    std::string math_op(const Item& item) const;
    MemAddress address(const Item& item) const;
    DmaPatternKind dma_pattern(const Item& item, CommandKind kind) const;
    std::uint32_t pattern_count(const Item& item) const;
    // A command's or host request's `id`, when given.
    void read_id(const Item& item, std::string& id) const;
    int ipcq_peer(const Item& item) const;
    // An ipcq_send's or ipcq_recv's bytes fit one PE's IPCQ ring.
    void check_ipcq_bytes(const Item& item, std::uint64_t bytes) const;
    std::string kernel_name(const Item& item, const WorkloadConfig& config) const;
    void pe_set(const Item& item, std::vector<int>& pes) const;
    void cube_id(const Item& item, int& sip, int& cube) const;
    void host_cubes(const Item& item, std::vector<CubeRef>& cubes) const;
    void host_target_pe(const Item& item, HostRequest& request) const;
    std::uint64_t page_aligned(const Item& item, bool positive) const;
    // `access.base`: an offset inside the PE's TCM.
    std::uint64_t tcm_offset(const Item& item) const;

    // ------------------------------------------------------------ checks across keys
    void check_range(const MapReader& reader, const MemRange& range) const;
    void check_on_chip(const MapReader& reader, const Command& cmd, const std::string& type) const;
    void check_stage_time(const Command& cmd, const std::string& type) const;
    void check_dma_pattern(const MapReader& reader, Command& cmd) const;
    // Every MMU mapping, the mmu section's then the host's mmu_map /
    // mmu_unmap in list order: no virtual page mapped twice on one PE, the
    // physical side inside a memory window, and at most kMaxMmuPages page
    // entries in all (issue 21 point 3; docs/limits.md).
    void check_mmu(const WorkloadConfig& config) const;
    // A transfer's memory side, [addr, + bytes), on one memory target: the
    // HBM slice it starts in (the PE's own when addr is left out or `own`),
    // or the SRAM window (issue 21 point 3). `what` names the bytes.
    void check_memory_extent(const MapReader& reader, const char* key, const MemAddress& addr,
                             std::uint64_t bytes, const std::string& what) const;
    // A composite's src (A, and B unless src_b), src_b and dst ranges.
    void check_composite_extents(const MapReader& reader, const Command& cmd) const;
    // `a_tcm`, `b_tcm`: the operand inside AllocatableTCM, no panel of it,
    // no other place for B.
    void check_resident(const MapReader& reader, const Command& cmd) const;
    void check_access(const MapReader& reader, AccessPattern& access) const;
    // TilePlanner's checks and the reserved-TCM fit, reported at `fit_loc`.
    void check_composite(Command& cmd, const SourceLoc& fit_loc, const SourceLoc& reuse_loc = {}) const;
    void check_hbm_range(const MapReader& reader, const HostRequest& req) const;
    // Data mode (docs/workload.md "Operand data"): on when the workload has
    // `data` or `dump`; then a GEMM composite must be int8 in, int8 or
    // int32 out, with epilogues data mode computes, each add / bias_add /
    // mul with its `operand` in AllocatableTCM.
    bool data_mode() const { return m_data_mode; }
    void check_data_composite(const MapReader& reader, const Command& cmd) const;
    DataRegion data_region(const MapReader& reader, const char* what) const;
    DataInit read_data_init(const Item& item) const;
    DataDump read_data_dump(const Item& item) const;
    void check_data_overlaps(const WorkloadConfig& config) const;
    void check_self_peers(const std::string& kernel, const std::vector<int>& pes,
                          const SourceLoc& launch_loc, const Extras& extras) const;

private:
    SourceLoc loc_of(const YAML::Node& node, const std::string& path) const {
        const YAML::Mark mark = node.Mark();
        if (mark.is_null()) return SourceLoc{m_source, 0, 0, path};
        return SourceLoc{m_source, mark.line + 1, mark.column + 1, path};
    }

    Item child_item(const YAML::Node& node, const std::string& path) const {
        Item item;
        item.node.reset(node);
        item.present = true;
        item.loc = loc_of(node, path);
        return item;
    }

    std::uint64_t hbm_end() const;
    std::uint64_t sram_end() const;

    Kernel read_kernel(const std::string& name, const Item& item, KernelExtras& extras) const;
    // A kernel's commands with its nested lists taken in place, `out` in order.
    void flatten_commands(const Item& list, std::vector<Item>& out, int depth) const;
    // A one-key map entry (a command, a host request): its key, the key's
    // location and its value. `shape` opens the error for another shape
    // ("a command is a map with one key, its type (...)"), `key_name` names
    // the key in the error for a key that is not a plain name.
    struct OneKey {
        std::string key;
        SourceLoc loc;
        YAML::Node value;
    };
    OneKey one_key(const Item& item, const std::string& shape, const std::string& key_name) const;
    Command read_command(const Item& item, std::uint32_t index, KernelExtras& extras) const;
    void read_wait(const Item& body, std::uint32_t index, KernelExtras& extras) const;
    void reject_context_keys(const Item& body, const std::string& type) const;
    void check_tile_fit(const Command& cmd, const SourceLoc& loc) const;
    void choose_reuse(Command& cmd, const SourceLoc& loc) const;
    void resolve_waits(Kernel& kernel, const KernelExtras& extras) const;
    Launch read_launch(const Item& item, const WorkloadConfig& config, const Extras& extras) const;
    MmuMapping read_mmu(const Item& item) const;

    // host section (SPEC §4)
    std::vector<HostRequest> read_host(const Item& item, const WorkloadConfig& config,
                                       const Extras& extras) const;
    HostRequest read_host_request(const Item& item, std::uint32_t index, const WorkloadConfig& config,
                                  const Extras& extras, std::vector<WaitRef>& after) const;

    std::string m_source;
    const TopologyConfig& m_topo;
    bool m_data_mode = false;
    // The shared reader; mutable because it records where each value came
    // from while the const read functions walk the document.
    mutable YamlReader m_yaml;
};

// What a key's read needs beyond its map: the loader (the topology and the
// value readers) and what the kernel or the host list being read collects.
struct Scope {
    const Loader& loader;
    KernelExtras* kernel = nullptr;          // commands: ipcq_send peers
    const WorkloadConfig* config = nullptr;  // host requests: the kernels a launch may name
    const Extras* extras = nullptr;          // host requests: every kernel's peers
    std::vector<WaitRef>* after = nullptr;   // host requests: `after` references
};

template <class T>
using Keys = schema::Keys<T, Scope>;
template <class T>
using KeyTable = schema::KeyTable<T, Scope>;
using K = Keys<Command>;
using H = Keys<HostRequest>;
using schema::Absent;

// ---------------------------------------------------------------- keys

// `{ pa: int }`, `{ own: int }` or `{ va: int }`; absent = the PE's own HBM
// slice (SPEC T2).
template <class T, class At>
schema::Key<T, Scope> address_key(const std::string& key, At at, const std::string& fills, std::string doc) {
    return Keys<T>::leaf(key, {"", "address", "bytes", "own HBM slice", "`{ pa: int }`, `{ own: int }` or `{ va: int }`", std::move(doc)},
                         fills, [=](const MapReader& r, T& t, const Scope& s) {
                             std::invoke(at, t) = s.loader.address(r.child(key));
                         });
}

// A math op of the topology's PE_MATH, required.
template <class T, class At>
schema::Key<T, Scope> math_op_key(const std::string& key, At at, const std::string& fills, std::string doc) {
    return Keys<T>::leaf(key, {"", "math op", "", "**required**", "a key of `pe_math.attrs.op_cost`", std::move(doc)},
                         fills, [=](const MapReader& r, T& t, const Scope& s) {
                             std::invoke(at, t) = s.loader.math_op(r.required(key));
                         });
}

// A composite's operand resident in TCM (`a_tcm`, `b_tcm`): its TCM offset,
// and that it is resident (checked against AllocatableTCM by
// Loader::check_resident once the shape is known).
schema::Key<Command, Scope> resident_key(const std::string& key, bool CompositeSpec::*resident,
                                         std::uint64_t CompositeSpec::*offset, std::string constraint, std::string doc) {
    return Keys<Command>::leaf(key, {"", "int", "bytes", "none", std::move(constraint), std::move(doc)}, "composite." + key,
                               [=](const MapReader& r, Command& cmd, const Scope& s) {
                                   const Item item = r.child(key);
                                   if (!item.present) return;
                                   cmd.composite.*resident = true;
                                   cmd.composite.*offset = s.loader.to_u64(item);
                               });
}

// An element type, bf16 when absent; kept as its size in bytes.
template <class T, class At>
schema::Key<T, Scope> dtype_key(const std::string& key, At at, const std::string& fills, std::string doc) {
    return Keys<T>::leaf(key, {"", "dtype", "", "`bf16`", "`int8`, `int32`, `bf16` or `fp32`", std::move(doc)}, fills,
                         [=](const MapReader& r, T& t, const Scope& s) {
                             std::invoke(at, t) = r.has(key) ? s.loader.dtype(r.child(key)) : kDefaultDtypeBytes;
                         });
}

// A range of `reads` / `writes` (SPEC §6): one space key and `bytes`.
template <MemSpace space>
schema::Key<MemRange, Scope> space_key(const std::string& constraint, std::string doc) {
    const std::string key = to_string(space);
    return Keys<MemRange>::leaf(key, {"", "int", "bytes", "", "exactly one of `tcm`, `hbm`, `sram`; " + constraint, std::move(doc)},
                                "base", [key](const MapReader& r, MemRange& range, const Scope& s) {
                                    const Item base = r.child(key);
                                    if (!base.present) return;
                                    range.space = space;
                                    range.base = s.loader.to_u64(base);
                                });
}

const KeyTable<MemRange>& range_keys() {
    static const KeyTable<MemRange> table{
        "MemRange",
        {
            space_key<MemSpace::tcm>("inside the allocatable TCM `[pe_tcm reserved_mb · 2^20, size_mb · 2^20)`; `[0, reserved_mb · 2^20)` holds PE_SCHEDULER's tile buffers", "a PE-local TCM offset"),
            space_key<MemSpace::hbm>("inside the HBM window `[0, sips · cubes_per_sip · hbm_slices_per_cube · hbm_slice_gb · 2^30)`, as for host memory requests", "an HBM physical address"),
            space_key<MemSpace::sram>("inside the SRAM window `[sram_base, sram_base + sips · cubes_per_sip · shared_sram size)`", "a shared-SRAM physical address"),
            Keys<MemRange>::size("bytes", &MemRange::bytes, "bytes", "bytes", "the range's length; it must end inside its window"),
        },
        [](const MapReader& r, const Scope&) {
            const int spaces = int(r.has("tcm")) + int(r.has("hbm")) + int(r.has("sram"));
            if (spaces != 1)
                throw ConfigError(r.item().loc, "give exactly one of 'tcm', 'hbm' or 'sram' (got " +
                                                    std::to_string(spaces) + ")");
        },
        [](const MapReader& r, MemRange& range, const Scope& s) { s.loader.check_range(r, range); }};
    return table;
}

const KeyTable<AccessPattern>& access_keys() {
    using A = Keys<AccessPattern>;
    static const KeyTable<AccessPattern> table{
        "AccessPattern",
        {
            A::leaf("base", {"", "int", "bytes", "**required**", "a TCM offset in the allocatable TCM `[pe_tcm reserved_mb · 2^20, size_mb · 2^20)` (the reserved part holds the tile buffers, seed 000 D5.1)", "the first access"}, "base",
                    [](const MapReader& r, AccessPattern& a, const Scope& s) { a.base = s.loader.tcm_offset(r.required("base")); }),
            A::leaf("stride", {"", "int", "bytes", "`elem_bytes` (contiguous)", ">= 0", "from one access to the next (0 = every access at `base`)"}, "stride",
                    [](const MapReader& r, AccessPattern& a, const Scope& s) {
                        if (r.has("stride")) a.stride = s.loader.to_u64(r.child("stride"));
                    }),
            A::size("count", &AccessPattern::count, "count", "", "how many accesses"),
            A::leaf("elem_bytes", {"", "int", "bytes", "**required**", "1, 2, 4, 8, 16, 32 or 64", "bytes per access"}, "elem_bytes",
                    [](const MapReader& r, AccessPattern& a, const Scope& s) {
                        const Item elem = r.required("elem_bytes");
                        const std::uint64_t bytes = s.loader.to_u64(elem);
                        const auto& sizes = access_elem_sizes();
                        if (std::find(sizes.begin(), sizes.end(), bytes) == sizes.end())
                            throw ConfigError(elem.loc, "must be one of 1, 2, 4, 8, 16, 32, 64 (got " +
                                                            elem.node.Scalar() + ")");
                        a.elem_bytes = static_cast<std::uint32_t>(bytes);
                    }),
        },
        nullptr,
        [](const MapReader& r, AccessPattern& a, const Scope& s) { s.loader.check_access(r, a); }};
    return table;
}

// Every command with a field map: `id` before the kind's own keys, and
// `wait`, `reads`, `writes` after them (the order of the unknown-key list).
const KeyTable<Command>& command_head_keys() {
    static const KeyTable<Command> table{
        "Command",
        {
            K::leaf("id", {"", "string", "", "`c<index>`", "`[A-Za-z_][A-Za-z0-9_]*`; unique in its kernel, counting default ids", "names the command in reports, traces and `wait` lists; the default is its position in the kernel (`c0`, `c1` …), so an explicit `c2` clashes with an unnamed third command"}, "id",
                    [](const MapReader& r, Command& cmd, const Scope& s) { s.loader.read_id(r.child("id"), cmd.id); }),
        }};
    return table;
}

const char* const kRangeHeading = "Range (an entry of `reads` and `writes`)";

const KeyTable<Command>& command_tail_keys() {
    static const KeyTable<Command> table{
        "Command",
        {
            K::flag("wait", &Command::wait, "wait", "PE_CPU waits for this command to complete before it issues the next one"),
            K::entries("reads", &Command::reads, range_keys(), "list of ranges", kRangeHeading, "reads", "what it reads: a read-after-write or write-after-read hazard with an earlier command orders it (\"Schedule semantics\"); each a range (below), `[]` or null = none"),
            K::entries("writes", &Command::writes, range_keys(), "list of ranges", kRangeHeading, "writes", "what it writes: write-after-read and write-after-write hazards; each a range (below), `[]` or null = none"),
        }};
    return table;
}

// Only on the commands the scheduler runs in an execution context.
const KeyTable<Command>& context_keys() {
    static const KeyTable<Command> table{
        "Command",
        {
            K::leaf("context", {"", "string", "", "the kind's context", "`main`, `sub` or `dma`; context-scheduled kinds only", "the execution context it runs in (\"Contexts\"); `context_given` says it was named"}, "context, context_given",
                    [](const MapReader& r, Command& cmd, const Scope& s) {
                        const Item context = r.child("context");
                        if (!context.present) return;
                        const std::string name = s.loader.to_string(context);
                        if (name == "main") cmd.context = ExecContext::main;
                        else if (name == "sub") cmd.context = ExecContext::sub;
                        else if (name == "dma") cmd.context = ExecContext::dma;
                        else
                            throw ConfigError(context.loc, "unknown context '" + name + "' (known: main, sub, dma)");
                        cmd.context_given = true;
                    }),
            K::leaf("resources", {"", "list of names", "", "none", "each `[a-z][a-z0-9_]*`, no name twice; context-scheduled kinds only", "held from dispatch to completion and never by two running commands at once, e.g. `[vector_engine]`"}, "resources",
                    [](const MapReader& r, Command& cmd, const Scope&) {
                        const Item resources = r.child("resources");
                        if (!resources.present || resources.node.IsNull()) return;
                        for (const Item& entry : schema::list_items(resources, true)) {
                            const std::string name = r.reader().to_string(entry);
                            if (!is_resource_name(name))
                                throw ConfigError(entry.loc, "resource '" + name + "' must match [a-z][a-z0-9_]*");
                            if (std::find(cmd.resources.begin(), cmd.resources.end(), name) != cmd.resources.end())
                                throw ConfigError(entry.loc, "resource '" + name + "' listed twice");
                            cmd.resources.push_back(name);
                        }
                    }),
            K::section("access", &Command::access, access_keys(), Absent::skip, "context-scheduled kinds only", "access", "its TCM access pattern (\"TCM banks\"): `count` accesses of `elem_bytes` at `base`, `base + stride`, …; the last one must end inside the TCM"),
        }};
    return table;
}

// ------------------------------------------------ command kinds

// Every key that reads only `bytes`.
KeyTable<Command> bytes_keys(const std::string& doc) {
    return {"Command", {K::size("bytes", &Command::bytes, "bytes", "bytes", doc)}};
}

// docs/timing.md "DMA transfer patterns": `pattern` and its counts.
KeyTable<Command> dma_keys(const std::string& addr_doc, const std::string& patterns) {
    return {"Command",
            {
                K::size("bytes", &Command::bytes, "bytes", "bytes", "how many bytes it moves (a broadcast: one copy)"),
                address_key<Command>("addr", &Command::addr, "addr", addr_doc),
                K::leaf("pattern", {"", "string", "", "`contiguous`", patterns, "how the bytes are laid out: `strided` = `chunks` descriptors `stride` apart on the memory side; `broadcast` (dma_read) = read once, `copies` copies each into its own TCM slice; `gather` (dma_write) = `chunks` pieces from as many TCM slices into one memory range (docs/timing.md \"DMA transfer patterns\"). Needs a physical (or the default) `addr`"}, "pattern.kind",
                        [](const MapReader& r, Command& cmd, const Scope& s) {
                            const Item item = r.child("pattern");
                            if (item.present) cmd.pattern.kind = s.loader.dma_pattern(item, cmd.kind);
                        }),
                K::leaf("chunks", {"", "int", "", "1", "`strided`: >= 2; `gather`: 2 … `pe_tcm.slices`; `bytes` a multiple of it", "descriptors, each `bytes / chunks` long"}, "pattern.chunks",
                        [](const MapReader& r, Command& cmd, const Scope& s) {
                            if (r.has("chunks")) cmd.pattern.chunks = s.loader.pattern_count(r.child("chunks"));
                        }),
                K::leaf("copies", {"", "int", "", "1", "`broadcast`: 2 … `pe_tcm.slices`", "copies written, one per TCM slice"}, "pattern.chunks",
                        [](const MapReader& r, Command& cmd, const Scope& s) {
                            if (r.has("copies")) cmd.pattern.chunks = s.loader.pattern_count(r.child("copies"));
                        }),
                K::leaf("stride", {"", "int", "bytes", "`bytes / chunks`", "`strided`: >= `bytes / chunks`", "from one chunk's start to the next on the memory side; the last chunk must end inside the memory window"}, "pattern.stride",
                        [](const MapReader& r, Command& cmd, const Scope& s) {
                            if (r.has("stride")) cmd.pattern.stride = s.loader.to_u64(r.child("stride"));
                        }),
            },
            nullptr,
            [](const MapReader& r, Command& cmd, const Scope& s) { s.loader.check_dma_pattern(r, cmd); }};
}

const KeyTable<Command>& gemm_keys() {
    static const KeyTable<Command> table{
        "Command",
        {
            K::size("m", &Command::m, "m", "elements", "rows of A and C"),
            K::size("k", &Command::k, "k", "elements", "columns of A, rows of B"),
            K::size("n", &Command::n, "n", "elements", "columns of B and C"),
            dtype_key<Command>("dtype", &Command::elem_bytes, "elem_bytes", "element type of A and B (their bytes bound the time to stream them through fetch, T3)"),
        },
        nullptr,
        [](const MapReader& r, Command& cmd, const Scope&) {
            // An arithmetic bound (docs/limits.md): M·K·N MACs, and the
            // cycles and bytes derived from them, far inside 64 bits.
            using u128 = unsigned __int128;
            if (static_cast<u128>(cmd.m) * cmd.k * cmd.n > (u128{1} << 62))
                throw ConfigError(r.item().loc, "gemm '" + cmd.id + "': M·K·N is above 2^62 MACs (docs/limits.md)");
        }};
    return table;
}

const KeyTable<Command>& math_keys() {
    static const KeyTable<Command> table{
        "Command",
        {
            math_op_key<Command>("op", &Command::op, "op", "the op PE_MATH runs"),
            K::size("elements", &Command::elements, "elements", "elements", "how many elements it runs on"),
            dtype_key<Command>("dtype", &Command::elem_bytes, "elem_bytes", "element type (32-bit elements run on half the lanes, T3)"),
        }};
    return table;
}

// An IPCQ message's `bytes`: at most one PE's ring (pe_ipcq `slots` ×
// `slot_kb`, the same on every PE): more could never fit the peer's ring (a
// send) or have arrived in this PE's (a receive); the run would only stop
// on it.
schema::Key<Command, Scope> ipcq_bytes_key(const std::string& doc) {
    return K::leaf("bytes", {"", "size", "bytes", "**required**", "> 0, <= 2^40; at most one IPCQ ring, pe_ipcq `slots × slot_kb` KiB", doc}, "bytes",
                   [](const MapReader& r, Command& cmd, const Scope& s) {
                       const Item bytes = r.required("bytes");
                       cmd.bytes = schema::read_size(r.reader(), bytes, "bytes");
                       s.loader.check_ipcq_bytes(bytes, cmd.bytes);
                   });
}

const KeyTable<Command>& ipcq_send_keys() {
    static const KeyTable<Command> table{
        "Command",
        {
            K::leaf("peer", {"", "int", "", "**required**", "a PE of the same cube, `[0, rows × cols)`; not a PE the kernel is launched on as the sender itself (checked per launch)", "the PE whose IPCQ ring receives the bytes"}, "peer",
                    [](const MapReader& r, Command& cmd, const Scope& s) {
                        const Item peer = r.required("peer");
                        cmd.peer = s.loader.ipcq_peer(peer);
                        s.kernel->peers.push_back({cmd.peer, peer.loc});
                    }),
            ipcq_bytes_key("how many bytes it sends over PE_DMA's `vc_comm` channel"),
        }};
    return table;
}

// composite, GEMM form (SPEC T6): `gemm`, `tile`, `dtype` and `epilogues`
// fill the CompositeSpec; ops[0] is the head GEMM.
const KeyTable<CompositeSpec>& composite_shape_keys() {
    using C = Keys<CompositeSpec>;
    static const KeyTable<CompositeSpec> table{
        "CompositeSpec",
        {
            C::size("m", &CompositeSpec::m, "m", "elements", "M of the head GEMM"),
            C::size("k", &CompositeSpec::k, "k", "elements", "K"),
            C::size("n", &CompositeSpec::n, "n", "elements", "N"),
        }};
    return table;
}

const KeyTable<CompositeSpec>& composite_tile_keys() {
    using C = Keys<CompositeSpec>;
    static const KeyTable<CompositeSpec> table{
        "CompositeSpec",
        {
            C::size("m", &CompositeSpec::tm, "tm", "elements", "tile rows; larger than the matrix = clipped"),
            C::size("k", &CompositeSpec::tk, "tk", "elements", "tile K-step"),
            C::size("n", &CompositeSpec::tn, "tn", "elements", "tile columns"),
        }};
    return table;
}

const KeyTable<CompositeSpec>& composite_dtype_keys() {
    static const KeyTable<CompositeSpec> table{
        "CompositeSpec",
        {
            dtype_key<CompositeSpec>("in", &CompositeSpec::d_in, "d_in", "element type of A and B"),
            Keys<CompositeSpec>::leaf("out", {"", "dtype", "", "`bf16`", "`int8`, `int32`, `bf16` or `fp32`", "element type of C"}, "d_out",
                                      [](const MapReader& r, CompositeSpec& c, const Scope& s) {
                                          c.d_out = r.has("out") ? s.loader.dtype(r.child("out")) : kDefaultDtypeBytes;
                                          c.out_fp32 = r.has("out") && s.loader.to_string(r.child("out")) == "fp32";
                                      }),
        }};
    return table;
}

const KeyTable<OpSpec>& epilogue_keys() {
    using O = Keys<OpSpec>;
    static const KeyTable<OpSpec> table{
        "OpSpec",
        {
            O::leaf("op", {"", "math op", "", "**required**", "a key of `pe_math.attrs.op_cost`", "the epilogue's op, `math.<op>`"}, "kind",
                    [](const MapReader& r, OpSpec& op, const Scope& s) { op.kind = "math." + s.loader.math_op(r.required("op")); }),
            O::leaf("scope", {"", "string", "", "`per_output_tile`", "`per_k_tile`, `per_output_tile` or `once`", "when it runs: after every K-step, after the last K-step of each output tile, or on the command's last token"}, "scope",
                    [](const MapReader& r, OpSpec& op, const Scope& s) {
                        const Item scope = r.child("scope");
                        if (!scope.present) return;
                        const std::string name = s.loader.to_string(scope);
                        if (name == "per_k_tile") op.scope = EpilogueScope::per_k_tile;
                        else if (name == "per_output_tile") op.scope = EpilogueScope::per_output_tile;
                        else if (name == "once") op.scope = EpilogueScope::once;
                        else
                            throw ConfigError(scope.loc, "unknown epilogue scope '" + name +
                                                             "' (known: per_k_tile, per_output_tile, once)");
                    }),
            O::leaf("operand", {"", "int", "bytes", "none", "data mode only; in AllocatableTCM", "data mode (docs/workload.md \"Operand data\"): the TCM offset of the op's int32 second operand in the running PE's TCM: `bias_add` a vector of N (one per column of C), `add` and `mul` an M×N matrix, row-major"}, "operand",
                    [](const MapReader& r, OpSpec& op, const Scope& s) {
                        const Item item = r.child("operand");
                        if (!item.present) return;
                        op.operand = s.loader.to_u64(item);
                    }),
        }};
    return table;
}

const KeyTable<Command>& composite_gemm_keys() {
    static const KeyTable<Command> table{
        "Command",
        {
            K::section("gemm", &Command::composite, composite_shape_keys(), Absent::error, "", "composite", "the head GEMM, M×K×N; its presence picks this form"),
            K::section("tile", &Command::composite, composite_tile_keys(), Absent::error, "", "composite", "the tile, tm×tk×tn"),
            K::section("dtype", &Command::composite, composite_dtype_keys(), Absent::defaults, "", "composite", "element types"),
            K::entries("epilogues", [](auto& c) -> auto& { return c.composite.ops; }, epilogue_keys(), "list of maps", "", "composite.ops", "MATH ops after the GEMM, in order: `ops[0]` is the GEMM, then one `math.<op>` per entry"),
            address_key<Command>("src", &Command::src, "src", "where DMA_READ reads the inputs: A (M·K), then B (K·N) unless `src_b` places it"),
            address_key<Command>("src_b", &Command::src_b, "src_b", "where DMA_READ reads B, when it has its own place (default: right after A in `src`)"),
            address_key<Command>("dst", &Command::dst, "dst", "where DMA_WRITE writes the outputs"),
            resident_key("a_tcm", &CompositeSpec::a_resident, &CompositeSpec::a_tcm, "not with `reuse: a_panel`; A (M·K·d_in) inside AllocatableTCM", "A is resident in the running PE's AllocatableTCM from this offset, tile-major as in memory (put there by an earlier `dma_read`, e.g. a compiled kernel's staged activations; docs/timing.md \"Operands resident in TCM\"): no token's DMA_READ carries A, FETCH still moves it, and the command reads the TCM range for the hazards; B in memory then starts at `src` (or `src_b`)"),
            resident_key("b_tcm", &CompositeSpec::b_resident, &CompositeSpec::b_tcm, "not with `src_b` nor `reuse: b_panel`; B (K·N·d_in) inside AllocatableTCM", "B is resident in the running PE's AllocatableTCM from this offset, tile-major as in memory (put there by an earlier `dma_read`, e.g. a compiled kernel's weight prefetch; docs/timing.md \"Operands resident in TCM\"): no token's DMA_READ carries B, FETCH still moves it, and the command reads the TCM range for the hazards"),
            K::leaf("reuse", {"", "string", "", "chosen (see meaning)", "`none`, `a_panel` or `b_panel`", "the operand kept resident in reserved TCM (docs/timing.md \"Operand reuse\"): an A row panel across the N loop, a B column panel across the M loop; left out, the one that saves the most HBM reads if its panel leaves room for two tokens, else none. A panel that cannot fit beside one token is an error"}, "composite.reuse",
                    [](const MapReader& r, Command& cmd, const Scope& s) {
                        const Item item = r.child("reuse");
                        if (!item.present) return;
                        const std::string name = s.loader.to_string(item);
                        CompositeSpec& c = cmd.composite;
                        c.reuse_given = true;
                        if (name == "none") c.reuse = OperandReuse::none;
                        else if (name == "a_panel") c.reuse = OperandReuse::a_panel;
                        else if (name == "b_panel") c.reuse = OperandReuse::b_panel;
                        else
                            throw ConfigError(item.loc, "unknown reuse '" + name + "' (known: none, a_panel, b_panel)");
                    }),
        },
        nullptr,
        [](const MapReader& r, Command& cmd, const Scope& s) {
            cmd.composite.ops.insert(cmd.composite.ops.begin(), OpSpec{"gemm", EpilogueScope::per_output_tile});
            cmd.composite.b_separate = cmd.src_b.given;
            if (cmd.composite.a_resident || cmd.composite.b_resident) s.loader.check_resident(r, cmd);
            s.loader.check_composite(cmd, r.child("tile").loc,
                                     r.has("reuse") ? r.child("reuse").loc : cmd.loc);
            s.loader.check_composite_extents(r, cmd);
            s.loader.check_data_composite(r, cmd);
        }};
    return table;
}

// composite, legacy single-op form (seed 000 §D3.2): ops stays empty.
const KeyTable<Command>& composite_op_keys() {
    static const KeyTable<Command> table{
        "Command",
        {
            math_op_key<Command>("op", [](auto& c) -> auto& { return c.composite.legacy_op; }, "composite.legacy_op", "the op every tile runs on PE_MATH"),
            K::size("bytes", [](auto& c) -> auto& { return c.composite.total_bytes; }, "composite.total_bytes", "bytes", "the whole command; a multiple of the element size"),
            K::size("tile_bytes", [](auto& c) -> auto& { return c.composite.tile_bytes; }, "composite.tile_bytes", "bytes", "one tile; a multiple of the element size"),
            K::leaf("dtype", {"", "dtype", "", "`bf16`", "`int8`, `int32`, `bf16` or `fp32`", "element type of input and output (`d_in = d_out`)"}, "composite.d_in, composite.d_out",
                    [](const MapReader& r, Command& cmd, const Scope& s) {
                        cmd.composite.d_in = cmd.composite.d_out =
                            r.has("dtype") ? s.loader.dtype(r.child("dtype")) : kDefaultDtypeBytes;
                    }),
            address_key<Command>("src", &Command::src, "src", "where DMA_READ reads the input"),
            address_key<Command>("dst", &Command::dst, "dst", "where DMA_WRITE writes the output"),
        },
        nullptr,
        [](const MapReader& r, Command& cmd, const Scope& s) {
            s.loader.check_composite(cmd, r.child("tile_bytes").loc);
            s.loader.check_composite_extents(r, cmd);
            if (s.loader.data_mode())
                throw ConfigError(r.item().loc, "data mode (the workload's data / dump) moves data through GEMM-form "
                                                "composites only; this single-op composite carries none "
                                                "(docs/workload.md \"Operand data\")");
        }};
    return table;
}

// One command kind, or one form of it (docs/workload.md "Commands"): its
// name, the key that picks the form (composite's GEMM form: `gemm`), one
// line of doc, and the keys of its body beside the shared ones. wait's value
// is not a map: it has no keys.
struct CommandKindSpec {
    std::string name;
    CommandKind kind;
    struct Form {
        std::string head;   // picked when the body has this key; "" = any body
        std::string title;  // in the docs
    } form;
    std::string doc;
    KeyTable<Command> keys;

    bool picks(const Item& body) const {
        return form.head.empty() || (body.node.IsMap() && body.node[form.head]);
    }
    std::string title() const {
        return "`" + name + "`" + (form.title.empty() ? "" : " (" + form.title + ")");
    }
};

const std::vector<CommandKindSpec>& command_kinds() {
    static const std::vector<CommandKindSpec> kinds = {
        {"dma_read", CommandKind::dma_read, {}, "Memory → TCM on PE_DMA.", dma_keys("the memory side it reads", "`contiguous`, `strided` or `broadcast`")},
        {"dma_write", CommandKind::dma_write, {}, "TCM → memory on PE_DMA.", dma_keys("the memory side it writes", "`contiguous`, `strided` or `gather`")},
        {"gemm", CommandKind::gemm, {}, "`m × k × n` on PE_GEMM.", gemm_keys()},
        {"math", CommandKind::math, {}, "`elements` of `op` on PE_MATH.", math_keys()},
        {"composite", CommandKind::composite, {"gemm", "GEMM form"},
         "A tiled GEMM with its epilogues (SPEC T6), picked by a `gemm` key → `CompositeSpec{m, k, n, tm, tk, tn, d_in, d_out, ops}`.",
         composite_gemm_keys()},
        {"composite", CommandKind::composite, {"", "legacy single-op form"},
         "One MATH op over `bytes` in tiles of `tile_bytes` (seed 000 §D3.2), without `gemm` → `CompositeSpec{total_bytes, tile_bytes, legacy_op, d_in = d_out}`, `ops` empty.",
         composite_op_keys()},
        {"wait", CommandKind::wait, {}, "PE_CPU waits for earlier commands. Its value is not a map: `all` (every command issued so far) or a non-empty list of ids of earlier commands of the kernel → `Command::wait_for` (empty for `all`).", {"Command", {}}},
        {"ipcq_send", CommandKind::ipcq_send, {}, "Sends `bytes` to the IPCQ ring of the PE `peer`.", ipcq_send_keys()},
        {"ipcq_recv", CommandKind::ipcq_recv, {}, "Completes when `bytes` have arrived in this PE's IPCQ ring.", {"Command", {ipcq_bytes_key("how many bytes it waits for")}}},
        {"fetch", CommandKind::fetch, {}, "Register-file preload, TCM → register file on PE_FETCH_STORE (sub context).", bytes_keys("how many bytes it loads")},
        {"store", CommandKind::store, {}, "Register-file commit, register file → TCM on PE_FETCH_STORE (sub context).", bytes_keys("how many bytes it commits")},
    };
    return kinds;
}

// The tables a command of `spec` reads, in the order of its unknown-key
// list: id, the kind's keys, wait and the ranges, then the context keys on
// the kinds the scheduler runs in a context.
std::vector<const KeyTable<Command>*> command_tables(const CommandKindSpec& spec) {
    std::vector<const KeyTable<Command>*> tables = {&command_head_keys(), &spec.keys, &command_tail_keys()};
    if (context_scheduled(spec.kind)) tables.push_back(&context_keys());
    return tables;
}

template <class T>
std::vector<std::string> key_names(const std::vector<const KeyTable<T>*>& tables) {
    std::vector<std::string> names;
    for (const KeyTable<T>* table : tables) {
        const std::vector<std::string> own = table->names();
        names.insert(names.end(), own.begin(), own.end());
    }
    return names;
}

// ------------------------------------------------ host request kinds

const KeyTable<HostRequest>& host_head_keys() {
    static const KeyTable<HostRequest> table{
        "HostRequest",
        {
            H::leaf("id", {"", "string", "", "`r<index>`", "`[A-Za-z_][A-Za-z0-9_]*`; unique among host requests, counting default ids", "names the request in `after` lists and reports; the default is its position in `host` (`r0`, `r1` …)"}, "id",
                    [](const MapReader& r, HostRequest& req, const Scope& s) { s.loader.read_id(r.child("id"), req.id); }),
            H::leaf("after", {"", "list of ids", "", "the previous request", "each the id of an **earlier** request (an unknown id, a later one or the request itself is an error at the list entry); repeats count once; `[]` = no predecessor", "the requests it is sent after (\"Ordering\"); `explicit_after` says it was given"}, "after, explicit_after",
                    [](const MapReader& r, HostRequest& req, const Scope& s) {
                        const Item after = r.child("after");
                        if (!after.present) return;
                        req.explicit_after = true;
                        if (after.node.IsNull()) return;
                        for (const Item& ref : schema::list_items(after, true))
                            s.after->push_back({req.index, s.loader.to_string(ref), ref.loc});
                    }),
        }};
    return table;
}

schema::Key<HostRequest, Scope> cubes_key() {
    return H::leaf("cubes", {"", "list of `sipS.cubeC`", "", "`[sip0.cube0]`", "non-empty, each in range, no repeats", "the cubes it goes to, as one parent request"}, "cubes",
                   [](const MapReader& r, HostRequest& req, const Scope& s) { s.loader.host_cubes(r.child("cubes"), req.cubes); });
}

schema::Key<HostRequest, Scope> target_pe_key() {
    return H::leaf("target_pe", {"", "int, list of ints, or `all`", "", "`all`", "each in `[0, rows × cols)`, no repeats, list non-empty; `all` = PEs `0 … hbm_slices_per_cube − 1` (SPEC §4; equal to `rows × cols`)", "the PEs it goes to in each listed cube, resolved to ids (`target_all` for `all`)"}, "target_pe, target_all",
                   [](const MapReader& r, HostRequest& req, const Scope& s) { s.loader.host_target_pe(r.child("target_pe"), req); });
}

// A multiple of the PE_MMU page size (`positive`: and > 0), required; in
// host mmu requests and the mmu section.
template <class T, class At>
schema::Key<T, Scope> page_key(const std::string& key, At at, bool positive, const std::string& fills, std::string doc) {
    return Keys<T>::leaf(key, {"", positive ? "size" : "int", "bytes", "**required**", std::string("a multiple of the PE_MMU page (`pe_mmu.attrs.page_kb`)") + (positive ? "; `va + bytes` and `pa + bytes` fit 64 bits" : ""), std::move(doc)}, fills,
                         [=](const MapReader& r, T& t, const Scope& s) {
                             std::invoke(at, t) = s.loader.page_aligned(r.required(key), positive);
                         });
}

// [va, va + bytes) and [pa, pa + bytes) fit 64 bits (an error at `bytes`).
template <class T>
void check_mmu_overflow(const MapReader& r, T& map, const Scope&) {
    if (map.va + map.bytes < map.va) throw ConfigError(r.child("bytes").loc, "va + bytes overflows 64 bits");
    if (map.pa + map.bytes < map.pa) throw ConfigError(r.child("bytes").loc, "pa + bytes overflows 64 bits");
}

// memory_write, memory_read: a range of the HBM window.
KeyTable<HostRequest> memory_keys(const std::string& doc) {
    return {"HostRequest",
            {
                H::leaf("pa", {"", "int", "bytes", "**required**", "inside the HBM window `[0, sips · cubes_per_sip · hbm_slices_per_cube · hbm_slice_bytes)` (the address resolver's, `platform/address_resolver.h`)", "the first byte (outside the window: an error at `pa`); the range may span several HBM slices, and cubes"}, "pa",
                        [](const MapReader& r, HostRequest& req, const Scope& s) { req.pa = s.loader.to_u64(r.required("pa")); }),
                H::size("bytes", &HostRequest::bytes, "bytes", "bytes", doc),
            },
            nullptr,
            [](const MapReader& r, HostRequest& req, const Scope& s) { s.loader.check_hbm_range(r, req); }};
}

const KeyTable<HostRequest>& mmu_map_keys() {
    static const KeyTable<HostRequest> table{
        "HostRequest",
        {
            cubes_key(),
            target_pe_key(),
            page_key<HostRequest>("va", &HostRequest::va, false, "va", "the first virtual address mapped"),
            page_key<HostRequest>("pa", &HostRequest::pa, false, "pa", "the physical address it maps to"),
            page_key<HostRequest>("bytes", &HostRequest::bytes, true, "bytes", "how many bytes it maps"),
        },
        nullptr,
        check_mmu_overflow<HostRequest>};
    return table;
}

const KeyTable<HostRequest>& mmu_unmap_keys() {
    static const KeyTable<HostRequest> table{
        "HostRequest",
        {
            cubes_key(),
            target_pe_key(),
            page_key<HostRequest>("va", &HostRequest::va, false, "va", "the first virtual address unmapped"),
            page_key<HostRequest>("bytes", &HostRequest::bytes, true, "bytes", "how many bytes it unmaps"),
        },
        nullptr,
        check_mmu_overflow<HostRequest>};
    return table;
}

const KeyTable<HostRequest>& kernel_launch_keys() {
    static const KeyTable<HostRequest> table{
        "HostRequest",
        {
            H::leaf("kernel", {"", "string", "", "**required**", "a kernel of the workload", "the kernel each target PE runs"}, "kernel",
                    [](const MapReader& r, HostRequest& req, const Scope& s) {
                        req.kernel = s.loader.kernel_name(r.required("kernel"), *s.config);
                    }),
            cubes_key(),
            target_pe_key(),
            H::leaf("target_start_ns", {"", "number", "ns", "IO_CPU stamps one start for all listed cubes", ">= 0, <= 1e12", "when every target PE starts the kernel, passed through unchanged (\"Fan-out\")"}, "target_start_ns",
                    [](const MapReader& r, HostRequest& req, const Scope& s) {
                        const Item start = r.child("target_start_ns");
                        if (!start.present) return;
                        const double value = s.loader.to_double(start);
                        if (value < 0.0) throw ConfigError(start.loc, "must be >= 0 (got " + start.node.Scalar() + ")");
                        // 1000 s of simulated time: far inside 64-bit ps (docs/limits.md).
                        if (value > 1e12)
                            throw ConfigError(start.loc, "must be <= 1e12 ns (got " + start.node.Scalar() +
                                                             "): 1000 s of simulated time (docs/limits.md)");
                        req.target_start_ns = value;
                    }),
            H::leaf("resolve_after", {"", "string", "", "`host`", "`host` or `device`; with `device`, every request it waits for is a `kernel_launch`", "where its `after` is resolved (\"Ordering\"): `host`, IO_CPU sends it once those requests are done (their responses back at the host); `device`, IO_CPU sends it at once, in list order, and each target cube's M_CPU holds it until they are done on the device (their fan-outs complete, notices from other cubes' M_CPUs)"}, "device_after, device_after_loc",
                    [](const MapReader& r, HostRequest& req, const Scope& s) {
                        const Item where = r.child("resolve_after");
                        if (!where.present) return;
                        const std::string text = s.loader.to_string(where);
                        if (text != "host" && text != "device")
                            throw ConfigError(where.loc, "expected host or device, got '" + text + "'");
                        req.device_after = text == "device";
                        req.device_after_loc = where.loc;
                    }),
        },
        nullptr,
        // The ipcq self-peer check of direct launches, for each target PE.
        [](const MapReader&, HostRequest& req, const Scope& s) {
            s.loader.check_self_peers(req.kernel, req.target_pe, req.loc, *s.extras);
        }};
    return table;
}

// One host request kind (docs/workload.md "Host requests"): its name, one
// line of doc, and the keys of its body beside id and after.
struct HostRequestKindSpec {
    std::string name;
    HostRequestKind kind;
    std::string doc;
    KeyTable<HostRequest> keys;
};

const std::vector<HostRequestKindSpec>& host_request_kinds() {
    static const std::vector<HostRequestKindSpec> kinds = {
        {"memory_write", HostRequestKind::memory_write, "Writes a range of HBM through the M_CPUs' DMA (\"Fan-out\").", memory_keys("how many bytes it writes (a range running past the end of the window: an error at `bytes`)")},
        {"memory_read", HostRequestKind::memory_read, "Reads a range of HBM through the M_CPUs' DMA.", memory_keys("how many bytes it reads (a range running past the end of the window: an error at `bytes`)")},
        {"mmu_map", HostRequestKind::mmu_map, "Maps `[va, va + bytes) → [pa, pa + bytes)` in the PE_MMU of each target PE.", mmu_map_keys()},
        {"mmu_unmap", HostRequestKind::mmu_unmap, "Unmaps `[va, va + bytes)` in the PE_MMU of each target PE.", mmu_unmap_keys()},
        {"kernel_launch", HostRequestKind::kernel_launch, "Starts `kernel` on the target PEs of each listed cube.", kernel_launch_keys()},
    };
    return kinds;
}

std::vector<const KeyTable<HostRequest>*> host_tables(const HostRequestKindSpec& spec) {
    return {&host_head_keys(), &spec.keys};
}

// ------------------------------------------------ launch, mmu

// `cube`: sipS.cubeC, both in range; sip0.cube0 when absent.
template <class T>
schema::Key<T, Scope> cube_key(std::string doc) {
    return Keys<T>::leaf("cube", {"", "`sipS.cubeC`", "", "`sip0.cube0`", "`S < system.sips`, `C < system.cubes_per_sip`", std::move(doc)}, "sip, cube",
                         [](const MapReader& r, T& t, const Scope& s) { s.loader.cube_id(r.child("cube"), t.sip, t.cube); });
}

// `pes`: an int, a list of ints, or `all`; all when absent.
template <class T>
schema::Key<T, Scope> pes_key(std::string doc) {
    return Keys<T>::leaf("pes", {"", "int, list of ints, or `all`", "", "`all`", "each in `[0, rows × cols)`, no repeats; `all` = every PE of the cube, in index order", std::move(doc)}, "pes",
                         [](const MapReader& r, T& t, const Scope& s) { s.loader.pe_set(r.child("pes"), t.pes); });
}

const KeyTable<Launch>& launch_keys() {
    static const KeyTable<Launch> table{
        "Launch",
        {
            Keys<Launch>::leaf("kernel", {"", "string", "", "**required**", "a key of `kernels` (the error lists them)", "the kernel each listed PE runs"}, "kernel",
                               [](const MapReader& r, Launch& launch, const Scope& s) {
                                   launch.kernel = s.loader.kernel_name(r.required("kernel"), *s.config);
                               }),
            cube_key<Launch>("the cube of the PEs"),
            pes_key<Launch>("the PEs that run it"),
        },
        nullptr,
        // An ipcq_send peer of the kernel is not one of the PEs it runs on.
        [](const MapReader&, Launch& launch, const Scope& s) {
            s.loader.check_self_peers(launch.kernel, launch.pes, launch.loc, *s.extras);
        }};
    return table;
}

const KeyTable<MmuMapping>& mmu_keys() {
    static const KeyTable<MmuMapping> table{
        "MmuMapping",
        {
            cube_key<MmuMapping>("the cube of the PEs"),
            pes_key<MmuMapping>("the PEs whose PE_MMU maps the pages"),
            page_key<MmuMapping>("va", &MmuMapping::va, false, "va", "the first virtual address mapped"),
            page_key<MmuMapping>("pa", &MmuMapping::pa, false, "pa", "the physical address it maps to"),
            page_key<MmuMapping>("bytes", &MmuMapping::bytes, true, "bytes", "how many bytes it maps"),
        },
        nullptr,
        check_mmu_overflow<MmuMapping>};
    return table;
}

// ---------------------------------------------------------------- values

int Loader::to_int(const Item& item) const {
    const std::uint64_t value = to_u64(item);
    if (value > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw ConfigError(item.loc, "too large (got " + item.node.Scalar() + ")");
    return static_cast<int>(value);
}

std::uint32_t Loader::dtype(const Item& item) const {
    const std::string name = to_string(item);
    std::vector<std::string> names;
    for (const auto& [known, bytes] : dtypes()) {
        if (known == name) return bytes;
        names.push_back(known);
    }
    throw ConfigError(item.loc, "unknown dtype '" + name + "' (known: " + join(names) + ")");
}

std::string Loader::math_op(const Item& item) const {
    const std::string op = to_string(item);
    const auto& costs = m_topo.cube.pe_template.math.op_cost;
    if (costs.count(op)) return op;
    std::vector<std::string> known;
    for (const auto& entry : costs) known.push_back(entry.first);
    throw ConfigError(item.loc, "unknown math op '" + op +
                                    "' (ops of the topology's pe_math.op_cost: " + join(known) +
                                    ")");
}

MemAddress Loader::address(const Item& item) const {
    MemAddress addr;
    if (!item.present) return addr;
    const MapReader reader(m_yaml, item, {"pa", "own", "va"});
    const int forms = int(reader.has("pa")) + int(reader.has("own")) + int(reader.has("va"));
    if (forms != 1) throw ConfigError(item.loc, "give exactly one of 'pa', 'own' or 'va'");
    addr.given = true;
    addr.is_va = reader.has("va");
    addr.is_own = reader.has("own");
    const char* key = addr.is_va ? "va" : addr.is_own ? "own" : "pa";
    addr.value = to_u64(reader.child(key));
    // `own` is an offset into the running PE's slice: it must lie inside one.
    if (addr.is_own && addr.value >= m_topo.cube.memory_map.hbm_slice_bytes)
        throw ConfigError(reader.child(key).loc, "an offset into the PE's own HBM slice must be below its " +
                                                     std::to_string(m_topo.cube.memory_map.hbm_slice_bytes) +
                                                     " bytes (got " + std::to_string(addr.value) + ")");
    return addr;
}

DmaPatternKind Loader::dma_pattern(const Item& item, CommandKind kind) const {
    const std::string name = to_string(item);
    const bool read = kind == CommandKind::dma_read;
    if (name == "contiguous") return DmaPatternKind::contiguous;
    if (name == "strided") return DmaPatternKind::strided;
    if (name == "broadcast" && read) return DmaPatternKind::broadcast;
    if (name == "gather" && !read) return DmaPatternKind::gather;
    if (name == "broadcast" || name == "gather")
        throw ConfigError(item.loc, "pattern '" + name + "' applies to " +
                                        (read ? "dma_write" : "dma_read") +
                                        (read ? " (many TCM slices to one memory range)"
                                              : " (one memory range to many TCM slices)"));
    throw ConfigError(item.loc, "unknown pattern '" + name + "' (known: contiguous, strided, " +
                                    (read ? "broadcast" : "gather") + ")");
}

std::uint32_t Loader::pattern_count(const Item& item) const {
    const std::uint64_t count = to_u64(item);
    // A descriptor chain's length: beyond 2^20 descriptors no transfer is
    // described this way (and the per-descriptor sum stays far from 2^64 ps).
    constexpr std::uint64_t kMaxDescriptors = 1u << 20;
    if (count < 2 || count > kMaxDescriptors)
        throw ConfigError(item.loc, "must be in [2, " + std::to_string(kMaxDescriptors) + "] (got " +
                                        item.node.Scalar() + ")");
    return static_cast<std::uint32_t>(count);
}

void Loader::check_memory_extent(const MapReader& r, const char* key, const MemAddress& addr, std::uint64_t bytes,
                                 const std::string& what) const {
    if (addr.is_va) return;  // translated page by page: the MMU faults past a mapping
    const std::uint64_t slice = m_topo.cube.memory_map.hbm_slice_bytes;
    const SourceLoc at = r.has(key) ? r.child(key).loc : r.item().loc;
    std::uint64_t base = 0, end = slice;
    std::string target = "its PE's own HBM slice";
    if (addr.given && !addr.is_own) {
        base = addr.value;
        const std::uint64_t sram = m_topo.cube.memory_map.sram_base;
        if (base < hbm_end()) {
            end = sat_add(base - base % slice, slice);
            target = "HBM slice " + std::to_string(base / slice) + " [" + std::to_string(base - base % slice) + ", " +
                     std::to_string(end) + ")";
        } else if (base >= sram && base < sram_end()) {
            end = sram_end();
            target = "the shared SRAM window [" + std::to_string(sram) + ", " + std::to_string(end) + ")";
        } else {
            throw ConfigError(at, std::string(key) + " " + std::to_string(base) +
                                      " is in no memory window: HBM [0, " + std::to_string(hbm_end()) +
                                      "), shared SRAM [" + std::to_string(sram) + ", " + std::to_string(sram_end()) +
                                      ")");
        }
    } else if (addr.is_own) {
        base = addr.value;
        target = "its PE's own HBM slice (" + std::to_string(slice) + " bytes)";
    }
    if (bytes > end - base)
        throw ConfigError(at, std::string(key) + " + " + what + " (" + std::to_string(bytes) + " bytes from " +
                                  (addr.is_own ? "offset " : "") + std::to_string(base) +
                                  ") runs past the end of " + target + ": a transfer reaches one memory target");
}

void Loader::check_composite_extents(const MapReader& r, const Command& cmd) const {
    const CompositeSpec& s = cmd.composite;
    if (s.ops.empty()) {  // the legacy single-op form: `bytes` in and out
        check_memory_extent(r, "src", cmd.src, s.total_bytes, "bytes");
        check_memory_extent(r, "dst", cmd.dst, s.total_bytes, "bytes");
        return;
    }
    const std::uint64_t a = sat_mul(sat_mul(s.m, s.k), s.d_in), b = sat_mul(sat_mul(s.k, s.n), s.d_in);
    const std::uint64_t c = sat_mul(sat_mul(s.m, s.n), s.d_out);
    // (An operand resident in TCM has no memory side: check_resident().)
    if (s.a_resident && !s.b_resident) {
        check_memory_extent(r, s.b_separate ? "src_b" : "src", s.b_separate ? cmd.src_b : cmd.src, b, "B (K·N·d_in)");
    } else if (s.b_resident) {
        if (!s.a_resident) check_memory_extent(r, "src", cmd.src, a, "A (M·K·d_in)");
    } else if (s.b_separate) {
        check_memory_extent(r, "src", cmd.src, a, "A (M·K·d_in)");
        check_memory_extent(r, "src_b", cmd.src_b, b, "B (K·N·d_in)");
    } else {
        check_memory_extent(r, "src", cmd.src, sat_add(a, b), "A and B ((M·K + K·N)·d_in)");
    }
    check_memory_extent(r, "dst", cmd.dst, c, "C (M·N·d_out)");
}

void Loader::check_resident(const MapReader& r, const Command& cmd) const {
    const CompositeSpec& s = cmd.composite;
    const TcmRegion allocatable = allocatable_region(m_topo.cube.pe_template.tcm);
    const auto inside = [&](const char* key, const char* what, std::uint64_t base, std::uint64_t bytes) {
        std::uint64_t end = 0;
        if (base < allocatable.base || __builtin_add_overflow(base, bytes, &end) || end > allocatable.limit)
            throw ConfigError(r.child(key).loc, "composite '" + cmd.id + "': " + what + " = " + std::to_string(bytes) +
                                                    " bytes) from TCM offset " + std::to_string(base) +
                                                    " is not inside AllocatableTCM [" + std::to_string(allocatable.base) +
                                                    ", " + std::to_string(allocatable.limit) + ")");
    };
    if (s.a_resident) {
        if (s.reuse_given && s.reuse == OperandReuse::a_panel)
            throw ConfigError(r.child("reuse").loc, "composite '" + cmd.id + "': reuse a_panel keeps A in a panel, but "
                                                    "a_tcm says it is resident in TCM already (use none or b_panel)");
        inside("a_tcm", "A (M·K·d_in", s.a_tcm, sat_mul(sat_mul(s.m, s.k), s.d_in));
    }
    if (!s.b_resident) return;
    if (r.has("src_b"))
        throw ConfigError(r.child("src_b").loc, "composite '" + cmd.id + "': src_b places B in memory, but b_tcm says "
                                                "it is resident in TCM: give one of them");
    if (s.reuse_given && s.reuse == OperandReuse::b_panel)
        throw ConfigError(r.child("reuse").loc, "composite '" + cmd.id + "': reuse b_panel keeps B in a panel, but "
                                                "b_tcm says it is resident in TCM already (use none or a_panel)");
    inside("b_tcm", "B (K·N·d_in", s.b_tcm, sat_mul(sat_mul(s.k, s.n), s.d_in));
}

// A DMA pattern's keys together (docs/timing.md "DMA transfer patterns").
void Loader::check_dma_pattern(const MapReader& r, Command& cmd) const {
    DmaPattern& p = cmd.pattern;
    const char* name = npuvp::to_string(p.kind);
    auto only_for = [&](const char* key, const char* patterns) {
        if (r.has(key))
            throw ConfigError(r.child(key).loc, std::string(key) + " applies to pattern " + patterns +
                                                    " (this one is " + name + ")");
    };
    auto need = [&](const char* key) {
        if (!r.has(key)) throw ConfigError(r.item().loc, std::string("pattern ") + name + " needs '" + key + "'");
    };
    const auto& tcm = m_topo.cube.pe_template.tcm;
    // The TCM side: a transfer's bytes (a broadcast's copies below) must fit
    // the allocatable TCM, where DMA puts data (seed 000 D5.1).
    if (p.kind != DmaPatternKind::broadcast && cmd.bytes > tcm.size_bytes - tcm.reserved_bytes)
        throw ConfigError(r.has("bytes") ? r.child("bytes").loc : r.item().loc,
                          std::to_string(cmd.bytes) + " bytes do not fit the PE's allocatable TCM (" +
                              std::to_string(tcm.size_bytes - tcm.reserved_bytes) +
                              " bytes: pe_tcm size_mb less reserved_mb); split the transfer");
    switch (p.kind) {
    case DmaPatternKind::contiguous:
        only_for("chunks", "strided or gather");
        only_for("copies", "broadcast");
        only_for("stride", "strided");
        check_memory_extent(r, "addr", cmd.addr, cmd.bytes, "bytes");
        return;
    case DmaPatternKind::strided: only_for("copies", "broadcast"); need("chunks"); break;
    case DmaPatternKind::gather: only_for("copies", "broadcast"); only_for("stride", "strided"); need("chunks"); break;
    case DmaPatternKind::broadcast: only_for("chunks", "strided or gather"); only_for("stride", "strided"); need("copies"); break;
    }
    const SourceLoc at = r.child(p.kind == DmaPatternKind::broadcast ? "copies" : "chunks").loc;
    if (cmd.addr.is_va)
        throw ConfigError(r.child("addr").loc, std::string("pattern ") + name +
                                                   " takes a physical address (pa) or none: a virtual "
                                                   "one is translated page by page as one contiguous range");
    if (p.kind != DmaPatternKind::strided && p.chunks > static_cast<std::uint32_t>(tcm.slices))
        throw ConfigError(at, "at most pe_tcm.slices = " + std::to_string(tcm.slices) +
                                  " (one TCM slice each; got " + std::to_string(p.chunks) + ")");
    if (p.kind == DmaPatternKind::broadcast) {
        const std::uint64_t room = tcm.size_bytes - tcm.reserved_bytes;
        if (sat_mul(cmd.bytes, p.chunks) > room)
            throw ConfigError(at, std::to_string(p.chunks) + " copies of " + std::to_string(cmd.bytes) +
                                      " bytes do not fit the allocatable TCM (" + std::to_string(room) +
                                      " bytes)");
        check_memory_extent(r, "addr", cmd.addr, cmd.bytes, "bytes");
        return;
    }
    if (cmd.bytes % p.chunks != 0)
        throw ConfigError(at, "bytes (" + std::to_string(cmd.bytes) + ") must be a multiple of chunks (" +
                                  std::to_string(p.chunks) + ")");
    const std::uint64_t chunk = cmd.bytes / p.chunks;
    if (p.kind != DmaPatternKind::strided) {
        check_memory_extent(r, "addr", cmd.addr, cmd.bytes, "bytes");
        return;
    }
    if (!r.has("stride")) p.stride = chunk;
    if (p.stride < chunk)
        throw ConfigError(r.child("stride").loc, "must be >= the chunk of bytes / chunks = " +
                                                     std::to_string(chunk) + " (got " +
                                                     std::to_string(p.stride) + ") so that chunks do not overlap");
    // The memory side's span must lie on one target: its HBM slice (the own
    // one when addr is left out), or the SRAM window.
    const std::uint64_t span = sat_add(sat_mul(p.chunks - 1, p.stride), chunk);
    const std::uint64_t base = cmd.addr.given ? cmd.addr.value : 0;  // `own`: an offset, as in slice 0
    const std::uint64_t slice = m_topo.cube.memory_map.hbm_slice_bytes;
    const std::uint64_t window_end = base < hbm_end() ? sat_add(base - base % slice, slice) : sram_end();
    if (sat_add(base, span) > window_end)
        throw ConfigError(r.has("stride") ? r.child("stride").loc : at,
                          "the strided span (" + std::to_string(span) + " bytes from " +
                              std::to_string(base) + ") runs past the end of its memory target (" +
                              std::to_string(window_end) + ")");
}

void Loader::read_id(const Item& item, std::string& id) const {
    if (!item.present) return;
    id = to_string(item);
    if (!is_command_id(id))
        throw ConfigError(item.loc, "id '" + id + "' must match [A-Za-z_][A-Za-z0-9_]*");
}

void Loader::check_ipcq_bytes(const Item& item, std::uint64_t bytes) const {
    const PeIpcqConfig& ring = m_topo.cube.pe_template.ipcq;
    const std::uint64_t capacity = checked_mul(ring.slots, ring.slot_bytes, "pe_ipcq slots × slot_kb");
    if (bytes > capacity)
        throw ConfigError(item.loc, std::to_string(bytes) + " bytes can never be in an IPCQ ring of " +
                                        std::to_string(ring.slots) + " slots × " + std::to_string(ring.slot_bytes) +
                                        " B = " + std::to_string(capacity) +
                                        " bytes (cube.pe_template.components.pe_ipcq.attrs slots, slot_kb)");
}

int Loader::ipcq_peer(const Item& item) const {
    const int peer = to_int(item);
    const int count = m_topo.pes_per_cube();
    if (peer >= count)
        throw ConfigError(item.loc, "peer " + std::to_string(peer) + " out of range: the cube has " +
                                        std::to_string(count) + " PEs, [0, " + std::to_string(count) + ")");
    return peer;
}

std::string Loader::kernel_name(const Item& item, const WorkloadConfig& config) const {
    const std::string name = to_string(item);
    if (!config.kernels.count(name)) {
        std::vector<std::string> known;
        for (const auto& entry : config.kernels) known.push_back(entry.first);
        throw ConfigError(item.loc, "unknown kernel '" + name + "' (kernels: " + join(known) + ")");
    }
    return name;
}

// `pes`: an int, a list of ints, or "all" (every PE of the cube); absent = all.
void Loader::pe_set(const Item& item, std::vector<int>& pes) const {
    const int count = m_topo.pes_per_cube();
    pes.clear();
    if (!item.present || is_all(item.node)) {
        for (int pe = 0; pe < count; ++pe) pes.push_back(pe);
        return;
    }
    std::vector<Item> items;
    if (item.node.IsSequence()) {
        items = schema::list_items(item, false);
    } else if (item.node.IsScalar()) {
        items.push_back(item);
    } else {
        throw ConfigError(item.loc, "expected a PE index, a list of them or 'all', got " +
                                        describe(item.node));
    }
    for (const Item& entry : items) {
        const int pe = to_int(entry);
        if (pe >= count)
            throw ConfigError(entry.loc, "PE " + std::to_string(pe) + " out of range: the cube has " +
                                             std::to_string(count) + " PEs, [0, " +
                                             std::to_string(count) + ")");
        if (std::find(pes.begin(), pes.end(), pe) != pes.end())
            throw ConfigError(entry.loc, "PE " + std::to_string(pe) + " listed twice");
        pes.push_back(pe);
    }
}

// `sipS.cubeC`, both in range of the topology.
void Loader::cube_id(const Item& item, int& sip, int& cube) const {
    const std::string text = item.present ? to_string(item) : std::string(kDefaultCube);
    const auto number_at = [&](std::size_t pos, std::size_t& end) {
        end = pos;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
        if (end == pos || end - pos > 6) return -1;
        return std::atoi(text.substr(pos, end - pos).c_str());
    };
    std::size_t end = 0;
    bool ok = text.compare(0, 3, "sip") == 0;
    if (ok) sip = number_at(3, end);
    ok = ok && sip >= 0 && text.compare(end, 5, ".cube") == 0;
    if (ok) cube = number_at(end + 5, end);
    ok = ok && cube >= 0 && end == text.size();
    if (!ok)
        throw ConfigError(item.loc, "expected a cube as sipS.cubeC, e.g. sip0.cube0 (got '" + text + "')");
    const SystemConfig& sys = m_topo.system;
    if (sip >= sys.sips)
        throw ConfigError(item.loc, "SIP " + std::to_string(sip) + " out of range: the topology has " +
                                        std::to_string(sys.sips) + " SIPs");
    if (cube >= sys.cubes_per_sip)
        throw ConfigError(item.loc, "cube " + std::to_string(cube) +
                                        " out of range: the topology has " +
                                        std::to_string(sys.cubes_per_sip) + " cubes per SIP");
}

// `cubes`: a non-empty list of sipS.cubeC, no repeats; absent = [sip0.cube0].
void Loader::host_cubes(const Item& item, std::vector<CubeRef>& cubes) const {
    cubes.clear();
    if (!item.present) {
        CubeRef ref;
        cube_id(item, ref.sip, ref.cube);
        cubes.push_back(ref);
        return;
    }
    if (!item.node.IsSequence())
        throw ConfigError(item.loc, "expected a list of cubes as sipS.cubeC (e.g. [sip0.cube0]), got " +
                                        describe(item.node));
    for (const Item& entry : schema::list_items(item, false)) {
        CubeRef ref;
        cube_id(entry, ref.sip, ref.cube);
        for (const CubeRef& seen : cubes)
            if (seen.sip == ref.sip && seen.cube == ref.cube)
                throw ConfigError(entry.loc, "cube '" + to_string(entry) + "' listed twice");
        cubes.push_back(ref);
    }
}

// `target_pe`: an int, a list of ints, or `all` (= hbm_slices_per_cube PEs,
// SPEC §4); absent = all.
void Loader::host_target_pe(const Item& item, HostRequest& request) const {
    request.target_pe.clear();
    request.target_all = !item.present || (item.node.IsScalar() && item.node.Scalar() == "all" &&
                                           item.node.Tag() != "!");
    if (request.target_all) {
        for (int pe = 0; pe < m_topo.cube.memory_map.hbm_slices_per_cube; ++pe)
            request.target_pe.push_back(pe);
        return;
    }
    pe_set(item, request.target_pe);
}

std::uint64_t Loader::page_aligned(const Item& item, bool positive) const {
    const std::uint64_t page = m_topo.cube.pe_template.mmu.page_bytes;
    const std::uint64_t v = positive ? size(item) : to_u64(item);
    if (v % page != 0)
        throw ConfigError(item.loc, "must be a multiple of the PE_MMU page size " +
                                        std::to_string(page) + " bytes (got " +
                                        item.node.Scalar() + ")");
    return v;
}

std::uint64_t Loader::tcm_offset(const Item& item) const {
    const std::uint64_t tcm = m_topo.cube.pe_template.tcm.size_bytes;
    const std::uint64_t offset = to_u64(item);
    if (offset >= tcm)
        throw ConfigError(item.loc, "base " + item.node.Scalar() + " is outside the PE's TCM [0, " +
                                        std::to_string(tcm) + ")");
    return offset;
}

// End of the HBM window, as AddressResolver decodes it:
// sips · cubes_per_sip · hbm_slices_per_cube · hbm_slice_bytes (saturating).
std::uint64_t Loader::hbm_end() const {
    const std::uint64_t slices = static_cast<std::uint64_t>(m_topo.system.sips) *
                                 static_cast<std::uint64_t>(m_topo.system.cubes_per_sip) *
                                 static_cast<std::uint64_t>(m_topo.cube.memory_map.hbm_slices_per_cube);
    return sat_mul(slices, m_topo.cube.memory_map.hbm_slice_bytes);
}

// End of the shared SRAM window, as AddressResolver decodes it:
// sram_base + sips · cubes_per_sip · shared_sram size (saturating).
std::uint64_t Loader::sram_end() const {
    const std::uint64_t cubes = static_cast<std::uint64_t>(m_topo.system.sips) *
                                static_cast<std::uint64_t>(m_topo.system.cubes_per_sip);
    return sat_add(m_topo.cube.memory_map.sram_base, sat_mul(cubes, m_topo.cube.shared_sram.size_bytes));
}

// ---------------------------------------------------------------- checks across keys

// `{ tcm: OFFSET, bytes: N }`, `{ hbm: PA, bytes: N }` or `{ sram: PA, bytes: N }`:
// TCM offsets lie in AllocatableTCM, [pe_tcm reserved, size); HBM and SRAM
// addresses in the PA windows AddressResolver decodes (as for host memory
// requests).
void Loader::check_range(const MapReader& reader, const MemRange& range) const {
    const std::string key = npuvp::to_string(range.space);
    const Item base = reader.child(key);
    const Item bytes = reader.child("bytes");
    std::uint64_t begin = 0, end = 0;
    std::string window;
    switch (range.space) {
        case MemSpace::tcm: {
            // seed 000 §D5.1: SchedulerReservedTCM holds PE_SCHEDULER's tile
            // buffers; data placed by DMA and the host lives in AllocatableTCM.
            // The same definition gives PeMemAllocator its range.
            const PeTcmConfig& tcm = m_topo.cube.pe_template.tcm;
            const TcmRegion allocatable = allocatable_region(tcm);
            const TcmRegion reserved = scheduler_reserved_region(tcm);
            begin = allocatable.base;
            end = allocatable.limit;
            window = "the PE's allocatable TCM";
            if (range.base >= reserved.base && range.base < reserved.limit)
                throw ConfigError(base.loc, key + " " + base.node.Scalar() +
                                                " lies in the scheduler's reserved tile buffers [" +
                                                std::to_string(reserved.base) + ", " +
                                                std::to_string(reserved.limit) +
                                                ") (seed 000 D5.1); workload data goes in the "
                                                "allocatable TCM [" +
                                                std::to_string(begin) + ", " + std::to_string(end) + ")");
            break;
        }
        case MemSpace::hbm:
            end = hbm_end();
            window = "the HBM window";
            break;
        case MemSpace::sram:
            begin = m_topo.cube.memory_map.sram_base;
            end = sram_end();
            window = "the shared SRAM window";
            break;
    }
    const std::string span = " [" + std::to_string(begin) + ", " + std::to_string(end) + ")";
    if (range.base < begin || range.base >= end)
        throw ConfigError(base.loc, key + " " + base.node.Scalar() + " is outside " + window + span);
    if (range.bytes > end - range.base)
        throw ConfigError(bytes.loc, key + " + bytes runs past the end of " + window + span + " (" +
                                         key + " " + base.node.Scalar() + ", bytes " +
                                         bytes.node.Scalar() + ")");
}

// `access`: stride defaults to elem_bytes (contiguous); the last access,
// base + stride · (count - 1), must end inside the TCM.
void Loader::check_access(const MapReader& reader, AccessPattern& a) const {
    if (!reader.has("stride")) a.stride = a.elem_bytes;
    // seed 000 D5.1: the allocatable side never sees SchedulerReservedTCM,
    // where the tile buffers live: a command's accesses lie in the
    // allocatable TCM, as its ranges do (check_range), and every access
    // from `base` on is higher, so `base` decides.
    const TcmRegion reserved = scheduler_reserved_region(m_topo.cube.pe_template.tcm);
    if (a.base >= reserved.base && a.base < reserved.limit) {
        const Item base = reader.child("base");
        throw ConfigError(base.loc, "base " + base.node.Scalar() + " lies in the scheduler's reserved tile buffers [" +
                                        std::to_string(reserved.base) + ", " + std::to_string(reserved.limit) +
                                        ") (seed 000 D5.1); an access pattern addresses the allocatable TCM [" +
                                        std::to_string(reserved.limit) + ", " +
                                        std::to_string(m_topo.cube.pe_template.tcm.size_bytes) + ")");
    }
    const std::uint64_t tcm = m_topo.cube.pe_template.tcm.size_bytes;
    const std::uint64_t elem_bytes = a.elem_bytes;
    const std::uint64_t room = tcm - a.base - std::min<std::uint64_t>(elem_bytes, tcm - a.base);
    const bool fits = elem_bytes <= tcm - a.base &&
                      (a.count == 1 || a.stride == 0 || (a.count - 1) <= room / a.stride);
    if (!fits)
        throw ConfigError(reader.item().loc, "the accesses run past the end of the PE's TCM [0, " +
                                                 std::to_string(tcm) + ") (base + stride · (count - 1) + "
                                                 "elem_bytes > TCM size)");
    a.given = true;
}

void Loader::check_composite(Command& cmd, const SourceLoc& fit_loc, const SourceLoc& reuse_loc) const {
    // Arithmetic bounds (docs/limits.md): M·K·N MACs and the tile count stay
    // far inside 64 bits, so no product of them wraps.
    const CompositeSpec& g = cmd.composite;
    if (!g.ops.empty()) {
        using u128 = unsigned __int128;
        const u128 macs = static_cast<u128>(g.m) * g.k * g.n;
        auto tiles_of = [](std::uint64_t n, std::uint64_t t) { return t ? (n + t - 1) / t : n; };
        const u128 tiles = static_cast<u128>(tiles_of(g.m, g.tm)) * tiles_of(g.k, g.tk) * tiles_of(g.n, g.tn);
        if (macs > (u128{1} << 62))
            throw ConfigError(cmd.loc, "composite '" + cmd.id + "': M·K·N is above 2^62 MACs (docs/limits.md)");
        if (tiles > (u128{1} << 40))
            throw ConfigError(fit_loc, "composite '" + cmd.id + "': more than 2^40 tiles (docs/limits.md: days of "
                                       "wall time at millions of tiles per second); give larger tiles");
    }
    try {
        TilePlanner planner(cmd.composite);
    } catch (const std::invalid_argument& e) {
        throw ConfigError(cmd.loc, e.what());
    } catch (const Overflow& e) {
        throw ConfigError(cmd.loc, "composite '" + cmd.id + "': " + e.what());
    }
    check_tile_fit(cmd, fit_loc);
    try {
        if (!cmd.composite.ops.empty()) choose_reuse(cmd, reuse_loc);
    } catch (const Overflow& e) {
        throw ConfigError(reuse_loc, "composite '" + cmd.id + "': " + e.what());
    }
}

// Operand reuse (docs/timing.md "Operand reuse"). A panel's bytes, rounded
// to the TCM granule as every buffer is; the largest panel is the first
// (unclipped) row or column.
void Loader::choose_reuse(Command& cmd, const SourceLoc& loc) const {
    CompositeSpec& s = cmd.composite;
    const std::uint64_t reserved = m_topo.cube.pe_template.tcm.reserved_bytes;
    const std::uint64_t tm = std::min(s.tm, s.m), tk = std::min(s.tk, s.k), tn = std::min(s.tn, s.n);
    const std::uint64_t out = round_up(tm * tn * s.d_out, kTcmGranuleBytes);
    struct Option {
        OperandReuse reuse;
        std::uint64_t panel, tile, saved;  // panel and one token's buffers, bytes; bytes not read
    };
    const std::uint64_t none = composite_read_bytes(s, OperandReuse::none);
    // (An operand resident in TCM: a token's buffer holds no tile of it,
    // and no panel of it is possible.)
    const Option a{OperandReuse::a_panel, round_up(tm * s.k * s.d_in, kTcmGranuleBytes),
                   (s.b_resident ? 0 : round_up(tk * tn * s.d_in, kTcmGranuleBytes)) + out,
                   s.a_resident ? 0 : none - composite_read_bytes(s, OperandReuse::a_panel)};
    const Option b{OperandReuse::b_panel, round_up(s.k * tn * s.d_in, kTcmGranuleBytes),
                   (s.a_resident ? 0 : round_up(tm * tk * s.d_in, kTcmGranuleBytes)) + out,
                   s.b_resident ? 0 : none - composite_read_bytes(s, OperandReuse::b_panel)};
    if (s.reuse_given) {
        if (s.reuse == OperandReuse::none) return;
        const Option& o = s.reuse == OperandReuse::a_panel ? a : b;
        if (sat_add(o.panel, o.tile) > reserved)
            throw ConfigError(loc, "composite '" + cmd.id + "': reuse " + npuvp::to_string(s.reuse) +
                                       " needs a panel of " + std::to_string(o.panel) +
                                       " bytes beside a tile's " + std::to_string(o.tile) +
                                       " bytes of reserved TCM, but the topology reserves " +
                                       std::to_string(reserved) +
                                       " (pe_tcm reserved_mb); give a smaller tile or reuse: none");
        return;
    }
    // The default, as a compiler would choose: keep the operand whose reuse
    // saves the most HBM reads, if its panel leaves room for two tokens in
    // flight (double buffering); A on a tie; none when nothing is saved.
    s.reuse = OperandReuse::none;
    std::uint64_t best = 0;
    for (const Option* o : {&a, &b})
        if (o->saved > best && sat_add(o->panel, sat_mul(2, o->tile)) <= reserved) {
            best = o->saved;
            s.reuse = o->reuse;
        }
}

// SPEC §8: a tile that can never fit SchedulerReservedTCM would block the
// feeder forever; reject it here. The largest tile is the unclipped one (or
// the whole command when it is smaller than one tile).
void Loader::check_tile_fit(const Command& cmd, const SourceLoc& loc) const {
    const CompositeSpec& s = cmd.composite;
    std::uint64_t in_bytes = 0, out_bytes = 0;
    std::string shape;
    if (s.ops.empty()) {
        in_bytes = out_bytes = std::min(s.tile_bytes, s.total_bytes);
        shape = "tile of " + std::to_string(in_bytes) + " bytes: in " + std::to_string(in_bytes) +
                " + out " + std::to_string(out_bytes);
    } else {
        // TilePlanner has checked that these products do not overflow.
        const std::uint64_t tm = std::min(s.tm, s.m), tk = std::min(s.tk, s.k),
                            tn = std::min(s.tn, s.n);
        in_bytes = ((s.a_resident ? 0 : tm * tk) + (s.b_resident ? 0 : tk * tn)) * s.d_in;
        out_bytes = tm * tn * s.d_out;
        shape = "tile " + std::to_string(tm) + "x" + std::to_string(tk) + "x" +
                std::to_string(tn) + ": in " + std::to_string(in_bytes) + " + out " +
                std::to_string(out_bytes);
    }
    const std::uint64_t need = round_up(in_bytes, kTcmGranuleBytes) + round_up(out_bytes, kTcmGranuleBytes);
    const std::uint64_t reserved = m_topo.cube.pe_template.tcm.reserved_bytes;
    if (need > reserved)
        throw ConfigError(loc, "the largest tile needs " + std::to_string(need) +
                                   " bytes of reserved TCM (" + shape +
                                   " bytes, each rounded up to 64) but the topology reserves " +
                                   std::to_string(reserved) +
                                   " bytes (pe_tcm reserved_mb); it can never be fed");
}

// memory_write, memory_read: [pa, pa + bytes) inside the HBM window.
void Loader::check_hbm_range(const MapReader& reader, const HostRequest& req) const {
    const Item pa = reader.child("pa");
    const Item bytes = reader.child("bytes");
    const std::uint64_t end = hbm_end();
    if (req.pa >= end)
        throw ConfigError(pa.loc, "pa " + pa.node.Scalar() + " is outside the HBM window [0, " +
                                      std::to_string(end) + ")");
    if (req.bytes > end - req.pa)
        throw ConfigError(bytes.loc, "pa + bytes runs past the end of the HBM window [0, " +
                                         std::to_string(end) + ") (pa " + pa.node.Scalar() +
                                         ", bytes " + bytes.node.Scalar() + ")");
}

// ---------------------------------------------------------------- commands

Loader::OneKey Loader::one_key(const Item& item, const std::string& shape,
                               const std::string& key_name) const {
    if (!item.node.IsMap() || item.node.size() != 1)
        throw ConfigError(item.loc, shape + ", got " + describe(item.node) +
                                        (item.node.IsMap() ? " with " +
                                                                 std::to_string(item.node.size()) +
                                                                 " keys"
                                                           : std::string()));
    const auto entry = item.node.begin();
    if (!entry->first.IsScalar())
        throw ConfigError(loc_of(entry->first, item.loc.key_path),
                          key_name + " must be a plain name, got " + describe(entry->first));
    const std::string key = entry->first.Scalar();
    return {key, loc_of(entry->first, child_path(item.loc.key_path, key)), entry->second};
}

Command Loader::read_command(const Item& item, std::uint32_t index, KernelExtras& extras) const {
    const OneKey entry = one_key(item,
                                 "a command is a map with one key, its type (e.g. "
                                 "'- dma_read: { bytes: 65536 }')",
                                 "the command type");
    const std::string& type = entry.key;
    const SourceLoc& type_loc = entry.loc;

    Command cmd;
    cmd.index = index;
    cmd.loc = type_loc;
    cmd.id = "c" + std::to_string(index);
    const Item body = child_item(entry.value, type_loc.key_path);
    std::vector<std::string> type_names;
    const CommandKindSpec* spec = nullptr;
    for (const CommandKindSpec& kind : command_kinds()) {
        if (type_names.empty() || type_names.back() != kind.name) type_names.push_back(kind.name);
        if (!spec && kind.name == type && kind.picks(body)) spec = &kind;
    }
    if (!spec)
        throw ConfigError(type_loc, "unknown command type '" + type + "' (known: " +
                                        join(type_names) + ")");
    cmd.kind = spec->kind;
    cmd.context = default_context(cmd.kind);
    if (cmd.kind == CommandKind::wait) {
        read_wait(body, index, extras);
        return cmd;
    }

    const std::vector<const KeyTable<Command>*> tables = command_tables(*spec);
    const std::vector<std::string> allowed = key_names(tables);
    if (!body.present || body.node.IsNull())
        throw ConfigError(body.loc, "expected a map of the command's fields (" + join(allowed) + ")");
    if (!context_scheduled(cmd.kind)) reject_context_keys(body, type);
    const MapReader reader(m_yaml, body, allowed, reserved_command_keys());
    const Scope scope{*this, &extras};
    for (const KeyTable<Command>* table : tables) schema::read_keys(reader, *table, cmd, scope);
    check_on_chip(reader, cmd, type);
    check_stage_time(cmd, type);
    return cmd;
}

// A gemm or math command is one stage whose time the inputs alone decide
// (T3 on the builtin engine): checked here, where the error can name the
// file, line and key, not when the run reaches it (docs/limits.md "Checked
// arithmetic"). Beyond 64 bits it is an Overflow; beyond the run's hard stop
// (2^62 ps) it could never finish.
void Loader::check_stage_time(const Command& cmd, const std::string& type) const {
    if (cmd.kind != CommandKind::gemm && cmd.kind != CommandKind::math) return;
    const PeTemplateConfig& pe = m_topo.cube.pe_template;
    const bool gemm = cmd.kind == CommandKind::gemm;
    const std::string on = std::string(" on ") + (gemm ? "pe_gemm" : "pe_math");
    const double ghz = gemm ? pe.gemm.freq_ghz : pe.math.freq_ghz;
    ps_t ps = 0;
    try {
        ps = gemm ? cycles_to_ps(gemm_stage_cycles(pe.gemm, cmd.m, cmd.k, cmd.n, cmd.elem_bytes, true), ghz,
                                 "a GEMM stage's time")
                  : cycles_to_ps(math_stage_cycles(pe.math, cmd.elements, cmd.op, cmd.elem_bytes, true), ghz,
                                 "a MATH stage's time");
    } catch (const Overflow& e) {
        throw ConfigError(cmd.loc, type + " '" + cmd.id + "': " + e.what() + on + " at " + std::to_string(ghz) + " GHz");
    }
    if (ps >= kLongestRunPs)
        throw ConfigError(cmd.loc, type + " '" + cmd.id + "': its stage takes " + std::to_string(ps) + " ps" + on +
                                       ", beyond the run's limit of 2^62 ps (docs/limits.md): it could never finish");
}

// seed 002: tensor-unit operations (gemm, math, fetch, store) read and write
// on-chip memory only; a range of `reads` / `writes` in HBM or SRAM is an
// error at its space key.
void Loader::check_on_chip(const MapReader& reader, const Command& cmd, const std::string& type) const {
    const bool tensor_unit = cmd.kind == CommandKind::gemm || cmd.kind == CommandKind::math ||
                             cmd.kind == CommandKind::fetch || cmd.kind == CommandKind::store;
    if (!tensor_unit) return;
    for (const char* key : {"reads", "writes"}) {
        const std::vector<MemRange>& ranges = std::string(key) == "reads" ? cmd.reads : cmd.writes;
        for (std::size_t i = 0; i < ranges.size(); ++i) {
            if (ranges[i].space == MemSpace::tcm) continue;
            const Item list = reader.child(key);
            const Item entry = m_yaml.element(list, i);
            const std::string space = npuvp::to_string(ranges[i].space);
            const YAML::Node at = entry.node[space];
            throw ConfigError(at ? loc_of(at, child_path(entry.loc.key_path, space)) : entry.loc,
                              "'" + space + "' is not allowed in a " + type + "'s " + key +
                                  ": tensor-unit operations (gemm, math, fetch, store) read and "
                                  "write on-chip memory only (seed 002); name a 'tcm' range, and "
                                  "move the data with dma_read / dma_write");
        }
    }
}

// `wait: all` or `wait: [id, ...]`; resolved once the kernel is read.
void Loader::read_wait(const Item& body, std::uint32_t index, KernelExtras& extras) const {
    if (is_all(body.node)) return;
    if (!body.node.IsSequence())
        throw ConfigError(body.loc, "expected 'all' or a list of command ids, got " +
                                        describe(body.node));
    for (const Item& ref : schema::list_items(body, false))
        extras.waits.push_back({index, to_string(ref), ref.loc});
}

// A command not run in an execution context says so for context, resources
// and access (rather than "unknown key").
void Loader::reject_context_keys(const Item& body, const std::string& type) const {
    if (!body.node.IsMap()) return;
    const std::vector<std::string> keys = context_keys().names();
    for (auto it = body.node.begin(); it != body.node.end(); ++it) {
        if (!it->first.IsScalar()) continue;  // MapReader reports it
        const std::string key = it->first.Scalar();
        if (std::find(keys.begin(), keys.end(), key) != keys.end())
            throw ConfigError(loc_of(it->first, child_path(body.loc.key_path, key)),
                              "'" + key + "' is not allowed on " + type +
                                  ": it is not run in an execution context (SPEC §6; "
                                  "context, resources and access apply to dma_read, "
                                  "dma_write, gemm, math, fetch, store and ipcq_send)");
    }
}

// A kernel's list may hold lists of commands, taken in place: a body written
// once with a YAML anchor (`- &body [...]`) and named again with an alias
// (`- *body`), as npuvp map writes a compiled kernel (docs/workload.md
// "Kernels"). Aliases are not copies in the document, so both the nesting
// and the commands they expand to are bounded.
void Loader::flatten_commands(const Item& list, std::vector<Item>& out, int depth) const {
    constexpr int most_depth = 8;
    constexpr std::size_t most_commands = std::size_t{1} << 20;
    for (const Item& entry : schema::list_items(list, false)) {
        if (entry.node.IsSequence()) {
            if (depth + 1 >= most_depth)
                throw ConfigError(entry.loc, "lists of commands nest at most " + std::to_string(most_depth) +
                                                 " deep (a kernel's list is the first)");
            flatten_commands(entry, out, depth + 1);
            continue;
        }
        if (out.size() >= most_commands)
            throw ConfigError(entry.loc, "a kernel holds at most " + std::to_string(most_commands) +
                                             " commands (its nested lists expand to more)");
        out.push_back(entry);
    }
}

Kernel Loader::read_kernel(const std::string& name, const Item& item, KernelExtras& extras) const {
    Kernel kernel;
    kernel.name = name;
    kernel.loc = item.loc;
    if (!item.present || item.node.IsNull())
        throw ConfigError(item.loc, "a kernel is a list of commands, got nothing");
    std::vector<Item> items;
    flatten_commands(item, items, 0);
    std::map<std::string, std::uint32_t> ids;
    for (std::size_t i = 0; i < items.size(); ++i) {
        Command cmd = read_command(items[i], static_cast<std::uint32_t>(i), extras);
        const auto [it, fresh] = ids.emplace(cmd.id, cmd.index);
        if (!fresh)
            throw ConfigError(cmd.loc, "duplicate command id '" + cmd.id + "' in kernel '" + name +
                                           "' (command " + std::to_string(it->second) +
                                           " has it; a command without an id is c<index>)");
        kernel.commands.push_back(std::move(cmd));
    }
    resolve_waits(kernel, extras);
    return kernel;
}

void Loader::resolve_waits(Kernel& kernel, const KernelExtras& extras) const {
    for (const WaitRef& ref : extras.waits) {
        const auto target = std::find_if(kernel.commands.begin(), kernel.commands.end(),
                                         [&](const Command& c) { return c.id == ref.id; });
        if (target == kernel.commands.end())
            throw ConfigError(ref.loc, "no command '" + ref.id + "' in kernel '" + kernel.name + "'");
        if (target->index >= ref.command)
            throw ConfigError(ref.loc, "command '" + ref.id + "' (index " +
                                           std::to_string(target->index) +
                                           ") does not come before this wait (index " +
                                           std::to_string(ref.command) +
                                           "): a wait can only name earlier commands");
        std::vector<std::uint32_t>& wait_for = kernel.commands[ref.command].wait_for;
        if (std::find(wait_for.begin(), wait_for.end(), target->index) == wait_for.end())
            wait_for.push_back(target->index);
    }
}

// ---------------------------------------------------------------- launch, mmu

Launch Loader::read_launch(const Item& item, const WorkloadConfig& config, const Extras& extras) const {
    Launch launch;
    launch.loc = item.loc;
    schema::read_key_map(m_yaml, item, launch_keys(), launch, Scope{*this, nullptr, &config, &extras});
    return launch;
}

// A PE cannot be its own IPCQ peer: its send would wait on its own ring.
void Loader::check_self_peers(const std::string& kernel, const std::vector<int>& pes,
                              const SourceLoc& launch_loc, const Extras& extras) const {
    for (const PeerRef& peer : extras.at(kernel).peers)
        if (std::find(pes.begin(), pes.end(), peer.peer) != pes.end())
            throw ConfigError(peer.loc, "ipcq_send peer " + std::to_string(peer.peer) +
                                            " is the sending PE itself: kernel '" + kernel +
                                            "' is launched on pe" + std::to_string(peer.peer) + " by " +
                                            launch_loc.key_path + " (" + launch_loc.file + ":" +
                                            std::to_string(launch_loc.line) + ":" +
                                            std::to_string(launch_loc.column) + ")");
}

MmuMapping Loader::read_mmu(const Item& item) const {
    MmuMapping map;
    map.loc = item.loc;
    schema::read_key_map(m_yaml, item, mmu_keys(), map, Scope{*this});
    return map;
}

// ---------------------------------------------------------------- host

HostRequest Loader::read_host_request(const Item& item, std::uint32_t index,
                                      const WorkloadConfig& config, const Extras& extras,
                                      std::vector<WaitRef>& after) const {
    std::vector<std::string> type_names;
    for (const HostRequestKindSpec& kind : host_request_kinds()) type_names.push_back(kind.name);
    const OneKey entry = one_key(
        item, "a host request is a map with one key, its kind (" + join(type_names) + ")",
        "the host request kind");
    const std::string& type = entry.key;
    const SourceLoc& type_loc = entry.loc;

    HostRequest req;
    req.index = index;
    req.loc = type_loc;
    req.id = "r" + std::to_string(index);
    const HostRequestKindSpec* spec = nullptr;
    for (const HostRequestKindSpec& kind : host_request_kinds())
        if (kind.name == type) spec = &kind;
    if (!spec)
        throw ConfigError(type_loc, "unknown host request kind '" + type + "' (known: " +
                                        join(type_names) + ")");
    req.kind = spec->kind;

    const std::vector<const KeyTable<HostRequest>*> tables = host_tables(*spec);
    const std::vector<std::string> allowed = key_names(tables);
    const Item body = child_item(entry.value, type_loc.key_path);
    // A null value has no useful mark (yaml-cpp puts it on the next line): point at the kind.
    if (body.node.IsNull())
        throw ConfigError(type_loc, "expected a map of the request's fields (" + join(allowed) + ")");
    const MapReader reader(m_yaml, body, allowed);
    const Scope scope{*this, nullptr, &config, &extras, &after};
    for (const KeyTable<HostRequest>* table : tables) schema::read_keys(reader, *table, req, scope);
    return req;
}

std::vector<HostRequest> Loader::read_host(const Item& item, const WorkloadConfig& config,
                                           const Extras& extras) const {
    std::vector<HostRequest> requests;
    std::vector<WaitRef> after;
    std::map<std::string, std::uint32_t> ids;
    const std::vector<Item> items = schema::list_items(item, false);
    for (std::size_t i = 0; i < items.size(); ++i) {
        HostRequest req =
            read_host_request(items[i], static_cast<std::uint32_t>(i), config, extras, after);
        const auto [it, fresh] = ids.emplace(req.id, req.index);
        if (!fresh)
            throw ConfigError(req.loc, "duplicate host request id '" + req.id + "' (request " +
                                           std::to_string(it->second) +
                                           " has it; a request without an id is r<index>)");
        requests.push_back(std::move(req));
    }
    // `after` names earlier requests only, so the order is acyclic by construction.
    for (const WaitRef& ref : after) {
        const auto target = ids.find(ref.id);
        if (target == ids.end())
            throw ConfigError(ref.loc, "no host request '" + ref.id + "'");
        if (target->second >= ref.command)
            throw ConfigError(ref.loc, "host request '" + ref.id + "' (index " +
                                           std::to_string(target->second) +
                                           ") does not come before this one (index " +
                                           std::to_string(ref.command) +
                                           "): 'after' can only name earlier requests");
        std::vector<std::uint32_t>& deps = requests[ref.command].after;
        if (std::find(deps.begin(), deps.end(), target->second) == deps.end())
            deps.push_back(target->second);
    }
    // A request resolved on the device waits for what an M_CPU can see
    // complete: kernel launches (their fan-outs), not memory or MMU requests.
    for (const HostRequest& req : requests) {
        if (!req.device_after) continue;
        std::vector<std::uint32_t> deps = req.after;
        if (!req.explicit_after && req.index > 0) deps.push_back(req.index - 1);
        for (const std::uint32_t d : deps)
            if (requests[d].kind != HostRequestKind::kernel_launch)
                throw ConfigError(req.device_after_loc,
                                  "resolve_after: device, but it waits for host request '" + requests[d].id + "' (" +
                                      npuvp::to_string(requests[d].kind) +
                                      "): the device resolves only kernel launches (resolve_after: host)");
    }
    return requests;
}

// ---------------------------------------------------------------- data mode

namespace {

struct DataDtype {
    const char* name;
    std::uint32_t bytes;
    long long min, max;
};
const std::vector<DataDtype>& data_dtypes() {
    static const std::vector<DataDtype> types{{"int8", 1, -128, 127},
                                              {"int32", 4, std::numeric_limits<std::int32_t>::min(),
                                               std::numeric_limits<std::int32_t>::max()}};
    return types;
}

// The `random` generator (docs/workload.md "Operand data"): std::mt19937_64
// seeded with `seed`; each element draws 64-bit x until x < 2^64 − (2^64 mod
// span), span = max − min + 1, and is min + x mod span: the same bytes on
// every machine (no std::uniform_int_distribution, whose output the standard
// leaves to the library).
void fill_random(std::vector<std::uint8_t>& out, const DataDtype& type, std::uint64_t seed, long long min,
                 long long max) {
    std::mt19937_64 gen(seed);
    const std::uint64_t span = static_cast<std::uint64_t>(max - min) + 1;  // <= 2^32
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                                (std::numeric_limits<std::uint64_t>::max() % span + 1) % span;
    for (std::size_t at = 0; at < out.size(); at += type.bytes) {
        std::uint64_t x = gen();
        while (x > limit) x = gen();
        const auto v = static_cast<std::uint32_t>(static_cast<std::int64_t>(min) + static_cast<std::int64_t>(x % span));
        for (std::uint32_t b = 0; b < type.bytes; ++b) out[at + b] = static_cast<std::uint8_t>(v >> (8 * b));
    }
}

}  // namespace

DataRegion Loader::data_region(const MapReader& r, const char* what) const {
    DataRegion at;
    at.loc = r.item().loc;
    const int spaces = int(r.has("hbm")) + int(r.has("sram")) + int(r.has("tcm"));
    if (spaces != 1) throw ConfigError(r.item().loc, std::string(what) + ": give exactly one of 'hbm', 'sram' or 'tcm'");
    at.space = r.has("hbm") ? DataSpace::hbm : r.has("sram") ? DataSpace::sram : DataSpace::tcm;
    const char* space_key = npuvp::to_string(at.space);
    const Item addr = r.child(space_key);
    at.addr = to_u64(addr);
    if (at.space == DataSpace::tcm) {
        cube_id(r.child("cube"), at.sip, at.cube);
        const Item pe = r.required("pe");
        at.pe = to_int(pe);
        if (at.pe >= m_topo.pes_per_cube())
            throw ConfigError(pe.loc, "PE " + std::to_string(at.pe) + " out of range: the cube has " +
                                          std::to_string(m_topo.pes_per_cube()) + " PEs");
    } else {
        for (const char* key : {"cube", "pe"})
            if (r.has(key))
                throw ConfigError(r.child(key).loc, std::string(key) + " applies to 'tcm' only (hbm and sram "
                                                                       "addresses are physical)");
    }
    // The size: `bytes`, or `dtype` and `shape`.
    if (r.has("bytes") == r.has("shape"))
        throw ConfigError(r.item().loc, std::string(what) + ": give 'bytes', or 'dtype' and 'shape'");
    if (r.has("bytes")) {
        at.bytes = size(r.child("bytes"));
    } else {
        const Item type = r.required("dtype");
        const std::string name = to_string(type);
        const DataDtype* dt = nullptr;
        for (const DataDtype& t : data_dtypes())
            if (name == t.name) dt = &t;
        if (!dt)
            throw ConfigError(type.loc, "dtype '" + name + "' has no data mode: its values are int8 or int32 "
                                        "(the RTL engines' and data mode's integer arithmetic)");
        const Item shape = r.child("shape");
        std::uint64_t bytes = dt->bytes;
        try {
            for (const Item& dim : schema::list_items(shape, false)) bytes = checked_mul(bytes, size(dim), "shape");
        } catch (const Overflow&) {
            throw ConfigError(shape.loc, "the shape's bytes overflow 64 bits");
        }
        at.bytes = bytes;
    }
    const SourceLoc& where = addr.loc;
    std::uint64_t end = 0;
    if (__builtin_add_overflow(at.addr, at.bytes, &end))
        throw ConfigError(where, std::string(space_key) + " + bytes overflows 64 bits");
    const auto range = [](std::uint64_t a, std::uint64_t b) {
        return "[" + std::to_string(a) + ", " + std::to_string(b) + ")";
    };
    if (at.space == DataSpace::hbm && end > hbm_end())
        throw ConfigError(where, "hbm " + range(at.addr, end) + " runs outside the HBM window " + range(0, hbm_end()));
    if (at.space == DataSpace::sram && (at.addr < m_topo.cube.memory_map.sram_base || end > sram_end()))
        throw ConfigError(where, "sram " + range(at.addr, end) + " runs outside the shared SRAM window " +
                                     range(m_topo.cube.memory_map.sram_base, sram_end()));
    if (at.space == DataSpace::tcm) {
        const PeTcmConfig& tcm = m_topo.cube.pe_template.tcm;
        if (at.addr < tcm.reserved_bytes || end > tcm.size_bytes)
            throw ConfigError(where, "tcm " + range(at.addr, end) + " is not inside AllocatableTCM " +
                                         range(tcm.reserved_bytes, tcm.size_bytes) +
                                         " (the scheduler's tile buffers own [0, " +
                                         std::to_string(tcm.reserved_bytes) + "))");
    }
    return at;
}

DataInit Loader::read_data_init(const Item& item) const {
    const MapReader r(m_yaml, item, {"hbm", "sram", "tcm", "cube", "pe", "bytes", "dtype", "shape", "from"});
    DataInit init;
    init.at = data_region(r, "a data entry");
    const Item from = r.required("from");
    const MapReader f(m_yaml, from, {"file", "random", "onnx"});
    if (int(f.has("file")) + int(f.has("random")) + int(f.has("onnx")) != 1)
        throw ConfigError(from.loc, "give exactly one of 'file', 'random' or 'onnx'");
    const Item size_item = r.has("bytes") ? r.child("bytes") : r.child("shape");
    if (init.at.bytes > kMaxDataBytes)
        throw ConfigError(size_item.loc, std::to_string(init.at.bytes) + " bytes: data entries hold at most " +
                                             std::to_string(kMaxDataBytes) + " bytes in all (docs/limits.md)");
    init.bytes.assign(init.at.bytes, 0);
    if (f.has("file")) {
        const Item file = f.child("file");
        std::filesystem::path path = to_string(file);
        // Relative to the workload file's directory.
        if (path.is_relative()) path = std::filesystem::path(m_source).parent_path() / path;
        std::ifstream in(path, std::ios::binary);
        if (!in) throw ConfigError(file.loc, "cannot open '" + path.string() + "'");
        in.seekg(0, std::ios::end);
        const auto have = static_cast<std::uint64_t>(std::max<std::streamoff>(in.tellg(), 0));
        if (have != init.at.bytes)
            throw ConfigError(file.loc, "'" + path.string() + "' has " + std::to_string(have) + " bytes, " +
                                            (have < init.at.bytes ? "fewer than" : "more than") + " the " +
                                            std::to_string(init.at.bytes) + " the entry declares");
        in.seekg(0);
        in.read(reinterpret_cast<char*>(init.bytes.data()), static_cast<std::streamsize>(init.at.bytes));
        if (!in) throw ConfigError(file.loc, "cannot read '" + path.string() + "'");
    } else if (f.has("onnx")) {
        // An initializer of an ONNX model: its values, in the entry's dtype and shape.
        const Item onnx = f.child("onnx");
        const MapReader o(m_yaml, onnx, {"model", "initializer"});
        if (!r.has("dtype"))
            throw ConfigError(onnx.loc, "an ONNX initializer needs the entry's 'dtype' and 'shape' (int8 or int32)");
        const Item model = o.required("model");
        std::filesystem::path path = to_string(model);
        if (path.is_relative()) path = std::filesystem::path(m_source).parent_path() / path;
        const std::uint32_t bytes_per = to_string(r.child("dtype")) == "int8" ? 1 : 4;
        try {
            init.bytes = model::onnx_initializer_bytes(path.string(), to_string(o.required("initializer")),
                                                       static_cast<int>(bytes_per), init.at.bytes / bytes_per);
        } catch (const model::ModelError& e) {
            throw ConfigError(o.child("initializer").present ? o.child("initializer").loc : model.loc, e.what());
        }
    } else {
        const Item random = f.child("random");
        const MapReader g(m_yaml, random, {"seed", "min", "max"});
        if (!r.has("dtype"))
            throw ConfigError(random.loc, "random values need the entry's 'dtype' and 'shape' (int8 or int32)");
        const std::string name = to_string(r.child("dtype"));
        const DataDtype* dt = nullptr;
        for (const DataDtype& t : data_dtypes())
            if (name == t.name) dt = &t;
        const std::uint64_t seed = to_u64(g.required("seed"));
        const long long min = g.has("min") ? m_yaml.to_integer(g.child("min")) : dt->min;
        const long long max = g.has("max") ? m_yaml.to_integer(g.child("max")) : dt->max;
        for (const auto& [key, v] : {std::pair<const char*, long long>{"min", min}, {"max", max}})
            if (g.has(key) && (v < dt->min || v > dt->max))
                throw ConfigError(g.child(key).loc, std::string(key) + " " + std::to_string(v) + " is outside " + name +
                                                        " [" + std::to_string(dt->min) + ", " +
                                                        std::to_string(dt->max) + "]");
        if (min > max)
            throw ConfigError(g.has("min") ? g.child("min").loc : random.loc,
                              "min " + std::to_string(min) + " is above max " + std::to_string(max));
        fill_random(init.bytes, *dt, seed, min, max);
    }
    return init;
}

DataDump Loader::read_data_dump(const Item& item) const {
    const MapReader r(m_yaml, item, {"hbm", "sram", "tcm", "cube", "pe", "bytes", "dtype", "shape", "file"});
    DataDump dump;
    dump.at = data_region(r, "a dump entry");
    dump.file = to_string(r.required("file"));
    dump.file_loc = r.child("file").loc;
    if (dump.file.empty()) throw ConfigError(dump.file_loc, "an empty file name");
    // Its folder is checked by resolve_dump_paths(), which knows --dump-dir.
    return dump;
}

void Loader::check_data_overlaps(const WorkloadConfig& config) const {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < config.data.size(); ++i) {
        const DataRegion& a = config.data[i].at;
        total = sat_add(total, a.bytes);
        if (total > kMaxDataBytes)
            throw ConfigError(a.loc, "the data entries hold more than " + std::to_string(kMaxDataBytes) +
                                         " bytes in all (docs/limits.md)");
        for (std::size_t j = 0; j < i; ++j) {
            const DataRegion& b = config.data[j].at;
            const bool same = a.space == b.space &&
                              (a.space != DataSpace::tcm || (a.sip == b.sip && a.cube == b.cube && a.pe == b.pe));
            if (same && a.addr < b.addr + b.bytes && b.addr < a.addr + a.bytes)
                throw ConfigError(a.loc, "data[" + std::to_string(i) + "] overlaps data[" + std::to_string(j) +
                                             "] (" + npuvp::to_string(b.space) + " [" + std::to_string(b.addr) +
                                             ", " + std::to_string(b.addr + b.bytes) + ")): each byte has one source");
        }
    }
}

void Loader::check_data_composite(const MapReader& r, const Command& cmd) const {
    const CompositeSpec& c = cmd.composite;
    const Item epilogues = r.child("epilogues");
    const std::vector<Item> entries = epilogues.present && !epilogues.node.IsNull()
                                          ? schema::list_items(epilogues, true) : std::vector<Item>{};
    const auto entry_key = [&](std::size_t i, const char* key) {
        const MapReader e(m_yaml, entries.at(i), {"op", "scope", "operand"});
        return e.has(key) ? e.child(key).loc : entries.at(i).loc;
    };
    if (!m_data_mode) {
        for (std::size_t i = 1; i < c.ops.size(); ++i)
            if (c.ops[i].operand)
                throw ConfigError(entry_key(i - 1, "operand"), "operand is read in data mode only (the workload's "
                                                               "data / dump; docs/workload.md \"Operand data\")");
        return;
    }
    const auto dtype_loc = [&](const char* key) {
        if (!r.has("dtype")) return r.item().loc;
        const MapReader d(m_yaml, r.child("dtype"), {"in", "out"});
        return d.has(key) ? d.child(key).loc : r.child("dtype").loc;
    };
    if (c.d_in != 1)
        throw ConfigError(dtype_loc("in"), "data mode (the workload's data / dump) runs int8 GEMMs: dtype.in must "
                                           "be int8 (bf16 and fp32 data have no data mode)");
    if (!(c.d_out == 1 || (c.d_out == 4 && !c.out_fp32)))
        throw ConfigError(dtype_loc("out"), "data mode (the workload's data / dump) writes int8 or int32 results: "
                                            "dtype.out must be int8 or int32 (bf16 and fp32 data have no data mode)");
    // The register file's model holds the command's M×N int32 sums in host
    // memory (modules/pe/pe_data.h).
    if (sat_mul(sat_mul(c.m, c.n), 4) > kMaxDataBytes)
        throw ConfigError(r.child("gemm").loc, "data mode holds the M×N int32 sums of a composite in memory: at most " +
                                                   std::to_string(kMaxDataBytes) + " bytes (docs/limits.md)");
    const PeTcmConfig& tcm = m_topo.cube.pe_template.tcm;
    for (std::size_t i = 1; i < c.ops.size(); ++i) {
        const std::string op = c.ops[i].kind.substr(5);  // past "math."
        DataMathOp kind{};
        if (!data_math_op(op, kind))
            throw ConfigError(entry_key(i - 1, "op"), "epilogue " + op + " has no data mode (data mode computes " +
                                                          data_math_ops_text() + ")");
        const bool needs = kind == DataMathOp::add || kind == DataMathOp::mul;
        if (!needs) {
            if (c.ops[i].operand)
                throw ConfigError(entry_key(i - 1, "operand"), "epilogue " + op + " takes no operand");
            continue;
        }
        if (!c.ops[i].operand)
            throw ConfigError(entry_key(i - 1, "op"), "epilogue " + op + " needs 'operand' in data mode: the TCM "
                                                          "offset of its int32 " +
                                                          (op == "bias_add" ? "bias (N values)" : "M×N matrix"));
        const SourceLoc at = entry_key(i - 1, "operand");
        std::uint64_t bytes = 0, end = 0;
        try {
            bytes = checked_mul(op == "bias_add" ? c.n : checked_mul(c.m, c.n, "operand"), 4, "operand");
        } catch (const Overflow&) {
            throw ConfigError(at, "the operand's bytes overflow 64 bits");
        }
        const std::uint64_t base = *c.ops[i].operand;
        if (__builtin_add_overflow(base, bytes, &end) || base < tcm.reserved_bytes || end > tcm.size_bytes)
            throw ConfigError(at, "operand [" + std::to_string(base) + ", + " + std::to_string(bytes) +
                                      " bytes) is not inside AllocatableTCM [" + std::to_string(tcm.reserved_bytes) +
                                      ", " + std::to_string(tcm.size_bytes) + ")");
    }
}

WorkloadConfig Loader::load(const YAML::Node& root) {
    const Item top_item = child_item(root, "");
    const MapReader top(m_yaml, top_item, {"name", "kernels", "launch", "mmu", "host", "data", "dump"});
    const Item data = top.child("data"), dump = top.child("dump");
    m_data_mode = (data.present && !data.node.IsNull()) || (dump.present && !dump.node.IsNull());

    WorkloadConfig config;
    config.source = m_source;
    config.data_lists = m_data_mode;
    config.name = top.has("name") ? to_string(top.child("name")) : std::string();

    const Item kernels_item = top.required("kernels");
    if (!kernels_item.node.IsMap())
        throw ConfigError(kernels_item.loc, "expected a map of kernel name -> list of commands, got " +
                                                describe(kernels_item.node));
    std::map<std::string, KernelExtras> extras;
    std::vector<std::string> any_name;
    for (auto it = kernels_item.node.begin(); it != kernels_item.node.end(); ++it) {
        if (!it->first.IsScalar() || it->first.Scalar().empty())
            throw ConfigError(loc_of(it->first, "kernels"),
                              "kernel names must be plain names, got " + describe(it->first));
        const std::string name = it->first.Scalar();
        const SourceLoc loc = loc_of(it->first, child_path("kernels", name));
        if (config.kernels.count(name)) throw ConfigError(loc, "duplicate kernel '" + name + "'");
        Item body = child_item(it->second, loc.key_path);
        if (body.node.IsNull()) body.loc = loc;
        config.kernels.emplace(name, read_kernel(name, body, extras[name]));
        config.kernels.at(name).loc = loc;
    }
    if (config.kernels.empty()) throw ConfigError(kernels_item.loc, "must name at least one kernel");

    // Something must run: direct launches, host requests, or both.
    const Item launch = top.child("launch");
    const Item host = top.child("host");
    const bool has_launch = launch.present && !launch.node.IsNull();
    const bool has_host = host.present && !host.node.IsNull();
    if (!has_launch && !has_host)
        throw ConfigError(SourceLoc{m_source, top_item.loc.line, top_item.loc.column, ""},
                          "nothing to run: give 'launch' (direct launches at t = 0) and/or "
                          "'host' (requests through IO_CPU)");
    if (has_launch)
        for (const Item& entry : schema::list_items(launch, false))
            config.launches.push_back(read_launch(entry, config, extras));

    const Item mmu = top.child("mmu");
    if (mmu.present && !mmu.node.IsNull())
        for (const Item& entry : schema::list_items(mmu, true)) config.mmu.push_back(read_mmu(entry));
    if (has_host) config.host = read_host(host, config, extras);
    check_mmu(config);
    if (data.present && !data.node.IsNull())
        for (const Item& entry : schema::list_items(data, true)) config.data.push_back(read_data_init(entry));
    if (dump.present && !dump.node.IsNull())
        for (const Item& entry : schema::list_items(dump, true)) config.dumps.push_back(read_data_dump(entry));
    check_data_overlaps(config);
    return config;
}

void Loader::check_mmu(const WorkloadConfig& config) const {
    struct Mapped {
        std::uint64_t va, end;
        std::string by;  // "mmu[2]", "host request 'r3'"
    };
    std::map<std::tuple<int, int, int>, std::vector<Mapped>> mapped;  // (sip, cube, pe) -> VA ranges
    const std::uint64_t page = m_topo.cube.pe_template.mmu.page_bytes;
    std::uint64_t pages = 0;
    const std::uint64_t hbm = hbm_end(), sram = m_topo.cube.memory_map.sram_base;
    auto name = [](int sip, int cube, int pe) {
        return "sip" + std::to_string(sip) + ".cube" + std::to_string(cube) + ".pe" + std::to_string(pe);
    };
    auto range = [](std::uint64_t a, std::uint64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + ")"; };
    auto map = [&](int sip, int cube, const std::vector<int>& pes, std::uint64_t va, std::uint64_t pa,
                   std::uint64_t bytes, const SourceLoc& loc, const std::string& by) {
        const bool in_hbm = pa < hbm && bytes <= hbm - pa;
        const bool in_sram = pa >= sram && pa < sram_end() && bytes <= sram_end() - pa;
        if (!in_hbm && !in_sram)
            throw ConfigError(loc, by + ": pa " + range(pa, pa + bytes) + " is not inside one memory window (HBM " +
                                       range(0, hbm) + ", shared SRAM " + range(sram, sram_end()) + ")");
        for (const int pe : pes) {
            std::vector<Mapped>& ranges = mapped[{sip, cube, pe}];
            for (const Mapped& m : ranges)
                if (va < m.end && m.va < va + bytes)
                    throw ConfigError(loc, by + " maps va " + range(va, va + bytes) + " on " + name(sip, cube, pe) +
                                               ", where " + m.by + " already maps " + range(m.va, m.end) +
                                               ": a PE_MMU maps each virtual page once (unmap it first)");
            ranges.push_back({va, va + bytes, by});
            pages += bytes / page;
            if (pages > kMaxMmuPages)
                throw ConfigError(loc, by + ": the workload maps more than " + std::to_string(kMaxMmuPages) +
                                           " pages in all PE_MMUs (docs/limits.md: each is a table entry)");
        }
    };
    auto unmap = [&](int sip, int cube, const std::vector<int>& pes, std::uint64_t va, std::uint64_t bytes) {
        const std::uint64_t end = va + bytes;
        for (const int pe : pes) {
            std::vector<Mapped>& ranges = mapped[{sip, cube, pe}];
            std::vector<Mapped> kept;
            for (const Mapped& m : ranges) {
                if (m.end <= va || end <= m.va) {
                    kept.push_back(m);
                    continue;
                }
                if (m.va < va) kept.push_back({m.va, va, m.by});
                if (end < m.end) kept.push_back({end, m.end, m.by});
            }
            ranges = std::move(kept);
        }
    };
    for (std::size_t i = 0; i < config.mmu.size(); ++i) {
        const MmuMapping& m = config.mmu[i];
        map(m.sip, m.cube, m.pes, m.va, m.pa, m.bytes, m.loc, "mmu[" + std::to_string(i) + "]");
    }
    for (const HostRequest& r : config.host) {
        if (r.kind != HostRequestKind::mmu_map && r.kind != HostRequestKind::mmu_unmap) continue;
        for (const CubeRef& c : r.cubes) {
            if (r.kind == HostRequestKind::mmu_map)
                map(c.sip, c.cube, r.target_pe, r.va, r.pa, r.bytes, r.loc, "host request '" + r.id + "'");
            else
                unmap(c.sip, c.cube, r.target_pe, r.va, r.bytes);
        }
    }
}

// ---------------------------------------------------------------- docs

// The kinds the scheduler runs in a context, for the docs: "`a`, `b` and `c`".
std::string context_scheduled_kinds() {
    std::vector<std::string> names;
    for (const CommandKindSpec& kind : command_kinds())
        if (context_scheduled(kind.kind) &&
            std::find(names.begin(), names.end(), "`" + kind.name + "`") == names.end())
            names.push_back("`" + kind.name + "`");
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    return text;
}

std::string command_markdown() {
    schema::KeyDocs docs{{"Keys of every command",
                          "Every kind but `wait` takes these beside its own (an unknown key is an error that "
                          "lists the allowed ones). `context`, `resources` and `access` only on the kinds the "
                          "scheduler runs in an execution context: " + context_scheduled_kinds() +
                              "; elsewhere they are an error at the key (\"not run in an execution context\").",
                          {}}};
    for (const KeyTable<Command>* table : {&command_head_keys(), &command_tail_keys(), &context_keys()})
        schema::document_keys(*table, "", docs, 0);
    for (const CommandKindSpec& kind : command_kinds()) {
        docs.push_back({kind.title(), kind.doc, {}});
        schema::document_keys(kind.keys, "", docs, docs.size() - 1);
    }
    return schema::key_markdown(docs);
}

std::string host_markdown() {
    schema::KeyDocs docs{{"Keys of every host request",
                          "Every kind takes these beside its own (an unknown key is an error that lists the "
                          "allowed ones).",
                          {}}};
    schema::document_keys(host_head_keys(), "", docs, 0);
    for (const HostRequestKindSpec& kind : host_request_kinds()) {
        docs.push_back({"`" + kind.name + "`", kind.doc, {}});
        schema::document_keys(kind.keys, "", docs, docs.size() - 1);
    }
    return schema::key_markdown(docs);
}

}  // namespace

// ---------------------------------------------------------------- public API

void resolve_dump_paths(WorkloadConfig& workload, const std::string& dump_dir) {
    for (DataDump& dump : workload.dumps) {
        std::filesystem::path file(dump.file);
        if (!dump_dir.empty() && file.is_relative()) file = std::filesystem::path(dump_dir) / file;
        dump.file = file.string();
        // Checked before the run, as every output path (docs/cli.md "Outputs").
        const std::filesystem::path dir = file.parent_path();
        if (!dir.empty() && !std::filesystem::is_directory(dir))
            throw ConfigError(dump.file_loc, "cannot write '" + dump.file + "': the folder '" + dir.string() +
                                                 "' does not exist");
    }
}

std::vector<WorkloadKindKeys> workload_kind_keys() {
    std::vector<WorkloadKindKeys> kinds;
    for (const CommandKindSpec& kind : command_kinds()) {
        const bool has_map = kind.kind != CommandKind::wait;
        kinds.push_back({"command", kind.name, kind.form.head, kind.title(),
                         has_map ? key_names(command_tables(kind)) : std::vector<std::string>{}});
    }
    for (const HostRequestKindSpec& kind : host_request_kinds())
        kinds.push_back({"host", kind.name, "", "`" + kind.name + "`", key_names(host_tables(kind))});
    kinds.push_back({"launch", "launch", "", "Keys of a launch", launch_keys().names()});
    kinds.push_back({"mmu", "mmu", "", "Keys of a mapping", mmu_keys().names()});
    return kinds;
}

std::vector<WorkloadDocBlock> workload_schema_markdown() {
    schema::KeyDocs launch{{"Keys of a launch", "", {}}};
    schema::document_keys(launch_keys(), "", launch, 0);
    schema::KeyDocs mmu{{"Keys of a mapping", "", {}}};
    schema::document_keys(mmu_keys(), "", mmu, 0);
    return {{"commands", command_markdown()},
            {"launch", schema::key_markdown(launch)},
            {"mmu", schema::key_markdown(mmu)},
            {"host", host_markdown()}};
}

WorkloadConfig load_workload_file(const std::string& path, const TopologyConfig& topo) {
    return load_workload_text(read_input_file(path), path, topo);
}

WorkloadConfig load_workload_text(const std::string& text, const std::string& source_name,
                                  const TopologyConfig& topo) {
    const YAML::Node root = parse_map_document(text, source_name, "workload keys");
    Loader loader(source_name, topo);
    return translate_yaml_errors(source_name, [&] { return loader.load(root); });
}

}  // namespace npuvp
