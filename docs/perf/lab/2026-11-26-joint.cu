// Lab: joint RGB histogram, 2^24 bins of 64-bit counts, one 4K RGB frame.
// V0: memset 128 MiB + 64-bit global atomics (today's global-atomic).
// V1: 16-bit halves of 32-bit words (32 MiB, L2-resident) + overflow list, then one pass that
//     widens to 64-bit, zeroes the words and (last block) applies the overflow list.
// V2: V1 with streaming (evict-first) image loads. V3: V1 + warp-uniform fast path.
// V4: V1 + __match_any_sync aggregation. V5: 32-bit atomics in 64 MiB + widen.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#define CK(x)                                                                   \
    do {                                                                        \
        cudaError_t err_ = (x);                                                 \
        if (err_ != cudaSuccess) {                                              \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

constexpr unsigned kBins = 1u << 24;
constexpr unsigned kWords = kBins / 2;

struct Overflow {
    unsigned* count;  // [0] entries, [1] ticket of the widening pass
    unsigned* bin;
    int* delta;
    unsigned cap;
};

__device__ __forceinline__ void record(const Overflow& ov, unsigned bin, int d) {
    const unsigned slot = atomicAdd(ov.count, 1u);
    if (slot < ov.cap) {
        ov.bin[slot] = bin;
        ov.delta[slot] = d;
    }
}

// Adds k to the 16-bit counter of bin v (half v & 1 of word v >> 1), exactly: a wrap of the low
// half carries into the high one, taken back; a carry out of (borrow into) the 32-bit word
// counts 65536 more (less) for the high bin.
__device__ __forceinline__ void add_packed(unsigned* words, unsigned v, unsigned k,
                                           const Overflow& ov) {
    const unsigned half = v & 1u;
    const unsigned delta = k << (16 * half);
    unsigned* w = words + (v >> 1);
    const unsigned old = atomicAdd(w, delta);
    if (half == 0) {
        if ((old & 0xFFFFu) + k > 0xFFFFu) {
            record(ov, v, 1);
            const unsigned o2 = atomicSub(w, 0x10000u);
            if (o2 < 0x10000u) record(ov, v | 1u, -1);
        }
        if (old + delta < old) record(ov, v | 1u, 1);
    } else if (old + delta < old) {
        record(ov, v, 1);
    }
}

__device__ __forceinline__ unsigned byte_of(const unsigned* w, int j) {
    return (w[j >> 2] >> ((j & 3) * 8)) & 0xFFu;
}

template <int MODE, bool STREAM>  // MODE 0 plain, 1 warp-uniform fast path, 2 match_any
__global__ void __launch_bounds__(512)
    hist_packed(const uint4* in, unsigned long long groups, unsigned long long pixels,
                unsigned* words, Overflow ov) {
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         g < groups + (step - groups % step) % step; g += step) {
        const bool live = g < groups;
        unsigned w[12];
        if (live) {
#pragma unroll
            for (int q = 0; q < 3; ++q) {
                const uint4 v = STREAM ? __ldcs(in + g * 3 + q) : __ldg(in + g * 3 + q);
                w[4 * q] = v.x;
                w[4 * q + 1] = v.y;
                w[4 * q + 2] = v.z;
                w[4 * q + 3] = v.w;
            }
        }
#pragma unroll
        for (int p = 0; p < 16; ++p) {
            const bool ok = live && g * 16 + p < pixels;
            const unsigned v =
                (byte_of(w, 3 * p) << 16) | (byte_of(w, 3 * p + 1) << 8) | byte_of(w, 3 * p + 2);
            if constexpr (MODE == 0) {
                if (ok) add_packed(words, v, 1, ov);
            } else if constexpr (MODE == 1) {
                const unsigned active = __ballot_sync(0xFFFFFFFFu, ok);
                const unsigned first = __shfl_sync(0xFFFFFFFFu, v, __ffs(active | 1u) - 1);
                if (active == 0xFFFFFFFFu && __all_sync(0xFFFFFFFFu, v == first)) {
                    if ((threadIdx.x & 31) == 0) add_packed(words, v, 32, ov);
                } else if (ok) {
                    add_packed(words, v, 1, ov);
                }
            } else {
                const unsigned active = __ballot_sync(0xFFFFFFFFu, ok);
                if (ok) {
                    const unsigned peers = __match_any_sync(active, v);
                    if ((threadIdx.x & 31) == __ffs(peers) - 1)
                        add_packed(words, v, __popc(peers), ov);
                }
            }
        }
    }
}

// Widens every word to two 64-bit counts, zeroes the words; the last block applies the list.
__global__ void __launch_bounds__(256)
    widen(uint4* words, unsigned n4, ulonglong2* out, Overflow ov, unsigned long long* out64) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        const uint4 w = words[i];
        words[i] = make_uint4(0, 0, 0, 0);
        __stcs(out + 4 * i, make_ulonglong2(w.x & 0xFFFFu, w.x >> 16));
        __stcs(out + 4 * i + 1, make_ulonglong2(w.y & 0xFFFFu, w.y >> 16));
        __stcs(out + 4 * i + 2, make_ulonglong2(w.z & 0xFFFFu, w.z >> 16));
        __stcs(out + 4 * i + 3, make_ulonglong2(w.w & 0xFFFFu, w.w >> 16));
    }
    __shared__ unsigned ticket;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) ticket = atomicInc(ov.count + 1, gridDim.x - 1);
    __syncthreads();
    if (ticket != gridDim.x - 1) return;
    __threadfence();
    const unsigned n = min(*(volatile unsigned*)ov.count, ov.cap);
    for (unsigned e = threadIdx.x; e < n; e += blockDim.x)
        atomicAdd(out64 + ov.bin[e], (unsigned long long)((long long)ov.delta[e] * 65536));
    __syncthreads();
    if (threadIdx.x == 0) ov.count[0] = 0;
}

