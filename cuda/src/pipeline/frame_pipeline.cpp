// The GPU frame pipeline: the "gpu" stream engine (histoscope/core/stream.hpp).
//
// A ring of `depth` slots. Each slot owns a pinned input frame, the device copy of the frame
// (packed, zero-padded to whole 16-byte groups per channel as every engine keeps it), the
// histogram counters, the equalization's value histogram, LUT and output frame, a pinned output
// frame and counters, one CUDA stream and the events that time its stages. A frame's work is
// queued on its slot's stream in order: upload, histogram (the chosen engine's KernelRun, one per
// slot since runs may own scratch memory), counts download, equalization (value histogram of Y or
// R,G,B, LUT, apply: the kernels of the "gpu" equalizer) and the download of the equalized frame.
// Consecutive frames sit on different streams, so the copy engines (one per direction) and the
// SMs work on three frames at once: the upload of frame i+1 runs while frame i is in its kernels
// and frame i-1 downloads.
//
// The three channels of a frame are not split over streams: the histogram kernels read the
// interleaved R, G, B samples in one pass, so one stream per channel would read the frame three
// times and gain nothing; the overlap that pays is between frames.

#include <algorithm>
#include <cstring>
#include <deque>
#include <stdexcept>

#include "pipeline/frame_pipeline.hpp"

#include "auto/auto_select.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "equalize/equalize_kernels.cuh"
#include "gpu_engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/stream.hpp"

namespace hs::cuda::detail {

namespace {

constexpr unsigned long long kNoBadPixel = ~0ull;

struct Slot {
    // `counts`: histogram counters (0: no histograms); `eq_entries`: planes x levels (0: no
    // equalization).
    Slot(std::size_t padded, std::size_t frame_bytes, std::size_t counts_n, std::size_t eq_entries)
        : in(padded, "pinned frame (pipeline ring)"),
          dev_in(padded, "device frame (pipeline ring)"),
          dev_out(eq_entries ? padded : 0, "equalized frame (pipeline ring)"),
          counts(counts_n, "histogram counters"),
          host_counts(counts_n, "pinned histogram counters"),
          eq_counts(eq_entries, "value histograms"),
          luts(eq_entries, "LUTs"),
          bad(eq_entries ? 1 : 0, "depth check flag"),
          host_bad(eq_entries ? 1 : 0, "pinned depth check flag"),
          out(eq_entries ? frame_bytes : 0, "pinned equalized frame") {
        std::memset(in.data(), 0, padded);
    }

