// The GPU frame pipeline: the "gpu" stream engine (histoscope/core/stream.hpp).
//
// A ring of `depth` slots. Each slot owns a pinned input frame, the device copy of the frame
// (packed, zero-padded to whole 16-byte groups per channel as every engine keeps it), one CUDA
// stream and the events that time its stages, and the buffers the configuration asks for (its
// Work): the histogram counters, the equalizer (DeviceEqualizer: global, CLAHE or matching),
// the equalized frame, the pictures and clipping masks, and their pinned host copies. A frame's
// work is queued on its slot's stream in order: upload (straight from the frame's memory when
// it is the engine's pinned frame memory), histograms (the chosen engine's KernelRun, one per
// slot since runs may own scratch memory), the scopes (scopes/scope_kernels), equalization,
// histograms of the equalized frame, the pictures at the display factor (display kernels:
// stretched range, reduced picture, clipping mask), then the downloads of what the host asked
// for: counts, scopes, pictures, and the full equalized frame only with `equalized_frame`.
// The copies go through two streams shared by the ring, one per direction, ordered against the
// slot's stream by events (the upload before the kernels, the downloads after them): each
// direction's copies run back to back on its copy engine, so the download of one frame overlaps
// the upload of the next, and the kernels of a third run meanwhile on the SMs.
//
// A region (StreamConfig::region) is copied on the device into a packed buffer of its own, the
// original's and then the equalized frame's, so that the histogram and scope kernels read it
// as they read any packed frame; without one they read the frame itself.
//
// The three channels of a frame are not split over streams: the histogram kernels read the
// interleaved R, G, B samples in one pass, so one stream per channel would read the frame three
// times and gain nothing; the overlap that pays is between frames.

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>

#include "pipeline/frame_pipeline.hpp"

#include "auto/auto_select.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "display/display_kernels.cuh"
#include "equalize/device_equalizer.hpp"
#include "equalize/equalize_engine.hpp"
#include "equalize/equalize_kernels.cuh"
#include "gpu_engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/stream.hpp"
#include "scopes/scope_kernels.hpp"

namespace hs::cuda::detail {

namespace {

// Pinned host memory for the frames a reader fills (the engine's frame_memory()).
class PinnedHostMemory final : public HostMemory {
  public:
    std::byte* allocate(std::size_t bytes) override {
        void* p = nullptr;
        const cudaError_t status = cudaMallocHost(&p, bytes);
        if (status == cudaErrorMemoryAllocation) {
            static_cast<void>(cudaGetLastError());
            throw DeviceError("out of pinned host memory for a frame (" + std::to_string(bytes) +
                              " bytes)");
        }
        check(status, "pinned frame allocation (cudaMallocHost)");
        return static_cast<std::byte*>(p);
    }
    void release(std::byte* data, std::size_t) noexcept override {
        static_cast<void>(cudaFreeHost(data));
    }
    std::string_view name() const override { return "pinned host memory"; }
};

// The display range percentiles of a deep frame (display.hpp): 0.1 and 99.9, as the fractions
// stats.hpp's percentile() computes from them.
constexpr double kStretchLow = 0.1, kStretchHigh = 99.9;

// What a configuration needs on each slot besides its input.
struct Work {
    std::unique_ptr<KernelRun> run;
    DeviceBuffer<unsigned long long> counts;  // original, then equalized
    PinnedBuffer<unsigned long long> host_counts;
    std::unique_ptr<DeviceEqualizer> equalizer;
    DeviceBuffer<std::byte> dev_out;  // the equalized frame, padded
    DeviceBuffer<unsigned long long> bad;
    PinnedBuffer<unsigned long long> host_bad;
    PinnedBuffer<std::byte> out;                     // the equalized frame, packed
    DeviceBuffer<unsigned long long> colour_counts;  // a deep frame's colour values (stretch)
    DeviceBuffer<std::uint32_t> ranges;              // original lo, hi, equalized lo, hi
    PinnedBuffer<std::uint32_t> host_ranges;
    DeviceBuffer<std::uint8_t> pictures, masks;  // original, then equalized
    PinnedBuffer<std::uint8_t> host_pictures, host_masks;
    DeviceBuffer<std::byte> region;  // the region's samples, packed and padded (padding zero)
    std::vector<ScopePlan> scope_plans;
    DeviceBuffer<std::uint32_t> scope_counts;  // every scope's planes, one after the other
    PinnedBuffer<std::uint32_t> host_scope_counts;
};

struct Slot {
    Slot(std::size_t padded, std::size_t frame_size)
        : frame_bytes(frame_size), dev_in(padded, "device frame (pipeline ring)") {
        // The padding stays zero: only frame_bytes are ever uploaded.
        check(cudaMemsetAsync(dev_in.data(), 0, padded, stream.get()), "cudaMemsetAsync");
    }

    // The pinned buffer frames are copied into (next_input()), made when first asked for: a
    // stream fed frames by shared_ptr (a photo, a reader's pooled frames) never needs it.
    std::byte* input() {
        if (in.size() == 0)
            in = PinnedBuffer<std::byte>(frame_bytes, "pinned frame (pipeline ring)");
        return in.data();
    }

