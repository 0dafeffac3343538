// Device query: what the CLI's `kernels` command prints and what the engines tune from.
// Never throws: a machine without a driver or a GPU gets an empty list and a reason.

#include <cuda_runtime_api.h>

#include <exception>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/cuda/device.hpp"

namespace hs::cuda {

double DeviceInfo::peak_bandwidth_gbs() const {
    // Double data rate: two transfers per memory clock, bus_bits / 8 bytes per transfer.
    return 2.0 * static_cast<double>(memory_clock_khz) * 1e3 *
           (static_cast<double>(memory_bus_bits) / 8.0) / 1e9;
}

namespace {

// Fills `info` for device `index`; returns the failing call's description or "".
std::string read_device(int index, DeviceInfo& info) {
    cudaDeviceProp p{};
    if (const cudaError_t e = cudaGetDeviceProperties(&p, index); e != cudaSuccess)
        return "cudaGetDeviceProperties(" + std::to_string(index) +
               ") failed: " + detail::describe(e);
    info.index = index;
    info.name = p.name;
    info.cc_major = p.major;
    info.cc_minor = p.minor;
    info.sm_count = p.multiProcessorCount;
    info.global_memory = p.totalGlobalMem;
    info.l2_cache = static_cast<std::size_t>(p.l2CacheSize);
    info.shared_per_block = p.sharedMemPerBlock;
    info.shared_per_block_optin = p.sharedMemPerBlockOptin;
    info.shared_per_sm = p.sharedMemPerMultiprocessor;
    info.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    info.max_threads_per_block = p.maxThreadsPerBlock;
    info.memory_bus_bits = p.memoryBusWidth;
    // The memory clock left cudaDeviceProp in CUDA 13; the attribute remains.
    int clock_khz = 0;
    if (const cudaError_t e = cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, index);
        e != cudaSuccess)
        return "cudaDeviceGetAttribute(memory clock) failed: " + detail::describe(e);
    info.memory_clock_khz = clock_khz;
    return {};
}

DeviceQuery query() {
    DeviceQuery q;
    static_cast<void>(cudaRuntimeGetVersion(&q.runtime_version));
    if (cudaDriverGetVersion(&q.driver_version) != cudaSuccess) q.driver_version = 0;

    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        static_cast<void>(cudaGetLastError());
        if (q.driver_version == 0)
            q.error = "no NVIDIA driver is installed (" + detail::describe(e) + ")";
        else if (e == cudaErrorNoDevice)
            q.error = "no CUDA device is present";
        else if (e == cudaErrorInsufficientDriver)
            q.error = "the NVIDIA driver (" + std::to_string(q.driver_version) +
                      ") is older than the CUDA runtime (" + std::to_string(q.runtime_version) +
                      ")";
        else
            q.error = "CUDA device query failed: " + detail::describe(e);
        return q;
    }
    if (count == 0) {
        q.error = "no CUDA device is present";
        return q;
    }
    for (int i = 0; i < count; ++i) {
        DeviceInfo info;
        if (std::string why = read_device(i, info); !why.empty()) {
            static_cast<void>(cudaGetLastError());
            q.devices.clear();
            q.error = std::move(why);
            return q;
        }
        q.devices.push_back(std::move(info));
    }
    return q;
}

}  // namespace

DeviceQuery query_devices() {
    try {
        return query();
    } catch (const std::exception& e) {
        DeviceQuery q;
        q.error = std::string("CUDA device query failed: ") + e.what();
        return q;
    } catch (...) {
        DeviceQuery q;
        q.error = "CUDA device query failed";
        return q;
    }
}

bool device_available() {
    // Whether a device exists does not change while the process runs.
    static const bool available = !query_devices().devices.empty();
    return available;
}

}  // namespace hs::cuda
