// Lab probe, not part of the build: 65536-bin histograms of 16-bit samples (128 Mi samples,
// uniform, gauss:1000 around 32768, one value), minimal one-tile kernels in shared memory with
// 16- or 8-bit packed counters (the wrap of a field carried into its neighbour taken back in
// the global counts), timed with events (medians of 20) and checked against a host count.
// Results and what they say: docs/PERFORMANCE.md, "the performance frontier".
//   nvcc -O3 -std=c++20 -arch=sm_90 2026-11-26-hist16-variants.cu -o h16 && ./h16
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#define CK(x)                                                                  \
    do {                                                                       \
        cudaError_t e = (x);                                                   \
        if (e != cudaSuccess) {                                                \
            std::printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

// W-bit fields, F = 32 / W per word; bin b -> word b mod n, field b / n (n = 65536 / F).
template <int W>
__device__ __forceinline__ void account(std::uint32_t old, std::uint32_t field, std::uint32_t word,
                                        std::uint32_t words, unsigned long long* counts) {
    constexpr int F = 32 / W;
    constexpr std::uint32_t kMax = (1u << W) - 1u;
    for (std::uint32_t j = field; j < F;) {
        const std::uint32_t b = j * words + word;
        atomicAdd(counts + b, 1ull << W);
        if (++j == F) break;
        atomicAdd(counts + b + words, ~0ull);
        if (((old >> (j * W)) & kMax) != kMax) break;
    }
}

template <int W, int InFlight, bool Uniform, bool Return, bool Adjacent, int MinBlocks = 1>
__global__ void __launch_bounds__(1024, MinBlocks)
    hist16(const uint4* in, std::uint64_t groups, unsigned long long* counts) {
    extern __shared__ std::uint32_t h[];
    constexpr int F = 32 / W;
    constexpr std::uint32_t words = 65536 / F;
    constexpr std::uint32_t kMax = (1u << W) - 1u;
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) h[i] = 0;
    __syncthreads();
    const auto count = [&](std::uint32_t v, std::uint32_t n) {
        std::uint32_t word, field;
        if (Adjacent) {
            word = v / F;
            field = v % F;
        } else {
            field = v / words;
            word = v - field * words;
        }
        const std::uint32_t shift = field * W;
        if (Return) {
            const std::uint32_t old = atomicAdd(h + word, n << shift);
            if (((old >> shift) & kMax) + n > kMax) {
                if (Adjacent) {
                    // fields of a word are bins word*F + j
                    for (std::uint32_t j = field; j < F;) {
                        const std::uint32_t b = word * F + j;
                        atomicAdd(counts + b, 1ull << W);
                        if (++j == F) break;
                        atomicAdd(counts + b + 1, ~0ull);
                        if (((old >> (j * W)) & kMax) != kMax) break;
                    }
                } else {
                    account<W>(old, field, word, words, counts);
                }
            }
        } else {
            atomicAdd(h + word, n << shift);
        }
    };
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (std::uint64_t g0 = first, wg = first - (threadIdx.x & 31u); wg < groups;
         g0 += InFlight * step, wg += InFlight * step) {
        std::uint32_t w[InFlight][4];
        bool have[InFlight];
#pragma unroll
        for (int u = 0; u < InFlight; ++u) {
            const std::uint64_t g = g0 + u * step;
            have[u] = g < groups;
            if (have[u]) {
                const uint4 x = __ldg(in + g);
                w[u][0] = x.x;
                w[u][1] = x.y;
                w[u][2] = x.z;
                w[u][3] = x.w;
            } else {
                w[u][0] = w[u][1] = w[u][2] = w[u][3] = 0;
            }
        }
#pragma unroll
        for (int u = 0; u < InFlight; ++u) {
            if (Uniform) {
                const std::uint32_t v0 = w[u][0] & 0xFFFFu;
                const std::uint32_t splat = v0 * 0x00010001u;
                const bool same = have[u] && w[u][0] == splat && w[u][1] == splat &&
                                  w[u][2] == splat && w[u][3] == splat;
                const std::uint32_t lead = __shfl_sync(0xFFFFFFFFu, v0, 0);
                if (__all_sync(0xFFFFFFFFu, same && v0 == lead)) {
                    if ((threadIdx.x & 31u) == 0) {
                        for (std::uint32_t n = 256; n > 0;) {
                            const std::uint32_t part = min(n, kMax);
                            count(lead, part);
                            n -= part;
                        }
                    }
                    continue;
                }
            }
            if (!have[u]) continue;
#pragma unroll
            for (int k = 0; k < 8; ++k) count((w[u][k >> 1] >> ((k & 1) * 16)) & 0xFFFFu, 1);
        }
    }
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) {
        const std::uint32_t val = h[i];
        for (int j = 0; j < F; ++j) {
            const std::uint32_t f = (val >> (j * W)) & kMax;
            const std::uint32_t b = Adjacent ? i * F + j : j * words + i;
            if (f) atomicAdd(counts + b, f);
        }
    }
}