    std::size_t frame_bytes;
    PinnedBuffer<std::byte> in;          // frames copied in, packed
    std::shared_ptr<const Image> frame;  // or the frame submitted by shared_ptr
    DeviceBuffer<std::byte> dev_in;      // padded, padding zero
    Stream stream;
    Event start, uploaded, histogrammed, scoped, lut_done, applied, eq_histogrammed, pictured, end;
    Event done{false};      // the frame's work is finished (no timing: cheap to query and wait on)
    Event notified{false};  // and the ready callback has returned (with a callback)
    std::unique_ptr<Work> work;
    bool busy = false;
    bool uploaded_frame = false;  // the work in flight began with an upload (not a resubmit)
    std::int64_t index = 0;
};

// What a config resolves to: the GPU histogram engine whose kernels run (null without
// histograms), or why the pipeline cannot run it.
struct Resolved {
    GpuEngine* engine = nullptr;
    std::string why;
};

// Why the scope kernels cannot count `config`'s scopes on this device, or empty.
std::string scope_refusal(const StreamConfig& config) {
    if (config.scopes.empty()) return {};
    if (!config.scope_engine.empty() && config.scope_engine != "auto" &&
        config.scope_engine != "gpu")
        return "the GPU frame pipeline counts scopes with the 'gpu' scope engine's kernels, not '" +
               config.scope_engine + "'";
    const ImageView counted = config.counted_shape();
    if (counted.pixel_count() >= (std::uint64_t{1} << 32))
        return "the GPU frame pipeline keeps scope counts exact only below 2^32 pixels";
    static const DeviceSelection selection;
    const SelectedDevice& device = selection.get(scope_probe);
    if (!device.error.empty()) return device.error;
    try {
        for (const ScopeSpec& spec : config.scopes)
            static_cast<void>(plan_scope(device_image(counted, nullptr), spec, device.limits()));
    } catch (const UnsupportedError& e) {
        return e.what();
    }
    return {};
}

Resolved resolve(const EngineRegistry& registry, const StreamConfig& config) {
    Resolved out;
    if (config.equalize) {
        if (!config.equalizer.empty() && config.equalizer != "auto" && config.equalizer != "gpu") {
            out.why = "the GPU frame pipeline equalizes with the 'gpu' equalizer, not '" +
                      config.equalizer + "'";
            return out;
        }
        EqualizeRequest request = *config.equalize;
        request.image = config.format.shape();
        if (out.why = gpu_equalize_refusal(request); !out.why.empty()) return out;
    }
    if (out.why = scope_refusal(config); !out.why.empty()) return out;
    if (config.channels.empty()) return out;
    const HistogramRequest request{config.counted_shape(), config.channels, config.spec};
    if (!config.engine.empty() && config.engine != "auto") {
        HistogramEngine* e = registry.find(config.engine);
        if (e == nullptr) {
            out.why = "unknown kernel '" + config.engine + "'";
        } else if (auto* gpu = dynamic_cast<GpuEngine*>(e); gpu == nullptr) {
            out.why =
                "engine '" + config.engine + "' is not a GPU kernel the frame pipeline can run";
        } else if (out.why = gpu->refusal(request); out.why.empty()) {
            out.engine = gpu;
        }
        return out;
    }
    // "auto": the engines the "auto" engine would try for this frame shape, in its order (the
    // race factor is not known before the first frame), then any GPU engine that serves it.
    std::vector<HistogramEngine*> order;
    for (const AutoCandidate& c : auto_candidates(auto_key(request, false)))
        if (HistogramEngine* e = registry.find(c.engine); e != nullptr) order.push_back(e);
    for (const auto& e : registry.engines()) order.push_back(e.get());
    for (HistogramEngine* e : order) {
        auto* gpu = dynamic_cast<GpuEngine*>(e);
        if (gpu == nullptr) continue;
        if (std::string why = gpu->refusal(request); !why.empty()) {
            if (out.why.empty()) out.why = std::move(why);
            continue;
        }
        out.engine = gpu;
        out.why.clear();
        return out;
    }
    if (out.why.empty()) out.why = "no GPU histogram engine is registered";
    return out;
}

class FramePipeline final : public FrameStream {
  public:
    FramePipeline(const EngineRegistry& registry, GpuEngine* engine, const StreamConfig& config,
                  std::shared_ptr<HostMemory> memory);
    ~FramePipeline() override;
    FramePipeline(const FramePipeline&) = delete;
    FramePipeline& operator=(const FramePipeline&) = delete;

    std::string histogram_engine() const override {
        return engine_ != nullptr ? std::string(engine_->name()) : std::string();
    }
    std::string equalizer() const override { return config_.equalize ? "gpu" : ""; }
    const StreamConfig& config() const override { return config_; }
    std::byte* next_input() override;
    void submit() override;
    void submit(std::shared_ptr<const Image> frame) override;
    void resubmit() override;
    void reconfigure(const StreamConfig& config) override;
    void discard() override;
    void set_ready_callback(std::function<void()> callback) override {
        callback_ = std::move(callback);
    }
    std::optional<FrameResult> poll() override;
    std::optional<FrameResult> wait() override;
    std::size_t in_flight() const override { return pending_.size(); }
    std::vector<double> measure_upload_ms(int runs) override;
    std::vector<double> measure_copy_floor_ms(int runs) override;
    double measure_steady_state_ms(int frames) override;
    std::optional<std::size_t> device_memory_used() const override {
        std::size_t free_bytes = 0, total_bytes = 0;
        check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
        return total_bytes - free_bytes;
    }

