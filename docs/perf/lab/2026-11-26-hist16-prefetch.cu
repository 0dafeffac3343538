// Lab probe, not part of the build: the same 65536-bin kernel as 2026-11-26-hist16-direct.cu
// (batched checks, flat groups and one-value warps added at once) with word and field by
// constants, two loads in flight; the same fed by a cp.async pipeline of 3, 4 or 6 stages in the
// shared memory the histogram leaves free (so that loads are in flight without registers); and
// word and field by runtime shifts with a range check (what a general power-of-two rule costs).
// Results: docs/PERFORMANCE.md, "65536 bins at 2 TB/s".
//   nvcc -O3 -std=c++20 -arch=sm_90 2026-11-26-hist16-prefetch.cu -o h16p && ./h16p
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

struct Rule {
    std::uint32_t span;
    int shift;
    int fshift;
    std::uint32_t mask, words, bins;
};

__device__ __forceinline__ void account(std::uint32_t old, std::uint32_t field, std::uint32_t word,
                                        std::uint32_t words, unsigned long long* counts) {
    atomicAdd(counts + field * words + word, 1ull << 16);
    if (field == 0) {
        atomicAdd(counts + words + word, ~0ull);
        if ((old >> 16) == 0xFFFFu) atomicAdd(counts + words + word, 1ull << 16);
    }
}

// Kind: 0 const identity 65536; 1 runtime pow2 with range check; 2 runtime pow2 full range (no
// check)
template <int Kind, int InFlight>
__global__ void __launch_bounds__(1024, 1)
    hist(const uint4* in, std::uint64_t groups, Rule r, unsigned long long* counts) {
    extern __shared__ std::uint32_t h[];
    const std::uint32_t words = Kind == 0 ? 32768u : r.words;
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) h[i] = 0;
    __syncthreads();
    // increment and word of value v (inc 0: not counted)
    const auto slot = [&](std::uint32_t v, std::uint32_t& word,
                          std::uint32_t& sh) -> std::uint32_t {
        if (Kind == 0) {
            word = v & 32767u;
            sh = (v >> 11) & 16u;
            return 1u << sh;
        }
        word = (v >> r.shift) & r.mask;
        sh = ((v >> r.fshift) & 1u) << 4;
        if (Kind == 1) return v < r.span ? 1u << sh : 0u;
        return 1u << sh;
    };
    const auto add = [&](std::uint32_t v, std::uint32_t n) {
        std::uint32_t word, sh;
        const std::uint32_t inc = slot(v, word, sh) * n;
        const std::uint32_t old = atomicAdd(h + word, inc);
        if (inc && ((old >> sh) & 0xFFFFu) + n > 0xFFFFu)
            account(old, sh >> 4, word, words, counts);
    };
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (std::uint64_t g0 = first; g0 < groups; g0 += InFlight * step) {
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
            }
        }
#pragma unroll
        for (int u = 0; u < InFlight; ++u) {
            if (!have[u]) continue;
            const std::uint32_t v0 = w[u][0] & 0xFFFFu;
            const std::uint32_t splat = v0 * 0x00010001u;
            if (w[u][0] == splat && w[u][1] == splat && w[u][2] == splat && w[u][3] == splat) {
                if (__activemask() == 0xFFFFFFFFu) {
                    const std::uint32_t lead = __shfl_sync(0xFFFFFFFFu, v0, 0);
                    if (__all_sync(0xFFFFFFFFu, v0 == lead)) {
                        if ((threadIdx.x & 31u) == 0) add(lead, 256u);
                        continue;
                    }
                }
                add(v0, 8);
                continue;
            }
            std::uint32_t old[8], wd[8], sh[8], inc[8];
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                inc[k] = slot((w[u][k >> 1] >> ((k & 1) * 16)) & 0xFFFFu, wd[k], sh[k]);
                old[k] = atomicAdd(h + wd[k], inc[k]);
            }
            bool wrap = false;
#pragma unroll
            for (int k = 0; k < 8; ++k)
                wrap |= inc[k] != 0 && ((old[k] >> sh[k]) & 0xFFFFu) == 0xFFFFu;
            if (wrap) {
#pragma unroll
                for (int k = 0; k < 8; ++k)
                    if (inc[k] != 0 && ((old[k] >> sh[k]) & 0xFFFFu) == 0xFFFFu)
                        account(old[k], sh[k] >> 4, wd[k], words, counts);
            }
        }
    }
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) {
        const std::uint32_t val = h[i];
        if (val & 0xFFFFu) atomicAdd(counts + i, val & 0xFFFFu);
        if ((val >> 16) && i + words < (Kind == 0 ? 65536u : r.bins))
            atomicAdd(counts + i + words, val >> 16);
    }
}

