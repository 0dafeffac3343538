// Lab: joint RGB histogram (2^24 bins) of one 4K RGB frame, counted through a shared-memory hash
// per block so that far fewer global atomics reach L2, with the zeroing of the global counts
// overlapped with the first tile's hashing (programmatic dependent launch).
//
//   base64   memset of 128 MiB + one 64-bit atomic per run of a thread's 16 pixels (the engine)
//   base32   the same into 32-bit counts (64 MiB: a frame of fewer than 2^32 pixels cannot wrap)
//   hashN    a zeroing kernel, then (as its dependent) blocks that each hash a tile of pixels'
//            runs in shared memory (open addressing, key = colour), wait for the zeroing once,
//            and add each distinct colour of the tile with one atomic; N = counter width
//
// Every timed variant's counts are compared with a host count. Build: nvcc -O3 -std=c++20
// -arch=sm_90 2026-11-27-joint-hash.cu -o joint-hash; run: ./joint-hash frame.rgb (3840x2160x3).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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
constexpr unsigned kEmpty = 0xFFFFFFFFu;

__device__ __forceinline__ void wait_prev() {
    asm volatile("griddepcontrol.wait;" ::: "memory");
}
__device__ __forceinline__ void allow_next() {
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

__device__ __forceinline__ unsigned byte_of(const unsigned* w, int j) {
    return (w[j >> 2] >> ((j & 3) * 8)) & 0xFFu;
}
__device__ __forceinline__ unsigned colour(const unsigned* w, int p) {
    return (byte_of(w, 3 * p) << 16) | (byte_of(w, 3 * p + 1) << 8) | byte_of(w, 3 * p + 2);
}

__device__ __forceinline__ void load_group(const uint4* in, unsigned long long g, unsigned* w) {
#pragma unroll
    for (int q = 0; q < 3; ++q) {
        const uint4 v = __ldcs(in + g * 3 + q);
        w[4 * q] = v.x;
        w[4 * q + 1] = v.y;
        w[4 * q + 2] = v.z;
        w[4 * q + 3] = v.w;
    }
}

template <typename C>
__device__ __forceinline__ void global_add(C* counts, unsigned bin, unsigned n) {
    if constexpr (sizeof(C) == 8)
        atomicAdd(reinterpret_cast<unsigned long long*>(counts) + bin,
                  static_cast<unsigned long long>(n));
    else
        atomicAdd(reinterpret_cast<unsigned*>(counts) + bin, n);
}

// One atomic per run of equal colours among a thread's 16 pixels (the engine's global-atomic).
template <typename C>
__global__ void __launch_bounds__(512)
    runs_kernel(const uint4* in, unsigned long long groups, unsigned long long pixels, C* counts) {
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         g < groups; g += step) {
        unsigned w[12];
        load_group(in, g, w);
        const int live = (int)min(16ull, pixels - g * 16);
        unsigned run = colour(w, 0), n = 1;
#pragma unroll
        for (int p = 1; p < 16; ++p) {
            const unsigned v = colour(w, p);
            if (p < live) {
                if (v == run) {
                    ++n;
                } else {
                    global_add(counts, run, n);
                    run = v;
                    n = 1;
                }
            }
        }
        global_add(counts, run, n);
    }
}

// Zeroes `n16` 16-byte words; lets its dependent start at once (the dependent touches the
// counts only after its wait).
__global__ void __launch_bounds__(512) zero_kernel(uint4* p, unsigned long long n16) {
    allow_next();
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n16;
         i += step)
        p[i] = make_uint4(0, 0, 0, 0);
}

// Adds n pixels of colour `key` to the block's table: open addressing, linear probing; a key
// that finds no slot in kMaxProbe steps goes to the global counts (after the zeroing).
template <typename C, int kCapLog2>
__device__ __forceinline__ void hash_add(unsigned* keys, unsigned* cnt, unsigned key, unsigned n,
                                         C* counts) {
    constexpr unsigned kCap = 1u << kCapLog2;
    constexpr int kMaxProbe = 32;
    unsigned h = (key * 2654435761u) >> (32 - kCapLog2);
    for (int probe = 0; probe < kMaxProbe; ++probe) {
        unsigned k = *reinterpret_cast<volatile unsigned*>(keys + h);
        if (k == kEmpty) k = atomicCAS(keys + h, kEmpty, key);
        if (k == kEmpty || k == key) {
            atomicAdd(cnt + h, n);
            return;
        }
        h = (h + 1) & (kCap - 1);
    }
    wait_prev();
    global_add(counts, key, n);
}

