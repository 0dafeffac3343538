#include "histoscope/core/stream.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "histoscope/core/error.hpp"
#include "histoscope/core/timing.hpp"

namespace hs {

// --- StreamConfig

void StreamConfig::validate() const {
    const ImageView shape = format.shape();
    hs::validate(shape);
    if (channels.empty() && !equalize && scopes.empty())
        throw UsageError(
            "the stream has nothing to do: no histogram channel, no scope and no equalization");
    const ImageView counted = counted_shape();
    for (const ScopeSpec& s : scopes) s.validate(counted);
    if (!channels.empty()) {
        spec.validate_for(counted);
        for (Channel c : channels) check_channel(c, format.channels, format.type);
    }
    if (equalize) {
        EqualizeRequest r = *equalize;
        r.image = shape;
        r.validate();
    }
    if (depth < 2 || depth > 16)
        throw UsageError("the stream's depth (frames in flight) must be 2..16, not " +
                         std::to_string(depth));
}

ImageView StreamConfig::counted_shape() const {
    ImageView shape = format.shape();
    if (region) {
        check_region(*region, shape.width, shape.height);
        shape.width = region->width;
        shape.height = region->height;
    }
    return shape;
}

// --- FrameStream

void FrameStream::check_frame(const ImageView& frame) const {
    const FrameFormat& f = config().format;
    if (!f.matches(frame))
        throw InputError("a " + FrameFormat::of(frame).describe() +
                         " frame does not fit the stream's " + f.describe() + " frames");
}

void FrameStream::submit(const ImageView& frame) {
    check_frame(frame);
    std::byte* dst = next_input();
    const std::size_t row = frame.row_bytes();
    if (frame.stride == row) {
        std::memcpy(dst, frame.data, row * static_cast<std::size_t>(frame.height));
    } else {
        for (int y = 0; y < frame.height; ++y)
            std::memcpy(dst + static_cast<std::size_t>(y) * row, frame.row(y), row);
    }
    submit();
}

std::vector<double> FrameStream::measure_upload_ms(int) {
    return {};
}

std::vector<double> FrameStream::measure_copy_floor_ms(int) {
    return {};
}

double FrameStream::measure_steady_state_ms(int frames) {
    if (frames < 1) throw UsageError("a steady-state measurement needs at least one frame");
    if (in_flight() != 0)
        throw std::logic_error("measure_steady_state_ms: wait for the frames in flight first");
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < frames; ++i) {
        static_cast<void>(next_input());  // the buffer keeps its last frame
        submit();
        while (poll()) {
        }
    }
    while (wait()) {
    }
    return ms_since(start) / frames;
}

// --- the "cpu" stream engine

