// What the benchmark compares kernels with, both from one read-only kernel that reads a buffer
// with 16-byte loads and writes the XOR of its words per block (so that no load is optimized
// away, and the host can tell that every byte was read): the device's read bandwidth over a
// large buffer, and the floor of a benchmark case (the same kernel over the image's device
// copies, timed as the engines are).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/cuda/device.hpp"

namespace hs::cuda {

using detail::check;

namespace {

constexpr int kReadThreads = 512;
constexpr int kReadsInFlight = 4;  // per thread: the floor of a small frame needs them

__global__ void __launch_bounds__(kReadThreads)
    read_only_kernel(const uint4* __restrict__ in, std::size_t n, unsigned* __restrict__ out) {
    unsigned acc = 0;
    const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (kReadsInFlight - 1) * step < n; i += kReadsInFlight * step) {
        uint4 v[kReadsInFlight];
#pragma unroll
        for (int k = 0; k < kReadsInFlight; ++k)
            v[k] = __ldcs(in + i + k * step);  // streaming: read once, do not keep in L2
#pragma unroll
        for (int k = 0; k < kReadsInFlight; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    }
    for (; i < n; i += step) {
        const uint4 v = __ldcs(in + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    __shared__ unsigned block_acc;
    if (threadIdx.x == 0) block_acc = 0;
    __syncthreads();
    for (int o = 16; o > 0; o >>= 1) acc ^= __shfl_xor_sync(0xFFFFFFFFu, acc, o);
    if ((threadIdx.x & 31) == 0) atomicXor(&block_acc, acc);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = block_acc;
}

// Blocks of the read-only kernel over `words` 16-byte words: every SM full, and no more
// than give every thread kReadsInFlight words.
int read_blocks(std::size_t words) {
    int device = 0, sms = 1, per_sm = 1;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "device attribute");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_only_kernel, kReadThreads, 0),
          "occupancy query");
    const std::size_t enough = (words + kReadThreads * kReadsInFlight - 1) /
                               (static_cast<std::size_t>(kReadThreads) * kReadsInFlight);
    return static_cast<int>(
        std::clamp<std::size_t>(enough, 1, static_cast<std::size_t>(std::max(1, per_sm * sms))));
}

void launch_read(const std::byte* data, std::size_t bytes, int blocks, unsigned* out,
                 cudaStream_t stream) {
    read_only_kernel<<<blocks, kReadThreads, 0, stream>>>(reinterpret_cast<const uint4*>(data),
                                                          bytes / sizeof(uint4), out);
    check(cudaGetLastError(), "read-only kernel launch");
}

}  // namespace

double measure_read_bandwidth_gbs(std::size_t bytes, int runs) {
    using namespace detail;
    if (!device_available()) throw DeviceError("no CUDA device to measure bandwidth on");
    if (runs < 1) throw UsageError("bandwidth measurement needs at least one run");
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    bytes = std::min(bytes, free_bytes / 2) / sizeof(uint4) * sizeof(uint4);
    const int blocks = read_blocks(bytes / sizeof(uint4));

    DeviceBuffer<std::byte> buffer(bytes, "bandwidth test buffer");
    DeviceBuffer<unsigned> out(static_cast<std::size_t>(blocks), "bandwidth test output");
    Stream stream;
    check(cudaMemsetAsync(buffer.data(), 0x5A, bytes, stream.get()), "bandwidth buffer fill");
    for (int i = 0; i < 2; ++i) launch_read(buffer.data(), bytes, blocks, out.data(), stream.get());
    std::vector<double> ms = event_timed(
        stream, static_cast<std::size_t>(runs),
        [&](std::size_t) { launch_read(buffer.data(), bytes, blocks, out.data(), stream.get()); },
        "bandwidth kernel");
    return static_cast<double>(bytes) / (median(ms) * 1e-3) / 1e9;
}

FloorTiming measure_read_floor(const ImageView& image, const BenchOptions& options) {
    using namespace detail;
    if (!device_available()) throw DeviceError("no CUDA device to measure the floor on");
    validate(image);
    Stream stream;
    BenchInput input = bench_input(image, options, stream.get());
    const int blocks = read_blocks(input.padded / sizeof(uint4));
    DeviceBuffer<unsigned> out(static_cast<std::size_t>(blocks), "read-only kernel output");
    DeviceBenchRuns<unsigned> runs = device_benchmark(
        stream, input, options, out,
        [&](std::size_t copy) {
            launch_read(input.copy(copy), input.padded, blocks, out.data(), stream.get());
        },
        "floor");
    // The XOR of every 32-bit word of the padded image, as the kernel read it.
    std::uint32_t expected = 0, read = 0;
    for (std::size_t i = 0; i < input.padded; i += 4) {
        std::uint32_t word = 0;
        std::copy_n(input.pinned.data() + i, 4, reinterpret_cast<std::byte*>(&word));
        expected ^= word;
    }
    for (unsigned word : runs.counts) read ^= word;
    FloorTiming floor;
    floor.timing.input_copies = static_cast<int>(input.copies);
    floor.timing.histogram_ms = std::move(runs.kernel_ms);
    floor.timing.back_to_back_ms = std::move(runs.back_to_back_ms);
    floor.timing.end_to_end_ms = std::move(runs.end_to_end_ms);
    floor.read_every_byte = read == expected;
    return floor;
}

}  // namespace hs::cuda