template <typename C, int kThreads, int kCapLog2>
__global__ void __launch_bounds__(kThreads)
    hash_kernel(const uint4* in, unsigned long long groups, unsigned long long pixels, C* counts) {
    constexpr unsigned kCap = 1u << kCapLog2;
    extern __shared__ unsigned smem[];
    unsigned* keys = smem;
    unsigned* cnt = smem + kCap;
    for (unsigned i = threadIdx.x; i < kCap; i += kThreads) {
        keys[i] = kEmpty;
        cnt[i] = 0;
    }
    __syncthreads();
    bool waited = false;
    const unsigned long long step = (unsigned long long)gridDim.x * kThreads;
    for (unsigned long long g0 = (unsigned long long)blockIdx.x * kThreads; g0 < groups;
         g0 += step) {
        const unsigned long long g = g0 + threadIdx.x;
        if (g < groups) {
            unsigned w[12];
            load_group(in, g, w);
            const int live = (int)min(16ull, pixels - g * 16);
            unsigned run = colour(w, 0), n = 1;
#pragma unroll
            for (int p = 1; p < 16; ++p) {
                const unsigned v = colour(w, p);
                if (p < live) {
                    if (v == run) {
                        ++n;
                    } else {
                        hash_add<C, kCapLog2>(keys, cnt, run, n, counts);
                        run = v;
                        n = 1;
                    }
                }
            }
            hash_add<C, kCapLog2>(keys, cnt, run, n, counts);
        }
        __syncthreads();
        if (!waited) {
            wait_prev();
            waited = true;
        }
        for (unsigned i = threadIdx.x; i < kCap; i += kThreads) {
            const unsigned k = keys[i];
            if (k != kEmpty) {
                global_add(counts, k, cnt[i]);
                keys[i] = kEmpty;
                cnt[i] = 0;
            }
        }
        __syncthreads();
    }
    if (!waited) wait_prev();
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
    void* d_counts;
    CK(cudaMalloc(&d_counts, kBins * 8ull));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<unsigned long long> ref(kBins), got64(kBins);
    std::vector<unsigned> got32(kBins);

    const char* inputs[] = {"photo", "one colour", "uniform noise", "16 colours in stripes"};
    for (int input = 0; input < 4; ++input) {
        if (input == 0 && argc < 2) continue;
        std::vector<unsigned char> img = photo;
        std::mt19937 rng(7);
        for (unsigned long long p = 0; p < pixels; ++p) {
            if (input == 1) {
                img[3 * p] = 200, img[3 * p + 1] = 100, img[3 * p + 2] = 50;
            } else if (input == 2) {
                const unsigned r = rng();
                img[3 * p] = r & 255, img[3 * p + 1] = (r >> 8) & 255, img[3 * p + 2] = r >> 16;
            } else if (input == 3) {
                const unsigned c = (unsigned)((p / 7) % 16);
                img[3 * p] = 16 * c, img[3 * p + 1] = 255 - c, img[3 * p + 2] = c;
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

        // width 0: no check
        auto time = [&](const char* name, auto&& once, int width) {
            for (int i = 0; i < 3; ++i) once(i);
            CK(cudaStreamSynchronize(s));
            CK(cudaGetLastError());
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
            const char* verdict = "";
            if (width == 8) {
                CK(cudaMemcpy(got64.data(), d_counts, kBins * 8ull, cudaMemcpyDeviceToHost));
                verdict = got64 == ref ? "exact" : "WRONG";
            } else if (width == 4) {
                CK(cudaMemcpy(got32.data(), d_counts, kBins * 4ull, cudaMemcpyDeviceToHost));
                verdict = std::equal(ref.begin(), ref.end(), got32.begin()) ? "exact" : "WRONG";
            }
            printf("  %-46s %8.1f us  b2b %8.1f us  %s\n", name, median(ms) * 1000, b2b / 20 * 1000,
                   verdict);
        };
        auto in = [&](int i) {
            return reinterpret_cast<const uint4*>(d_in + (size_t)(i % copies) * padded);
        };
        auto zero = [&](size_t bytes) {
            zero_kernel<<<sms * 2, 512, 0, s>>>(static_cast<uint4*>(d_counts), bytes / 16);
        };
        auto dependent = [&](auto kernel, int threads, size_t smem, int blocks, const uint4* src,
                             auto* counts, bool pdl) {
            cudaLaunchConfig_t config = {};
            config.gridDim = dim3(blocks);
            config.blockDim = dim3(threads);
            config.dynamicSmemBytes = smem;
            config.stream = s;
            cudaLaunchAttribute attribute = {};
            attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attribute.val.programmaticStreamSerializationAllowed = 1;
            config.attrs = &attribute;
            config.numAttrs = pdl ? 1 : 0;
            CK(cudaLaunchKernelEx(&config, kernel, src, groups, pixels, counts));
        };
        time(
            "memset 128 MiB", [&](int) { CK(cudaMemsetAsync(d_counts, 0, kBins * 8ull, s)); }, 0);
        time(
            "memset 64 MiB", [&](int) { CK(cudaMemsetAsync(d_counts, 0, kBins * 4ull, s)); }, 0);
        time(
            "zero kernel 128 MiB", [&](int) { zero(kBins * 8ull); }, 0);
        time(
            "zero kernel 64 MiB", [&](int) { zero(kBins * 4ull); }, 0);
        time(
            "base64: memset + u64 runs (the engine)",
            [&](int i) {
                CK(cudaMemsetAsync(d_counts, 0, kBins * 8ull, s));
                runs_kernel<<<sms * 4, 512, 0, s>>>(in(i), groups, pixels,
                                                    static_cast<unsigned long long*>(d_counts));
            },
            8);
        time(
            "base32: memset + u32 runs",
            [&](int i) {
                CK(cudaMemsetAsync(d_counts, 0, kBins * 4ull, s));
                runs_kernel<<<sms * 4, 512, 0, s>>>(in(i), groups, pixels,
                                                    static_cast<unsigned*>(d_counts));
            },
            4);

        auto hash_variant = [&](const char* name, auto kernel, int threads, int cap_log2,
                                auto* counts, bool pdl) {
            const size_t smem = (size_t(8) << cap_log2);
            CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)smem));
            int per_sm = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
            const int blocks = std::max(1, per_sm) * sms;
            char label[96];
            snprintf(label, sizeof label, "%s%s (%d x %d, %d/SM)", name, pdl ? "" : " no PDL",
                     blocks, threads, per_sm);
            const size_t bytes = kBins * sizeof(*counts);
            time(
                label,
                [&](int i) {
                    zero(bytes);
                    dependent(kernel, threads, smem, blocks, in(i), counts, pdl);
                },
                (int)sizeof(*counts));
        };
        auto* c64 = static_cast<unsigned long long*>(d_counts);
        auto* c32 = static_cast<unsigned*>(d_counts);
        hash_variant("hash64 512t cap16K", hash_kernel<unsigned long long, 512, 14>, 512, 14, c64,
                     true);
        hash_variant("hash32 512t cap16K", hash_kernel<unsigned, 512, 14>, 512, 14, c32, true);
        hash_variant("hash32 512t cap16K", hash_kernel<unsigned, 512, 14>, 512, 14, c32, false);
        hash_variant("hash32 256t cap8K", hash_kernel<unsigned, 256, 13>, 256, 13, c32, true);
        hash_variant("hash32 512t cap8K", hash_kernel<unsigned, 512, 13>, 512, 13, c32, true);
        hash_variant("hash32 1024t cap16K", hash_kernel<unsigned, 1024, 14>, 1024, 14, c32, true);
        hash_variant("hash32 1024t cap8K", hash_kernel<unsigned, 1024, 13>, 1024, 13, c32, true);
        hash_variant("hash64 1024t cap16K", hash_kernel<unsigned long long, 1024, 14>, 1024, 14,
                     c64, true);
        hash_variant("hash32 512t cap4K", hash_kernel<unsigned, 512, 12>, 512, 12, c32, true);
    }
    return 0;
}
