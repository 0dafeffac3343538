// Lab probe, not part of the build: the joint RGB histogram (2^24 bins of 64-bit counts) of one
// 4K RGB frame, counted in P passes over ranges of bins. Each pass zeroes its range of the counts
// (16 MiB at P = 8) and then counts only the pixels whose bin falls in it, with one 64-bit atomic
// per run of equal bins among a thread's 16 pixels (as global-atomic does). The idea: with the
// range small enough to stay in L2 between its zeroing and its atomics, the counts travel to
// DRAM once (written back), instead of being written by the memset, read back by the atomics and
// written again; the frame (25 MB) is read P times, mostly from L2.
//   nvcc -O3 -std=c++20 -arch=sm_90 2026-11-26-joint-partitions.cu -o jp && ./jp FRAME.raw
// FRAME.raw: 3840x2160x3 8-bit RGB (scripts/gpu/tools.py decode writes one); without it, noise.
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

// Pixels [16 g, 16 g + 16) of the frame: 48 bytes, three 16-byte loads (the buffer is padded).
// Counts the bins in [lo, lo + span) with one atomic per run of equal bins. Streaming loads
// (evict-first) when the frame is read once, normal loads when it is read again by the next pass.
template <bool Stream>
__global__ void __launch_bounds__(256)
    count_range(const uint4* in, std::uint64_t pixels, unsigned lo, unsigned span,
                unsigned long long* counts) {
    const std::uint64_t groups = (pixels + 15) / 16;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         g < groups; g += step) {
        uint4 v[3];
        for (int k = 0; k < 3; ++k) v[k] = Stream ? __ldcs(in + 3 * g + k) : __ldg(in + 3 * g + k);
        const auto* bytes = reinterpret_cast<const unsigned char*>(v);
        const int valid = pixels - 16 * g < 16 ? static_cast<int>(pixels - 16 * g) : 16;
        unsigned run_key = 0xFFFFFFFFu, run = 0;
#pragma unroll
        for (int p = 0; p < 16; ++p) {
            if (p >= valid) break;
            const unsigned key = (unsigned{bytes[3 * p]} << 16) |
                                 (unsigned{bytes[3 * p + 1]} << 8) | bytes[3 * p + 2];
            if (key == run_key) {
                ++run;
                continue;
            }
            if (run != 0 && run_key - lo < span) atomicAdd(counts + run_key, run);
            run_key = key;
            run = 1;
        }
        if (run != 0 && run_key - lo < span) atomicAdd(counts + run_key, run);
    }
}

int main(int argc, char** argv) {
    const int w = 3840, h = 2160;
    const std::uint64_t pixels = std::uint64_t{w} * h;
    const std::size_t bytes = pixels * 3, padded = (pixels + 15) / 16 * 48;
    std::vector<unsigned char> host(padded, 0);
    if (argc > 1) {
        FILE* f = std::fopen(argv[1], "rb");
        if (f == nullptr || std::fread(host.data(), 1, bytes, f) != bytes) {
            printf("cannot read %s\n", argv[1]);
            return 1;
        }
        std::fclose(f);
    } else {
        std::mt19937 rng(1);
        for (std::size_t i = 0; i < bytes; ++i) host[i] = static_cast<unsigned char>(rng());
    }
    std::vector<unsigned long long> expect(kBins, 0);
    for (std::uint64_t p = 0; p < pixels; ++p)
        ++expect[(unsigned{host[3 * p]} << 16) | (unsigned{host[3 * p + 1]} << 8) |
                 host[3 * p + 2]];
    std::uint64_t distinct = 0;
    for (auto c : expect) distinct += c != 0;
    printf("%llu pixels, %llu distinct colours\n", static_cast<unsigned long long>(pixels),
           static_cast<unsigned long long>(distinct));

    uint4* in;
    unsigned long long* counts;
    CK(cudaMalloc(&in, padded));
    CK(cudaMalloc(&counts, kBins * sizeof(unsigned long long)));
    CK(cudaMemcpy(in, host.data(), padded, cudaMemcpyHostToDevice));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const unsigned grid = static_cast<unsigned>(sms) * 8;  // 8 blocks of 256 an SM
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<unsigned long long> got(kBins);

    // mode 0: memset alone; 1: count alone (P = 1, no memset); 2: passes.
    const auto time = [&](const char* label, int mode, int parts, bool stream) {
        std::vector<float> ms;
        for (int rep = 0; rep < 25; ++rep) {
            CK(cudaEventRecord(e0));
            const unsigned span = kBins / static_cast<unsigned>(parts);
            for (int p = 0; p < parts; ++p) {
                const unsigned lo = span * static_cast<unsigned>(p);
                if (mode != 1)
                    CK(cudaMemsetAsync(counts + lo, 0, std::size_t{span} * sizeof(*counts)));
                if (mode == 0) continue;
                if (stream)
                    count_range<true><<<grid, 256>>>(in, pixels, lo, span, counts);
                else
                    count_range<false><<<grid, 256>>>(in, pixels, lo, span, counts);
            }
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float t = 0;
            CK(cudaEventElapsedTime(&t, e0, e1));
            if (rep >= 5) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        bool exact = true;
        if (mode == 2) {
            CK(cudaMemcpy(got.data(), counts, kBins * sizeof(*counts), cudaMemcpyDeviceToHost));
            exact = got == expect;
        }
        printf("%-40s P=%-3d median %8.2f us  min %8.2f us  %s\n", label, parts,
               ms[ms.size() / 2] * 1e3, ms.front() * 1e3,
               mode == 2 ? (exact ? "exact" : "WRONG") : "");
    };
    time("memset 128 MiB alone", 0, 1, false);
    time("count alone (no memset, wrong sums)", 1, 1, false);
    for (int parts : {1, 2, 4, 8, 16, 32}) time("passes, streaming loads", 2, parts, true);
    for (int parts : {2, 4, 8, 16, 32}) time("passes, normal loads", 2, parts, false);
    return 0;
}
