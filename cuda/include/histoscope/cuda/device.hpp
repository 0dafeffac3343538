#pragma once
// The CUDA devices of this machine, as the CLI's `kernels` command prints them and the engines
// tune from. No CUDA types in this header: the CLI and the UI include it without the CUDA
// toolkit's headers.

#include <cstddef>
#include <string>
#include <vector>

#include "histoscope/core/bench.hpp"

namespace hs::cuda {

struct DeviceInfo {
    int index = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    std::size_t global_memory = 0;           // bytes
    std::size_t l2_cache = 0;                // bytes
    std::size_t shared_per_block = 0;        // default limit, bytes
    std::size_t shared_per_block_optin = 0;  // opt-in limit, bytes
    std::size_t shared_per_sm = 0;           // bytes
    int max_threads_per_sm = 0;
    int max_threads_per_block = 0;
    int memory_bus_bits = 0;
    int memory_clock_khz = 0;
    double peak_bandwidth_gbs() const;  // from bus width and clock (theoretical)
};

struct DeviceQuery {
    int runtime_version = 0;  // e.g. 13000
    int driver_version = 0;   // 0 when no driver is installed
    std::vector<DeviceInfo> devices;
    std::string error;  // why `devices` is empty, when it is
};

// Never throws: a machine without a GPU or driver yields no devices and an error text.
DeviceQuery query_devices();
bool device_available();

// The device's read bandwidth in GB/s (1e9 bytes/s): median of `runs` timed passes of a
// read-only kernel over `bytes` (capped at half the free memory). Throws DeviceError without
// a device.
double measure_read_bandwidth_gbs(std::size_t bytes = std::size_t{1} << 30, int runs = 20);
// The floor of a benchmark case (hs::FloorTimer): the same read-only kernel over the device
// copies of `image`, packed and padded and rotated past the cache as the engines' input, timed
// as the engines are (GpuEngine's benchmark). Throws DeviceError without a device.
FloorTiming measure_read_floor(const ImageView& image, const BenchOptions& options);

}  // namespace hs::cuda
