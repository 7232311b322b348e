#include "platform/decoupler.h"

#include <algorithm>
#include <map>
#include <set>
#include <typeinfo>
#include <unordered_set>
#include <utility>

#include "platform/platform.h"

namespace npuvp {
namespace {

// A recorded run's calendars run ahead this much simulated time at a time
// (1 us: some thousands of events kept on eight busy PEs).
constexpr ps_t kRecordedWindowPs = 1000000;

// Where a PE sits: its sip, cube (within the SIP) and index.
struct PeAt {
    int sip, cube, pe;
};

// The memory targets that hold [pa, pa + bytes), in address order; empty
// when part of the range is outside every window (the run then stops with
// the per-stage mode's error). `m_cpus`, if given, gets the M_CPU of each
// target's cube.
std::vector<RoutedNode*> targets_of(Platform& platform, std::uint64_t pa, std::uint64_t bytes,
                                    std::vector<MCpu*>* m_cpus = nullptr) {
    std::vector<RoutedNode*> out;
    const AddressResolver& map = platform.resolver();
    const std::uint64_t slice = platform.config().cube.memory_map.hbm_slice_bytes;
    const std::uint64_t sram = platform.config().cube.shared_sram.size_bytes;
    std::uint64_t end = 0;
    if (bytes == 0 || __builtin_add_overflow(pa, bytes, &end)) return {};
    for (std::uint64_t at = pa; at < end;) {
        AddressLocation loc{};
        try {
            loc = map.locate(at);
        } catch (const std::out_of_range&) {
            return {};
        }
        out.push_back(&platform.memory_target(loc));
        if (m_cpus) m_cpus->push_back(platform.cube(loc.sip, loc.cube).m_cpu);
        const std::uint64_t base = loc.slice >= 0 ? map.hbm_base(loc.sip, loc.cube, loc.slice)
                                                  : map.sram_base(loc.sip, loc.cube);
        const std::uint64_t window = loc.slice >= 0 ? slice : sram;
        if (window == 0) return {};
        at = base + window;
    }
    return out;
}

// Every memory target of the platform (a virtual address may reach any).
std::vector<RoutedNode*> all_targets(Platform& platform) {
    std::vector<RoutedNode*> out;
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes) {
            for (MemoryTarget* h : cube.hbm) out.push_back(h);
            if (cube.shared_sram) out.push_back(cube.shared_sram);
        }
    return out;
}

// Where a composite reads: A and B from src, or A from src and B from src_b;
// an operand resident in TCM (a_tcm, b_tcm) not at all.
struct ReadSide {
    const MemAddress* addr;
    std::uint64_t bytes;
};
std::vector<ReadSide> read_sides(const Command& c) {
    const CompositeSpec& s = c.composite;
    if (s.a_resident && s.b_resident) return {};
    if (s.a_resident) return {{s.b_separate ? &c.src_b : &c.src, composite_b_bytes(s)}};
    if (s.b_resident) return {{&c.src, composite_a_bytes(s)}};
    if (!s.b_separate) return {{&c.src, composite_source_bytes(s)}};
    return {{&c.src, composite_a_bytes(c.composite)}, {&c.src_b, composite_b_bytes(c.composite)}};
}

// The stage types each stage inbox receives tokens from, over every tile
// shape of `spec` (a spec cut to at most two tiles per dimension has every
// shape: first, middle K-steps, last K-step, last token). `from` holds, per
// stage type, the writer type (stage_type_count: the feed loop; -1: none
// yet); false if an inbox would have two writers.
bool one_writer_per_inbox(const CompositeSpec& spec, std::array<int, stage_type_count>& from,
                          std::string& why) {
    CompositeSpec cut = spec;
    if (spec.ops.empty()) {
        cut.total_bytes = std::min(spec.total_bytes, 2 * spec.tile_bytes);
    } else {
        cut.m = std::min(spec.m, 2 * spec.tm);
        cut.n = std::min(spec.n, 2 * spec.tn);
        cut.k = std::min(spec.k, 3 * spec.tk);
    }
    TilePlanner planner(cut);
    TilePlan plan;
    while (planner.next(plan)) {
        int writer = static_cast<int>(stage_type_count);
        for (const Stage& stage : plan.stages) {
            const int type = static_cast<int>(stage.type);
            if (type == writer) continue;  // chained in place on its worker
            int& w = from[static_cast<std::size_t>(type)];
            if (w >= 0 && w != writer) {
                why = std::string("its composites hand tiles to the ") + to_string(stage.type) +
                      " inbox from two stages";
                return false;
            }
            w = writer;
            writer = type;
        }
    }
    return true;
}

}  // namespace

