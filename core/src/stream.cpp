#include "histoscope/core/stream.hpp"

#include <chrono>
#include <cstring>
#include <deque>
#include <stdexcept>

#include "histoscope/core/error.hpp"
#include "histoscope/core/timing.hpp"

namespace hs {

// --- StreamConfig

void StreamConfig::validate() const {
    const ImageView shape = format.shape();
    hs::validate(shape);
    if (channels.empty() && !equalize)
        throw UsageError("the stream has nothing to do: no histogram channel and no equalization");
    if (!channels.empty()) {
        spec.validate();
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

// --- FrameStream

void FrameStream::submit(const ImageView& frame) {
    const FrameFormat& f = config().format;
    if (!f.matches(frame))
        throw InputError("a " + FrameFormat::of(frame).describe() +
                         " frame does not fit the stream's " + f.describe() + " frames");
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

HistogramEngine* serial_histogram_engine(const EngineRegistry& registry, const StreamConfig& c,
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

EqualizeEngine* serial_equalizer(const EngineRegistry& registry, const StreamConfig& c,
                                 const EqualizeRequest& request, std::string& why) {
    const std::string name = c.equalizer.empty() || c.equalizer == "auto" ? "cpu" : c.equalizer;
    EqualizeEngine* e = registry.find_equalizer(name);
    why = e == nullptr ? "unknown equalize kernel '" + name + "'" : e->refusal(request);
    return why.empty() ? e : nullptr;
}

class SerialStream final : public FrameStream {
  public:
    SerialStream(const StreamConfig& config, HistogramEngine* histograms, EqualizeEngine* equalizer)
        : config_(config),
          histograms_(histograms),
          equalizer_(equalizer),
          input_(config.format.frame_bytes()) {}

    std::string histogram_engine() const override {
        return histograms_ != nullptr ? std::string(histograms_->name()) : std::string();
    }
    std::string equalizer() const override {
        return equalizer_ != nullptr ? std::string(equalizer_->name()) : std::string();
    }
    const StreamConfig& config() const override { return config_; }

    std::byte* next_input() override {
        if (ready_.size() >= static_cast<std::size_t>(config_.depth))
            throw std::logic_error("frame stream: take the ready results before submitting more");
        return input_.data();
    }

    void submit() override {
        static_cast<void>(next_input());
        const ImageView frame = config_.format.view(input_.data());
        FrameResult r;
        r.index = submitted_++;
        if (histograms_ != nullptr) {
            HistogramResult h = histograms_->compute({frame, config_.channels, config_.spec});
            r.channels = std::move(h.channels);
            r.histogram_engine = std::string(histograms_->name());
            // An engine that delegates (auto) names the one that ran in its stages; the time is
            // the whole call's.
            r.stages.push_back({"histogram", h.total_ms});
        }
        if (equalizer_ != nullptr) {
            EqualizeRequest request = *config_.equalize;
            request.image = frame;
            EqualizeResult e = equalizer_->equalize(request);
            r.equalized = std::move(e.image);
            r.stages.push_back({"equalize", e.total_ms});
        }
        ready_.push_back(std::move(r));
    }

    std::optional<FrameResult> poll() override { return wait(); }
    std::optional<FrameResult> wait() override {
        if (ready_.empty()) return std::nullopt;
        FrameResult r = std::move(ready_.front());
        ready_.pop_front();
        return r;
    }
    std::size_t in_flight() const override { return 0; }

  private:
    StreamConfig config_;
    HistogramEngine* histograms_;
    EqualizeEngine* equalizer_;
    std::vector<std::byte> input_;
    std::deque<FrameResult> ready_;
    std::int64_t submitted_ = 0;
};

class SerialStreamEngine final : public StreamEngine {
  public:
    explicit SerialStreamEngine(const EngineRegistry& registry) : registry_(registry) {}

    std::string_view name() const override { return "cpu"; }
    std::string_view description() const override {
        return "frame by frame on the host thread, with any histogram engine and equalizer of "
               "the registry (no overlap of transfers and kernels)";
    }

    std::string unsupported_reason(const StreamConfig& config) const override {
        std::string why;
        static_cast<void>(resolve(config, why));
        return why;
    }

    std::unique_ptr<FrameStream> open(const StreamConfig& config) override {
        config.validate();
        std::string why;
        const auto [h, e] = resolve(config, why);
        if (!why.empty()) throw UnsupportedError(why);
        return std::make_unique<SerialStream>(config, h, e);
    }

  private:
    std::pair<HistogramEngine*, EqualizeEngine*> resolve(const StreamConfig& c,
                                                         std::string& why) const {
        const ImageView shape = c.format.shape();
        HistogramEngine* h = nullptr;
        EqualizeEngine* e = nullptr;
        if (!c.channels.empty())
            h = serial_histogram_engine(registry_, c, {shape, c.channels, c.spec}, why);
        if (why.empty() && c.equalize) {
            EqualizeRequest request = *c.equalize;
            request.image = shape;
            e = serial_equalizer(registry_, c, request, why);
        }
        return {h, e};
    }

    const EngineRegistry& registry_;
};

}  // namespace

std::unique_ptr<StreamEngine> make_serial_stream_engine(const EngineRegistry& registry) {
    return std::make_unique<SerialStreamEngine>(registry);
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
