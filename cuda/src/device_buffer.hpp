#pragma once
// RAII owners of device resources: memory (DeviceBuffer<T>), streams and events. Creation
// failures throw hs::DeviceError (see cuda_check.hpp); destruction never throws.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda_check.hpp"

namespace hs::cuda::detail {

// `count` elements of T in device memory, uninitialized. Move-only.
template <typename T>
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    DeviceBuffer(std::size_t count, const char* what) : count_(count) {
        if (count == 0) return;
        void* p = nullptr;
        check_alloc(cudaMalloc(&p, bytes()), what, bytes());
        data_ = static_cast<T*>(p);
    }
    ~DeviceBuffer() { reset(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            reset();
            data_ = std::exchange(o.data_, nullptr);
            count_ = std::exchange(o.count_, 0);
        }
        return *this;
    }

    T* data() const { return data_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

  private:
    void reset() noexcept {
        // A failing cudaFree (e.g. after a device fault) cannot be reported from a destructor;
        // the fault itself has already been reported by the call that saw it.
        if (data_ != nullptr) static_cast<void>(cudaFree(data_));
        data_ = nullptr;
        count_ = 0;
    }

    T* data_ = nullptr;
    std::size_t count_ = 0;
};

// `count` elements of T in pinned (page-locked) host memory, for full-speed asynchronous
// transfers. Move-only.
template <typename T>
class PinnedBuffer {
  public:
    PinnedBuffer() = default;
    PinnedBuffer(std::size_t count, const char* what) : count_(count) {
        if (count == 0) return;
        void* p = nullptr;
        const cudaError_t status = cudaMallocHost(&p, count * sizeof(T));
        if (status == cudaErrorMemoryAllocation) {
            static_cast<void>(cudaGetLastError());
            throw DeviceError(std::string("out of pinned host memory: ") + what + " (" +
                              std::to_string(count * sizeof(T)) + " bytes)");
        }
        check(status, what);
        data_ = static_cast<T*>(p);
    }
    ~PinnedBuffer() { reset(); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
        if (this != &o) {
            reset();
            data_ = std::exchange(o.data_, nullptr);
            count_ = std::exchange(o.count_, 0);
        }
        return *this;
    }

    T* data() const { return data_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

  private:
    void reset() noexcept {
        if (data_ != nullptr) static_cast<void>(cudaFreeHost(data_));
        data_ = nullptr;
        count_ = 0;
    }

    T* data_ = nullptr;
    std::size_t count_ = 0;
};

class Stream {
  public:
    Stream() {
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream creation");
    }
    ~Stream() {
        if (stream_ != nullptr) static_cast<void>(cudaStreamDestroy(stream_));
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    cudaStream_t get() const { return stream_; }
    void synchronize(const char* what) const { check(cudaStreamSynchronize(stream_), what); }

  private:
    cudaStream_t stream_ = nullptr;
};

class Event {
  public:
    // `timing` false: an event only to query and wait on (cheaper), ms_since() cannot use it.
    explicit Event(bool timing = true) {
        check(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming),
              "event creation");
    }
    ~Event() {
        if (event_ != nullptr) static_cast<void>(cudaEventDestroy(event_));
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    void record(const Stream& s) { check(cudaEventRecord(event_, s.get()), "event record"); }
    cudaEvent_t get() const { return event_; }
    // Milliseconds from `start` to this event; both must have completed.
    float ms_since(const Event& start) const {
        float ms = 0.0f;
        check(cudaEventElapsedTime(&ms, start.event_, event_), "event timing");
        return ms;
    }

  private:
    cudaEvent_t event_ = nullptr;
};

}  // namespace hs::cuda::detail
