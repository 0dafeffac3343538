// Lab: r,g,b,luma of one 4K RGB frame in one pass, lane-private layout (R copies lane-major).
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
#define CK(x)                                                                   \
    do {                                                                        \
        cudaError_t err_ = (x);                                                 \
        if (err_ != cudaSuccess) {                                              \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                            \
        }                                                                       \
    } while (0)
struct Rule {
    int kind;
    unsigned wr, wg, wb;
    int offset;
};  // kind 0 plain, 1 luma
struct Args {
    const uint4* in;
    unsigned long long groups;
    int slots;
    Rule rule[4];
    unsigned long long* counts;
};
__device__ __forceinline__ unsigned smp(const unsigned* w, int j) {
    return (w[j >> 2] >> ((j & 3) * 8)) & 0xFF;
}
__device__ __forceinline__ unsigned luma(unsigned r, unsigned g, unsigned b, unsigned wr,
                                         unsigned wg, unsigned wb) {
    return (wr * r + wg * g + wb * b + 16384u) >> 15;
}
extern __shared__ unsigned sm[];
template <int MODE, int RLOG>  // MODE 0: runtime rules; 1: rgb+luma601 compile-time; 2: rgb
                               // compile-time; 3: luma only
__global__ void __launch_bounds__(1024) k(Args a, int inflight2) {
    constexpr int R = 1 << RLOG;
    const int slots = MODE == 0 ? a.slots : MODE == 1 ? 4 : MODE == 2 ? 3 : 1;
    const int region = 256 * R;
    for (int i = threadIdx.x; i < region * slots; i += blockDim.x) sm[i] = 0;
    __syncthreads();
    unsigned* col = sm + (threadIdx.x & (R - 1));
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         g < a.groups; g += step) {
        unsigned w[12];
#pragma unroll
        for (int q = 0; q < 3; ++q) {
            uint4 v = __ldg(a.in + g * 3 + q);
            w[4 * q] = v.x;
            w[4 * q + 1] = v.y;
            w[4 * q + 2] = v.z;
            w[4 * q + 3] = v.w;
        }
#pragma unroll
        for (int p = 0; p < 16; ++p) {
            const unsigned r = smp(w, 3 * p), gg = smp(w, 3 * p + 1), b = smp(w, 3 * p + 2);
            if constexpr (MODE == 0) {
#pragma unroll
                for (int s = 0; s < 4; ++s) {
                    if (s == a.slots) break;
                    const Rule& ru = a.rule[s];
                    unsigned v = ru.kind == 1 ? luma(r, gg, b, ru.wr, ru.wg, ru.wb)
                                              : (ru.offset == 0   ? r
                                                 : ru.offset == 1 ? gg
                                                                  : b);
                    atomicAdd(col + s * region + (v << RLOG), 1u);
                }
            } else if constexpr (MODE == 3) {
                atomicAdd(col + (luma(r, gg, b, 9798, 19235, 3735) << RLOG), 1u);
            } else {
                atomicAdd(col + (r << RLOG), 1u);
                atomicAdd(col + region + (gg << RLOG), 1u);
                atomicAdd(col + 2 * region + (b << RLOG), 1u);
                if constexpr (MODE == 1)
                    atomicAdd(col + 3 * region + (luma(r, gg, b, 9798, 19235, 3735) << RLOG), 1u);
            }
        }
    }
    __syncthreads();
    for (int idx = threadIdx.x; idx < 256 * slots; idx += blockDim.x) {
        int s = idx / 256, bb = idx % 256;
        unsigned sum = 0;
        const unsigned* row = sm + s * region + (bb << RLOG);
#pragma unroll 8
        for (int l = 0; l < R; ++l) sum += row[(l + bb) & (R - 1)];
        if (sum) atomicAdd(a.counts + s * 256 + bb, (unsigned long long)sum);
    }
}
__global__ void rd(const uint4* in, unsigned long long n, unsigned* out) {
    unsigned acc = 0;
    unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * step < n; i += 4 * step) {
        uint4 v[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) v[q] = __ldcs(in + i + q * step);
#pragma unroll
        for (int q = 0; q < 4; ++q) acc ^= v[q].x ^ v[q].y ^ v[q].z ^ v[q].w;
    }
    for (; i < n; i += step) {
        uint4 v = __ldcs(in + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x12345) out[0] = acc;
}
template <typename F>
double timeit(F f, int runs, bool b2b) {
    cudaEvent_t s, e;
    cudaEventCreate(&s);
    cudaEventCreate(&e);
    std::vector<float> ms;
    for (int i = 0; i < 3; ++i) f(i);
    CK(cudaDeviceSynchronize());
    if (b2b) {
        cudaEventRecord(s);
        for (int i = 0; i < runs; ++i) f(i);
        cudaEventRecord(e);
        CK(cudaEventSynchronize(e));
        float t;
        cudaEventElapsedTime(&t, s, e);
        return t * 1000 / runs;
    }
    for (int i = 0; i < runs; ++i) {
        cudaEventRecord(s);
        f(i);
        cudaEventRecord(e);
        CK(cudaEventSynchronize(e));
        float t;
        cudaEventElapsedTime(&t, s, e);
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2] * 1000;
}
int main() {
    const int W = 3840, H = 2160;
    const size_t px = (size_t)W * H, bytes = px * 3;
    const size_t copies = 10;
    std::vector<unsigned char> h(bytes);
    unsigned x = 12345;
    for (size_t i = 0; i < bytes; ++i) {
        x = x * 1664525u + 1013904223u;
        h[i] = (i % 3 == 0) ? (x >> 24) & 0x7F : (x >> 24);
    }
    unsigned char* d;
    CK(cudaMalloc(&d, bytes * copies));
    for (size_t c = 0; c < copies; ++c)
        CK(cudaMemcpy(d + c * bytes, h.data(), bytes, cudaMemcpyHostToDevice));
    unsigned long long* cnt;
    CK(cudaMalloc(&cnt, 4 * 256 * 8));
    unsigned* o;
    CK(cudaMalloc(&o, 4));
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    Args a{};
    a.groups = px / 16;
    a.counts = cnt;
    a.slots = 4;
    a.rule[0] = {0, 0, 0, 0, 0};
    a.rule[1] = {0, 0, 0, 0, 1};
    a.rule[2] = {0, 0, 0, 0, 2};
    a.rule[3] = {1, 9798, 19235, 3735, 0};
    auto run = [&](auto kern, int slots, int rlog, const char* name) {
        size_t smem = (size_t)slots * 256 * (1 << rlog) * 4;
        CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        for (int threads : {512, 1024}) {
            int per = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, threads, smem));
            if (!per) continue;
            int blocks = per * sms;
            auto f = [&](int i) {
                Args b = a;
                b.in = (const uint4*)(d + (i % copies) * bytes);
                cudaMemsetAsync(cnt, 0, 4 * 256 * 8);
                kern<<<blocks, threads, smem>>>(b, 0);
            };
            double t1 = timeit(f, 50, false), t2 = timeit(f, 50, true);
            CK(cudaGetLastError());
            std::vector<unsigned long long> hc(4 * 256);
            CK(cudaMemcpy(hc.data(), cnt, hc.size() * 8, cudaMemcpyDeviceToHost));
            unsigned long long tot = 0;
            for (auto v : hc) tot += v;
            printf(
                "%-28s thr %4d x %d/SM smem %6zu: single %7.2f us  b2b %7.2f us  total %llu (%.1f "
                "px-slots)\n",
                name, threads, per, smem, t1, t2, tot, (double)tot / px);
        }
    };
    run(k<0, 5>, 4, 5, "runtime r,g,b,luma R32");
    run(k<1, 5>, 4, 5, "fixed r,g,b,luma R32");
    run(k<1, 4>, 4, 4, "fixed r,g,b,luma R16");
    run(k<2, 5>, 3, 5, "fixed r,g,b R32");
    run(k<3, 5>, 1, 5, "fixed luma R32");
    {
        int blocks = sms * 4;
        auto f = [&](int i) {
            rd<<<blocks, 512>>>((const uint4*)(d + (i % copies) * bytes), bytes / 16, o);
        };
        printf("read-only floor: single %.2f us  b2b %.2f us\n", timeit(f, 50, false),
               timeit(f, 50, true));
    }
    {
        auto f = [&](int) {};
        printf("empty event pair %.2f\n", timeit(f, 50, false));
    }
}
