#include "platform/platform.h"

#include <algorithm>
#include <deque>
#include <fnmatch.h>
#include <functional>
#include <stdexcept>
#include <tuple>

namespace npuvp {
namespace {

// A level of the hierarchy (sip0, sip0.cube0, sip0.cube0.hbm_ctrl). Its
// children are built inside its constructor so that SystemC names them
// under it.
class Container : public sc_core::sc_module {
public:
    Container(const sc_core::sc_module_name& name, const std::function<void()>& build)
        : sc_core::sc_module(name) {
        build();
    }
};

std::string indexed(const char* prefix, int index) { return prefix + std::to_string(index); }

}  // namespace

Platform::Platform(const TopologyConfig& topo, TraceSink& trace, const ImplRegistry& impls,
                   BuildOrder order)
    : m_topo(topo), m_trace(trace), m_impls(impls), m_order(order), m_resolver(topo) {
    RequestRound::instance();  // SPEC T4: made first, at the top of the hierarchy
    m_status.on_stop([this] { m_trace.stopping(); });
    m_decoupler = std::make_unique<Decoupler>("npuvp_decoupler", trace);
    build();
    wire();
    std::sort(m_nodes.begin(), m_nodes.end(), [](const RoutedNode* a, const RoutedNode* b) {
        return a->node_id_ref() < b->node_id_ref();
    });
}

Platform::~Platform() {
    // Last made, first destroyed: children before the module they hang
    // under, and SystemC's port and export registries, which look an object
    // up from their end, find each at once (destroying first-made first was
    // quadratic: 20 s of a 16,384-PE machine's teardown, issue 38).
    while (!m_owned.empty()) m_owned.pop_back();
}

std::size_t Platform::own_slot() {
    m_owned.emplace_back();
    return m_owned.size() - 1;
}

void Platform::register_node(RoutedNode& node, NodeInfo info) {
    m_nodes.push_back(&node);
    node.set_address_decoder(this);
    m_info.emplace_back(&node, info);
}

const Platform::NodeInfo& Platform::info(const RoutedNode& node) const {
    const auto it = std::lower_bound(m_info.begin(), m_info.end(), &node, [](const auto& entry, const RoutedNode* n) {
        return std::less<const RoutedNode*>()(entry.first, n);
    });
    if (it == m_info.end() || it->first != &node)
        throw std::out_of_range(node.node_id_ref() + " is not a node of this platform");
    return it->second;
}

void Platform::build() {
    m_sips.resize(m_topo.system.sips);
    for (int s = 0; s < m_topo.system.sips; ++s) {
        SipNodes& sip = m_sips[s];
        sip.sip = s;
        sip.cubes.resize(m_topo.system.cubes_per_sip);
        const std::size_t sip_slot = own_slot();
        auto container = std::make_unique<Container>(indexed("sip", s).c_str(), [&] {
            NodeEnv env{m_topo, {s, -1, -1, -1}, m_trace, m_status};
            auto io = m_impls.create<IoCpu>("io_cpu", m_topo.system.io_cpu.impl,
                                            sc_core::sc_module_name("io_cpu"), env);
            sip.io_cpu = io.get();
            io->set_request_rank(io_cpu_rank(m_topo, {s, -1, -1, -1}));
            register_node(*io, {s, -1, -1, -1});
            m_owned.push_back(std::move(io));
            for (int c = 0; c < m_topo.system.cubes_per_sip; ++c) {
                CubeNodes& cube = sip.cubes[c];
                cube.sip = s;
                cube.cube = c;
                cube.global = s * m_topo.system.cubes_per_sip + c;
                const std::size_t cube_slot = own_slot();
                auto cube_container = std::make_unique<Container>(
                    indexed("cube", c).c_str(), [&] { build_cube(sip, cube); });
                cube.container = cube_container.get();
                m_owned[cube_slot] = std::move(cube_container);
            }
        });
        sip.container = container.get();
        m_owned[sip_slot] = std::move(container);
    }
    // Sorted by pointer for lookup only: nothing iterates it (determinism).
    std::sort(m_info.begin(), m_info.end(),
              [](const auto& a, const auto& b) { return std::less<const RoutedNode*>()(a.first, b.first); });
}

void Platform::build_cube(SipNodes& sip, CubeNodes& cube) {
    const CubeConfig& cfg = m_topo.cube;
    const int pes = m_topo.pes_per_cube();
    NodeEnv env{m_topo, {sip.sip, cube.cube, -1, -1}, m_trace, m_status};

    auto m_cpu = m_impls.create<MCpu>("m_cpu", cfg.m_cpu.impl, sc_core::sc_module_name("m_cpu"), env);
    cube.m_cpu = m_cpu.get();
    m_cpu->set_request_rank(m_cpu_rank(m_topo, {sip.sip, cube.cube, -1, -1}));
    register_node(*m_cpu, {sip.sip, cube.global, -1, cfg.m_cpu.router});
    m_owned.push_back(std::move(m_cpu));

    auto noc = m_impls.create<Noc>("noc", cfg.noc.impl, sc_core::sc_module_name("noc"), env);
    cube.noc = noc.get();
    for (int r = 0; r < noc->router_count(); ++r)
        register_node(noc->router(r), {sip.sip, cube.global, -1, r});
    m_owned.push_back(std::move(noc));

    // The index of the i-th PE (or HBM slice) to create.
    auto nth = [&](int i) { return m_order.pes_in_reverse ? pes - 1 - i : i; };
    cube.hbm.assign(pes, nullptr);
    cube.pes.assign(pes, nullptr);
    const std::size_t hbm_slot = own_slot();
    auto hbm = std::make_unique<Container>("hbm_ctrl", [&] {
        for (int i = 0; i < pes; ++i) {
            const int x = nth(i);
            NodeEnv slice_env{m_topo, {sip.sip, cube.cube, x, -1}, m_trace, m_status};
            auto target = m_impls.create<MemoryTarget>(
                "hbm_ctrl", cfg.hbm_ctrl.impl, sc_core::sc_module_name(indexed("pe", x).c_str()),
                slice_env);
            target->set_base(m_resolver.hbm_base(sip.sip, cube.cube, x));
            cube.hbm[x] = target.get();
            register_node(*target, {sip.sip, cube.global, -1, x});
            m_owned.push_back(std::move(target));
        }
    });
    m_owned[hbm_slot] = std::move(hbm);

    auto sram = m_impls.create<MemoryTarget>("shared_sram", cfg.shared_sram.impl,
                                             sc_core::sc_module_name("shared_sram"), env);
    sram->set_base(m_resolver.sram_base(sip.sip, cube.cube));
    cube.shared_sram = sram.get();
    register_node(*sram, {sip.sip, cube.global, -1, cfg.shared_sram.router});
    m_owned.push_back(std::move(sram));

    if (m_topo.system.cubes_per_sip > 1) {
        auto ucie = std::make_unique<UciePort>("ucie");
        cube.ucie = ucie.get();
        register_node(*ucie, {sip.sip, cube.global, -1, m_topo.system.ucie.router});
        m_owned.push_back(std::move(ucie));
    }

    for (int i = 0; i < pes; ++i) {
        const int x = nth(i);
        NodeEnv pe_env{m_topo, {sip.sip, cube.cube, x, -1}, m_trace, m_status};
        auto pe = std::make_unique<Pe>(indexed("pe", x).c_str(), pe_env, m_impls);
        for (const Pe::Block& block : pe->blocks())
            register_node(*block.node, {sip.sip, cube.global, x, block.attached ? x : -1});
        cube.pes[x] = pe.get();
        m_owned.push_back(std::move(pe));
    }
}

namespace {

// The routes of one PE, computed by the platform once each (SPEC §2). DMA
// routes are looked up by (direction, channel, target) without building
// strings, so a transfer costs a map lookup.
class PlatformPeRoutes final : public PeRoutes {
public:
    PlatformPeRoutes(Platform& platform, CubeNodes& cube, Pe& pe)
        : m_platform(platform), m_cube(cube), m_pe(pe) {}

