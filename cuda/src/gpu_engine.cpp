#include "gpu_engine.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/dispatch.cuh"

namespace hs::cuda::detail {

DeviceImage device_image(const ImageView& image, const std::byte* data) {
    return DeviceImage{data,
                       image.pixel_count(),
                       image.width,
                       image.height,
                       image.channels,
                       image.type,
                       image.bit_depth,
                       image.row_bytes() * static_cast<std::size_t>(image.height),
                       padded_bytes(image)};
}

void upload_image(const ImageView& image, std::byte* dst, cudaStream_t stream) {
    check(cudaMemcpy2DAsync(dst, image.row_bytes(), image.data, image.stride, image.row_bytes(),
                            static_cast<std::size_t>(image.height), cudaMemcpyHostToDevice, stream),
          "image upload (cudaMemcpy2DAsync)");
    const std::size_t packed = image.row_bytes() * static_cast<std::size_t>(image.height);
    const std::size_t padded = padded_bytes(image);
    if (padded > packed)
        check(cudaMemsetAsync(dst + packed, 0, padded - packed, stream),
              "image padding (cudaMemsetAsync)");
}

DeviceLimits SelectedDevice::limits() const {
    return {device.sm_count, device.shared_per_block_optin, device.shared_per_sm, device.l2_cache};
}

SelectedDevice select_device(const std::function<std::string()>& probe) {
    SelectedDevice selected;
    const DeviceQuery q = query_devices();
    if (q.devices.empty()) {
        selected.error = q.error.empty() ? "no CUDA device" : q.error;
        return selected;
    }
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess) {
        static_cast<void>(cudaGetLastError());
        current = 0;
    }
    const auto it = std::find_if(q.devices.begin(), q.devices.end(),
                                 [&](const DeviceInfo& d) { return d.index == current; });
    selected.device = it != q.devices.end() ? *it : q.devices.front();
    if (cudaSetDevice(selected.device.index) != cudaSuccess) {
        static_cast<void>(cudaGetLastError());
        selected.error = "cannot select CUDA device " + std::to_string(selected.device.index);
        return selected;
    }
    selected.found = true;
    if (std::string why = probe(); !why.empty()) selected.error = selected.device.name + ": " + why;
    return selected;
}

const SelectedDevice& DeviceSelection::get(const std::function<std::string()>& probe) const {
    std::call_once(once_, [&] { selected_ = select_device(probe); });
    return selected_;
}

TuningNote::TuningNote(std::string summary)
    : summary_(std::move(summary)), current_(*texts_.insert(summary_).first) {}

std::string_view TuningNote::current() const {
    const std::lock_guard lock(mutex_);
    return current_;
}

void TuningNote::record(const std::string& tuning) {
    constexpr std::size_t kMaxTexts = 256;
    const std::lock_guard lock(mutex_);
    std::string text = summary_ + ". Last request: " + tuning;
    if (const auto it = texts_.find(text); it != texts_.end())
        current_ = *it;
    else if (texts_.size() < kMaxTexts)
        current_ = *texts_.insert(std::move(text)).first;
}

void KernelRun::launch(const DeviceImage& image, const std::vector<Channel>& channels,
                       unsigned long long* counts, cudaStream_t stream) {
    const DeviceImage& p = shape_;
    if (image.pixels != p.pixels || image.width != p.width || image.height != p.height ||
        image.channels != p.channels || image.type != p.type || channels != channels_)
        throw UsageError(std::string(engine_) + ": launch() does not match the prepared request");
    queue(image, channels, counts, stream);
}

void KernelRun::clear_counts(unsigned long long* counts, std::size_t n, cudaStream_t stream) const {
    if (zeroes_counts()) return;
    check(cudaMemsetAsync(counts, 0, n * sizeof(unsigned long long), stream),
          "histogram counters (cudaMemsetAsync)");
}

