#pragma once
// A table the kernels read (a bin table, edge thresholds, levels, a bin map): uploaded
// asynchronously on the run's stream, so its host copy must live as long as the device copy
// (the run that owns the table lives until the engine has synchronized).

#include <cuda_runtime_api.h>

#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "histoscope/core/histogram.hpp"
#include "kernels/common/bins.cuh"

namespace hs::cuda::detail {

template <typename T>
class DeviceTable {
  public:
    DeviceTable() = default;
    // Queues the upload of `host` (`what` names it in errors).
    DeviceTable(std::vector<T> host, const char* what, cudaStream_t stream)
        : host_(std::move(host)), device_(host_.size(), what) {
        if (host_.empty()) return;
        check(cudaMemcpyAsync(device_.data(), host_.data(), device_.bytes(), cudaMemcpyHostToDevice,
                              stream),
              what);
    }

    const T* data() const { return device_.data(); }  // nullptr when empty
    std::size_t size() const { return host_.size(); }
    const std::vector<T>& host() const { return host_; }

  private:
    std::vector<T> host_;
    DeviceBuffer<T> device_;
};

// The tables the kernels of a request's channels read, each uploaded once: core's 8-bit bin
// table (Table) and the clamped edge thresholds (Edges).
class BinTables {
  public:
    BinTables() = default;
    // `used`: the modes of the channels' rules.
    BinTables(const HistogramSpec& spec, BinModes used, cudaStream_t stream) {
        if ((used & bin_mode_bit(BinMode::Table)) != 0)
            table_ = DeviceTable(bin_table(spec, 255), "bin table upload", stream);
        if ((used & bin_mode_bit(BinMode::Edges)) != 0)
            thresholds_ = DeviceTable(edge_thresholds(spec), "edge thresholds upload", stream);
    }
    // The table of `mode` (nullptr when its kernels read none).
    const std::int32_t* of(BinMode mode) const {
        return mode == BinMode::Table   ? table_.data()
               : mode == BinMode::Edges ? thresholds_.data()
                                        : nullptr;
    }

  private:
    DeviceTable<std::int32_t> table_, thresholds_;
};

}  // namespace hs::cuda::detail
