// Workload YAML -> validated WorkloadConfig (docs/workload.md). Same two-layer
// shape as the topology loader: yaml-cpp gives a node tree with marks, one
// MapReader per YAML map rejects keys it was not told about, and every value is
// read with its file:line:column and key path, so an error points at it. The
// checks against the topology (cube / PE ranges, math ops, TCM fit, page
// alignment) run as each value is read; `wait` targets and ipcq peers, which
// depend on the whole kernel or on the launch, are resolved afterwards.
#include "config/workload_loader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/yaml_document.h"
#include "config/yaml_reader.h"

namespace npuvp {
namespace {

// Reserved-TCM buffers are allocated in 64-byte granules (the fit check
// rounds each buffer up the same way).
constexpr std::uint64_t kTcmGranuleBytes = 64;

const char* const kDefaultCube = "sip0.cube0";

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
        {"int8", 1}, {"bf16", 2}, {"fp32", 4}};
    return table;
}

std::string index_path(const std::string& parent, std::size_t index) {
    return parent + "[" + std::to_string(index) + "]";
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

class Loader {
public:
    Loader(std::string source, const TopologyConfig& topo)
        : m_source(std::move(source)), m_topo(topo), m_yaml(m_source, {false, true}) {}

    WorkloadConfig load(const YAML::Node& root);

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

    // ------------------------------------------------------------ scalars
    std::uint64_t to_u64(const Item& item) const;
    std::uint64_t size(const Item& item) const;  // > 0
    int to_int(const Item& item) const;
    std::string to_string(const Item& item) const;
    bool to_bool(const Item& item) const;
    double to_double(const Item& item) const;  // finite

private:
    std::vector<Item> list(const Item& item, bool allow_empty) const;
    std::uint32_t dtype(const Item& item) const;
    std::string math_op(const Item& item) const;
    MemAddress address(const Item& item) const;
    void pe_set(const Item& item, std::vector<int>& pes) const;
    void cube_id(const Item& item, int& sip, int& cube) const;

    Kernel read_kernel(const std::string& name, const Item& item, KernelExtras& extras) const;
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
    // One command kind (docs/workload.md "Commands"): its name, the keys of
    // its body beside id, wait and the schedule keys, and what reads them.
    struct CommandKindSpec {
        std::string name;
        CommandKind kind;
        std::vector<std::string> keys;
        void (Loader::*read)(const MapReader&, Command&, KernelExtras&) const;
    };
    static const std::vector<CommandKindSpec>& command_kinds();
    friend std::vector<WorkloadKindKeys> npuvp::workload_kind_keys();
    static std::vector<std::string> command_keys(const CommandKindSpec& spec, const Item& body);
    void read_wait(const Item& body, std::uint32_t index, KernelExtras& extras) const;
    void reject_context_keys(const Item& body, const std::string& type) const;
    void read_dma(const MapReader& reader, Command& cmd, KernelExtras& extras) const;
    void read_gemm(const MapReader& reader, Command& cmd, KernelExtras& extras) const;
    void read_math(const MapReader& reader, Command& cmd, KernelExtras& extras) const;
    void read_ipcq_send(const MapReader& reader, Command& cmd, KernelExtras& extras) const;
    void read_bytes(const MapReader& reader, Command& cmd, KernelExtras& extras) const;
    void read_composite_kind(const MapReader& reader, Command& cmd, KernelExtras& extras) const;
    void read_composite(const MapReader& reader, Command& cmd) const;
    void read_schedule_keys(const MapReader& reader, Command& cmd) const;
    std::vector<MemRange> ranges(const Item& item) const;
    MemRange range(const Item& item) const;
    AccessPattern access_pattern(const Item& item) const;
    void check_tile_fit(const Command& cmd, const SourceLoc& loc) const;
    void resolve_waits(Kernel& kernel, const KernelExtras& extras) const;
    Launch read_launch(const Item& item, const WorkloadConfig& config,
                       const std::map<std::string, KernelExtras>& extras) const;
    MmuMapping read_mmu(const Item& item) const;
    void check_self_peers(const std::string& kernel, const std::vector<int>& pes,
                          const SourceLoc& launch_loc,
                          const std::map<std::string, KernelExtras>& extras) const;

    // host section (SPEC §4)
    std::vector<HostRequest> read_host(const Item& item, const WorkloadConfig& config,
                                       const std::map<std::string, KernelExtras>& extras) const;
    HostRequest read_host_request(const Item& item, std::uint32_t index,
                                  const WorkloadConfig& config,
                                  const std::map<std::string, KernelExtras>& extras,
                                  std::vector<WaitRef>& after) const;
    // One host request kind (docs/workload.md "Host"): its name, the keys
    // of its body beside id and after, and what reads them.
    using Extras = std::map<std::string, KernelExtras>;
    struct HostRequestKindSpec {
        std::string name;
        HostRequestKind kind;
        std::vector<std::string> keys;
        void (Loader::*read)(const MapReader&, HostRequest&, const WorkloadConfig&, const Extras&) const;
    };
    static const std::vector<HostRequestKindSpec>& host_request_kinds();
    void read_host_request_head(const MapReader& reader, HostRequest& req,
                                std::vector<WaitRef>& after) const;
    void read_memory_request(const MapReader& reader, HostRequest& req, const WorkloadConfig& config,
                             const Extras& extras) const;
    void read_mmu_request(const MapReader& reader, HostRequest& req, const WorkloadConfig& config,
                          const Extras& extras) const;
    void read_launch_request(const MapReader& reader, HostRequest& req, const WorkloadConfig& config,
                             const Extras& extras) const;
    void host_cubes(const Item& item, std::vector<CubeRef>& cubes) const;
    void host_target_pe(const Item& item, HostRequest& request) const;
    std::uint64_t page_aligned(const Item& item, bool positive) const;
    std::uint64_t hbm_end() const;
    std::uint64_t sram_end() const;

    std::string m_source;
    const TopologyConfig& m_topo;
    // The shared reader; mutable because it records where each value came
    // from while the const read functions walk the document.
    mutable YamlReader m_yaml;
};

// ---------------------------------------------------------------- scalars

std::uint64_t Loader::to_u64(const Item& item) const { return m_yaml.to_unsigned(item); }

std::uint64_t Loader::size(const Item& item) const {
    if (item.node.IsScalar() && item.node.Tag() != "!" && !item.node.Scalar().empty() &&
        item.node.Scalar()[0] == '-')
        throw ConfigError(item.loc, "must be > 0 (got " + item.node.Scalar() + ")");
    const std::uint64_t value = to_u64(item);
    if (value == 0) throw ConfigError(item.loc, "must be > 0 (got " + item.node.Scalar() + ")");
    return value;
}

int Loader::to_int(const Item& item) const {
    const std::uint64_t value = to_u64(item);
    if (value > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw ConfigError(item.loc, "too large (got " + item.node.Scalar() + ")");
    return static_cast<int>(value);
}

std::string Loader::to_string(const Item& item) const { return m_yaml.to_string(item); }
bool Loader::to_bool(const Item& item) const { return m_yaml.to_bool(item); }
double Loader::to_double(const Item& item) const { return m_yaml.to_double(item); }

// ---------------------------------------------------------------- values

std::vector<Item> Loader::list(const Item& item, bool allow_empty) const {
    if (!item.node.IsSequence())
        throw ConfigError(item.loc, "expected a list, got " + describe(item.node));
    if (!allow_empty && item.node.size() == 0)
        throw ConfigError(item.loc, "must not be empty");
    std::vector<Item> items;
    for (std::size_t i = 0; i < item.node.size(); ++i)
        items.push_back(child_item(item.node[i], index_path(item.loc.key_path, i)));
    return items;
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
    const MapReader reader(m_yaml, item, {"pa", "va"});
    if (reader.has("pa") == reader.has("va"))
        throw ConfigError(item.loc, "give exactly one of 'pa' or 'va'");
    addr.given = true;
    addr.is_va = reader.has("va");
    addr.value = to_u64(reader.child(addr.is_va ? "va" : "pa"));
    return addr;
}

// `pes`: an int, a list of ints, or "all" (every PE of the cube); absent = all.
void Loader::pe_set(const Item& item, std::vector<int>& pes) const {
    const int count = m_topo.pes_per_cube();
    pes.clear();
    if (!item.present || (item.node.IsScalar() && item.node.Scalar() == "all" &&
                          item.node.Tag() != "!")) {
        for (int pe = 0; pe < count; ++pe) pes.push_back(pe);
        return;
    }
    std::vector<Item> items;
    if (item.node.IsSequence()) {
        items = list(item, false);
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

// ---------------------------------------------------------------- commands

const std::vector<Loader::CommandKindSpec>& Loader::command_kinds() {
    // composite's keys are those of its op form; its gemm form is
    // kCompositeGemmKeys (command_keys picks by the head key).
    static const std::vector<CommandKindSpec> kinds = {
        {"dma_read", CommandKind::dma_read, {"bytes", "addr"}, &Loader::read_dma},
        {"dma_write", CommandKind::dma_write, {"bytes", "addr"}, &Loader::read_dma},
        {"gemm", CommandKind::gemm, {"m", "k", "n"}, &Loader::read_gemm},
        {"math", CommandKind::math, {"op", "elements"}, &Loader::read_math},
        {"composite", CommandKind::composite, {"op", "bytes", "tile_bytes", "dtype", "src", "dst"},
         &Loader::read_composite_kind},
        {"wait", CommandKind::wait, {}, nullptr},
        {"ipcq_send", CommandKind::ipcq_send, {"peer", "bytes"}, &Loader::read_ipcq_send},
        {"ipcq_recv", CommandKind::ipcq_recv, {"bytes"}, &Loader::read_bytes},
        {"fetch", CommandKind::fetch, {"bytes"}, &Loader::read_bytes},
        {"store", CommandKind::store, {"bytes"}, &Loader::read_bytes},
    };
    return kinds;
}

const std::vector<std::string> kCompositeGemmKeys = {"gemm", "tile", "dtype", "epilogues", "src", "dst"};

// id, the kind's keys, wait, then the SPEC §6 schedule keys: reads / writes
// on every command with a body; context, resources and access only where
// the scheduler runs the command in a context.
std::vector<std::string> Loader::command_keys(const CommandKindSpec& spec, const Item& body) {
    std::vector<std::string> keys = {"id"};
    // The head `gemm` key picks composite's form (docs/workload.md).
    const bool gemm_form = spec.kind == CommandKind::composite && body.node.IsMap() && body.node["gemm"];
    const std::vector<std::string>& own = gemm_form ? kCompositeGemmKeys : spec.keys;
    keys.insert(keys.end(), own.begin(), own.end());
    keys.insert(keys.end(), {"wait", "reads", "writes"});
    if (context_scheduled(spec.kind)) keys.insert(keys.end(), {"context", "resources", "access"});
    return keys;
}

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
    std::vector<std::string> type_names;
    const CommandKindSpec* spec = nullptr;
    for (const CommandKindSpec& kind : command_kinds()) {
        type_names.push_back(kind.name);
        if (kind.name == type) spec = &kind;
    }
    if (!spec)
        throw ConfigError(type_loc, "unknown command type '" + type + "' (known: " +
                                        join(type_names) + ")");
    cmd.kind = spec->kind;
    const Item body = child_item(entry.value, type_loc.key_path);
    cmd.context = default_context(cmd.kind);
    if (cmd.kind == CommandKind::wait) {
        read_wait(body, index, extras);
        return cmd;
    }

    const std::vector<std::string> allowed = command_keys(*spec, body);
    if (!body.present || body.node.IsNull())
        throw ConfigError(body.loc, "expected a map of the command's fields (" + join(allowed) + ")");
    if (!context_scheduled(cmd.kind)) reject_context_keys(body, type);
    const MapReader reader(m_yaml, body, allowed, reserved_command_keys());

    const Item id = reader.child("id");
    if (id.present) {
        cmd.id = to_string(id);
        if (!is_command_id(cmd.id))
            throw ConfigError(id.loc, "id '" + cmd.id + "' must match [A-Za-z_][A-Za-z0-9_]*");
    }
    if (reader.has("wait")) cmd.wait = to_bool(reader.child("wait"));
    (this->*spec->read)(reader, cmd, extras);
    read_schedule_keys(reader, cmd);
    return cmd;
}

// `wait: all` or `wait: [id, ...]`; resolved once the kernel is read.
void Loader::read_wait(const Item& body, std::uint32_t index, KernelExtras& extras) const {
    if (body.node.IsScalar() && body.node.Scalar() == "all" && body.node.Tag() != "!") return;
    if (!body.node.IsSequence())
        throw ConfigError(body.loc, "expected 'all' or a list of command ids, got " +
                                        describe(body.node));
    for (const Item& ref : list(body, false))
        extras.waits.push_back({index, to_string(ref), ref.loc});
}

// A command not run in an execution context says so for context, resources
// and access (rather than "unknown key").
void Loader::reject_context_keys(const Item& body, const std::string& type) const {
    if (!body.node.IsMap()) return;
    for (auto it = body.node.begin(); it != body.node.end(); ++it) {
        if (!it->first.IsScalar()) continue;  // MapReader reports it
        const std::string key = it->first.Scalar();
        if (key == "context" || key == "resources" || key == "access")
            throw ConfigError(loc_of(it->first, child_path(body.loc.key_path, key)),
                              "'" + key + "' is not allowed on " + type +
                                  ": it is not run in an execution context (SPEC §6; "
                                  "context, resources and access apply to dma_read, "
                                  "dma_write, gemm, math, fetch, store and ipcq_send)");
    }
}

void Loader::read_dma(const MapReader& reader, Command& cmd, KernelExtras&) const {
    cmd.bytes = size(reader.required("bytes"));
    cmd.addr = address(reader.child("addr"));
}

void Loader::read_gemm(const MapReader& reader, Command& cmd, KernelExtras&) const {
    cmd.m = size(reader.required("m"));
    cmd.k = size(reader.required("k"));
    cmd.n = size(reader.required("n"));
}

void Loader::read_math(const MapReader& reader, Command& cmd, KernelExtras&) const {
    cmd.op = math_op(reader.required("op"));
    cmd.elements = size(reader.required("elements"));
}

void Loader::read_ipcq_send(const MapReader& reader, Command& cmd, KernelExtras& extras) const {
    const Item peer = reader.required("peer");
    cmd.peer = to_int(peer);
    const int count = m_topo.pes_per_cube();
    if (cmd.peer >= count)
        throw ConfigError(peer.loc, "peer " + std::to_string(cmd.peer) +
                                        " out of range: the cube has " +
                                        std::to_string(count) + " PEs, [0, " +
                                        std::to_string(count) + ")");
    extras.peers.push_back({cmd.peer, peer.loc});
    cmd.bytes = size(reader.required("bytes"));
}

// ipcq_recv, fetch, store: only a size.
void Loader::read_bytes(const MapReader& reader, Command& cmd, KernelExtras&) const {
    cmd.bytes = size(reader.required("bytes"));
}

void Loader::read_composite_kind(const MapReader& reader, Command& cmd, KernelExtras&) const {
    read_composite(reader, cmd);
}

// SPEC §6: context, reads, writes, resources, access (docs/workload.md
// "Schedule semantics"). The caller has already limited which keys may appear.
void Loader::read_schedule_keys(const MapReader& reader, Command& cmd) const {
    const Item context = reader.child("context");
    if (context.present) {
        const std::string name = to_string(context);
        if (name == "main") cmd.context = ExecContext::main;
        else if (name == "sub") cmd.context = ExecContext::sub;
        else if (name == "dma") cmd.context = ExecContext::dma;
        else
            throw ConfigError(context.loc,
                              "unknown context '" + name + "' (known: main, sub, dma)");
        cmd.context_given = true;
    }
    cmd.reads = ranges(reader.child("reads"));
    cmd.writes = ranges(reader.child("writes"));

    const Item resources = reader.child("resources");
    if (resources.present && !resources.node.IsNull()) {
        for (const Item& entry : list(resources, true)) {
            const std::string name = to_string(entry);
            if (!is_resource_name(name))
                throw ConfigError(entry.loc,
                                  "resource '" + name + "' must match [a-z][a-z0-9_]*");
            if (std::find(cmd.resources.begin(), cmd.resources.end(), name) != cmd.resources.end())
                throw ConfigError(entry.loc, "resource '" + name + "' listed twice");
            cmd.resources.push_back(name);
        }
    }
    cmd.access = access_pattern(reader.child("access"));
}

// `reads:` / `writes:`: a list of ranges; absent or null = none.
std::vector<MemRange> Loader::ranges(const Item& item) const {
    std::vector<MemRange> out;
    if (!item.present || item.node.IsNull()) return out;
    for (const Item& entry : list(item, true)) out.push_back(range(entry));
    return out;
}

// `{ tcm: OFFSET, bytes: N }`, `{ hbm: PA, bytes: N }` or `{ sram: PA, bytes: N }`:
// TCM offsets lie in [0, pe_tcm size); HBM and SRAM addresses in the PA windows
// AddressResolver decodes (as for host memory requests).
MemRange Loader::range(const Item& item) const {
    const MapReader reader(m_yaml, item, {"tcm", "hbm", "sram", "bytes"});
    const int spaces = int(reader.has("tcm")) + int(reader.has("hbm")) + int(reader.has("sram"));
    if (spaces != 1)
        throw ConfigError(item.loc, "give exactly one of 'tcm', 'hbm' or 'sram' (got " +
                                        std::to_string(spaces) + ")");
    MemRange r;
    std::string key = "tcm";
    if (reader.has("hbm")) {
        r.space = MemSpace::hbm;
        key = "hbm";
    } else if (reader.has("sram")) {
        r.space = MemSpace::sram;
        key = "sram";
    }
    const Item base = reader.child(key);
    const Item bytes = reader.required("bytes");
    r.base = to_u64(base);
    r.bytes = size(bytes);
    std::uint64_t begin = 0, end = 0;
    std::string window;
    switch (r.space) {
        case MemSpace::tcm:
            end = m_topo.cube.pe_template.tcm.size_bytes;
            window = "the PE's TCM";
            break;
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
    if (r.base < begin || r.base >= end)
        throw ConfigError(base.loc, key + " " + base.node.Scalar() + " is outside " + window + span);
    if (r.bytes > end - r.base)
        throw ConfigError(bytes.loc, key + " + bytes runs past the end of " + window + span + " (" +
                                         key + " " + base.node.Scalar() + ", bytes " +
                                         bytes.node.Scalar() + ")");
    return r;
}

// `access: { base, stride, count, elem_bytes }`: a TCM access pattern; stride
// defaults to elem_bytes (contiguous). Every access must lie inside the TCM.
AccessPattern Loader::access_pattern(const Item& item) const {
    AccessPattern a;
    if (!item.present || item.node.IsNull()) return a;
    const MapReader reader(m_yaml, item, {"base", "stride", "count", "elem_bytes"});
    const std::uint64_t tcm = m_topo.cube.pe_template.tcm.size_bytes;
    const Item base = reader.required("base");
    a.base = to_u64(base);
    if (a.base >= tcm)
        throw ConfigError(base.loc, "base " + base.node.Scalar() + " is outside the PE's TCM [0, " +
                                        std::to_string(tcm) + ")");
    const Item elem = reader.required("elem_bytes");
    const std::uint64_t elem_bytes = to_u64(elem);
    const auto& sizes = access_elem_sizes();
    if (std::find(sizes.begin(), sizes.end(), elem_bytes) == sizes.end())
        throw ConfigError(elem.loc, "must be one of 1, 2, 4, 8, 16, 32, 64 (got " +
                                        elem.node.Scalar() + ")");
    a.elem_bytes = static_cast<std::uint32_t>(elem_bytes);
    const Item count = reader.required("count");
    a.count = size(count);
    const Item stride = reader.child("stride");
    a.stride = stride.present ? to_u64(stride) : elem_bytes;
    // The last access, base + stride · (count - 1), must end inside the TCM.
    const std::uint64_t room = tcm - a.base - std::min<std::uint64_t>(elem_bytes, tcm - a.base);
    const bool fits = elem_bytes <= tcm - a.base &&
                      (a.count == 1 || a.stride == 0 || (a.count - 1) <= room / a.stride);
    if (!fits)
        throw ConfigError(item.loc, "the accesses run past the end of the PE's TCM [0, " +
                                        std::to_string(tcm) + ") (base + stride · (count - 1) + "
                                        "elem_bytes > TCM size)");
    a.given = true;
    return a;
}

void Loader::read_composite(const MapReader& reader, Command& cmd) const {
    CompositeSpec& spec = cmd.composite;
    cmd.src = address(reader.child("src"));
    cmd.dst = address(reader.child("dst"));
    SourceLoc fit_loc;
    if (reader.has("gemm")) {
        const MapReader gemm(m_yaml, reader.required("gemm"), {"m", "k", "n"});
        spec.m = size(gemm.required("m"));
        spec.k = size(gemm.required("k"));
        spec.n = size(gemm.required("n"));
        const MapReader tile(m_yaml, reader.required("tile"), {"m", "k", "n"});
        spec.tm = size(tile.required("m"));
        spec.tk = size(tile.required("k"));
        spec.tn = size(tile.required("n"));
        fit_loc = tile.item().loc;
        const MapReader dt(m_yaml, reader.child("dtype"), {"in", "out"});
        spec.d_in = dt.has("in") ? dtype(dt.child("in")) : 2;
        spec.d_out = dt.has("out") ? dtype(dt.child("out")) : 2;
        spec.ops.push_back(OpSpec{"gemm", EpilogueScope::per_output_tile});
        const Item epilogues = reader.child("epilogues");
        if (epilogues.present && !epilogues.node.IsNull()) {
            for (const Item& entry : list(epilogues, true)) {
                const MapReader ep(m_yaml, entry, {"op", "scope"});
                OpSpec op{"math." + math_op(ep.required("op")), EpilogueScope::per_output_tile};
                const Item scope = ep.child("scope");
                if (scope.present) {
                    const std::string name = to_string(scope);
                    if (name == "per_k_tile") op.scope = EpilogueScope::per_k_tile;
                    else if (name == "per_output_tile") op.scope = EpilogueScope::per_output_tile;
                    else if (name == "once") op.scope = EpilogueScope::once;
                    else
                        throw ConfigError(scope.loc, "unknown epilogue scope '" + name +
                                                         "' (known: per_k_tile, per_output_tile, once)");
                }
                spec.ops.push_back(std::move(op));
            }
        }
    } else {
        spec.legacy_op = math_op(reader.required("op"));
        spec.total_bytes = size(reader.required("bytes"));
        spec.tile_bytes = size(reader.required("tile_bytes"));
        fit_loc = reader.child("tile_bytes").loc;
        spec.d_in = spec.d_out = reader.has("dtype") ? dtype(reader.child("dtype")) : 2;
    }
    try {
        TilePlanner planner(spec);
    } catch (const std::invalid_argument& e) {
        throw ConfigError(cmd.loc, e.what());
    }
    check_tile_fit(cmd, fit_loc);
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
        in_bytes = (tm * tk + tk * tn) * s.d_in;
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

Kernel Loader::read_kernel(const std::string& name, const Item& item, KernelExtras& extras) const {
    Kernel kernel;
    kernel.name = name;
    kernel.loc = item.loc;
    if (!item.present || item.node.IsNull())
        throw ConfigError(item.loc, "a kernel is a list of commands, got nothing");
    const std::vector<Item> items = list(item, false);
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

Launch Loader::read_launch(const Item& item, const WorkloadConfig& config,
                           const std::map<std::string, KernelExtras>& extras) const {
    const MapReader reader(m_yaml, item, {"kernel", "cube", "pes"});
    Launch launch;
    launch.loc = item.loc;
    const Item kernel = reader.required("kernel");
    launch.kernel = to_string(kernel);
    if (!config.kernels.count(launch.kernel)) {
        std::vector<std::string> known;
        for (const auto& entry : config.kernels) known.push_back(entry.first);
        throw ConfigError(kernel.loc, "unknown kernel '" + launch.kernel + "' (kernels: " +
                                          join(known) + ")");
    }
    cube_id(reader.child("cube"), launch.sip, launch.cube);
    pe_set(reader.child("pes"), launch.pes);
    check_self_peers(launch.kernel, launch.pes, launch.loc, extras);
    return launch;
}

// A PE cannot be its own IPCQ peer: its send would wait on its own ring.
void Loader::check_self_peers(const std::string& kernel, const std::vector<int>& pes,
                              const SourceLoc& launch_loc,
                              const std::map<std::string, KernelExtras>& extras) const {
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
    const MapReader reader(m_yaml, item, {"cube", "pes", "va", "pa", "bytes"});
    MmuMapping map;
    map.loc = item.loc;
    cube_id(reader.child("cube"), map.sip, map.cube);
    pe_set(reader.child("pes"), map.pes);
    const std::uint64_t page = m_topo.cube.pe_template.mmu.page_bytes;
    const auto aligned = [&](const std::string& key, bool positive) {
        const Item value = reader.required(key);
        const std::uint64_t v = positive ? size(value) : to_u64(value);
        if (v % page != 0)
            throw ConfigError(value.loc, "must be a multiple of the PE_MMU page size " +
                                             std::to_string(page) + " bytes (got " +
                                             value.node.Scalar() + ")");
        return v;
    };
    map.va = aligned("va", false);
    map.pa = aligned("pa", false);
    map.bytes = aligned("bytes", true);
    if (map.va + map.bytes < map.va)
        throw ConfigError(reader.child("bytes").loc, "va + bytes overflows 64 bits");
    if (map.pa + map.bytes < map.pa)
        throw ConfigError(reader.child("bytes").loc, "pa + bytes overflows 64 bits");
    return map;
}

// ---------------------------------------------------------------- host

const std::vector<Loader::HostRequestKindSpec>& Loader::host_request_kinds() {
    static const std::vector<HostRequestKindSpec> kinds = {
        {"memory_write", HostRequestKind::memory_write, {"pa", "bytes"}, &Loader::read_memory_request},
        {"memory_read", HostRequestKind::memory_read, {"pa", "bytes"}, &Loader::read_memory_request},
        {"mmu_map", HostRequestKind::mmu_map, {"cubes", "target_pe", "va", "pa", "bytes"},
         &Loader::read_mmu_request},
        {"mmu_unmap", HostRequestKind::mmu_unmap, {"cubes", "target_pe", "va", "bytes"},
         &Loader::read_mmu_request},
        {"kernel_launch", HostRequestKind::kernel_launch, {"kernel", "cubes", "target_pe", "target_start_ns"},
         &Loader::read_launch_request},
    };
    return kinds;
}

// End of the HBM window, as AddressResolver decodes it:
// sips · cubes_per_sip · hbm_slices_per_cube · hbm_slice_bytes (saturating).
std::uint64_t Loader::hbm_end() const {
    const std::uint64_t slices = static_cast<std::uint64_t>(m_topo.system.sips) *
                                 static_cast<std::uint64_t>(m_topo.system.cubes_per_sip) *
                                 static_cast<std::uint64_t>(m_topo.cube.memory_map.hbm_slices_per_cube);
    const std::uint64_t slice_bytes = m_topo.cube.memory_map.hbm_slice_bytes;
    if (slices != 0 && slice_bytes > std::numeric_limits<std::uint64_t>::max() / slices)
        return std::numeric_limits<std::uint64_t>::max();
    return slices * slice_bytes;
}

// End of the shared SRAM window, as AddressResolver decodes it:
// sram_base + sips · cubes_per_sip · shared_sram size (saturating).
std::uint64_t Loader::sram_end() const {
    const std::uint64_t cubes = static_cast<std::uint64_t>(m_topo.system.sips) *
                                static_cast<std::uint64_t>(m_topo.system.cubes_per_sip);
    const std::uint64_t bytes = m_topo.cube.shared_sram.size_bytes;
    const std::uint64_t base = m_topo.cube.memory_map.sram_base;
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    if (cubes != 0 && bytes > max / cubes) return max;
    const std::uint64_t window = cubes * bytes;
    return window > max - base ? max : base + window;
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
    for (const Item& entry : list(item, false)) {
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

    std::vector<std::string> allowed = {"id", "after"};
    allowed.insert(allowed.end(), spec->keys.begin(), spec->keys.end());
    const Item body = child_item(entry.value, type_loc.key_path);
    // A null value has no useful mark (yaml-cpp puts it on the next line): point at the kind.
    if (body.node.IsNull())
        throw ConfigError(type_loc, "expected a map of the request's fields (" + join(allowed) + ")");
    const MapReader reader(m_yaml, body, allowed);
    read_host_request_head(reader, req, after);
    (this->*spec->read)(reader, req, config, extras);
    return req;
}

// id and after, on every request.
void Loader::read_host_request_head(const MapReader& reader, HostRequest& req,
                                    std::vector<WaitRef>& after) const {
    const Item id = reader.child("id");
    if (id.present) {
        req.id = to_string(id);
        if (!is_command_id(req.id))
            throw ConfigError(id.loc, "id '" + req.id + "' must match [A-Za-z_][A-Za-z0-9_]*");
    }
    const Item after_item = reader.child("after");
    if (after_item.present) {
        req.explicit_after = true;
        if (!after_item.node.IsNull())
            for (const Item& ref : list(after_item, true))
                after.push_back({req.index, to_string(ref), ref.loc});
    }
}

// memory_write, memory_read: a range of the HBM window.
void Loader::read_memory_request(const MapReader& reader, HostRequest& req, const WorkloadConfig&,
                                 const Extras&) const {
    const Item pa = reader.required("pa");
    const Item bytes = reader.required("bytes");
    req.pa = to_u64(pa);
    req.bytes = size(bytes);
    const std::uint64_t end = hbm_end();
    if (req.pa >= end)
        throw ConfigError(pa.loc, "pa " + pa.node.Scalar() + " is outside the HBM window [0, " +
                                      std::to_string(end) + ")");
    if (req.bytes > end - req.pa)
        throw ConfigError(bytes.loc, "pa + bytes runs past the end of the HBM window [0, " +
                                         std::to_string(end) + ") (pa " + pa.node.Scalar() +
                                         ", bytes " + bytes.node.Scalar() + ")");
}

// mmu_map, mmu_unmap: page-aligned va (and pa) and bytes.
void Loader::read_mmu_request(const MapReader& reader, HostRequest& req, const WorkloadConfig&,
                              const Extras&) const {
    host_cubes(reader.child("cubes"), req.cubes);
    host_target_pe(reader.child("target_pe"), req);
    req.va = page_aligned(reader.required("va"), false);
    if (req.kind == HostRequestKind::mmu_map) req.pa = page_aligned(reader.required("pa"), false);
    const Item bytes = reader.required("bytes");
    req.bytes = page_aligned(bytes, true);
    if (req.va + req.bytes < req.va) throw ConfigError(bytes.loc, "va + bytes overflows 64 bits");
    if (req.pa + req.bytes < req.pa) throw ConfigError(bytes.loc, "pa + bytes overflows 64 bits");
}

void Loader::read_launch_request(const MapReader& reader, HostRequest& req, const WorkloadConfig& config,
                                 const Extras& extras) const {
    const Item kernel = reader.required("kernel");
    req.kernel = to_string(kernel);
    if (!config.kernels.count(req.kernel)) {
        std::vector<std::string> names;
        for (const auto& k : config.kernels) names.push_back(k.first);
        throw ConfigError(kernel.loc, "unknown kernel '" + req.kernel + "' (kernels: " + join(names) + ")");
    }
    host_cubes(reader.child("cubes"), req.cubes);
    host_target_pe(reader.child("target_pe"), req);
    check_self_peers(req.kernel, req.target_pe, req.loc, extras);
    const Item start = reader.child("target_start_ns");
    if (start.present) {
        const double value = to_double(start);
        if (value < 0.0) throw ConfigError(start.loc, "must be >= 0 (got " + start.node.Scalar() + ")");
        req.target_start_ns = value;
    }
}

std::vector<HostRequest> Loader::read_host(const Item& item, const WorkloadConfig& config,
                                           const std::map<std::string, KernelExtras>& extras) const {
    std::vector<HostRequest> requests;
    std::vector<WaitRef> after;
    std::map<std::string, std::uint32_t> ids;
    const std::vector<Item> items = list(item, false);
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
    return requests;
}

WorkloadConfig Loader::load(const YAML::Node& root) {
    const Item top_item = child_item(root, "");
    const MapReader top(m_yaml, top_item, {"name", "kernels", "launch", "mmu", "host"});

    WorkloadConfig config;
    config.source = m_source;
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
        for (const Item& entry : list(launch, false))
            config.launches.push_back(read_launch(entry, config, extras));

    const Item mmu = top.child("mmu");
    if (mmu.present && !mmu.node.IsNull())
        for (const Item& entry : list(mmu, true)) config.mmu.push_back(read_mmu(entry));
    if (has_host) config.host = read_host(host, config, extras);
    return config;
}

}  // namespace

// ---------------------------------------------------------------- public API

std::vector<WorkloadKindKeys> workload_kind_keys() {
    std::vector<WorkloadKindKeys> kinds;
    for (const auto& kind : Loader::command_kinds()) {
        kinds.push_back({"command", kind.name, kind.keys});
        if (kind.kind == CommandKind::composite) kinds.push_back({"command", kind.name, kCompositeGemmKeys});
    }
    for (const auto& kind : Loader::host_request_kinds()) kinds.push_back({"host", kind.name, kind.keys});
    return kinds;
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