    const Route& between(RoutedNode& from, RoutedNode& to) override {
        return m_platform.route(from, to);
    }
    const Route& to_scheduler() override { return m_platform.route(m_pe.cpu(), m_pe.scheduler()); }
    // Fetch, store and comm routes are asked for on every stage: looked up
    // once, then a pointer (no key string built per stage).
    const Route& fetch() override {
        if (!m_fetch) m_fetch = &m_platform.fetch_route(m_pe);
        return *m_fetch;
    }
    const Route& store() override {
        if (!m_store) m_store = &m_platform.store_route(m_pe);
        return *m_store;
    }
    const Route& comm(int peer) override {
        if (m_comm.empty()) m_comm.resize(m_cube.pes.size(), nullptr);
        const Route*& route = m_comm.at(static_cast<std::size_t>(peer));
        if (!route) route = &m_platform.comm_route(m_pe, *m_cube.pes.at(peer));
        return *route;
    }
    const Route& dma(DmaDirection dir, int channel, std::uint64_t pa) override {
        std::uint64_t lo = 0, size = 0;
        return dma(dir, channel, pa, lo, size);
    }
    const Route& dma(DmaDirection dir, int channel, std::uint64_t pa, std::uint64_t& lo,
                     std::uint64_t& size) override {
        // A kernel's transfers of one channel mostly hit one memory window:
        // remember the last window per (direction, channel) and its route.
        const std::size_t slot = static_cast<std::size_t>(channel) * 2 + (dir == DmaDirection::read);
        if (slot >= m_last.size()) m_last.resize(slot + 1);
        LastWindow& last = m_last[slot];
        if (last.route && pa - last.lo < last.size) {
            lo = last.lo;
            size = last.size;
            return *last.route;
        }
        const AddressLocation at = m_platform.resolver().locate(pa);
        RoutedNode& target = m_platform.memory_target(at);
        const Key key{dir == DmaDirection::read, channel, &target};
        auto it = m_dma.find(key);
        const Route& route =
            it != m_dma.end() ? *it->second : m_platform.dma_route(m_pe, dir, channel, target);
        if (it == m_dma.end()) m_dma.emplace(key, &route);
        const TopologyConfig& topo = m_platform.config();
        last = {pa - at.offset,
                at.slice < 0 ? topo.cube.shared_sram.size_bytes : topo.cube.memory_map.hbm_slice_bytes,
                &route};
        lo = last.lo;
        size = last.size;
        return route;
    }

private:
    using Key = std::tuple<bool, int, const RoutedNode*>;
    Platform& m_platform;
    CubeNodes& m_cube;
    Pe& m_pe;
    std::map<Key, const Route*> m_dma;  // lookup only, never iterated
    struct LastWindow {
        std::uint64_t lo = 0, size = 0;
        const Route* route = nullptr;
    };
    std::vector<LastWindow> m_last;  // by channel * 2 + (read ? 1 : 0)
    const Route* m_fetch = nullptr;
    const Route* m_store = nullptr;
    std::vector<const Route*> m_comm;  // by peer index
};

}  // namespace

void Platform::attach_pe(CubeNodes& cube, Pe& pe) {
    m_pe_routes.push_back(std::make_unique<PlatformPeRoutes>(*this, cube, pe));
    PeRoutes& routes = *m_pe_routes.back();
    pe.routes.bind(routes);
    cube.routes.push_back(&routes);
    if (!cube.ipcqs) {
        auto list = std::make_unique<IpcqList>();
        for (Pe* peer : cube.pes) list->add(peer->ipcq());
        cube.ipcqs = list.get();
        m_ipcq_lists.push_back(std::move(list));
    }
    pe.dma().peers.bind(*cube.ipcqs);
    const std::uint64_t home = m_resolver.hbm_base(cube.sip, cube.cube, pe.index());
    pe.scheduler().set_home_pa(home);
    pe.scheduler().set_sram_base(m_resolver.sram_base(0, 0));
    // The routes every PE uses, computed now rather than at the first transfer.
    routes.to_scheduler();
    routes.fetch();
    routes.store();
    for (int ch = 0; ch < pe.dma().channels(DmaDirection::read); ++ch)
        routes.dma(DmaDirection::read, ch, home);
    for (int ch = 0; ch < pe.dma().channels(DmaDirection::write); ++ch)
        routes.dma(DmaDirection::write, ch, home);
}

std::vector<std::string> Platform::add_traces(sc_core::sc_trace_file* tf,
                                              const std::vector<std::string>& globs) const {
    auto wanted = [&](const std::string& id) {
        if (globs.empty()) return true;
        for (const std::string& g : globs)
            if (fnmatch(g.c_str(), id.c_str(), 0) == 0) return true;
        return false;
    };
    std::vector<std::string> traced;  // node ids, in elaboration order
    for (const SipNodes& sip : m_sips)
        for (const CubeNodes& cube : sip.cubes) {
            if (wanted(cube.m_cpu->node_id_ref())) {
                cube.m_cpu->add_traces(tf);
                traced.push_back(cube.m_cpu->node_id_ref());
            }
            for (const Pe* pe : cube.pes) pe->add_traces(tf, wanted, traced);
        }
    return traced;
}

Platform::WorkCounts Platform::work_counts() const {
    WorkCounts counts;
    for (const SipNodes& sip : m_sips)
        for (const CubeNodes& cube : sip.cubes)
            for (const Pe* pe : cube.pes) {
                const Pe::Work work = pe->work();
                counts.tiles += work.tiles;
                counts.commands += work.commands;
                if (work.commands != 0) ++counts.pes;
                counts.stage_events += work.stage_events;
                counts.activations += work.activations;
            }
    return counts;
}

RoutedNode& Platform::memory_target(std::uint64_t pa) { return memory_target(m_resolver.locate(pa)); }

RoutedNode& Platform::memory_target(const AddressLocation& at) {
    CubeNodes& c = cube(at.sip, at.cube);
    if (at.slice < 0) return *c.shared_sram;
    return *c.hbm.at(at.slice);
}

int Platform::decode(RoutedNode& at, std::uint64_t address) {
    RoutedNode* target = nullptr;
    try {
        target = &memory_target(address);
    } catch (const std::out_of_range&) {
        return AddressDecoder::nowhere;  // no memory window holds it
    }
    if (target == &at) return AddressDecoder::here;
    // The platform's path from here, which node_path() builds for nodes on
    // the mesh's edge: from a router it names the router twice, from a port
    // node (UCIe, M_CPU) it may go out to the router and back first. The
    // next hop follows the last time the path is here.
    const std::vector<RoutedNode*> path = node_path(at, *target);
    const auto last = std::find(path.rbegin(), path.rend(), &at);
    if (last == path.rend() || last == path.rbegin()) return AddressDecoder::nowhere;  // inside a PE
    const Link* next = link(at, **std::prev(last));
    return next ? next->out_port : AddressDecoder::nowhere;
}

const Route& Platform::fetch_route(Pe& pe) {
    const std::string key = "fetch:" + pe.fetch_store().node_id_ref();
    auto it = m_routes.find(key);
    if (it != m_routes.end()) return *it->second;
    // Request path fetch_store -> tcm; the data comes back over tcm -> fetch_store:
    // TCM read port, then that link, both applied where the data leaves: the TCM.
    auto route = std::make_unique<Route>();
    route->path = {{&pe.fetch_store(), link(pe.fetch_store(), pe.tcm())->out_port}, {&pe.tcm(), -1}};
    route->steps = {{&pe.tcm().read_port(), 1}, {link(pe.tcm(), pe.fetch_store())->hop.get(), 1}};
    route->direct = true;  // PE-internal, no transit, TCM's serve() only accepts
    route->finalise();
    return *(m_routes[key] = std::move(route));
}

const Route& Platform::store_route(Pe& pe) {
    const std::string key = "store:" + pe.fetch_store().node_id_ref();
    auto it = m_routes.find(key);
    if (it != m_routes.end()) return *it->second;
    auto route = std::make_unique<Route>();
    route->path = {{&pe.fetch_store(), link(pe.fetch_store(), pe.tcm())->out_port}, {&pe.tcm(), -1}};
    route->steps = {{link(pe.fetch_store(), pe.tcm())->hop.get(), 0}, {&pe.tcm().write_port(), 1}};
    route->direct = true;  // PE-internal, no transit, TCM's serve() only accepts
    route->finalise();
    return *(m_routes[key] = std::move(route));
}

const Route& Platform::comm_route(Pe& pe, Pe& peer) {
    const std::string key = "comm:" + pe.dma().node_id_ref() + "->" + peer.ipcq().node_id_ref();
    auto it = m_routes.find(key);
    if (it != m_routes.end()) return *it->second;
    return make_route(key, node_path(pe.dma(), peer.ipcq()), {&pe.dma().comm_hop()}, {});
}

Link& Platform::add_link(RoutedNode& from, RoutedNode& to, const std::string& kind,
                         double latency_ns, double bw_gbs) {
    auto link = std::make_unique<Link>();
    link->from = &from;
    link->to = &to;
    link->kind = kind;
    link->out_port = from.connect_to(to);
    link->in_port = to.in_bindings() - 1;
    link->hop = std::make_unique<Hop>(from.node_id_ref() + "->" + to.node_id_ref(),
                                      ns_to_ps(latency_ns, "a link's latency_ns"), bw_gbs);
    m_link_index[{&from, &to}] = link.get();
    m_links.push_back(std::move(link));
    return *m_links.back();
}

void Platform::add_duplex(RoutedNode& a, RoutedNode& b, const std::string& kind, double latency_ns,
                          double bw_gbs) {
    add_link(a, b, kind, latency_ns, bw_gbs);
    add_link(b, a, kind, latency_ns, bw_gbs);
}

void Platform::wire() {
    const CubeConfig& cfg = m_topo.cube;
    const SystemConfig& sys = m_topo.system;
    const double ns_per_mm = m_topo.wire.ns_per_mm;
    const double attach_ns = cfg.noc.attach.latency_ns;
    const double attach_bw = cfg.noc.attach.bw_gbs.value_or(0.0);

    for (SipNodes& sip : m_sips) {
        for (CubeNodes& cube : sip.cubes) {
            Noc& noc = *cube.noc;
            for (const Noc::Link& l : noc.links())
                add_link(noc.router(l.from), noc.router(l.to), "mesh", l.latency_ns, l.bw_gbs);
            for (Pe* pe : cube.pes) {
                RoutedNode& router = noc.router(pe->index());
                for (const Pe::Attached& a : pe->attached_nodes()) {
                    if (a.sends) add_link(*a.node, router, "attach", attach_ns, attach_bw);
                    add_link(router, *a.node, "attach", attach_ns, attach_bw);
                }
                add_duplex(*cube.hbm[pe->index()], router, "attach", attach_ns, attach_bw);
                // seed 000 §D8: the template's directed intra-PE edges.
                for (const Pe::Edge& e : pe->edges())
                    add_link(*e.from, *e.to, "pe", e.mm * ns_per_mm, e.bw_gbs);
            }
            add_duplex(*cube.m_cpu, noc.router(cfg.m_cpu.router), "attach", attach_ns, attach_bw);
            add_duplex(*cube.shared_sram, noc.router(cfg.shared_sram.router), "attach", attach_ns,
                       attach_bw);
            if (cube.ucie)
                add_duplex(*cube.ucie, noc.router(sys.ucie.router), "attach", attach_ns, attach_bw);
            add_duplex(*sip.io_cpu, *cube.m_cpu, "io", sys.io_link.latency_ns,
                       sys.io_link.bw_gbs.value_or(0.0));
        }
        for (std::size_t c = 0; c + 1 < sip.cubes.size(); ++c)
            add_duplex(*sip.cubes[c].ucie, *sip.cubes[c + 1].ucie, "ucie",
                       sys.ucie.link.latency_ns, sys.ucie.link.bw_gbs.value_or(0.0));
    }
    for (std::size_t s = 0; s + 1 < m_sips.size(); ++s)
        add_duplex(*m_sips[s].io_cpu, *m_sips[s + 1].io_cpu, "sip", sys.sip_link.latency_ns,
                   sys.sip_link.bw_gbs.value_or(0.0));
    for (SipNodes& sip : m_sips) {
        sip.io_cpu->attach(*this);
        for (CubeNodes& cube : sip.cubes) {
            cube.m_cpu->attach(*this);
            for (Pe* pe : cube.pes) attach_pe(cube, *pe);
        }
    }
}

RoutedNode* Platform::find(const std::string& node_id) const {
    const auto it = std::lower_bound(m_nodes.begin(), m_nodes.end(), node_id,
                                     [](const RoutedNode* n, const std::string& id) { return n->node_id_ref() < id; });
    return it != m_nodes.end() && (*it)->node_id_ref() == node_id ? *it : nullptr;
}

const Link* Platform::link(const RoutedNode& from, const RoutedNode& to) const {
    auto it = m_link_index.find({&from, &to});
    return it == m_link_index.end() ? nullptr : it->second;
}

std::pair<int, int> Platform::attachment(const RoutedNode& node) const {
    const NodeInfo& at = info(node);
    return at.router < 0 ? std::pair<int, int>{-1, -1} : std::pair<int, int>{at.cube, at.router};
}

CubeNodes& Platform::global_cube(int global) {
    const int per_sip = m_topo.system.cubes_per_sip;
    return m_sips.at(global / per_sip).cubes.at(global % per_sip);
}

const CubeNodes& Platform::global_cube(int global) const {
    const int per_sip = m_topo.system.cubes_per_sip;
    return m_sips.at(global / per_sip).cubes.at(global % per_sip);
}

void Platform::append_mesh(std::vector<RoutedNode*>& path, int global, int from_router,
                           int to_router) const {
    Noc& noc = *global_cube(global).noc;
    for (int r : noc.path(from_router, to_router)) path.push_back(&noc.router(r));
}

std::vector<RoutedNode*> Platform::pe_internal_path(RoutedNode& from, RoutedNode& to) const {
    // BFS over the PE's own links, in the order they were made.
    std::map<const RoutedNode*, RoutedNode*> parent{{&from, nullptr}};
    std::deque<RoutedNode*> queue{&from};
    while (!queue.empty()) {
        RoutedNode* here = queue.front();
        queue.pop_front();
        if (here == &to) break;
        for (const auto& l : m_links) {
            if (l->from != here || l->kind != "pe" || parent.count(l->to)) continue;
            parent[l->to] = here;
            queue.push_back(l->to);
        }
    }
    if (!parent.count(&to)) return {};
    std::vector<RoutedNode*> path;
    for (RoutedNode* n = &to; n != nullptr; n = parent[n]) path.push_back(n);
    std::reverse(path.begin(), path.end());
    return path;
}

std::vector<RoutedNode*> Platform::node_path(RoutedNode& from, RoutedNode& to) const {
    if (&from == &to) return {&from};
    if (link(from, to)) return {&from, &to};
    const NodeInfo& fi = info(from);
    const NodeInfo& ti = info(to);

    auto join = [](std::vector<RoutedNode*> head, const std::vector<RoutedNode*>& tail) {
        if (head.empty() || tail.empty()) return std::vector<RoutedNode*>{};
        head.insert(head.end(), tail.begin() + 1, tail.end());  // tail starts at head's end
        return head;
    };
    auto sip_chain = [&](int from_sip, int to_sip) {
        std::vector<RoutedNode*> chain;
        const int step = to_sip >= from_sip ? 1 : -1;
        for (int s = from_sip;; s += step) {
            chain.push_back(m_sips[s].io_cpu);
            if (s == to_sip) break;
        }
        return chain;
    };

    if (fi.pe >= 0 && fi.pe == ti.pe && fi.cube == ti.cube) {
        std::vector<RoutedNode*> inside = pe_internal_path(from, to);
        if (!inside.empty()) return inside;
    }

    const bool from_io = fi.cube < 0;
    const bool to_io = ti.cube < 0;
    if (from_io && to_io) return sip_chain(fi.sip, ti.sip);
    if (from_io) {
        RoutedNode& m_cpu = *global_cube(ti.cube).m_cpu;
        std::vector<RoutedNode*> head = sip_chain(fi.sip, ti.sip);
        head.push_back(&m_cpu);
        return join(head, node_path(m_cpu, to));
    }
    if (to_io) {
        RoutedNode& m_cpu = *global_cube(fi.cube).m_cpu;
        std::vector<RoutedNode*> tail{&m_cpu};
        for (RoutedNode* n : sip_chain(fi.sip, ti.sip)) tail.push_back(n);
        return join(node_path(from, m_cpu), tail);
    }
    if (fi.router < 0 || ti.router < 0) return {};  // a PE-internal node off its PE

    std::vector<RoutedNode*> path{&from};
    if (fi.cube == ti.cube) {
        append_mesh(path, fi.cube, fi.router, ti.router);
    } else if (fi.sip == ti.sip) {
        const int ucie_router = m_topo.system.ucie.router;
        append_mesh(path, fi.cube, fi.router, ucie_router);
        const int step = ti.cube > fi.cube ? 1 : -1;
        for (int c = fi.cube;; c += step) {
            path.push_back(global_cube(c).ucie);
            if (c == ti.cube) break;
        }
        append_mesh(path, ti.cube, ucie_router, ti.router);
    } else {
        RoutedNode& m_from = *global_cube(fi.cube).m_cpu;
        RoutedNode& m_to = *global_cube(ti.cube).m_cpu;
        std::vector<RoutedNode*> middle{&m_from};
        for (RoutedNode* n : sip_chain(fi.sip, ti.sip)) middle.push_back(n);
        middle.push_back(&m_to);
        return join(join(node_path(from, m_from), middle), node_path(m_to, to));
    }
    path.push_back(&to);
    return path;
}

Route& Platform::make_route(const std::string& key, const std::vector<RoutedNode*>& nodes,
                            const std::vector<Hop*>& head, const std::vector<Hop*>& tail,
                            bool data_back) {
    auto route = std::make_unique<Route>();
    for (Hop* hop : head) route->steps.push_back({hop, 0});
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        PathNode step{nodes[i], -1};
        if (i + 1 < nodes.size()) {
            const Link* l = link(*nodes[i], *nodes[i + 1]);
            if (!l)
                throw std::logic_error("route " + key + ": no link " + nodes[i]->node_id() +
                                       " -> " + nodes[i + 1]->node_id());
            step.out_port = l->out_port;
            const Link* data = data_back ? link(*nodes[i + 1], *nodes[i]) : l;
            if (!data)
                throw std::logic_error("route " + key + ": no link " + nodes[i + 1]->node_id() +
                                       " -> " + nodes[i]->node_id());
            route->steps.push_back({data->hop.get(), static_cast<std::uint32_t>(i)});
        }
        if (i > 0) step.in_port = link(*nodes[i - 1], *nodes[i])->in_port;
        route->path.push_back(step);
    }
    if (Hop* service = nodes.back()->service_hop())
        route->steps.push_back({service, static_cast<std::uint32_t>(nodes.size() - 1)});
    for (Hop* hop : tail)
        route->steps.push_back({hop, static_cast<std::uint32_t>(nodes.size())});
    route->finalise();
    Route& result = *route;
    m_routes[key] = std::move(route);
    return result;
}

