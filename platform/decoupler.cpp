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

// The memory side of a DMA: the targets it may reach.
std::vector<RoutedNode*> reach(Platform& platform, const MemAddress& addr, std::uint64_t home,
                               std::uint64_t bytes) {
    if (addr.given && addr.is_va) return all_targets(platform);
    return targets_of(platform, addr.resolve(home), bytes);
}

// Where a composite reads: A and B from src, or A from src and B from src_b.
struct ReadSide {
    const MemAddress* addr;
    std::uint64_t bytes;
};
std::vector<ReadSide> read_sides(const Command& c) {
    if (!c.composite.b_separate) return {{&c.src, composite_source_bytes(c.composite)}};
    return {{&c.src, composite_a_bytes(c.composite)}, {&c.src_b, composite_b_bytes(c.composite)}};
}

void add_hops(const Route& route, std::unordered_set<const Hop*>& hops) {
    for (const RouteStep& step : route.steps) hops.insert(step.hop);
}

// Every route a DMA of `pe` (any channel, either direction) may take to `targets`.
void add_dma_hops(Platform& platform, Pe& pe, const std::vector<RoutedNode*>& targets,
                  std::unordered_set<const Hop*>& hops) {
    for (RoutedNode* target : targets)
        for (DmaDirection dir : {DmaDirection::read, DmaDirection::write})
            for (int ch = 0; ch < pe.dma().channels(dir); ++ch)
                add_hops(platform.dma_route(pe, dir, ch, *target), hops);
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
}

Decoupler::~Decoupler() = default;