#include <cuda_pipeline.h>
template <int Stages>
__global__ void __launch_bounds__(1024, 1)
    histp(const uint4* in, std::uint64_t groups, Rule r, unsigned long long* counts) {
    extern __shared__ std::uint32_t h[];
    constexpr std::uint32_t words = 32768u;
    uint4* stage = reinterpret_cast<uint4*>(h + words);
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) h[i] = 0;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::uint32_t bd = blockDim.x, tid = threadIdx.x;
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
        const std::uint64_t g = first + s * step;
        if (g < groups) __pipeline_memcpy_async(stage + s * bd + tid, in + g, 16);
        __pipeline_commit();
    }
    __syncthreads();
    const auto add = [&](std::uint32_t v, std::uint32_t n) {
        const std::uint32_t word = v & 32767u, sh = (v >> 11) & 16u;
        const std::uint32_t old = atomicAdd(h + word, n << sh);
        if (((old >> sh) & 0xFFFFu) + n > 0xFFFFu) account(old, sh >> 4, word, words, counts);
    };
    int slot = 0;
    for (std::uint64_t g = first; g < groups; g += step) {
        {
            const std::uint64_t gn = g + (Stages - 1) * step;
            int sn = slot + Stages - 1;
            if (sn >= Stages) sn -= Stages;
            if (gn < groups) __pipeline_memcpy_async(stage + sn * bd + tid, in + gn, 16);
            __pipeline_commit();
        }
        __pipeline_wait_prior(Stages - 1);
        const uint4 x = stage[slot * bd + tid];
        if (++slot == Stages) slot = 0;
        const std::uint32_t w[4] = {x.x, x.y, x.z, x.w};
        const std::uint32_t v0 = w[0] & 0xFFFFu;
        const std::uint32_t splat = v0 * 0x00010001u;
        if (w[0] == splat && w[1] == splat && w[2] == splat && w[3] == splat) {
            add(v0, 8);
            continue;
        }
        std::uint32_t old[8], wd[8], sh[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const std::uint32_t v = (w[k >> 1] >> ((k & 1) * 16)) & 0xFFFFu;
            wd[k] = v & 32767u;
            sh[k] = (v >> 11) & 16u;
            old[k] = atomicAdd(h + wd[k], 1u << sh[k]);
        }
        bool wrap = false;
#pragma unroll
        for (int k = 0; k < 8; ++k) wrap |= ((old[k] >> sh[k]) & 0xFFFFu) == 0xFFFFu;
        if (wrap) {
#pragma unroll
            for (int k = 0; k < 8; ++k)
                if (((old[k] >> sh[k]) & 0xFFFFu) == 0xFFFFu)
                    account(old[k], sh[k] >> 4, wd[k], words, counts);
        }
    }
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) {
        const std::uint32_t val = h[i];
        if (val & 0xFFFFu) atomicAdd(counts + i, val & 0xFFFFu);
        if (val >> 16) atomicAdd(counts + i + words, val >> 16);
    }
}

int main() {
    const std::uint64_t n = 128ull << 20;
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
        int bits;
        int binbits;
    };
    const V vs[] = {
        {"const 65536, 2 in flight", (const void*)&hist<0, 2>, 16, 16},
        {"cp.async 3 stages", (const void*)&histp<3>, 16, 16},
        {"cp.async 4 stages", (const void*)&histp<4>, 16, 16},
        {"cp.async 6 stages", (const void*)&histp<6>, 16, 16},
        {"rt checked 65536, 2", (const void*)&hist<1, 2>, 16, 16},
    };
    const char* dn[] = {"uniform", "gauss:1000", "one value", "photo-ish"};
    for (int dist = 0; dist < 4; ++dist) {
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        for (const V& v : vs) {
            std::mt19937 rng(7);
            std::normal_distribution<double> gauss(32768.0, 1000.0);
            for (std::uint64_t i = 0; i < n; ++i) {
                auto& s = host[i];
                if (dist == 0)
                    s = static_cast<std::uint16_t>(rng() >> 16);
                else if (dist == 1)
                    s = static_cast<std::uint16_t>(std::clamp(std::lround(gauss(rng)), 0l, 65535l));
                else if (dist == 2)
                    s = 12345;
                else
                    s = (i / 64) % 7 == 0 ? static_cast<std::uint16_t>(rng() >> 16)
                                          : static_cast<std::uint16_t>((i >> 12) * 257);
                if (v.bits == 12 && dist != 0 && dist != 2)
                    s >>= 4;  // mostly in range, uniform keeps out-of-range values
            }
            const std::uint32_t span = 1u << v.bits, bins = 1u << v.binbits;
            const int shift = v.bits - v.binbits;
            Rule r{span, shift, v.bits - 1, bins / 2 - 1, bins / 2, bins};
            std::fill(want.begin(), want.end(), 0ull);
            for (auto s : host)
                if (s < span) ++want[s >> shift];
            CK(cudaMemcpy(dev, host.data(), n * 2, cudaMemcpyHostToDevice));
            const uint4* in = reinterpret_cast<const uint4*>(dev);
            const std::uint64_t groups = n / 8;
            const std::size_t smem = 32768 * 4 + 6 * 16 * 1024;
            CK(cudaFuncSetAttribute(v.k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            auto launch = [&] {
                CK(cudaMemsetAsync(counts, 0, 65536 * 8));
                void* args[] = {(void*)&in, (void*)&groups, (void*)&r, (void*)&counts};
                CK(cudaLaunchKernel(v.k, dim3(sms), dim3(1024), args, smem, 0));
            };
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
            std::printf("%-11s %-30s %8.1f us %6.2f TB/s %s\n", dn[dist], v.name, ms[10] * 1000,
                        n * 2 / (ms[10] * 1e-3) / 1e12, got == want ? "exact" : "WRONG");
        }
    }
}