int main() {
    const std::uint64_t n = 128ull << 20;  // samples
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    std::vector<std::uint16_t> host(n);
    std::uint16_t* dev;
    CK(cudaMalloc(&dev, n * 2));
    unsigned long long* counts;
    CK(cudaMalloc(&counts, 65536 * 8));
    std::vector<unsigned long long> got(65536), want(65536);
    struct V {
        const char* name;
        const void* k;
        int W;
        bool exact_any;
    };
    const V vs[] = {
        {"w16 4 in flight", (const void*)&hist16<16, 4, false, true, false>, 16, true},
        {"w16 4 in flight + uniform warps", (const void*)&hist16<16, 4, true, true, false>, 16,
         true},
        {"w16 8 in flight", (const void*)&hist16<16, 8, false, true, false>, 16, true},
        {"w8 2 in flight", (const void*)&hist16<8, 2, false, true, false>, 8, true},
        {"w8 4 in flight, 2 blk/SM forced", (const void*)&hist16<8, 4, false, true, false, 2>, 8,
         true},
        {"w8 4 in flight 2blk + uniform warps", (const void*)&hist16<8, 4, true, true, false, 2>, 8,
         true},
        {"w16 no return 4 in flight (unsafe)", (const void*)&hist16<16, 4, false, false, false>, 16,
         false},
    };
    for (int dist = 0; dist < 3; ++dist) {
        std::mt19937 rng(7);
        std::normal_distribution<double> gauss(32768.0, 1000.0);
        for (auto& s : host) {
            if (dist == 0)
                s = static_cast<std::uint16_t>(rng() >> 16);
            else if (dist == 1)
                s = static_cast<std::uint16_t>(std::clamp(std::lround(gauss(rng)), 0l, 65535l));
            else
                s = 12345;
        }
        std::fill(want.begin(), want.end(), 0ull);
        for (auto s : host) ++want[s];
        CK(cudaMemcpy(dev, host.data(), n * 2, cudaMemcpyHostToDevice));
        const char* dn[] = {"uniform", "gauss:1000", "one value"};
        for (const V& v : vs) {
            const std::size_t smem = 65536 / (32 / v.W) * 4;
            CK(cudaFuncSetAttribute(v.k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            int per_sm = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.k, 1024, smem));
            const int blocks = sms * per_sm;
            const std::uint64_t groups = n / 8;
            const uint4* in = reinterpret_cast<const uint4*>(dev);
            auto launch = [&] {
                CK(cudaMemsetAsync(counts, 0, 65536 * 8));
                void* args[] = {(void*)&in, (void*)&groups, (void*)&counts};
                CK(cudaLaunchKernel(v.k, dim3(blocks), dim3(1024), args, smem, 0));
            };
            cudaEvent_t e0, e1;
            CK(cudaEventCreate(&e0));
            CK(cudaEventCreate(&e1));
            for (int i = 0; i < 3; ++i) launch();
            std::vector<float> ms;
            for (int i = 0; i < 20; ++i) {
                CK(cudaEventRecord(e0));
                launch();
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                float t;
                CK(cudaEventElapsedTime(&t, e0, e1));
                ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            CK(cudaMemcpy(got.data(), counts, 65536 * 8, cudaMemcpyDeviceToHost));
            const bool same = got == want;
            std::printf("%-11s %-34s %d blk/SM %8.1f us %6.2f TB/s %s\n", dn[dist], v.name, per_sm,
                        ms[10] * 1000, n * 2 / (ms[10] * 1e-3) / 1e12,
                        same ? "exact" : (v.exact_any ? "WRONG" : "wrong (unsafe variant)"));
        }
    }
}