    PinnedBuffer<std::byte> in;  // padded, padding zero
    DeviceBuffer<std::byte> dev_in, dev_out;
    DeviceBuffer<unsigned long long> counts;
    PinnedBuffer<unsigned long long> host_counts;
    DeviceBuffer<unsigned long long> eq_counts;
    DeviceBuffer<std::uint16_t> luts;
    DeviceBuffer<unsigned long long> bad;
    PinnedBuffer<unsigned long long> host_bad;
    PinnedBuffer<std::byte> out;  // packed equalized frame
    Stream stream;
    Event start, uploaded, histogrammed, lut_done, applied, end;
    Event done{false};  // the frame's work is finished (no timing: cheap to query and wait on)
    std::unique_ptr<KernelRun> run;
    bool busy = false;
    std::int64_t index = 0;
};

// What a config resolves to: the GPU histogram engine whose kernels run (null without
// histograms), or why the pipeline cannot run it.
struct Resolved {
    GpuEngine* engine = nullptr;
    std::string why;
};

Resolved resolve(const EngineRegistry& registry, const StreamConfig& config) {
    Resolved out;
    if (config.equalize) {
        if (!config.equalizer.empty() && config.equalizer != "auto" && config.equalizer != "gpu") {
            out.why = "the GPU frame pipeline equalizes with the 'gpu' equalizer, not '" +
                      config.equalizer + "'";
            return out;
        }
        if (config.equalize->mode != EqualizeMode::Global) {
            out.why = "the GPU frame pipeline equalizes globally only (" +
                      std::string(mode_name(config.equalize->mode)) +
                      " runs frame by frame on the 'cpu' stream engine)";
            return out;
        }
    }
    if (config.channels.empty()) return out;
    const HistogramRequest request{config.format.shape(), config.channels, config.spec};
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
    FramePipeline(GpuEngine* engine, const StreamConfig& config);
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
    std::optional<FrameResult> poll() override;
    std::optional<FrameResult> wait() override;
    std::size_t in_flight() const override { return pending_.size(); }
    std::vector<double> measure_upload_ms(int runs) override;
    double measure_steady_state_ms(int frames) override;
    std::optional<std::size_t> device_memory_used() const override {
        std::size_t free_bytes = 0, total_bytes = 0;
        check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
        return total_bytes - free_bytes;
    }

  private:
    FrameResult collect(Slot& s);
    void complete_oldest();
    void enqueue(Slot& s);
    std::optional<FrameResult> take_ready();

    StreamConfig config_;
    GpuEngine* engine_;
    DeviceLimits limits_;
    std::size_t frame_bytes_ = 0, padded_ = 0, levels_ = 0;
    int planes_ = 0;
    bool check_depth_ = false;
    std::int64_t weight_ = 0;
    std::vector<std::unique_ptr<Slot>> slots_;
    std::size_t next_ = 0;             // slot of the next submission
    std::int64_t submitted_ = 0;       // frames submitted
    std::deque<std::size_t> pending_;  // slots in flight, oldest first
    std::deque<FrameResult> ready_;
    bool keep_images_ = true;
    Stream side_;  // for measurements
};

FramePipeline::FramePipeline(GpuEngine* engine, const StreamConfig& config)
    : config_(config), engine_(engine) {
    const FrameFormat& f = config.format;
    const ImageView shape = f.shape();
    frame_bytes_ = f.frame_bytes();
    padded_ = padded_bytes(shape);

    const SelectedDevice device =
        select_device([&] { return config.equalize ? eq::probe() : std::string(); });
    if (!device.found) throw DeviceError("no CUDA device: " + device.error);
    if (!device.error.empty()) throw UnsupportedError(device.error);
    limits_ = device.limits();

    const std::size_t n_counts =
        engine_ != nullptr ? static_cast<std::size_t>(config.spec.bins) * config.channels.size()
                           : 0;
    if (config.equalize) {
        EqualizeRequest er = *config.equalize;
        er.image = shape;
        planes_ = er.processed_planes();
        levels_ = std::size_t{1} << f.bit_depth;
        check_depth_ = f.type == SampleType::U16 && f.bit_depth < 16;
        weight_ = strength_weight(er.strength);
    }
    const std::size_t eq_entries =
        config.equalize ? static_cast<std::size_t>(planes_) * levels_ : 0;
    for (int i = 0; i < config.depth; ++i) {
        auto s = std::make_unique<Slot>(padded_, frame_bytes_, n_counts, eq_entries);
        if (engine_ != nullptr)
            s->run = engine_->make_run({f.view(s->in.data()), config.channels, config.spec},
                                       s->stream.get());
        s->stream.synchronize("frame pipeline setup");
        slots_.push_back(std::move(s));
    }
}

FramePipeline::~FramePipeline() {
    // Nothing may be in flight when the buffers go: wait for every stream (a destructor cannot
    // report errors).
    for (auto& s : slots_) static_cast<void>(cudaStreamSynchronize(s->stream.get()));
}

void FramePipeline::enqueue(Slot& s) {
    const cudaStream_t st = s.stream.get();
    const ImageView v = config_.format.view(s.in.data());
    s.start.record(s.stream);
    check(cudaMemcpyAsync(s.dev_in.data(), s.in.data(), padded_, cudaMemcpyHostToDevice, st),
          "frame upload (cudaMemcpyAsync)");
    s.uploaded.record(s.stream);
    if (engine_ != nullptr) {
        s.run->clear_counts(s.counts.data(), s.counts.size(), st);
        s.run->launch(device_image(v, s.dev_in.data()), config_.channels, s.counts.data(), st);
        check(cudaGetLastError(), "histogram kernel launch");
        check(cudaMemcpyAsync(s.host_counts.data(), s.counts.data(), s.counts.bytes(),
                              cudaMemcpyDeviceToHost, st),
              "histogram download (cudaMemcpyAsync)");
    }
    s.histogrammed.record(s.stream);
    if (config_.equalize && weight_ != 0) {
        const DeviceImage frame = device_image(v, s.dev_in.data());
        eq::PlaneSelect select;
        select.luma = v.channels >= 3 && config_.equalize->space == EqualizeSpace::Luma;
        check(cudaMemsetAsync(s.eq_counts.data(), 0, s.eq_counts.bytes(), st),
              "value histograms (cudaMemsetAsync)");
        check(cudaMemsetAsync(s.bad.data(), 0xFF, s.bad.bytes(), st),
              "depth check flag (cudaMemsetAsync)");
        eq::launch_value_histogram(frame, select, planes_, s.eq_counts.data(), nullptr, limits_,
                                   st);
        eq::launch_global_lut(s.eq_counts.data(), planes_, static_cast<int>(levels_), weight_,
                              s.luts.data(), st);
        s.lut_done.record(s.stream);
        eq::launch_apply_lut(frame, select.luma, planes_, s.luts.data(), s.dev_out.data(),
                             check_depth_ ? s.bad.data() : nullptr, st);
        check(cudaGetLastError(), "equalization kernel launch");
        s.applied.record(s.stream);
        check(cudaMemcpyAsync(s.out.data(), s.dev_out.data(), frame_bytes_, cudaMemcpyDeviceToHost,
                              st),
              "equalized frame download (cudaMemcpyAsync)");
        check(cudaMemcpyAsync(s.host_bad.data(), s.bad.data(), s.bad.bytes(),
                              cudaMemcpyDeviceToHost, st),
              "depth check download (cudaMemcpyAsync)");
    } else {
        s.lut_done.record(s.stream);
        s.applied.record(s.stream);
    }
    s.end.record(s.stream);
    s.done.record(s.stream);
}

FrameResult FramePipeline::collect(Slot& s) {
    s.stream.synchronize("frame pipeline (kernel execution)");
    s.busy = false;
    FrameResult r;
    r.index = s.index;
    if (engine_ != nullptr) {
        const auto bins = static_cast<std::size_t>(config_.spec.bins);
        for (std::size_t i = 0; i < config_.channels.size(); ++i) {
            const unsigned long long* first = s.host_counts.data() + i * bins;
            r.channels.push_back(
                {config_.channels[i], std::vector<std::uint64_t>(first, first + bins)});
        }
        apply_saturation(config_.spec, r.channels);
        r.histogram_engine = std::string(engine_->name());
    }
    const ImageView v = config_.format.view(s.in.data());
    if (config_.equalize && weight_ != 0 && check_depth_ && s.host_bad.data()[0] != kNoBadPixel) {
        const auto y =
            static_cast<int>(s.host_bad.data()[0] / static_cast<unsigned long long>(v.width));
        throw InputError("frame " + std::to_string(s.index) + ": a sample in row " +
                         std::to_string(y) + " exceeds the declared " +
                         std::to_string(v.bit_depth) + "-bit depth");
    }
    if (config_.equalize && keep_images_) {
        if (weight_ == 0) {
            r.equalized = copy_image(v);  // strength 0: the input, as the reference returns it
        } else {
            r.equalized = Image(v.width, v.height, v.channels, v.type, v.bit_depth);
            std::memcpy(r.equalized.data(), s.out.data(), frame_bytes_);
        }
    }
    const auto ms = [](const Event& b, const Event& a) {
        return static_cast<double>(b.ms_since(a));
    };
    r.stages.push_back({"upload", ms(s.uploaded, s.start)});
    if (engine_ != nullptr) r.stages.push_back({"histogram", ms(s.histogrammed, s.uploaded)});
    if (config_.equalize && weight_ != 0) {
        r.stages.push_back({"lut", ms(s.lut_done, s.histogrammed)});
        r.stages.push_back({"apply", ms(s.applied, s.lut_done)});
        r.stages.push_back({"download", ms(s.end, s.applied)});
    }
    r.stages.push_back({"gpu_total", ms(s.end, s.start)});
    return r;
}

void FramePipeline::complete_oldest() {
    const std::size_t i = pending_.front();
    pending_.pop_front();
    ready_.push_back(collect(*slots_[i]));
}

std::byte* FramePipeline::next_input() {
    Slot& s = *slots_[next_];
    if (s.busy) {
        if (ready_.size() >= slots_.size())
            throw std::logic_error("frame stream: take the ready results before submitting more");
        // Back-pressure: the ring is full; the oldest frame is this slot's.
        complete_oldest();
    }
    return s.in.data();
}

void FramePipeline::submit() {
    static_cast<void>(next_input());
    Slot& s = *slots_[next_];
    s.index = submitted_++;
    s.busy = true;
    pending_.push_back(next_);
    next_ = (next_ + 1) % slots_.size();
    enqueue(s);
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

std::vector<double> FramePipeline::measure_upload_ms(int runs) {
    if (runs < 1) throw UsageError("an upload measurement needs at least one run");
    while (!pending_.empty()) complete_oldest();
    Slot& s = *slots_[next_];
    // Warm-up, then each upload between two events on one otherwise idle stream.
    check(cudaMemcpyAsync(s.dev_in.data(), s.in.data(), padded_, cudaMemcpyHostToDevice,
                          s.stream.get()),
          "frame upload (cudaMemcpyAsync)");
    std::vector<Event> marks(static_cast<std::size_t>(runs) + 1);
    marks[0].record(s.stream);
    for (std::size_t i = 0; i < static_cast<std::size_t>(runs); ++i) {
        check(cudaMemcpyAsync(s.dev_in.data(), s.in.data(), padded_, cudaMemcpyHostToDevice,
                              s.stream.get()),
              "frame upload (cudaMemcpyAsync)");
        marks[i + 1].record(s.stream);
    }
    s.stream.synchronize("upload measurement");
    std::vector<double> out;
    for (std::size_t i = 0; i < static_cast<std::size_t>(runs); ++i)
        out.push_back(static_cast<double>(marks[i + 1].ms_since(marks[i])));
    return out;
}

double FramePipeline::measure_steady_state_ms(int frames) {
    if (frames < 1) throw UsageError("a steady-state measurement needs at least one frame");
    if (!pending_.empty())
        throw std::logic_error("measure_steady_state_ms: wait for the frames in flight first");
    // Results are synchronized and their counts read, but the equalized frames are not copied
    // out of the pinned ring: the host's copies would pace the device.
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
               "histograms with the kernels of a GPU engine, global equalization with the 'gpu' "
               "equalizer's kernels, every stage timed with CUDA events";
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
        return std::make_unique<FramePipeline>(r.engine, config);
    }

  private:
    const EngineRegistry& registry_;
};

}  // namespace

std::unique_ptr<StreamEngine> make_pipeline_stream_engine(const EngineRegistry& registry) {
    return std::make_unique<PipelineStreamEngine>(registry);
}

}  // namespace hs::cuda::detail