__global__ void __launch_bounds__(512)
    hist_u64(const uint4* in, unsigned long long groups, unsigned long long pixels,
             unsigned long long* counts) {
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         g < groups; g += step) {
        unsigned w[12];
#pragma unroll
        for (int q = 0; q < 3; ++q) {
            const uint4 v = __ldg(in + g * 3 + q);
            w[4 * q] = v.x;
            w[4 * q + 1] = v.y;
            w[4 * q + 2] = v.z;
            w[4 * q + 3] = v.w;
        }
#pragma unroll
        for (int p = 0; p < 16; ++p)
            if (g * 16 + p < pixels)
                atomicAdd(counts + ((byte_of(w, 3 * p) << 16) | (byte_of(w, 3 * p + 1) << 8) |
                                    byte_of(w, 3 * p + 2)),
                          1ull);
    }
}

__global__ void __launch_bounds__(512) hist_u32(const uint4* in, unsigned long long groups,
                                                unsigned long long pixels, unsigned* counts) {
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         g < groups; g += step) {
        unsigned w[12];
#pragma unroll
        for (int q = 0; q < 3; ++q) {
            const uint4 v = __ldcs(in + g * 3 + q);
            w[4 * q] = v.x;
            w[4 * q + 1] = v.y;
            w[4 * q + 2] = v.z;
            w[4 * q + 3] = v.w;
        }
#pragma unroll
        for (int p = 0; p < 16; ++p)
            if (g * 16 + p < pixels)
                atomicAdd(counts + ((byte_of(w, 3 * p) << 16) | (byte_of(w, 3 * p + 1) << 8) |
                                    byte_of(w, 3 * p + 2)),
                          1u);
    }
}

__global__ void __launch_bounds__(256) widen32(uint4* c, unsigned n4, ulonglong2* out) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        const uint4 w = c[i];
        c[i] = make_uint4(0, 0, 0, 0);
        __stcs(out + 2 * i, make_ulonglong2(w.x, w.y));
        __stcs(out + 2 * i + 1, make_ulonglong2(w.z, w.w));
    }
}

__global__ void __launch_bounds__(256)
    widen_c(const unsigned* words, unsigned n, unsigned* zero, ulonglong2* out) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned w = words[i];
        zero[i] = 0;
        __stcs(out + i, make_ulonglong2(w & 0xFFFFu, w >> 16));
    }
}

// 64-bit reductions (no return), one per run of equal colours among a thread's 16 pixels.
__global__ void __launch_bounds__(512)
    hist_u64_runs(const uint4* in, unsigned long long groups, unsigned long long pixels,
                  unsigned long long* counts) {
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         g < groups; g += step) {
        unsigned w[12];
#pragma unroll
        for (int q = 0; q < 3; ++q) {
            const uint4 v = __ldcs(in + g * 3 + q);
            w[4 * q] = v.x;
            w[4 * q + 1] = v.y;
            w[4 * q + 2] = v.z;
            w[4 * q + 3] = v.w;
        }
        const int live = (int)min(16ull, pixels - g * 16);
        unsigned run = (byte_of(w, 0) << 16) | (byte_of(w, 1) << 8) | byte_of(w, 2);
        unsigned n = 1;
#pragma unroll
        for (int p = 1; p < 16; ++p) {
            const unsigned v =
                (byte_of(w, 3 * p) << 16) | (byte_of(w, 3 * p + 1) << 8) | byte_of(w, 3 * p + 2);
            if (p < live) {
                if (v == run) {
                    ++n;
                } else {
                    atomicAdd(counts + run, (unsigned long long)n);
                    run = v;
                    n = 1;
                }
            }
        }
        atomicAdd(counts + run, (unsigned long long)n);
    }
}