Decoupler::Decoupler(const sc_core::sc_module_name& name, TraceSink& trace)
    : sc_core::sc_module(name), m_trace(trace) {
    SC_HAS_PROCESS(Decoupler);
    SC_METHOD(run);
    sensitive << m_wake;
    dont_initialize();
    // It flushes an instant's trace events once the instant is over: the
    // moment it runs calendars ahead from (TraceSink::flush_by).
    m_trace.flush_by(&m_wake);
}

Decoupler::~Decoupler() = default;

namespace {

// A virtual range's mapping as the workload gives it: `mmu:` entries (in
// place before the simulation starts) and the host's `mmu_map` requests.
struct VaMap {
    std::uint64_t va, pa, bytes;
};

// The memory targets a DMA side reaches: a physical side's targets; a
// virtual side's through every mapping of the PE that covers part of it.
// `covered` is false when part of a virtual side is in no mapping (then an
// MMU fault may stop the run), or leads outside every window; the targets
// are then every memory target (what the DMA may reach is not known).
struct Reach {
    std::vector<RoutedNode*> targets;
    bool covered = true;
};
Reach reach_of(Platform& platform, const MemAddress& addr, std::uint64_t home, std::uint64_t bytes,
               const std::vector<VaMap>& maps) {
    Reach out;
    if (!(addr.given && addr.is_va)) {
        out.targets = targets_of(platform, addr.resolve(home), bytes);
        return out;
    }
    std::uint64_t lo = addr.value, hi = 0;
    if (bytes == 0 || __builtin_add_overflow(lo, bytes, &hi)) {
        out.covered = false;
        out.targets = all_targets(platform);
        return out;
    }
    // The parts of [lo, hi) the mappings cover, and where they lead.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> parts;
    for (const VaMap& m : maps) {
        const std::uint64_t m_end = m.va + m.bytes;  // the loader keeps it in range
        const std::uint64_t a = std::max(lo, m.va), b = std::min(hi, m_end);
        if (a >= b) continue;
        parts.emplace_back(a, b);
        const std::vector<RoutedNode*> t = targets_of(platform, m.pa + (a - m.va), b - a);
        if (t.empty()) out.covered = false;  // it leads outside every window
        for (RoutedNode* n : t)
            if (std::find(out.targets.begin(), out.targets.end(), n) == out.targets.end())
                out.targets.push_back(n);
    }
    std::sort(parts.begin(), parts.end());
    std::uint64_t at = lo;
    for (const auto& [a, b] : parts) {
        if (a > at) break;
        at = std::max(at, b);
    }
    if (at < hi) out.covered = false;
    if (!out.covered) out.targets = all_targets(platform);
    return out;
}

// Whether host request `first` has completed before host request `then`
// starts (the host runs a request after its predecessor, or after its
// `after` list: docs/workload.md).
bool precedes(const std::vector<HostRequest>& host, std::uint32_t first, std::uint32_t then) {
    std::vector<std::uint32_t> todo{then};
    std::vector<bool> seen(host.size());
    while (!todo.empty()) {
        const std::uint32_t r = todo.back();
        todo.pop_back();
        const HostRequest& req = host[r];
        std::vector<std::uint32_t> before;
        if (req.explicit_after)
            before = req.after;
        else if (r > 0)
            before.push_back(r - 1);
        for (std::uint32_t b : before) {
            if (b == first) return true;
            if (!seen[b]) {
                seen[b] = true;
                todo.push_back(b);
            }
        }
    }
    return false;
}

// The writer `from` names for the dispatch pass (one_writer_per_inbox()'s
// writers are stage types and the feed loop, stage_type_count).
constexpr int dispatch_writer = static_cast<int>(stage_type_count) + 1;

// Why a DMA side that reaches `r` keeps its PE per stage (empty: it does
// not): an address no mapping covers, outside every window, or a target
// whose route has a node that answers later.
std::string reach_why(Platform& platform, Pe& pe, const Reach& r, const std::string& what) {
    if (!r.covered) return what + " reaches an address no mapping covers (an MMU fault stops the run)";
    if (r.targets.empty()) return what + " reaches outside every memory window";
    for (RoutedNode* t : r.targets)
        for (DmaDirection dir : {DmaDirection::read, DmaDirection::write})
            for (const PathNode& node : platform.dma_route(pe, dir, 0, *t).path)
                if (!node.node->answers_at_once())
                    return node.node->node_id() + " on its DMA route answers later (a TLM model)";
    return {};
}

// Union-find over PE indices (the decoupling groups).
std::size_t find_root(std::vector<std::size_t>& parent, std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

}  // namespace

void Decoupler::plan(Platform& platform, const WorkloadConfig& workload,
                     const std::vector<Pe*>& launched) {
    m_verdicts.clear();
    std::map<const Pe*, PeAt> where;  // lookup only
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            for (Pe* pe : cube.pes) where[pe] = {sip.sip, cube.cube, pe->index()};
    std::map<const Pe*, std::size_t> index;  // lookup only: position in `launched`
    for (std::size_t i = 0; i < launched.size(); ++i) index[launched[i]] = i;
    const std::size_t n = launched.size();

    // Per launched PE: the kernels it runs, the host's kernel launches and
    // MMU maps that reach it, whether the host unmaps any of its pages, and
    // its mappings.
    std::vector<std::vector<const Kernel*>> kernels(n);
    std::vector<std::vector<std::uint32_t>> host_launches(n), host_maps(n);
    std::vector<bool> direct(n), unmapped(n);
    std::vector<std::vector<VaMap>> maps(n);
    for (const Launch& l : workload.launches)
        for (int p : l.pes) {
            const std::size_t i = index.at(&platform.pe(l.sip, l.cube, p));
            kernels[i].push_back(&workload.kernels.at(l.kernel));
            direct[i] = true;
        }
    for (const MmuMapping& m : workload.mmu)
        for (int p : m.pes) {
            const auto it = index.find(&platform.pe(m.sip, m.cube, p));
            if (it != index.end()) maps[it->second].push_back({m.va, m.pa, m.bytes});
        }
    for (const HostRequest& r : workload.host) {
        if (r.kind == HostRequestKind::memory_read || r.kind == HostRequestKind::memory_write) continue;
        for (const CubeRef& c : r.cubes)
            for (int p : r.target_pe) {
                const auto it = index.find(&platform.pe(c.sip, c.cube, p));
                if (it == index.end()) continue;  // an MMU request to a PE that runs nothing
                const std::size_t i = it->second;
                switch (r.kind) {
                case HostRequestKind::kernel_launch:
                    kernels[i].push_back(&workload.kernels.at(r.kernel));
                    host_launches[i].push_back(r.index);
                    break;
                case HostRequestKind::mmu_map:
                    host_maps[i].push_back(r.index);
                    maps[i].push_back({r.va, r.pa, r.bytes});
                    break;
                case HostRequestKind::mmu_unmap:
                    unmapped[i] = true;
                    break;
                default:
                    break;
                }
            }
    }

    // The hops each PE's commands may reserve (memory sides and IPCQ sends),
    // in route order, each once.
    // Whether any of them passes a node whose transit costs time (M_CPU,
    // IO_CPU: the processors that also serve the host's messages).
    std::vector<std::vector<const Hop*>> hops(n);
    std::vector<bool> crosses_processor(n);
    // The PEs each PE exchanges IPCQ data with (as sender or receiver).
    std::vector<std::vector<std::size_t>> partners(n);
    for (std::size_t i = 0; i < n; ++i) {
        Pe& pe = *launched[i];
        const PeAt at = where.at(&pe);
        const std::uint64_t home = platform.hbm_base(at.sip, at.cube, at.pe);
        std::unordered_set<const Hop*> seen;
        auto add_route = [&](const Route& route) {
            for (const RouteStep& step : route.steps)
                if (seen.insert(step.hop).second) hops[i].push_back(step.hop);
            for (const PathNode& node : route.path)
                if (node.node->has_transit_cost()) crosses_processor[i] = true;
        };
        auto add_side = [&](const MemAddress& addr, std::uint64_t bytes) {
            for (RoutedNode* t : reach_of(platform, addr, home, bytes, maps[i]).targets)
                for (DmaDirection dir : {DmaDirection::read, DmaDirection::write})
                    for (int ch = 0; ch < pe.dma().channels(dir); ++ch) add_route(platform.dma_route(pe, dir, ch, *t));
        };
        for (const Kernel* k : kernels[i])
            for (const Command& c : k->commands) {
                switch (c.kind) {
                case CommandKind::composite:
                    for (const ReadSide& side : read_sides(c)) add_side(*side.addr, side.bytes);
                    add_side(c.dst, composite_output_bytes(c.composite));
                    break;
                case CommandKind::dma_read:
                case CommandKind::dma_write:
                    add_side(c.addr, c.bytes);
                    break;
                case CommandKind::ipcq_send:
                    if (c.peer >= 0 && c.peer < platform.pes_per_cube()) {
                        Pe& peer = platform.pe(at.sip, at.cube, c.peer);
                        add_route(platform.comm_route(pe, peer));
                        // The sender and its peer signal each other (data
                        // arrived, ring credit): one time base for both.
                        const auto it = index.find(&peer);
                        if (it != index.end() && it->second != i) {
                            partners[i].push_back(it->second);
                            partners[it->second].push_back(i);
                        }
                    }
                    break;
                default:
                    break;  // inside the PE
                }
            }
    }

    // What each PE's own rules say (everything but the hops it shares).
    std::vector<Verdict> verdict(n);
    for (std::size_t i = 0; i < n; ++i) {
        Pe* pe = launched[i];
        Verdict& v = verdict[i];
        v.pe = pe;
        v.decoupled = true;
        auto fail = [&](std::string why) {
            v.decoupled = false;
            v.why = std::move(why);
        };
        const PeAt at = where.at(pe);
        const std::uint64_t home = platform.hbm_base(at.sip, at.cube, at.pe);
        if (!m_enabled) {
            fail("the per-stage mode was asked for (--per-stage)");
            continue;
        }
        // Data mode copies bytes when each stage ends in the kernel's time.
        if (workload.data_mode()) {
            fail("the workload carries data (data mode runs per stage; docs/workload.md \"Operand data\")");
            continue;
        }
        if (typeid(pe->dma()) != typeid(PeDma) || typeid(pe->fetch_store()) != typeid(PeFetchStore) ||
            typeid(pe->gemm()) != typeid(PeGemm) || typeid(pe->math()) != typeid(PeMath) ||
            typeid(pe->scheduler()) != typeid(PeScheduler)) {
            fail("one of its engines is not the builtin model");
            continue;
        }
        if (pe->dma().channels(DmaDirection::read) != 1 || pe->dma().channels(DmaDirection::write) != 1) {
            fail("it has more than one DMA channel in a direction");
            continue;
        }
        std::string why;
        // The stage each inbox takes tiles from, per stretch of commands
        // whose tiles may be in flight together: the pipeline is empty at
        // a kernel's end and after a `wait: all` (PE_CPU waits for every
        // earlier command to complete), so chains of another shape may
        // follow there.
        std::array<int, stage_type_count> writers;
        bool has_va = false;
        for (const Kernel* k : kernels[i]) {
            writers.fill(-1);
            for (const Command& c : k->commands) {
                if (c.kind == CommandKind::wait) {
                    if (c.wait_for.empty()) writers.fill(-1);
                    continue;
                }
                if ((c.kind == CommandKind::fetch || c.kind == CommandKind::store) &&
                           c.context == ExecContext::sub && c.access.given) {
                    // A sub-context FETCH / STORE with a TCM access pattern
                    // stops while a main command shares its banks (seed 002:
                    // main starves sub; PeFetchStore's stall_event()).
                    why = std::string("its kernel '") + k->name + "' has a " + to_string(c.kind) +
                          " command ('" + c.id + "') whose TCM accesses may stall (main starves sub)";
                } else if (c.kind != CommandKind::composite) {
                    // A simple command: the dispatch pass writes its one
                    // stage's inbox.
                    int& w = writers[static_cast<std::size_t>(simple_stage(c.kind))];
                    if (w >= 0 && w != dispatch_writer) {
                        why = std::string("its kernel '") + k->name + "' hands tiles to the " +
                              to_string(simple_stage(c.kind)) + " inbox from a composite and from its " +
                              to_string(c.kind) + " command ('" + c.id + "') without a wait between";
                    } else {
                        w = dispatch_writer;
                        if (c.kind == CommandKind::dma_read || c.kind == CommandKind::dma_write) {
                            has_va = has_va || (c.addr.given && c.addr.is_va);
                            why = reach_why(platform, *pe, reach_of(platform, c.addr, home, c.bytes, maps[i]),
                                            "its " + std::string(to_string(c.kind)) + " command '" + c.id + "'");
                        }
                        if (why.empty()) continue;
                    }
                } else if (!one_writer_per_inbox(c.composite, writers, why)) {
                } else {
                    // Every memory target its DMA reaches answers at once,
                    // and a virtual side is mapped wherever it reads.
                    for (const ReadSide& side : read_sides(c)) has_va = has_va || (side.addr->given && side.addr->is_va);
                    has_va = has_va || (c.dst.given && c.dst.is_va);
                    std::vector<Reach> sides;
                    for (const ReadSide& side : read_sides(c))
                        sides.push_back(reach_of(platform, *side.addr, home, side.bytes, maps[i]));
                    sides.push_back(reach_of(platform, c.dst, home, composite_output_bytes(c.composite), maps[i]));
                    for (const Reach& r : sides) {
                        why = reach_why(platform, *pe, r, "its composite '" + c.id + "'");
                        if (!why.empty()) break;
                    }
                    if (why.empty()) continue;
                }
                break;
            }
            if (!why.empty()) break;
        }
        // A virtual address is translated when the DMA starts: every map
        // of the PE must be in place before any of its kernels starts, and
        // none taken away (MMU state that changes under a kernel is the
        // kernel's business: per stage).
        if (why.empty() && has_va) {
            if (unmapped[i])
                why = "a host request unmaps pages of its MMU";
            for (std::uint32_t m : host_maps[i])
                for (std::uint32_t l : host_launches[i])
                    if (why.empty() && !precedes(workload.host, m, l))
                        why = "the host maps its MMU ('" + workload.host[m].id +
                              "') while it may run a kernel ('" + workload.host[l].id + "')";
            if (why.empty() && direct[i] && !host_maps[i].empty())
                why = "the host maps its MMU while a direct launch may run";
        }
        if (!why.empty()) fail(why);
    }

    // The hops: a PE that shares one with a PE that runs per stage runs per
    // stage itself (the kernel would order their same-instant requests by
    // key, a calendar serves its own first), until no more change. Sharing
    // a hop with the host's memory requests is allowed: M_CPU and IO_CPU
    // rank after every PE (T4), and a calendar's round is served in the
    // evaluation phase of its delta cycle, before the kernel's update phase
    // serves that round's other requests: the same order.
    std::unordered_map<const Hop*, std::vector<std::size_t>> owners;  // lookup only
    for (std::size_t i = 0; i < n; ++i)
        for (const Hop* h : hops[i]) owners[h].push_back(i);
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t i = 0; i < n; ++i) {
            if (!verdict[i].decoupled) continue;
            for (const Hop* h : hops[i]) {
                std::size_t other = n;
                for (std::size_t o : owners.at(h))
                    if (o != i && !verdict[o].decoupled && o < other) other = o;
                if (other == n) continue;
                verdict[i].decoupled = false;
                verdict[i].why = "its DMA shares the hop " + h->name() + " with " + std::string(launched[other]->name()) +
                                 ", which runs per stage";
                changed = true;
                break;
            }
            if (!verdict[i].decoupled) continue;
            // A signal between two time bases would not be seen: an IPCQ
            // partner that runs per stage takes this PE with it.
            for (std::size_t o : partners[i]) {
                if (verdict[o].decoupled) continue;
                verdict[i].decoupled = false;
                verdict[i].why = "it exchanges IPCQ data with " + std::string(launched[o]->name()) +
                                 ", which runs per stage";
                changed = true;
                break;
            }
        }
    }
    // PEs that share a hop run on one calendar: their requests of one round
    // are served together in key order, as the kernel would.
    std::vector<std::size_t> parent(n);
    for (std::size_t i = 0; i < n; ++i) parent[i] = i;
    // IPCQ partners too: one's signal wakes the other in the calendar's next round.
    for (std::size_t i = 0; i < n; ++i) {
        if (!verdict[i].decoupled) continue;
        auto join = [&](std::size_t o) {
            if (o == i || !verdict[o].decoupled) return;
            const std::size_t a = find_root(parent, i), b = find_root(parent, o);
            if (a != b) parent[std::max(a, b)] = std::min(a, b);
        };
        for (const Hop* h : hops[i])
            for (std::size_t o : owners.at(h)) join(o);
        for (std::size_t o : partners[i]) join(o);
    }
    // The host's side runs on the kernel: a launch's answer (PE_CPU to
    // M_CPU to IO_CPU), then the host's next request. A calendar runs ahead
    // only to the kernel's next activity and stops before a command's end,
    // so nothing it does can come before what the kernel does by then; but
    // calendars run one after the other, and one may have run past another
    // one's command end when the kernel acts on it. What the host's side
    // books is M_CPU's and IO_CPU's processors (which transit traffic books
    // too) and the hops of its memory requests: so when a PE's DMA passes
    // an M_CPU or IO_CPU in a workload with host requests, or shares a hop
    // with the host's memory requests, it shares one calendar with every
    // such PE and every PE the host launches (whose kernel's end sets the
    // host's side going), and that calendar stops at each of their command
    // ends. (Otherwise a host launch books nothing a calendar books: its
    // messages are pure latency.)
    std::unordered_set<const Hop*> host_hops;
    for (const HostRequest& r : workload.host) {
        if (r.kind != HostRequestKind::memory_read && r.kind != HostRequestKind::memory_write) continue;
        std::vector<MCpu*> m_cpus;
        const std::vector<RoutedNode*> targets = targets_of(platform, r.pa, r.bytes, &m_cpus);
        for (std::size_t t = 0; t < targets.size(); ++t)
            for (const Route* route : {&platform.route(*m_cpus[t], *targets[t]),
                                       &platform.read_route(*m_cpus[t], *targets[t])})
                for (const RouteStep& step : route->steps) host_hops.insert(step.hop);
    }
    std::vector<bool> meets(n);
    bool any_meets = false;
    for (std::size_t i = 0; i < n; ++i) {
        if (!verdict[i].decoupled) continue;
        meets[i] = !workload.host.empty() && crosses_processor[i];
        for (const Hop* h : hops[i]) meets[i] = meets[i] || host_hops.count(h) != 0;
        any_meets = any_meets || meets[i];
    }
    std::size_t host_side = n;  // the first PE of the host's calendar
    for (std::size_t i = 0; any_meets && i < n; ++i) {
        if (!verdict[i].decoupled || !(meets[i] || !host_launches[i].empty())) continue;
        if (host_side == n) {
            host_side = i;
            continue;
        }
        const std::size_t a = find_root(parent, i), b = find_root(parent, host_side);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
    for (std::size_t i = 0; i < n; ++i) verdict[i].group = find_root(parent, i);
    m_verdicts = std::move(verdict);
}