namespace {

HistogramEngine* stream_histogram_engine(const EngineRegistry& registry, const StreamConfig& c,
                                         const HistogramRequest& request, std::string& why) {
    if (c.engine.empty() || c.engine == "auto") {
        if (HistogramEngine* a = registry.find("auto"); a != nullptr && a->refusal(request).empty())
            return a;
        return registry.find("cpu");
    }
    HistogramEngine* e = registry.find(c.engine);
    why = e == nullptr ? "unknown kernel '" + c.engine + "'" : e->refusal(request);
    return why.empty() ? e : nullptr;
}

EqualizeEngine* stream_equalizer(const EngineRegistry& registry, const StreamConfig& c,
                                 const EqualizeRequest& request, std::string& why) {
    const std::string name = c.equalizer.empty() || c.equalizer == "auto" ? "cpu" : c.equalizer;
    EqualizeEngine* e = registry.find_equalizer(name);
    why = e == nullptr ? "unknown equalize kernel '" + name + "'" : e->refusal(request);
    return why.empty() ? e : nullptr;
}

ScopeEngine* stream_scope_engine(const EngineRegistry& registry, const StreamConfig& c,
                                 std::string& why) {
    const ImageView counted = c.counted_shape();
    std::vector<ScopeRequest> requests;
    for (const ScopeSpec& spec : c.scopes) requests.push_back({counted, spec});
    try {
        return &choose_scope_engine(registry, c.scope_engine, requests);
    } catch (const Error& e) {
        why = e.what();
        return nullptr;
    }
}

// The engines a config names, or why it cannot run.
struct StreamEngines {
    HistogramEngine* histograms = nullptr;
    EqualizeEngine* equalizer = nullptr;
    ScopeEngine* scopes = nullptr;
};

StreamEngines resolve_engines(const EngineRegistry& registry, const StreamConfig& c,
                              std::string& why) {
    StreamEngines out;
    if (!c.channels.empty())
        out.histograms =
            stream_histogram_engine(registry, c, {c.counted_shape(), c.channels, c.spec}, why);
    if (why.empty() && !c.scopes.empty()) out.scopes = stream_scope_engine(registry, c, why);
    if (why.empty() && c.equalize) {
        EqualizeRequest request = *c.equalize;
        request.image = c.format.shape();
        out.equalizer = stream_equalizer(registry, c, request, why);
    }
    return out;
}

// Pictures of the original and of the equalized frame, timed as one stage.
void add_pictures(const StreamConfig& c, const ImageView& frame, const Image* equalized,
                  FrameResult& r) {
    const auto start = std::chrono::steady_clock::now();
    const ImageView eq = equalized != nullptr ? equalized->view() : ImageView{};
    r.pictures = make_pictures(frame, equalized != nullptr ? &eq : nullptr, *c.display);
    r.stages.push_back({"pictures", ms_since(start)});
}

// The pool: `depth` slots used in turn, each an input frame (its own buffer, or a frame
// submitted by shared_ptr) and, once a worker has run it, its result. Since slots are used in
// turn, the slot of the next submission holds the oldest frame not taken: when it is still
// busy, the submission waits for it and moves its result to `ready_`.
class CpuStream final : public FrameStream {
  public:
    CpuStream(const EngineRegistry& registry, const StreamConfig& config,
              const StreamEngines& engines)
        : registry_(registry), config_(config), engines_(engines) {
        for (int i = 0; i < config.depth; ++i) slots_.push_back(std::make_unique<Slot>());
        const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
        const unsigned workers = std::min(hardware, static_cast<unsigned>(config.depth));
        for (unsigned i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
    }
    ~CpuStream() override {
        {
            const std::lock_guard lock(mutex_);
            stopping_ = true;
            ++generation_;
        }
        wake_.notify_all();
        workers_.clear();  // joins
    }
    CpuStream(const CpuStream&) = delete;
    CpuStream& operator=(const CpuStream&) = delete;

    std::string histogram_engine() const override {
        const std::lock_guard lock(mutex_);
        return engines_.histograms != nullptr ? std::string(engines_.histograms->name())
                                              : std::string();
    }
    std::string equalizer() const override {
        const std::lock_guard lock(mutex_);
        return engines_.equalizer != nullptr ? std::string(engines_.equalizer->name())
                                             : std::string();
    }
    const StreamConfig& config() const override { return config_; }

    std::byte* next_input() override {
        std::unique_lock lock(mutex_);
        Slot& s = free_slot(lock);
        s.frame.reset();
        s.buffer.resize(config_.format.frame_bytes());
        return s.buffer.data();
    }

    void submit() override {
        std::unique_lock lock(mutex_);
        Slot& s = free_slot(lock);
        s.frame.reset();
        s.buffer.resize(config_.format.frame_bytes());
        queue(s, lock);
    }

    void submit(std::shared_ptr<const Image> frame) override {
        if (frame == nullptr || frame->empty())
            throw UsageError("a frame stream needs a frame, not nothing");
        check_frame(frame->view());
        std::unique_lock lock(mutex_);
        Slot& s = free_slot(lock);
        s.frame = std::move(frame);
        queue(s, lock);
    }

    void resubmit() override {
        std::unique_lock lock(mutex_);
        if (last_ == nullptr) throw std::logic_error("frame stream: nothing was submitted yet");
        const Slot& last = *last_;
        Slot& s = free_slot(lock);
        s.frame = last.frame;
        if (s.frame == nullptr) s.buffer = last.buffer;
        queue(s, lock);
    }

    void reconfigure(const StreamConfig& config) override {
        const std::unique_lock lock(mutex_);
        if (!order_.empty() || !ready_.empty())
            throw std::logic_error("frame stream: reconfigure with frames in flight or waiting");
        if (!(config.format == config_.format))
            throw UsageError("a stream keeps its frame format: " + config_.format.describe() +
                             ", not " + config.format.describe());
        config.validate();
        std::string why;
        const StreamEngines engines = resolve_engines(registry_, config, why);
        if (!why.empty()) throw UnsupportedError(why);
        const int depth = config_.depth;
        config_ = config;
        config_.depth = depth;  // the pool keeps its slots
        engines_ = engines;
    }

    void discard() override {
        std::unique_lock lock(mutex_);
        ++generation_;  // the work of the frames queued so far stops between its stages
        jobs_.clear();
        done_.wait(lock, [&] { return running_ == 0; });
        for (Slot* s : order_) {
            s->busy = s->done = false;
            s->result = {};
            s->error = nullptr;
        }
        order_.clear();
        ready_.clear();
    }

    void set_ready_callback(std::function<void()> callback) override {
        const std::lock_guard lock(mutex_);
        ready_callback_ = std::move(callback);
    }

    std::optional<FrameResult> poll() override {
        std::unique_lock lock(mutex_);
        if (ready_.empty() && (order_.empty() || !order_.front()->done)) return std::nullopt;
        return take(lock);
    }
    std::optional<FrameResult> wait() override {
        std::unique_lock lock(mutex_);
        if (ready_.empty() && order_.empty()) return std::nullopt;
        done_.wait(lock, [&] { return !ready_.empty() || order_.front()->done; });
        return take(lock);
    }
    std::size_t in_flight() const override {
        const std::lock_guard lock(mutex_);
        return static_cast<std::size_t>(
            std::count_if(order_.begin(), order_.end(), [](const Slot* s) { return !s->done; }));
    }

  private:
    struct Slot {
        std::vector<std::byte> buffer;       // a frame written into next_input()
        std::shared_ptr<const Image> frame;  // or the frame submitted by shared_ptr
        bool busy = false;                   // submitted and its result not taken
        bool done = false;                   // its result (or error) is ready
        std::int64_t index = 0;
        std::uint64_t generation = 0;
        FrameResult result;
        std::exception_ptr error;
    };
    struct Ready {
        FrameResult result;
        std::exception_ptr error;
    };

    // The slot of the next submission, its last frame's result moved to ready_ first.
    Slot& free_slot(std::unique_lock<std::mutex>& lock) {
        Slot& s = *slots_[next_];
        if (!s.busy) return s;
        const std::size_t ready = ready_.size() + static_cast<std::size_t>(std::count_if(
                                                      order_.begin(), order_.end(),
                                                      [](const Slot* p) { return p->done; }));
        if (ready >= slots_.size())
            throw std::logic_error("frame stream: take the ready results before submitting more");
        done_.wait(lock, [&] { return s.done; });
        ready_.push_back(release(s));
        order_.pop_front();  // s was the oldest
        return s;
    }

    static Ready release(Slot& s) {
        Ready r{std::move(s.result), s.error};
        s.busy = s.done = false;
        s.result = {};
        s.error = nullptr;
        return r;
    }

    void queue(Slot& s, std::unique_lock<std::mutex>& lock) {
        s.busy = true;
        s.done = false;
        s.index = submitted_++;
        s.generation = generation_;
        order_.push_back(&s);
        jobs_.push_back(&s);
        last_ = &s;
        next_ = (next_ + 1) % slots_.size();
        lock.unlock();
        wake_.notify_one();
    }

    std::optional<FrameResult> take(std::unique_lock<std::mutex>& lock) {
        Ready r;
        if (!ready_.empty()) {
            r = std::move(ready_.front());
            ready_.pop_front();
        } else {
            Slot& s = *order_.front();
            order_.pop_front();
            r = release(s);
            if (&s != last_) s.frame.reset();  // the last one stays for resubmit()
        }
        lock.unlock();
        if (r.error) std::rethrow_exception(r.error);
        return std::move(r.result);
    }

    void work() {
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
            if (stopping_) return;
            Slot& s = *jobs_.front();
            jobs_.pop_front();
            ++running_;
            // reconfigure() refuses while a frame is in flight: config_ stays as it is.
            const StreamConfig& config = config_;
            const StreamEngines engines = engines_;
            const std::uint64_t generation = s.generation;
            lock.unlock();
            FrameResult r;
            std::exception_ptr error;
            try {
                const ImageView frame =
                    s.frame != nullptr ? s.frame->view() : config.format.view(s.buffer.data());
                r = run(config, engines, frame, [&] { return generation_.load() != generation; });
                r.index = s.index;
                r.source = s.frame;
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            --running_;
            const bool current = generation == generation_.load();
            if (current) {
                s.result = std::move(r);
                s.error = error;
                s.done = true;
            }
            const std::function<void()> callback = current ? ready_callback_ : nullptr;
            lock.unlock();
            done_.notify_all();
            if (callback) callback();
            lock.lock();
        }
    }

    // Frames run on an engine at once when it allows it, else one after another.
    std::unique_lock<std::mutex> turn_for(bool concurrent) {
        return concurrent ? std::unique_lock<std::mutex>() : std::unique_lock(engine_mutex_);
    }

    // One frame's work; stops between stages once `cancelled()`.
    template <typename Cancelled>
    FrameResult run(const StreamConfig& c, const StreamEngines& engines, const ImageView& frame,
                    Cancelled&& cancelled) {
        FrameResult r;
        HistogramEngine* h = engines.histograms;
        const auto count = [&](const ImageView& image) {
            const std::unique_lock turn = turn_for(h->concurrent());
            return h->compute({c.counted(image), c.channels, c.spec});
        };
        if (h != nullptr) {
            HistogramResult hr = count(frame);
            r.channels = std::move(hr.channels);
            r.histogram_engine = std::string(h->name());
            // An engine that delegates (auto) names the one that ran in its stages; the time
            // is the whole call's.
            r.stages.push_back({"histogram", hr.total_ms});
        }
        if (ScopeEngine* s = engines.scopes; s != nullptr && !cancelled()) {
            const auto start = std::chrono::steady_clock::now();
            for (const ScopeSpec& spec : c.scopes) {
                const std::unique_lock turn = turn_for(s->concurrent());
                r.scopes.push_back(s->compute({c.counted(frame), spec}).planes);
            }
            r.scope_engine = std::string(s->name());
            r.stages.push_back({"scopes", ms_since(start)});
        }
        if (cancelled()) return r;
        Image equalized;
        if (EqualizeEngine* e = engines.equalizer; e != nullptr) {
            EqualizeRequest request = *c.equalize;
            request.image = frame;
            const std::unique_lock turn = turn_for(e->concurrent());
            EqualizeResult er = e->equalize(request);
            equalized = std::move(er.image);
            r.stages.push_back({"equalize", er.total_ms});
        }
        if (cancelled()) return r;
        if (h != nullptr && c.equalized_histograms && !equalized.empty()) {
            HistogramResult hr = count(equalized.view());
            r.equalized_channels = std::move(hr.channels);
            r.stages.push_back({"histogram (equalized)", hr.total_ms});
        }
        if (cancelled()) return r;
        if (c.display) add_pictures(c, frame, equalized.empty() ? nullptr : &equalized, r);
        if (c.equalized_frame) r.equalized = std::move(equalized);
        return r;
    }

    const EngineRegistry& registry_;
    StreamConfig config_;
    StreamEngines engines_;
    std::vector<std::unique_ptr<Slot>> slots_;
    std::size_t next_ = 0;
    std::int64_t submitted_ = 0;
    std::deque<Slot*> order_;  // submitted and not taken, oldest first
    std::deque<Slot*> jobs_;   // not started, oldest first
    std::deque<Ready> ready_;  // taken out of slots that were needed again, oldest first
    const Slot* last_ = nullptr;
    std::atomic<std::uint64_t> generation_{0};
    int running_ = 0;
    bool stopping_ = false;
    std::function<void()> ready_callback_;
    std::mutex engine_mutex_;  // engines that are not concurrent() run one frame at a time
    mutable std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::vector<std::jthread> workers_;
};

class CpuStreamEngine final : public StreamEngine {
  public:
    explicit CpuStreamEngine(const EngineRegistry& registry) : registry_(registry) {}