// 8.3M atomics: MODE 0 RED.64 random in `span` words, 1 RED.32 random, 2 ATOM.32 with return,
// 3 RED.64 coalesced (lane i -> word base + i).
template <int MODE>
__global__ void __launch_bounds__(512)
    atomics(unsigned long long n, unsigned span, unsigned long long* c64, unsigned* c32,
            unsigned* sink) {
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    unsigned acc = 0;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += step) {
        unsigned h = (unsigned)(i * 2654435761ull >> 7);
        h = (h ^ (h >> 13)) * 0x5bd1e995u;
        const unsigned a = (h ^ (h >> 15)) & (span - 1);
        if (MODE == 0) atomicAdd(c64 + a, 1ull);
        if (MODE == 1) atomicAdd(c32 + a, 1u);
        if (MODE == 2) acc += atomicAdd(c32 + a, 1u);
        if (MODE == 3) atomicAdd(c64 + (i & (span - 1)), 1ull);
    }
    if (acc == 0xFFFFFFFFu) sink[0] = acc;
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv) {
    const int W = 3840, H = 2160;
    const unsigned long long pixels = (unsigned long long)W * H;
    const unsigned long long groups = (pixels + 15) / 16;
    const size_t padded = groups * 48;
    std::vector<unsigned char> photo(padded, 0);
    if (argc > 1) {
        FILE* f = fopen(argv[1], "rb");
        if (!f || fread(photo.data(), 1, pixels * 3, f) != pixels * 3) {
            printf("cannot read %s\n", argv[1]);
            return 1;
        }
        fclose(f);
    }
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int copies = 6;
    unsigned char* d_in;
    CK(cudaMalloc(&d_in, padded * copies));
    unsigned long long *d_out, *d_ref;
    CK(cudaMalloc(&d_out, kBins * 8ull));
    unsigned* d_words;
    CK(cudaMalloc(&d_words, kBins * 4ull));  // 64 MiB: 16-bit packed uses the first half
    CK(cudaMemset(d_words, 0, kBins * 4ull));
    Overflow ov;
    ov.cap = (unsigned)(4 * (pixels / 65536) + 64);
    CK(cudaMalloc(&ov.count, 8));
    CK(cudaMemset(ov.count, 0, 8));
    CK(cudaMalloc(&ov.bin, ov.cap * 4));
    CK(cudaMalloc(&ov.delta, ov.cap * 4));
    (void)d_ref;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<unsigned long long> ref(kBins), got(kBins);

    const char* inputs[] = {"photo", "one colour", "two colours, one word", "uniform"};
    for (int input = 0; input < 4; ++input) {
        if (input == 0 && argc < 2) continue;
        std::vector<unsigned char> img = photo;
        std::mt19937 rng(7);
        for (unsigned long long p = 0; p < pixels; ++p) {
            if (input == 1) {
                img[3 * p] = 200, img[3 * p + 1] = 100, img[3 * p + 2] = 50;
            } else if (input == 2) {
                img[3 * p] = 200, img[3 * p + 1] = 100, img[3 * p + 2] = 50 + (p & 1);
            } else if (input == 3) {
                const unsigned r = rng();
                img[3 * p] = r & 255, img[3 * p + 1] = (r >> 8) & 255, img[3 * p + 2] = r >> 16;
            }
        }
        std::fill(ref.begin(), ref.end(), 0);
        for (unsigned long long p = 0; p < pixels; ++p)
            ++ref[(img[3 * p] << 16) | (img[3 * p + 1] << 8) | img[3 * p + 2]];
        unsigned long long distinct = 0;
        for (auto c : ref) distinct += c != 0;
        for (int c = 0; c < copies; ++c)
            CK(cudaMemcpy(d_in + c * padded, img.data(), padded, cudaMemcpyHostToDevice));
        printf("== %s (%llu distinct colours)\n", inputs[input], distinct);

        auto time = [&](const char* name, auto&& once, bool check) {
            for (int i = 0; i < 3; ++i) once(i);
            CK(cudaStreamSynchronize(s));
            std::vector<double> ms;
            for (int i = 0; i < 20; ++i) {
                CK(cudaEventRecord(e0, s));
                once(i);
                CK(cudaEventRecord(e1, s));
                CK(cudaEventSynchronize(e1));
                float t;
                CK(cudaEventElapsedTime(&t, e0, e1));
                ms.push_back(t);
            }
            CK(cudaEventRecord(e0, s));
            for (int i = 0; i < 20; ++i) once(i);
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float b2b;
            CK(cudaEventElapsedTime(&b2b, e0, e1));
            CK(cudaGetLastError());
            bool exact = true;
            if (check) {
                CK(cudaMemcpy(got.data(), d_out, kBins * 8ull, cudaMemcpyDeviceToHost));
                exact = got == ref;
                unsigned n[2];
                CK(cudaMemcpy(n, ov.count, 8, cudaMemcpyDeviceToHost));
                if (n[0] != 0 || n[1] != 0) printf("  (overflow state left %u %u)\n", n[0], n[1]);
            }
            printf("  %-44s %8.1f us  b2b %8.1f us  %s\n", name, median(ms) * 1000, b2b / 20 * 1000,
                   check ? (exact ? "exact" : "WRONG") : "");
        };

        auto in = [&](int i) {
            return reinterpret_cast<const uint4*>(d_in + (size_t)(i % copies) * padded);
        };

        auto widen_launch = [&]() {
            widen<<<sms * 8, 256, 0, s>>>(reinterpret_cast<uint4*>(d_words), kWords / 4,
                                          reinterpret_cast<ulonglong2*>(d_out), ov, d_out);
        };
        if (input == 0) {
            const unsigned long long na = pixels;
            for (unsigned span : {1u << 17, 1u << 22, 1u << 24}) {
                char name[80];
                snprintf(name, sizeof name, "micro RED.64 random over %u words", span);
                time(
                    name,
                    [&](int) {
                        atomics<0>
                            <<<sms * 4, 512, 0, s>>>(na, span, d_out, d_words, d_words + kBins - 1);
                    },
                    false);
                snprintf(name, sizeof name, "micro RED.32 random over %u words", span);
                time(
                    name,
                    [&](int) {
                        atomics<1>
                            <<<sms * 4, 512, 0, s>>>(na, span, d_out, d_words, d_words + kBins - 1);
                    },
                    false);
                snprintf(name, sizeof name, "micro ATOM.32 (return) random over %u", span);
                time(
                    name,
                    [&](int) {
                        atomics<2>
                            <<<sms * 4, 512, 0, s>>>(na, span, d_out, d_words, d_words + kBins - 1);
                    },
                    false);
            }
            time(
                "micro RED.64 coalesced",
                [&](int) {
                    atomics<3>
                        <<<sms * 4, 512, 0, s>>>(na, 1u << 20, d_out, d_words, d_words + kBins - 1);
                },
                false);
            CK(cudaMemset(d_words, 0, kBins * 4ull));
        }
        time(
            "widen coalesced alone",
            [&](int) {
                widen_c<<<sms * 8, 256, 0, s>>>(d_words, kWords, d_words,
                                                reinterpret_cast<ulonglong2*>(d_out));
            },
            false);
        time(
            "V6 memset + u64 runs",
            [&](int i) {
                CK(cudaMemsetAsync(d_out, 0, kBins * 8ull, s));
                hist_u64_runs<<<sms * 4, 512, 0, s>>>(in(i), groups, pixels, d_out);
            },
            true);
        time(
            "V6 u64 runs alone",
            [&](int i) { hist_u64_runs<<<sms * 4, 512, 0, s>>>(in(i), groups, pixels, d_out); },
            false);
        time(
            "V0 u64 alone",
            [&](int i) { hist_u64<<<sms * 4, 512, 0, s>>>(in(i), groups, pixels, d_out); }, false);
        time(
            "memset 128 MiB", [&](int) { CK(cudaMemsetAsync(d_out, 0, kBins * 8ull, s)); }, false);
        time(
            "V0 memset + u64 atomics",
            [&](int i) {
                CK(cudaMemsetAsync(d_out, 0, kBins * 8ull, s));
                hist_u64<<<sms * 4, 512, 0, s>>>(in(i), groups, pixels, d_out);
            },
            true);
        time(
            "V3 packed16 warp-uniform + widen",
            [&](int i) {
                hist_packed<1, true><<<sms * 4, 512, 0, s>>>(in(i), groups, pixels, d_words, ov);
                widen_launch();
            },
            true);
    }
    return 0;
}