void Decoupler::start_of_simulation() {
    // One calendar per group, in launch order of the group's first PE. (A
    // PE whose signals are in the VCD is decoupled too: its values reach the
    // VCD at the kernel's time of each change, modules/common/vcd_value.h.)
    std::map<std::size_t, PipelineCalendar*> calendar_of;  // group -> calendar
    for (Verdict& v : m_verdicts) {
        if (!v.decoupled) continue;
        PipelineCalendar*& c = calendar_of[v.group];
        if (c == nullptr) {
            m_calendars.push_back(std::make_unique<PipelineCalendar>(m_wake));
            c = m_calendars.back().get();
        }
        v.pe->decouple(*c);
    }
}

std::size_t Decoupler::decoupled_pes() const {
    return static_cast<std::size_t>(
        std::count_if(m_verdicts.begin(), m_verdicts.end(), [](const Verdict& v) { return v.decoupled; }));
}

std::uint64_t Decoupler::activities() const {
    std::uint64_t n = 0;
    for (const auto& c : m_calendars) n += c->activations();
    return n;
}

std::uint64_t Decoupler::activities_in_step() const {
    std::uint64_t n = 0;
    for (const auto& c : m_calendars) n += c->in_step();
    return n;
}

[[gnu::hot]] void Decoupler::run() {
    ++m_runs;
    const ps_t now = sc_core::sc_time_stamp().value();
    // VCD values the calendars changed ahead of the kernel, now due: the
    // trace file samples them at the end of this instant.
    for (auto& c : m_calendars) c->show_due(now);
    // In step: each calendar's round of this delta cycle; while the kernel
    // has nothing else to do at this instant, the next rounds in this same
    // delta cycle.
    for (;;) {
        for (auto& c : m_calendars)
            if (c->due_now()) c->run_in_step();
        bool due = false;
        for (auto& c : m_calendars) due = due || c->due_now();
        if (!due) break;
        if (sc_core::sc_pending_activity_at_current_time()) {
            sc_core::next_trigger(sc_core::SC_ZERO_TIME);
            return;
        }
        for (auto& c : m_calendars)
            if (c->due_now()) c->skip_delta();
    }
    // Alone: every calendar up to the kernel's next pending activity. (The
    // instant is over: its trace events go out first.)
    if (!sc_core::sc_pending_activity_at_current_time()) {
        m_trace.flush();
        ps_t horizon = now + sc_core::sc_time_to_pending_activity().value();
        // VCD values changed ahead wait in their calendars until the kernel
        // gets there: no further ahead than a window, so that few wait at
        // once (a run's changes would otherwise all be kept).
        for (auto& c : m_calendars)
            if (c->shows() && horizon - now > kRecordedWindowPs) horizon = now + kRecordedWindowPs;
        if (!m_trace.ordering()) {
            for (auto& c : m_calendars)
                if (!c->empty()) c->run_ahead(horizon);
        } else {
            // Recorded: their events are kept until every calendar has run
            // past their instant, to go out in the order the kernel would
            // have put them in (TraceSink::run_ahead_of). In windows of
            // simulated time, so that few are kept at once; and no further
            // than a calendar that stopped before a command's end.
            for (ps_t from = now;;) {
                const ps_t h = horizon - from > kRecordedWindowPs ? from + kRecordedWindowPs : horizon;
                ps_t stop = h;
                for (auto& c : m_calendars) {
                    if (c->empty() || c->next_time() >= h) continue;
                    m_trace.run_ahead_of(c.get());
                    c->run_ahead(h);
                    if (!c->empty() && c->next_time() < stop) stop = c->next_time();
                }
                m_trace.run_ahead_of(nullptr);
                m_trace.release_ahead(stop);
                if (stop < h || h == horizon) break;
                // The next window starts where the next round is (idle
                // time skipped), if that is before the horizon.
                ps_t next_round = horizon;
                for (auto& c : m_calendars)
                    if (!c->empty()) next_round = std::min(next_round, c->next_time());
                if (next_round >= horizon) break;
                from = next_round;
            }
        }
    } else if (m_trace.holding()) {
        sc_core::next_trigger(sc_core::SC_ZERO_TIME);  // back to flush once the instant is over
        return;
    }
    ps_t next = ~ps_t{0};
    for (auto& c : m_calendars)
        if (!c->empty()) next = std::min(next, c->next_time());
    ps_t shown = ~ps_t{0};  // the next VCD change the calendars made ahead
    for (auto& c : m_calendars) shown = std::min(shown, c->next_shown());
    // What calendars ran ahead of the next time anything may happen (the
    // kernel's next activity, a calendar's next round) goes out now; the
    // rest waits for its instant.
    if (m_trace.ordering()) {
        ps_t before = next;
        if (sc_core::sc_pending_activity())
            before = std::min<ps_t>(before, now + sc_core::sc_time_to_pending_activity().value());
        m_trace.release_ahead(before);
    }
    next = std::min(next, shown);
    if (next == ~ps_t{0})
        sc_core::next_trigger(m_wake);
    else
        sc_core::next_trigger(sc_core::sc_time::from_value(next - now), m_wake);
}

}  // namespace npuvp
