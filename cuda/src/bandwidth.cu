// The read-bandwidth roofline the benchmark compares kernels with: a kernel that only reads a
// large buffer with 16-byte loads (and writes one word per block so nothing is optimized
// away), timed with CUDA events; median over the runs.

#include <algorithm>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/cuda/device.hpp"

namespace hs::cuda {

namespace {

__global__ void read_only_kernel(const uint4* __restrict__ in, std::size_t n,
                                 unsigned* __restrict__ out) {
    unsigned acc = 0;
    const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += step) {
        const uint4 v = __ldcs(in + i);  // streaming: read once, do not keep in L2
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    // One word per block; the XOR of all lanes keeps every load live.
    for (int o = 16; o > 0; o >>= 1) acc ^= __shfl_xor_sync(0xFFFFFFFFu, acc, o);
    if ((threadIdx.x & 31) == 0) atomicXor(out + blockIdx.x, acc);
}

}  // namespace

double measure_read_bandwidth_gbs(std::size_t bytes, int runs) {
    using namespace detail;
    if (!device_available()) throw DeviceError("no CUDA device to measure bandwidth on");
    if (runs < 1) throw UsageError("bandwidth measurement needs at least one run");
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    bytes = std::min(bytes, free_bytes / 2) / sizeof(uint4) * sizeof(uint4);
    const std::size_t n = bytes / sizeof(uint4);

    int device = 0, sms = 1;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "device attribute");
    constexpr int kThreads = 512;
    int per_sm = 1;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_only_kernel, kThreads, 0),
          "occupancy query");
    const int blocks = std::max(1, per_sm * sms);

    DeviceBuffer<std::byte> buffer(bytes, "bandwidth test buffer");
    DeviceBuffer<unsigned> out(static_cast<std::size_t>(blocks), "bandwidth test output");
    Stream stream;
    check(cudaMemsetAsync(buffer.data(), 0x5A, bytes, stream.get()), "bandwidth buffer fill");
    check(cudaMemsetAsync(out.data(), 0, out.bytes(), stream.get()), "bandwidth output fill");
    const auto* in = reinterpret_cast<const uint4*>(buffer.data());
    for (int i = 0; i < 2; ++i)
        read_only_kernel<<<blocks, kThreads, 0, stream.get()>>>(in, n, out.data());
    check(cudaGetLastError(), "bandwidth kernel launch");

    std::vector<Event> start(static_cast<std::size_t>(runs)), stop(static_cast<std::size_t>(runs));
    for (std::size_t i = 0; i < start.size(); ++i) {
        start[i].record(stream);
        read_only_kernel<<<blocks, kThreads, 0, stream.get()>>>(in, n, out.data());
        stop[i].record(stream);
    }
    check(cudaGetLastError(), "bandwidth kernel launch");
    stream.synchronize("bandwidth kernel");
    std::vector<double> ms;
    for (std::size_t i = 0; i < start.size(); ++i) ms.push_back(stop[i].ms_since(start[i]));
    std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(ms.size() / 2), ms.end());
    return static_cast<double>(bytes) / (ms[ms.size() / 2] * 1e-3) / 1e9;
}

}  // namespace hs::cuda
