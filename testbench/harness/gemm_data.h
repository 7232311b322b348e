// Data-mode tests (docs/workload.md "Operand data"): a GEMM + bias + ReLU
// written the test's own way — int8 matrices from the test's generator, laid
// out tile-major as docs/timing.md "Tile addresses" places the tiles (each
// tile row-major inside), and the expected output computed with plain int64
// loops — independent of the platform's code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "modules/pe/data_spec.h"

namespace npuvp::test {

// [addr, + bytes) of HBM, as a data-mode region.
inline DataRegion hbm_region(std::uint64_t addr, std::uint64_t bytes) {
    DataRegion r;
    r.space = DataSpace::hbm;
    r.addr = addr;
    r.bytes = bytes;
    return r;
}

struct GemmData {
    std::uint64_t M, K, N, tm, tk, tn;
    std::vector<std::int8_t> a, b;    // row-major M×K, K×N
    std::vector<std::int32_t> bias;   // N

    // A's bytes in memory: tile (mi, ki) at mi·tm·K + ki·tk·tm', tm' × tk'
    // row-major (' = clipped at the edge).
    std::vector<std::uint8_t> a_bytes() const {
        std::vector<std::uint8_t> out(M * K);
        for (std::uint64_t mi = 0; mi * tm < M; ++mi)
            for (std::uint64_t ki = 0; ki * tk < K; ++ki) {
                const std::uint64_t rows = std::min(tm, M - mi * tm), cols = std::min(tk, K - ki * tk);
                const std::uint64_t at = mi * tm * K + ki * tk * rows;
                for (std::uint64_t r = 0; r < rows; ++r)
                    for (std::uint64_t c = 0; c < cols; ++c)
                        out[at + r * cols + c] = static_cast<std::uint8_t>(a[(mi * tm + r) * K + ki * tk + c]);
            }
        return out;
    }
    // B's: tile (ki, ni) at ki·tk·N + ni·tn·tk', tk' × tn' row-major.
    std::vector<std::uint8_t> b_bytes() const {
        std::vector<std::uint8_t> out(K * N);
        for (std::uint64_t ki = 0; ki * tk < K; ++ki)
            for (std::uint64_t ni = 0; ni * tn < N; ++ni) {
                const std::uint64_t rows = std::min(tk, K - ki * tk), cols = std::min(tn, N - ni * tn);
                const std::uint64_t at = ki * tk * N + ni * tn * rows;
                for (std::uint64_t r = 0; r < rows; ++r)
                    for (std::uint64_t c = 0; c < cols; ++c)
                        out[at + r * cols + c] = static_cast<std::uint8_t>(b[(ki * tk + r) * N + ni * tn + c]);
            }
        return out;
    }
    std::vector<std::uint8_t> bias_bytes() const {
        std::vector<std::uint8_t> out(4 * N);
        for (std::uint64_t j = 0; j < N; ++j)
            for (int byte = 0; byte < 4; ++byte)
                out[4 * j + byte] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(bias[j]) >> (8 * byte));
        return out;
    }
    // C[i][j] = max(0, clamp32(sum_p A[i][p]·B[p][j] + bias[j])), int64 loops,
    // as int32 bytes in C's tile-major layout: tile (mi, ni) at
    // mi·tm·N + ni·tn·tm', tm' × tn' row-major.
    std::vector<std::uint8_t> expected_c_bytes(bool with_bias_relu = true) const {
        std::vector<std::uint8_t> out(4 * M * N);
        for (std::uint64_t i = 0; i < M; ++i)
            for (std::uint64_t j = 0; j < N; ++j) {
                std::int64_t sum = 0;
                for (std::uint64_t p = 0; p < K; ++p) sum += std::int64_t{a[i * K + p]} * std::int64_t{b[p * N + j]};
                if (with_bias_relu) {
                    sum = std::clamp<std::int64_t>(sum + bias[j], INT32_MIN, INT32_MAX);
                    sum = std::max<std::int64_t>(sum, 0);
                }
                const std::uint64_t mi = i / tm, ni = j / tn, r = i % tm, c = j % tn;
                const std::uint64_t rows = std::min(tm, M - mi * tm), cols = std::min(tn, N - ni * tn);
                const std::uint64_t at = mi * tm * N + ni * tn * rows + r * cols + c;
                for (int byte = 0; byte < 4; ++byte)
                    out[4 * at + byte] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(sum) >> (8 * byte));
            }
        return out;
    }
};

// Full-range int8 operands and a bias in [-20000, 20000] from std::mt19937
// (its output is fixed by the standard).
inline GemmData random_gemm(std::uint32_t seed, std::uint64_t M, std::uint64_t K, std::uint64_t N, std::uint64_t tm,
                            std::uint64_t tk, std::uint64_t tn) {
    std::mt19937 rng(seed);
    GemmData g{M, K, N, tm, tk, tn, {}, {}, {}};
    g.a.resize(M * K);
    g.b.resize(K * N);
    g.bias.resize(N);
    for (auto& x : g.a) x = static_cast<std::int8_t>(static_cast<std::uint8_t>(rng() >> 24));
    for (auto& x : g.b) x = static_cast<std::int8_t>(static_cast<std::uint8_t>(rng() >> 24));
    for (auto& x : g.bias) x = static_cast<std::int32_t>(rng() % 40001) - 20000;
    return g;
}

inline void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The GEMM + bias + ReLU composite on pe0 of sip0.cube0 with its data from
// files `prefix`_a.bin, _b.bin, _bias.bin (written here) and C dumped to
// `prefix`_c.bin: A at 0x0, B right after it (M·K), C at 0x100000, the bias
// at TCM offset 0x900000 (AllocatableTCM of default.yaml's 32 MiB TCM).
inline std::string gemm_bias_relu_workload(const GemmData& g, const std::string& prefix) {
    write_bytes(prefix + "_a.bin", g.a_bytes());
    write_bytes(prefix + "_b.bin", g.b_bytes());
    write_bytes(prefix + "_bias.bin", g.bias_bytes());
    const auto s = [](std::uint64_t v) { return std::to_string(v); };
    return "name: " + prefix + "\n"
           "kernels:\n"
           "  k:\n"
           "    - composite:\n"
           "        id: fc\n"
           "        gemm: { m: " + s(g.M) + ", k: " + s(g.K) + ", n: " + s(g.N) + " }\n"
           "        tile: { m: " + s(g.tm) + ", k: " + s(g.tk) + ", n: " + s(g.tn) + " }\n"
           "        dtype: { in: int8, out: int32 }\n"
           "        epilogues:\n"
           "          - { op: bias_add, scope: per_output_tile, operand: 0x900000 }\n"
           "          - { op: relu, scope: per_output_tile }\n"
           "        src: { pa: 0x0 }\n"
           "        dst: { pa: 0x100000 }\n"
           "        wait: true\n"
           "launch:\n"
           "  - { kernel: k, cube: sip0.cube0, pes: [0] }\n"
           "data:\n"
           "  - { hbm: 0x0, bytes: " + s(g.M * g.K) + ", from: { file: " + prefix + "_a.bin } }\n"
           "  - { hbm: " + s(g.M * g.K) + ", bytes: " + s(g.K * g.N) + ", from: { file: " + prefix + "_b.bin } }\n"
           "  - { tcm: 0x900000, pe: 0, dtype: int32, shape: [" + s(g.N) + "], from: { file: " + prefix + "_bias.bin } }\n"
           "dump:\n"
           "  - { hbm: 0x100000, dtype: int32, shape: [" + s(g.M) + ", " + s(g.N) + "], file: " + prefix + "_c.bin }\n";
}

}  // namespace npuvp::test