  private:
    // The slot of the next submission, free.
    Slot& free_slot();
    void queue(Slot& s, bool upload);
    void prepare(const StreamConfig& config);  // every slot's Work for `config`
    std::unique_ptr<Work> make_work(Slot& s) const;
    ImageView input(const Slot& s) const;
    FrameResult collect(Slot& s);
    void complete_oldest();
    void enqueue(Slot& s, bool upload);
    void queue_downloads(Work& w, cudaStream_t st);
    // What the histograms and scopes count of `image` (a frame on the device): the region's
    // copy in `w`, queued on `st`, or the image itself.
    DeviceImage counted_part(const DeviceImage& image, Work& w, cudaStream_t st) const;
    std::optional<FrameResult> take_ready();
    static void CUDART_CB notify(void* pipeline);

    const EngineRegistry& registry_;
    StreamConfig config_;
    GpuEngine* engine_;
    std::shared_ptr<HostMemory> memory_;
    DeviceLimits limits_;
    std::size_t frame_bytes_ = 0, padded_ = 0;
    // The display: pictures of out_w x out_h pixels; a deep frame's colour planes (stretch).
    int out_w_ = 0, out_h_ = 0, colour_planes_ = 0;
    std::size_t picture_bytes_ = 0, mask_bytes_ = 0;
    bool stretch_ = false;
    std::vector<std::unique_ptr<Slot>> slots_;
    std::size_t next_ = 0;             // slot of the next submission
    std::int64_t last_ = -1;           // slot of the last submission
    std::int64_t submitted_ = 0;       // frames submitted
    std::deque<std::size_t> pending_;  // slots in flight, oldest first
    std::deque<FrameResult> ready_;
    bool keep_images_ = true;
    std::function<void()> callback_;
    // The copies of every slot, one stream per direction: each direction's copies run in order
    // on its copy engine, and the download of one frame overlaps the upload of the next.
    Stream uploads_, downloads_;
    Stream side_;  // for measurements
};

FramePipeline::FramePipeline(const EngineRegistry& registry, GpuEngine* engine,
                             const StreamConfig& config, std::shared_ptr<HostMemory> memory)
    : registry_(registry), config_(config), engine_(engine), memory_(std::move(memory)) {
    const FrameFormat& f = config.format;
    frame_bytes_ = f.frame_bytes();
    padded_ = padded_bytes(f.shape());
    const SelectedDevice device = select_device([&] {
        std::string why = config.equalize ? eq::probe() : std::string();
        if (why.empty() && config.display) why = display::probe();
        if (why.empty() && !config.scopes.empty()) why = scope_probe();
        return why;
    });
    if (!device.found) throw DeviceError("no CUDA device: " + device.error);
    if (!device.error.empty()) throw UnsupportedError(device.error);
    limits_ = device.limits();
    for (int i = 0; i < config.depth; ++i)
        slots_.push_back(std::make_unique<Slot>(padded_, frame_bytes_));
    prepare(config);
}

FramePipeline::~FramePipeline() {
    // Nothing may be in flight when the buffers go: wait for every stream (a destructor cannot
    // report errors).
    for (auto& s : slots_) static_cast<void>(cudaStreamSynchronize(s->stream.get()));
    static_cast<void>(cudaStreamSynchronize(uploads_.get()));
    static_cast<void>(cudaStreamSynchronize(downloads_.get()));
}

void FramePipeline::prepare(const StreamConfig& config) {
    config_ = config;
    const FrameFormat& f = config.format;
    if (config.display) {
        const int factor = config.display->factor;
        out_w_ = (f.width + factor - 1) / factor;
        out_h_ = (f.height + factor - 1) / factor;
        mask_bytes_ = static_cast<std::size_t>(out_w_) * static_cast<std::size_t>(out_h_);
        picture_bytes_ = mask_bytes_ * static_cast<std::size_t>(f.channels);
        stretch_ = config.display->stretch && f.type == SampleType::U16;
        colour_planes_ = std::min(f.channels, 3);
    } else {
        out_w_ = out_h_ = colour_planes_ = 0;
        picture_bytes_ = mask_bytes_ = 0;
        stretch_ = false;
    }
    for (auto& s : slots_) {
        s->work.reset();  // the old buffers go before the new ones come
        s->work = make_work(*s);
        s->stream.synchronize("frame pipeline setup");
    }
}

std::unique_ptr<Work> FramePipeline::make_work(Slot& s) const {
    const StreamConfig& c = config_;
    const FrameFormat& f = c.format;
    const ImageView shape = f.shape();
    auto w = std::make_unique<Work>();
    const bool eq_hist = engine_ != nullptr && c.equalize && c.equalized_histograms;
    const std::size_t n_counts =
        engine_ != nullptr ? static_cast<std::size_t>(c.spec.bins) * c.channels.size() : 0;
    const std::size_t all_counts = n_counts * (eq_hist ? 2 : 1);
    const ImageView counted = c.counted_shape();
    w->counts = DeviceBuffer<unsigned long long>(all_counts, "histogram counters");
    w->host_counts = PinnedBuffer<unsigned long long>(all_counts, "pinned histogram counters");
    if (engine_ != nullptr)
        w->run = engine_->make_run({counted, c.channels, c.spec}, s.stream.get());
    if (c.region) {
        w->region = DeviceBuffer<std::byte>(padded_bytes(counted), "region (pipeline ring)");
        check(cudaMemsetAsync(w->region.data(), 0, w->region.bytes(), s.stream.get()),
              "region padding (cudaMemsetAsync)");
    }
    std::size_t n_scope = 0;
    for (const ScopeSpec& spec : c.scopes) {
        w->scope_plans.push_back(plan_scope(device_image(counted, nullptr), spec, limits_));
        n_scope += spec.counts(counted.width);
    }
    w->scope_counts = DeviceBuffer<std::uint32_t>(n_scope, "scope counters");
    w->host_scope_counts = PinnedBuffer<std::uint32_t>(n_scope, "pinned scope counters");
    if (c.equalize) {
        EqualizeRequest request = *c.equalize;
        request.image = shape;
        w->equalizer = std::make_unique<DeviceEqualizer>(request, limits_, s.stream.get());
        w->equalizer->check_reference();
        w->dev_out = DeviceBuffer<std::byte>(padded_, "equalized frame (pipeline ring)");
        w->bad = DeviceBuffer<unsigned long long>(1, "depth check flag");
        w->host_bad = PinnedBuffer<unsigned long long>(1, "pinned depth check flag");
        if (c.equalized_frame)
            w->out = PinnedBuffer<std::byte>(frame_bytes_, "pinned equalized frame");
    }
    if (c.display) {
        const std::size_t sides = c.equalize ? 2 : 1;
        if (stretch_)
            w->colour_counts = DeviceBuffer<unsigned long long>(
                static_cast<std::size_t>(colour_planes_) << f.bit_depth, "colour value histograms");
        w->ranges = DeviceBuffer<std::uint32_t>(4, "display ranges");
        w->host_ranges = PinnedBuffer<std::uint32_t>(4, "pinned display ranges");
        w->pictures = DeviceBuffer<std::uint8_t>(picture_bytes_ * sides, "pictures");
        w->host_pictures = PinnedBuffer<std::uint8_t>(picture_bytes_ * sides, "pinned pictures");
        if (c.display->clipping != 0) {
            w->masks = DeviceBuffer<std::uint8_t>(mask_bytes_ * sides, "clipping masks");
            w->host_masks =
                PinnedBuffer<std::uint8_t>(mask_bytes_ * sides, "pinned clipping masks");
        }
    }
    return w;
}

ImageView FramePipeline::input(const Slot& s) const {
    return s.frame != nullptr ? s.frame->view() : config_.format.view(s.in.data());
}

void FramePipeline::enqueue(Slot& s, bool upload) {
    const cudaStream_t st = s.stream.get();
    Work& w = *s.work;
    const StreamConfig& c = config_;
    const ImageView v = input(s);
    const DeviceImage frame = device_image(c.format.shape(), s.dev_in.data());
    s.start.record(uploads_);
    s.uploaded_frame = upload;
    if (upload) {
        const bool direct =
            s.frame == nullptr || (s.frame->memory() == memory_.get() && v.stride == v.row_bytes());
        if (direct)
            check(cudaMemcpyAsync(s.dev_in.data(), v.data, frame_bytes_, cudaMemcpyHostToDevice,
                                  uploads_.get()),
                  "frame upload (cudaMemcpyAsync)");
        else  // pageable or strided: the runtime stages it
            check(cudaMemcpy2DAsync(s.dev_in.data(), v.row_bytes(), v.data, v.stride, v.row_bytes(),
                                    static_cast<std::size_t>(v.height), cudaMemcpyHostToDevice,
                                    uploads_.get()),
                  "frame upload (cudaMemcpy2DAsync)");
    }
    s.uploaded.record(uploads_);
    check(cudaStreamWaitEvent(st, s.uploaded.get(), 0), "cudaStreamWaitEvent");
    const std::size_t n_counts =
        engine_ != nullptr ? static_cast<std::size_t>(c.spec.bins) * c.channels.size() : 0;
    const DeviceImage counted = counted_part(frame, w, st);
    if (engine_ != nullptr) {
        w.run->clear_counts(w.counts.data(), n_counts, st);
        w.run->launch(counted, c.channels, w.counts.data(), st);
        check(cudaGetLastError(), "histogram kernel launch");
    }
    s.histogrammed.record(s.stream);
    std::size_t at = 0;
    for (std::size_t i = 0; i < c.scopes.size(); ++i) {
        const std::size_t n = c.scopes[i].counts(counted.width);
        launch_scope(counted, c.scopes[i], w.scope_plans[i], w.scope_counts.data() + at, n, st);
        at += n;
    }
    s.scoped.record(s.stream);
    // The equalized frame on the device: the equalizer's output, or the frame itself at
    // strength 0 (the reference returns the input then).
    DeviceImage equalized = frame;
    if (c.equalize) {
        if (w.equalizer->weight() != 0) {
            check(cudaMemsetAsync(w.bad.data(), 0xFF, w.bad.bytes(), st),
                  "depth check flag (cudaMemsetAsync)");
            w.equalizer->enqueue(frame, w.dev_out.data(), w.bad.data(), st,
                                 {nullptr, s.lut_done.get()});
            equalized.data = w.dev_out.data();
        } else {
            s.lut_done.record(s.stream);
        }
    } else {
        s.lut_done.record(s.stream);
    }
    s.applied.record(s.stream);
    if (engine_ != nullptr && c.equalize && c.equalized_histograms) {
        w.run->clear_counts(w.counts.data() + n_counts, n_counts, st);
        w.run->launch(counted_part(equalized, w, st), c.channels, w.counts.data() + n_counts, st);
        check(cudaGetLastError(), "histogram kernel launch (equalized frame)");
    }
    s.eq_histogrammed.record(s.stream);
    if (c.display) {
        const int sides = c.equalize ? 2 : 1;
        const int levels = 1 << c.format.bit_depth;
        for (int side = 0; side < sides; ++side) {
            const DeviceImage& image = side == 0 ? frame : equalized;
            const std::uint32_t* range = nullptr;
            if (stretch_) {
                eq::PlaneSelect colour;  // R, G, B (or the gray sample)
                check(cudaMemsetAsync(w.colour_counts.data(), 0, w.colour_counts.bytes(), st),
                      "colour value histograms (cudaMemsetAsync)");
                eq::launch_value_histogram(image, colour, colour_planes_, w.colour_counts.data(),
                                           nullptr, limits_, st);
                display::launch_stretched_range(w.colour_counts.data(), colour_planes_, levels,
                                                kStretchLow / 100.0, kStretchHigh / 100.0,
                                                w.ranges.data() + 2 * side, st);
                range = w.ranges.data() + 2 * side;
            }
            display::launch_picture(
                image, c.display->factor, range,
                w.pictures.data() + static_cast<std::size_t>(side) * picture_bytes_,
                c.display->clipping != 0
                    ? w.masks.data() + static_cast<std::size_t>(side) * mask_bytes_
                    : nullptr,
                c.display->clipping, st);
        }
    }
    s.pictured.record(s.stream);
    check(cudaStreamWaitEvent(downloads_.get(), s.pictured.get(), 0), "cudaStreamWaitEvent");
    queue_downloads(w, downloads_.get());
    s.end.record(downloads_);
    s.done.record(downloads_);
    if (callback_) {
        check(cudaLaunchHostFunc(downloads_.get(), &FramePipeline::notify, this),
              "cudaLaunchHostFunc");
        s.notified.record(downloads_);
    }
}

DeviceImage FramePipeline::counted_part(const DeviceImage& image, Work& w, cudaStream_t st) const {
    if (!config_.region) return image;
    const Region& r = *config_.region;
    const ImageView shape = config_.counted_shape();
    const std::size_t pixel = static_cast<std::size_t>(image.channels) *
                              static_cast<std::size_t>(bytes_per_sample(image.type));
    const std::size_t row = pixel * static_cast<std::size_t>(image.width);
    const std::byte* first =
        image.data + static_cast<std::size_t>(r.y) * row + static_cast<std::size_t>(r.x) * pixel;
    check(cudaMemcpy2DAsync(w.region.data(), shape.row_bytes(), first, row, shape.row_bytes(),
                            static_cast<std::size_t>(r.height), cudaMemcpyDeviceToDevice, st),
          "region copy (cudaMemcpy2DAsync)");
    return device_image(shape, w.region.data());
}

void CUDART_CB FramePipeline::notify(void* pipeline) {
    static_cast<FramePipeline*>(pipeline)->callback_();
}

FrameResult FramePipeline::collect(Slot& s) {
    s.stream.synchronize("frame pipeline (kernel execution)");
    // The downloads, and the callback saying the result is ready: it has been called when the
    // result is taken.
    check(cudaEventSynchronize(callback_ ? s.notified.get() : s.done.get()),
          "frame pipeline (downloads)");
    s.busy = false;
    const StreamConfig& c = config_;
    Work& w = *s.work;
    FrameResult r;
    r.index = s.index;
    r.source = s.frame;
    const ImageView v = input(s);
    const bool equalizing = c.equalize && w.equalizer->weight() != 0;
    if (equalizing && v.type == SampleType::U16 && v.bit_depth < 16 &&
        w.host_bad.data()[0] != kNoBadPixel) {
        const auto y =
            static_cast<int>(w.host_bad.data()[0] / static_cast<unsigned long long>(v.width));
        throw InputError("frame " + std::to_string(s.index) + ": a sample in row " +
                         std::to_string(y) + " exceeds the declared " +
                         std::to_string(v.bit_depth) + "-bit depth");
    }
    if (engine_ != nullptr) {
        const auto bins = static_cast<std::size_t>(c.spec.bins);
        const auto histograms = [&](const unsigned long long* counts) {
            std::vector<ChannelHistogram> out;
            for (std::size_t i = 0; i < c.channels.size(); ++i) {
                const unsigned long long* first = counts + i * bins;
                out.push_back({c.channels[i], std::vector<std::uint64_t>(first, first + bins)});
            }
            apply_saturation(c.spec, out);
            return out;
        };
        r.channels = histograms(w.host_counts.data());
        if (c.equalize && c.equalized_histograms)
            r.equalized_channels = histograms(w.host_counts.data() + bins * c.channels.size());
        r.histogram_engine = std::string(engine_->name());
    }
    if (!c.scopes.empty()) {
        const ImageView counted = c.counted_shape();
        const std::uint32_t* counts = w.host_scope_counts.data();
        for (const ScopeSpec& spec : c.scopes) {
            r.scopes.push_back(scope_planes(counted, spec, counts));
            counts += spec.counts(counted.width);
        }
        r.scope_engine = "gpu";
    }
    if (c.equalize && c.equalized_frame && keep_images_) {
        if (!equalizing) {
            r.equalized = copy_image(v);  // strength 0: the input, as the reference returns it
        } else {
            r.equalized = Image(v.width, v.height, v.channels, v.type, v.bit_depth);
            std::memcpy(r.equalized.data(), w.out.data(), frame_bytes_);
        }
    }
    if (c.display && keep_images_) {
        FramePictures p;
        p.factor = c.display->factor;
        const auto picture = [&](const std::uint8_t* data, int channels) {
            Image image(out_w_, out_h_, channels, SampleType::U8);
            std::memcpy(image.data(), data,
                        static_cast<std::size_t>(out_w_) * static_cast<std::size_t>(out_h_) *
                            static_cast<std::size_t>(channels));
            return image;
        };
        const DisplayRange full{0, v.max_value()};
        const auto range = [&](int side) {
            return stretch_ ? DisplayRange{w.host_ranges.data()[2 * side],
                                           w.host_ranges.data()[2 * side + 1]}
                            : full;
        };
        p.original = picture(w.host_pictures.data(), v.channels);
        p.original_range = range(0);
        if (c.display->clipping != 0) p.original_clipping = picture(w.host_masks.data(), 1);
        if (c.equalize) {
            p.equalized = picture(w.host_pictures.data() + picture_bytes_, v.channels);
            p.equalized_range = range(1);
            if (c.display->clipping != 0)
                p.equalized_clipping = picture(w.host_masks.data() + mask_bytes_, 1);
        }
        r.pictures = std::move(p);
    }
    const auto ms = [](const Event& b, const Event& a) {
        return static_cast<double>(b.ms_since(a));
    };
    // A resubmitted frame is not uploaded: its upload takes no time, rather than the few
    // microseconds between two events.
    r.stages.push_back({"upload", s.uploaded_frame ? ms(s.uploaded, s.start) : 0.0});
    if (engine_ != nullptr) r.stages.push_back({"histogram", ms(s.histogrammed, s.uploaded)});
    if (!c.scopes.empty()) r.stages.push_back({"scopes", ms(s.scoped, s.histogrammed)});
    if (equalizing) {
        r.stages.push_back({"lut", ms(s.lut_done, s.scoped)});
        r.stages.push_back({"apply", ms(s.applied, s.lut_done)});
    }
    if (engine_ != nullptr && c.equalize && c.equalized_histograms)
        r.stages.push_back({"histogram (equalized)", ms(s.eq_histogrammed, s.applied)});
    if (c.display) r.stages.push_back({"pictures", ms(s.pictured, s.eq_histogrammed)});
    if (equalizing || c.display) r.stages.push_back({"download", ms(s.end, s.pictured)});
    r.stages.push_back({"gpu_total", ms(s.end, s.start)});
    return r;
}

void FramePipeline::complete_oldest() {
    const std::size_t i = pending_.front();
    pending_.pop_front();
    ready_.push_back(collect(*slots_[i]));
}

Slot& FramePipeline::free_slot() {
    Slot& s = *slots_[next_];
    if (s.busy) {
        if (ready_.size() >= slots_.size())
            throw std::logic_error("frame stream: take the ready results before submitting more");
        // Back-pressure: the ring is full; the oldest frame is this slot's.
        complete_oldest();
    }
    return s;
}

std::byte* FramePipeline::next_input() {
    return free_slot().input();
}

void FramePipeline::queue(Slot& s, bool upload) {
    s.index = submitted_++;
    s.busy = true;
    pending_.push_back(next_);
    last_ = static_cast<std::int64_t>(next_);
    next_ = (next_ + 1) % slots_.size();
    enqueue(s, upload);
}

void FramePipeline::submit() {
    Slot& s = free_slot();
    s.frame.reset();
    queue(s, true);
}

void FramePipeline::submit(std::shared_ptr<const Image> frame) {
    if (frame == nullptr || frame->empty())
        throw UsageError("a frame stream needs a frame, not nothing");
    if (!config_.format.matches(frame->view()))
        throw InputError("a " + FrameFormat::of(frame->view()).describe() +
                         " frame does not fit the stream's " + config_.format.describe() +
                         " frames");
    Slot& s = free_slot();
    s.frame = std::move(frame);
    queue(s, true);
}

void FramePipeline::resubmit() {
    if (last_ < 0) throw std::logic_error("frame stream: nothing was submitted yet");
    // The last frame is on its slot's device copy; the frames before it finish first, so the
    // ring's order holds.
    Slot& s = *slots_[static_cast<std::size_t>(last_)];
    while (s.busy) {
        if (ready_.size() >= slots_.size())
            throw std::logic_error("frame stream: take the ready results before submitting more");
        complete_oldest();
    }
    next_ = static_cast<std::size_t>(last_);
    queue(s, false);
}

void FramePipeline::reconfigure(const StreamConfig& config) {
    if (!pending_.empty() || !ready_.empty())
        throw std::logic_error("frame stream: reconfigure with frames in flight or waiting");
    if (!(config.format == config_.format))
        throw UsageError("a stream keeps its frame format: " + config_.format.describe() +
                         ", not " + config.format.describe());
    config.validate();
    StreamConfig next = config;
    next.depth = static_cast<int>(slots_.size());  // the ring keeps its slots
    const StreamConfig before = config_;
    GpuEngine* const engine_before = engine_;
    const Resolved r = resolve(registry_, next);
    if (!r.why.empty()) throw UnsupportedError(r.why);
    try {
        engine_ = r.engine;
        prepare(next);
    } catch (...) {
        engine_ = engine_before;
        prepare(before);
        throw;
    }
}

void FramePipeline::discard() {
    for (const std::size_t i : pending_) {
        Slot& s = *slots_[i];
        static_cast<void>(cudaStreamSynchronize(s.stream.get()));
        s.busy = false;
    }
    static_cast<void>(cudaStreamSynchronize(uploads_.get()));
    static_cast<void>(cudaStreamSynchronize(downloads_.get()));
    pending_.clear();
    ready_.clear();
}

std::optional<FrameResult> FramePipeline::take_ready() {
    if (ready_.empty()) return std::nullopt;
    FrameResult r = std::move(ready_.front());
    ready_.pop_front();
    return r;
}

std::optional<FrameResult> FramePipeline::poll() {
    if (ready_.empty() && !pending_.empty()) {
        const cudaError_t st = cudaEventQuery(slots_[pending_.front()]->done.get());
        if (st == cudaSuccess)
            complete_oldest();
        else if (st != cudaErrorNotReady)
            check(st, "frame pipeline (event query)");
    }
    return take_ready();
}

std::optional<FrameResult> FramePipeline::wait() {
    if (ready_.empty() && !pending_.empty()) complete_oldest();
    return take_ready();
}

// The downloads of one frame's results, what the host asked for, queued on `st`.
void FramePipeline::queue_downloads(Work& w, cudaStream_t st) {
    const StreamConfig& c = config_;
    const bool equalizing = c.equalize && w.equalizer->weight() != 0;
    if (w.counts.size() != 0)
        check(cudaMemcpyAsync(w.host_counts.data(), w.counts.data(), w.counts.bytes(),
                              cudaMemcpyDeviceToHost, st),
              "histogram download (cudaMemcpyAsync)");
    if (w.scope_counts.size() != 0)
        check(cudaMemcpyAsync(w.host_scope_counts.data(), w.scope_counts.data(),
                              w.scope_counts.bytes(), cudaMemcpyDeviceToHost, st),
              "scope download (cudaMemcpyAsync)");
    if (equalizing) {
        check(cudaMemcpyAsync(w.host_bad.data(), w.bad.data(), w.bad.bytes(),
                              cudaMemcpyDeviceToHost, st),
              "depth check download (cudaMemcpyAsync)");
        if (c.equalized_frame)
            check(cudaMemcpyAsync(w.out.data(), w.dev_out.data(), frame_bytes_,
                                  cudaMemcpyDeviceToHost, st),
                  "equalized frame download (cudaMemcpyAsync)");
    }
    if (c.display) {
        check(cudaMemcpyAsync(w.host_pictures.data(), w.pictures.data(), w.pictures.bytes(),
                              cudaMemcpyDeviceToHost, st),
              "picture download (cudaMemcpyAsync)");
        if (w.masks.size() != 0)
            check(cudaMemcpyAsync(w.host_masks.data(), w.masks.data(), w.masks.bytes(),
                                  cudaMemcpyDeviceToHost, st),
                  "clipping mask download (cudaMemcpyAsync)");
        if (stretch_)
            check(cudaMemcpyAsync(w.host_ranges.data(), w.ranges.data(), w.ranges.bytes(),
                                  cudaMemcpyDeviceToHost, st),
                  "display range download (cudaMemcpyAsync)");
    }
}

std::vector<double> FramePipeline::measure_upload_ms(int runs) {
    if (runs < 1) throw UsageError("an upload measurement needs at least one run");
    while (!pending_.empty()) complete_oldest();
    Slot& s = *slots_[next_];
    // Warm-up, then each upload between two events on the otherwise idle upload stream.
    check(cudaMemcpyAsync(s.dev_in.data(), s.input(), frame_bytes_, cudaMemcpyHostToDevice,
                          uploads_.get()),
          "frame upload (cudaMemcpyAsync)");
    std::vector<Event> marks(static_cast<std::size_t>(runs) + 1);
    marks[0].record(uploads_);
    for (std::size_t i = 0; i < static_cast<std::size_t>(runs); ++i) {
        check(cudaMemcpyAsync(s.dev_in.data(), s.in.data(), frame_bytes_, cudaMemcpyHostToDevice,
                              uploads_.get()),
              "frame upload (cudaMemcpyAsync)");
        marks[i + 1].record(uploads_);
    }
    uploads_.synchronize("upload measurement");
    std::vector<double> out;
    for (std::size_t i = 0; i < static_cast<std::size_t>(runs); ++i)
        out.push_back(static_cast<double>(marks[i + 1].ms_since(marks[i])));
    return out;
}

std::vector<double> FramePipeline::measure_copy_floor_ms(int runs) {
    if (runs < 1) throw UsageError("a copy floor measurement needs at least one run");
    while (!pending_.empty()) complete_oldest();
    Slot& s = *slots_[next_];
    const std::byte* frame = s.input();
    // Each run: the upload and the downloads on the frames' copy streams, both after `start`,
    // joined at `end` before the next run (a warm-up run first).
    Event uploaded(false);
    const auto both = [&](Event& start, Event& end) {
        start.record(uploads_);
        check(cudaStreamWaitEvent(downloads_.get(), start.get(), 0), "cudaStreamWaitEvent");
        check(cudaMemcpyAsync(s.dev_in.data(), frame, frame_bytes_, cudaMemcpyHostToDevice,
                              uploads_.get()),
              "frame upload (cudaMemcpyAsync)");
        queue_downloads(*s.work, downloads_.get());
        uploaded.record(uploads_);
        check(cudaStreamWaitEvent(downloads_.get(), uploaded.get(), 0), "cudaStreamWaitEvent");
        end.record(downloads_);
        check(cudaStreamWaitEvent(uploads_.get(), end.get(), 0), "cudaStreamWaitEvent");
    };
    std::vector<Event> start(static_cast<std::size_t>(runs) + 1),
        end(static_cast<std::size_t>(runs) + 1);
    for (std::size_t i = 0; i < start.size(); ++i) both(start[i], end[i]);
    downloads_.synchronize("copy floor measurement");
    std::vector<double> out;
    for (std::size_t i = 1; i < start.size(); ++i)
        out.push_back(static_cast<double>(end[i].ms_since(start[i])));
    return out;
}

double FramePipeline::measure_steady_state_ms(int frames) {
    if (frames < 1) throw UsageError("a steady-state measurement needs at least one frame");
    if (!pending_.empty())
        throw std::logic_error("measure_steady_state_ms: wait for the frames in flight first");
    // Results are synchronized and their counts read, but the equalized frames and pictures are
    // not copied out of the pinned ring: the host's copies would pace the device.
    keep_images_ = false;
    const auto submit_frames = [&](int n) {
        for (int i = 0; i < n; ++i) {
            static_cast<void>(next_input());
            ready_.clear();
            submit();
        }
    };
    submit_frames(static_cast<int>(slots_.size()));  // warm-up: one turn of the ring
    while (!pending_.empty()) complete_oldest();
    ready_.clear();
    // `first` on an idle side stream: the device reaches it as the first frame is queued;
    // `last` waits for the end of every slot's last frame.
    Event first, last;
    first.record(side_);
    submit_frames(frames);
    for (auto& s : slots_)
        check(cudaStreamWaitEvent(side_.get(), s->done.get(), 0), "cudaStreamWaitEvent");
    last.record(side_);
    side_.synchronize("steady-state measurement");
    while (!pending_.empty()) complete_oldest();
    ready_.clear();
    keep_images_ = true;
    return static_cast<double>(last.ms_since(first)) / frames;
}

class PipelineStreamEngine final : public StreamEngine {
  public:
    explicit PipelineStreamEngine(const EngineRegistry& registry) : registry_(registry) {}