    std::string_view name() const override { return "cpu"; }
    std::string_view description() const override {
        return "on a pool of host threads, several frames at once, with any histogram engine "
               "and equalizer of the registry (no overlap of transfers and kernels)";
    }

    std::string unsupported_reason(const StreamConfig& config) const override {
        std::string why;
        static_cast<void>(resolve_engines(registry_, config, why));
        return why;
    }

    std::unique_ptr<FrameStream> open(const StreamConfig& config) override {
        config.validate();
        std::string why;
        const StreamEngines engines = resolve_engines(registry_, config, why);
        if (!why.empty()) throw UnsupportedError(why);
        return std::make_unique<CpuStream>(registry_, config, engines);
    }

  private:
    const EngineRegistry& registry_;
};

}  // namespace

std::unique_ptr<StreamEngine> make_cpu_stream_engine(const EngineRegistry& registry) {
    return std::make_unique<CpuStreamEngine>(registry);
}

FramePictures make_pictures(const ImageView& frame, const ImageView* equalized,
                            const DisplaySpec& spec) {
    FramePictures p;
    p.factor = spec.factor;
    if (is_float(frame.type)) {
        // Linear light at the exposure asked (display.hpp); float frames are not equalized.
        p.original_range = {0, 255};
        p.original = float_display_picture(frame, spec.factor, spec.exposure);
        if (spec.clipping != 0)
            p.original_clipping =
                float_clipping_mask(frame, spec.factor, spec.clipping, spec.exposure);
        return p;
    }
    p.original_range = display_range(frame, spec);
    p.original = display_picture(frame, spec.factor, p.original_range);
    if (spec.clipping != 0) p.original_clipping = clipping_mask(frame, spec.factor, spec.clipping);
    if (equalized != nullptr) {
        p.equalized_range = display_range(*equalized, spec);
        p.equalized = display_picture(*equalized, spec.factor, p.equalized_range);
        if (spec.clipping != 0)
            p.equalized_clipping = clipping_mask(*equalized, spec.factor, spec.clipping);
    }
    return p;
}

StreamEngine& choose_stream_engine(const EngineRegistry& registry, const StreamConfig& config,
                                   std::string* why) {
    for (const auto& e : registry.stream_engines()) {
        if (e->name() == "cpu") continue;
        std::string reason;
        if (const Availability a = e->availability(); !a.available)
            reason = a.reason;
        else
            reason = e->unsupported_reason(config);
        if (reason.empty()) return *e;
        if (why != nullptr)
            *why += (why->empty() ? "" : "; ") + std::string(e->name()) + ": " + reason;
    }
    StreamEngine* cpu = registry.find_stream_engine("cpu");
    if (cpu == nullptr) throw UsageError("the registry has no stream engine");
    return *cpu;
}

}  // namespace hs