void Decoupler::plan(Platform& platform, const WorkloadConfig& workload,
                     const std::vector<Pe*>& launched) {
    m_verdicts.clear();
    std::map<const Pe*, PeAt> where;  // lookup only
    for (const SipNodes& sip : platform.sips())
        for (const CubeNodes& cube : sip.cubes)
            for (Pe* pe : cube.pes) where[pe] = {sip.sip, cube.cube, pe->index()};
    // The kernels each PE runs, and whether a host request reaches it.
    std::map<const Pe*, std::vector<const Kernel*>> kernels;
    std::set<const Pe*> host_driven;
    for (const Launch& l : workload.launches)
        for (int p : l.pes) kernels[&platform.pe(l.sip, l.cube, p)].push_back(&workload.kernels.at(l.kernel));
    for (const HostRequest& r : workload.host) {
        if (r.kind == HostRequestKind::memory_read || r.kind == HostRequestKind::memory_write) continue;
        for (const CubeRef& c : r.cubes)
            for (int p : r.target_pe) {
                Pe& pe = platform.pe(c.sip, c.cube, p);
                host_driven.insert(&pe);
                if (r.kind == HostRequestKind::kernel_launch)
                    kernels[&pe].push_back(&workload.kernels.at(r.kernel));
            }
    }

    // The hops each PE's commands may reserve (memory sides and IPCQ sends).
    auto hops_of = [&](Pe& pe, std::unordered_set<const Hop*>& hops) {
        const PeAt at = where.at(&pe);
        const std::uint64_t home = platform.hbm_base(at.sip, at.cube, at.pe);
        for (const Kernel* k : kernels[&pe])
            for (const Command& c : k->commands) {
                switch (c.kind) {
                case CommandKind::composite:
                    for (const ReadSide& side : read_sides(c))
                        add_dma_hops(platform, pe, reach(platform, *side.addr, home, side.bytes), hops);
                    add_dma_hops(platform, pe, reach(platform, c.dst, home, composite_output_bytes(c.composite)), hops);
                    break;
                case CommandKind::dma_read:
                case CommandKind::dma_write:
                    add_dma_hops(platform, pe, reach(platform, c.addr, home, c.bytes), hops);
                    break;
                case CommandKind::ipcq_send:
                    if (c.peer >= 0 && c.peer < platform.pes_per_cube())
                        add_hops(platform.comm_route(pe, platform.pe(at.sip, at.cube, c.peer)), hops);
                    break;
                default:
                    break;  // inside the PE
                }
            }
    };
    // The host's memory requests: M_CPU's DMA to each destination.
    std::unordered_set<const Hop*> host_hops;
    for (const HostRequest& r : workload.host) {
        if (r.kind != HostRequestKind::memory_read && r.kind != HostRequestKind::memory_write) continue;
        // Each destination is reached from the M_CPU of its cube.
        std::vector<MCpu*> m_cpus;
        const std::vector<RoutedNode*> targets = targets_of(platform, r.pa, r.bytes, &m_cpus);
        for (std::size_t i = 0; i < targets.size(); ++i) {
            add_hops(platform.route(*m_cpus[i], *targets[i]), host_hops);
            add_hops(platform.read_route(*m_cpus[i], *targets[i]), host_hops);
        }
    }

    std::map<const Pe*, std::unordered_set<const Hop*>> hops;
    for (auto& [pe, ks] : kernels) hops_of(const_cast<Pe&>(*pe), hops[pe]);

    for (Pe* pe : launched) {
        Verdict v{pe, false, ""};
        const PeAt at = where.at(pe);
        auto fail = [&](std::string why) {
            v.why = std::move(why);
            m_verdicts.push_back(v);
        };
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
        if (host_driven.count(pe)) {
            fail("a host request launches a kernel on it or maps its MMU");
            continue;
        }
        std::string why;
        std::array<int, stage_type_count> writers;
        writers.fill(-1);
        bool ok = true;
        for (const Kernel* k : kernels[pe]) {
            for (const Command& c : k->commands) {
                if (c.kind == CommandKind::wait) continue;
                if (c.kind != CommandKind::composite) {
                    why = std::string("its kernel '") + k->name + "' has a " + to_string(c.kind) +
                          " command ('" + c.id + "')";
                } else if ((c.src.given && c.src.is_va) || (c.dst.given && c.dst.is_va) ||
                           (c.src_b.given && c.src_b.is_va)) {
                    why = "its composite '" + c.id + "' is on virtual addresses";
                } else if (!one_writer_per_inbox(c.composite, writers, why)) {
                } else {
                    continue;
                }
                ok = false;
                break;
            }
            if (!ok) break;
        }
        if (!ok) {
            fail(why);
            continue;
        }
        // Its DMA's routes: every node answers at once, and no other
        // command or host request reserves any of their hops.
        const std::unordered_set<const Hop*>& own = hops[pe];
        const std::uint64_t home = platform.hbm_base(at.sip, at.cube, at.pe);
        for (const Kernel* k : kernels[pe])
            for (const Command& c : k->commands) {
                if (c.kind != CommandKind::composite) continue;
                std::vector<RoutedNode*> src;
                bool outside = false;  // part of an operand outside every window
                for (const ReadSide& side : read_sides(c)) {
                    const auto t = targets_of(platform, side.addr->resolve(home), side.bytes);
                    outside = outside || t.empty();
                    src.insert(src.end(), t.begin(), t.end());
                }
                if (outside) src.clear();
                const auto dst = targets_of(platform, c.dst.resolve(home),
                                            composite_output_bytes(c.composite));
                if (src.empty() || dst.empty()) {
                    why = "its composite '" + c.id + "' reaches outside every memory window";
                    ok = false;
                }
                for (const auto* targets : {&std::as_const(src), &dst})
                    for (RoutedNode* t : *targets)
                        for (DmaDirection dir : {DmaDirection::read, DmaDirection::write})
                            for (const PathNode& n : platform.dma_route(*pe, dir, 0, *t).path)
                                if (!n.node->answers_at_once()) {
                                    why = n.node->node_id() + " on its DMA route answers later (a TLM model)";
                                    ok = false;
                                }
            }
        if (ok)
            for (const Hop* h : own) {
                bool shared = host_hops.count(h) != 0;
                for (auto& [other, theirs] : hops)
                    if (other != pe && theirs.count(h)) shared = true;
                if (shared) {
                    why = "its DMA shares the hop " + h->name() + " with other traffic of the workload";
                    ok = false;
                    break;
                }
            }
        if (!ok) {
            fail(why);
            continue;
        }
        v.decoupled = true;
        m_verdicts.push_back(v);
    }
}

void Decoupler::start_of_simulation() {
    for (Verdict& v : m_verdicts) {
        if (!v.decoupled) continue;
        if (m_trace.enabled()) {
            v.decoupled = false;
            v.why = "its events are recorded (--trace, --timeline, --svg or --report)";
        } else if (v.pe->traced()) {
            v.decoupled = false;
            v.why = "its signals are in the VCD";
        } else {
            m_calendars.push_back(std::make_unique<PipelineCalendar>(m_wake));
            v.pe->decouple(*m_calendars.back());
        }
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
    // Alone: every calendar up to the kernel's next pending activity.
    if (!sc_core::sc_pending_activity_at_current_time()) {
        const ps_t horizon = now + sc_core::sc_time_to_pending_activity().value();
        for (auto& c : m_calendars)
            if (!c->empty()) c->run_ahead(horizon);
    }
    ps_t next = ~ps_t{0};
    for (auto& c : m_calendars)
        if (!c->empty()) next = std::min(next, c->next_time());
    if (next == ~ps_t{0})
        sc_core::next_trigger(m_wake);
    else
        sc_core::next_trigger(sc_core::sc_time::from_value(next - now), m_wake);
}

}  // namespace npuvp