    std::string_view name() const override { return "gpu"; }
    std::string_view description() const override {
        return "GPU frame pipeline: a ring of pinned frames and CUDA streams, so the upload of "
               "one frame, the kernels of another and the download of a third overlap; "
               "histograms with the kernels of a GPU engine and scopes with the 'gpu' scope "
               "engine's, of the whole frame or of a region, equalization (global, CLAHE, "
               "matching) with the 'gpu' equalizer's kernels, the display pictures made on the "
               "device, every stage timed with CUDA events";
    }
    Availability availability() const override {
        const DeviceQuery q = query_devices();
        if (q.devices.empty()) return {false, q.error.empty() ? "no CUDA device" : q.error};
        return {};
    }
    std::string unsupported_reason(const StreamConfig& config) const override {
        return resolve(registry_, config).why;
    }
    std::unique_ptr<FrameStream> open(const StreamConfig& config) override {
        config.validate();
        if (const Availability a = availability(); !a.available)
            throw DeviceError("the GPU frame pipeline cannot run: " + a.reason);
        Resolved r = resolve(registry_, config);
        if (!r.why.empty()) throw UnsupportedError(r.why);
        return std::make_unique<FramePipeline>(registry_, r.engine, config, frame_memory());
    }
    std::shared_ptr<HostMemory> frame_memory() const override {
        const std::lock_guard lock(memory_mutex_);
        if (memory_ == nullptr && availability().available)
            memory_ = std::make_shared<PinnedHostMemory>();
        return memory_;
    }

  private:
    const EngineRegistry& registry_;
    mutable std::mutex memory_mutex_;
    mutable std::shared_ptr<HostMemory> memory_;
};

}  // namespace

std::unique_ptr<StreamEngine> make_pipeline_stream_engine(const EngineRegistry& registry) {
    return std::make_unique<PipelineStreamEngine>(registry);
}

}  // namespace hs::cuda::detail