namespace {

// The histograms of `channels`, `bins` counts each, one after the other in `host`.
template <typename T>
std::vector<ChannelHistogram> split(const std::vector<Channel>& channels,
                                    const std::vector<T>& host, std::size_t bins) {
    static_assert(sizeof(T) == sizeof(std::uint64_t));
    std::vector<ChannelHistogram> out;
    for (std::size_t i = 0; i < channels.size(); ++i) {
        const auto first = host.begin() + static_cast<std::ptrdiff_t>(i * bins);
        out.push_back({channels[i], std::vector<std::uint64_t>(
                                        first, first + static_cast<std::ptrdiff_t>(bins))});
    }
    return out;
}

}  // namespace

std::size_t padded_bytes(const ImageView& image) {
    const std::size_t packed = image.row_bytes() * static_cast<std::size_t>(image.height);
    const std::size_t group = kGroupBytesPerChannel * static_cast<std::size_t>(image.channels);
    return (packed + group - 1) / group * group;
}

GpuEngine::GpuEngine(Strategy strategy)
    : strategy_(std::move(strategy)), note_(std::string(strategy_.summary)) {}

Availability GpuEngine::availability() const {
    const SelectedDevice& s = state();
    if (!s.error.empty()) return {false, s.error};
    return {};
}

Capabilities GpuEngine::capabilities() const {
    return strategy_.capabilities ? strategy_.capabilities(*this) : Capabilities{};
}

std::string GpuEngine::extra_unsupported_reason(const HistogramRequest& r) const {
    // Before any hook: the strategies' arguments and plans know only the sample types the
    // kernels are built for.
    if (!kernel_sample_type(r.image.type))
        return "engine '" + std::string(name()) + "' has no kernels for " +
               sample_words(r.image.type) + " samples";
    return strategy_.refusal ? strategy_.refusal(*this, r) : std::string();
}

const SelectedDevice& GpuEngine::state() const {
    return selection_.get([this] { return strategy_.probe(); });
}

std::string GpuEngine::memory_refusal(std::size_t need, std::string_view what) const {
    const SelectedDevice& s = state();
    if (!s.error.empty()) return {};
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaSetDevice(s.device.index) != cudaSuccess ||
        cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
        static_cast<void>(cudaGetLastError());
        return {};
    }
    if (need <= free_bytes / 2) return {};
    return "engine '" + std::string(name()) + "' needs about " + std::to_string(need >> 20) +
           " MiB of device memory for " + std::string(what) + ", more than half of the " +
           std::to_string(free_bytes >> 20) + " MiB free on " + s.device.name;
}

void GpuEngine::use_device() const {
    const SelectedDevice& s = state();
    if (!s.error.empty()) throw UnsupportedError(s.error);
    check(cudaSetDevice(s.device.index), "cudaSetDevice");
}

std::unique_ptr<KernelRun> GpuEngine::make_run(const HistogramRequest& request,
                                               cudaStream_t stream) const {
    use_device();
    std::unique_ptr<KernelRun> run = strategy_.prepare(*this, request, stream);
    run->engine_ = name();
    run->shape_ = device_image(request.image, nullptr);
    run->channels_ = request.channels;
    note_.record(run->tuning());
    return run;
}

HistogramResult GpuEngine::run(const HistogramRequest& r) {
    use_device();

    const std::size_t padded = padded_bytes(r.image);
    const auto bins = static_cast<std::size_t>(r.spec.bins);
    const std::size_t n_counts = bins * r.channels.size();

    Stream stream;
    Event t0, t1, t2, t3;
    DeviceBuffer<std::byte> samples(padded, "image upload buffer");
    DeviceBuffer<unsigned long long> counts(n_counts, "histogram counters");
    const DeviceImage image = device_image(r.image, samples.data());

    t0.record(stream);
    upload_image(r.image, samples.data(), stream.get());
    const std::unique_ptr<KernelRun> kernel = make_run(r, stream.get());
    t1.record(stream);
    kernel->clear_counts(counts.data(), n_counts, stream.get());
    kernel->launch(image, r.channels, counts.data(), stream.get());
    check(cudaGetLastError(), "histogram kernel launch");
    t2.record(stream);

    std::vector<std::uint64_t> host(n_counts);
    static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
    check(cudaMemcpyAsync(host.data(), counts.data(), counts.bytes(), cudaMemcpyDeviceToHost,
                          stream.get()),
          "histogram download (cudaMemcpyAsync)");
    t3.record(stream);
    stream.synchronize("histogram (kernel execution)");

    HistogramResult result;
    result.channels = split(r.channels, host, bins);
    result.stages = {{"upload", static_cast<double>(t1.ms_since(t0))},
                     {"histogram", static_cast<double>(t2.ms_since(t1))},
                     {"download", static_cast<double>(t3.ms_since(t2))}};
    return result;
}