const Route& Platform::route(RoutedNode& from, RoutedNode& to) {
    const Route*& known = m_route_by_ends[{&from, &to}];
    if (known != nullptr) return *known;
    const std::string key = from.node_id_ref() + "->" + to.node_id_ref();
    auto it = m_routes.find(key);
    if (it != m_routes.end()) return *(known = it->second.get());
    const std::vector<RoutedNode*> nodes = node_path(from, to);
    if (nodes.empty())  // (the index keeps a null entry: asked again, this throws again)
        throw std::invalid_argument("no route from " + from.node_id() + " to " + to.node_id() +
                                    ": " + from.node_id() + " only reaches the nodes of its PE");
    return *(known = &make_route(key, nodes, {}, {}));
}

const Route& Platform::read_route(RoutedNode& from, RoutedNode& to) {
    const Route*& known = m_read_route_by_ends[{&from, &to}];
    if (known != nullptr) return *known;
    const std::string key = "read:" + from.node_id_ref() + "->" + to.node_id_ref();
    auto it = m_routes.find(key);
    if (it != m_routes.end()) return *(known = it->second.get());
    const std::vector<RoutedNode*> nodes = node_path(from, to);
    if (nodes.empty())
        throw std::invalid_argument("no route from " + from.node_id() + " to " + to.node_id());
    return *(known = &make_route(key, nodes, {}, {}, true));
}