void BenchInput::upload(cudaStream_t stream) const {
    check(cudaMemcpyAsync(copy(0), pinned.data(), padded, cudaMemcpyHostToDevice, stream),
          "image upload (cudaMemcpyAsync)");
}

BenchInput bench_input(const ImageView& img, const BenchOptions& options, cudaStream_t stream) {
    BenchInput input;
    input.padded = padded_bytes(img);
    const std::size_t padded = input.padded;
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    std::size_t copies = std::max<std::size_t>(1, (options.rotate_bytes + padded - 1) / padded);
    input.copies =
        std::clamp<std::size_t>(copies, 1, std::max<std::size_t>(1, free_bytes / 2 / padded));
    input.pinned = PinnedBuffer<std::byte>(padded, "pinned copy of the image");
    input.samples =
        DeviceBuffer<std::byte>(input.copies * padded, "rotated device copies of the image");
    // The pinned staging copy, packed and zero-padded like the device copies.
    for (int y = 0; y < img.height; ++y)
        std::copy_n(img.row(y), img.row_bytes(),
                    input.pinned.data() + static_cast<std::size_t>(y) * img.row_bytes());
    const std::size_t packed = img.row_bytes() * static_cast<std::size_t>(img.height);
    std::fill(input.pinned.data() + packed, input.pinned.data() + padded, std::byte{0});
    // One upload, then the copies double on the device: a tiny image has millions of copies,
    // which one upload each would take minutes to make.
    check(cudaMemcpyAsync(input.samples.data(), input.pinned.data(), padded, cudaMemcpyHostToDevice,
                          stream),
          "image upload (cudaMemcpyAsync)");
    for (std::size_t have = 1; have < input.copies;) {
        const std::size_t n = std::min(have, input.copies - have);
        check(cudaMemcpyAsync(input.samples.data() + have * padded, input.samples.data(),
                              n * padded, cudaMemcpyDeviceToDevice, stream),
              "image copies (cudaMemcpyAsync)");
        have += n;
    }
    return input;
}

BenchTiming GpuEngine::run_benchmark(const HistogramRequest& r, const BenchOptions& options) {
    use_device();

    const auto bins = static_cast<std::size_t>(r.spec.bins);
    const std::size_t n_counts = bins * r.channels.size();
    const ImageView& img = r.image;

    Stream stream;
    BenchInput input = bench_input(img, options, stream.get());
    DeviceBuffer<unsigned long long> counts(n_counts, "histogram counters");
    const std::unique_ptr<KernelRun> kernel = make_run(r, stream.get());
    DeviceBenchRuns<unsigned long long> runs = device_benchmark(
        stream, input, options, counts,
        [&](std::size_t copy) {
            kernel->clear_counts(counts.data(), n_counts, stream.get());
            kernel->launch(device_image(img, input.copy(copy)), r.channels, counts.data(),
                           stream.get());
            check(cudaGetLastError(), "histogram kernel launch");
        },
        name());
    BenchTiming timing;
    timing.input_copies = static_cast<int>(input.copies);
    timing.histogram_ms = std::move(runs.kernel_ms);
    timing.back_to_back_ms = std::move(runs.back_to_back_ms);
    timing.end_to_end_ms = std::move(runs.end_to_end_ms);
    timing.last = split(r.channels, runs.counts, bins);
    return timing;
}

}  // namespace hs::cuda::detail