RoutedNode& Platform::node(NodeRole role, int sip, int cube, int pe) {
    switch (role) {
    case NodeRole::io_cpu: return *m_sips.at(sip).io_cpu;
    case NodeRole::m_cpu: return *this->cube(sip, cube).m_cpu;
    case NodeRole::pe_cpu: return this->pe(sip, cube, pe).cpu();
    case NodeRole::pe_mmu: return this->pe(sip, cube, pe).mmu();
    case NodeRole::hbm_slice: return *this->cube(sip, cube).hbm.at(pe);
    }
    throw std::logic_error("unknown node role");
}

const Route& Platform::route(const std::string& from, const std::string& to) {
    RoutedNode* a = find(from);
    RoutedNode* b = find(to);
    if (!a) throw std::invalid_argument("unknown node id '" + from + "'");
    if (!b) throw std::invalid_argument("unknown node id '" + to + "'");
    return route(*a, *b);
}

const Route& Platform::dma_route(Pe& pe, DmaDirection dir, int channel, RoutedNode& target) {
    const bool read = dir == DmaDirection::read;
    const std::string key = std::string(read ? "dma.rd" : "dma.wr") + std::to_string(channel) +
                            ":" + pe.dma().node_id_ref() + "->" + target.node_id_ref();
    auto it = m_routes.find(key);
    if (it != m_routes.end()) return *it->second;
    const std::vector<RoutedNode*> nodes = node_path(pe.dma(), target);
    if (nodes.empty())
        throw std::invalid_argument("no DMA route from " + pe.dma().node_id() + " to " +
                                    target.node_id());
    Hop* channel_hop = &pe.dma().channel_hop(dir, channel);
    // The data of a read comes back from the target: reverse-direction links.
    if (read) return make_route(key, nodes, {channel_hop}, {&pe.tcm().write_port()}, true);
    return make_route(key, nodes, {&pe.tcm().read_port(), channel_hop}, {});
}

}  // namespace npuvp
