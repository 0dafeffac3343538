#include "stream_session.hpp"

#include <stdexcept>
#include <utility>

#include "engine_choice.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/ui/controller.hpp"

namespace hs::ui {

namespace {

// Whether a stream open for `a` computes `b` as it is (the results' context aside).
bool same_stream(const StreamPlan& a, const StreamPlan& b) {
    const hs::StreamConfig &x = a.config, &y = b.config;
    if (!(x.format == y.format) || x.engine != y.engine || x.channels != y.channels ||
        !(x.spec == y.spec) || x.equalizer != y.equalizer ||
        x.equalized_histograms != y.equalized_histograms ||
        x.equalized_frame != y.equalized_frame || x.display != y.display ||
        x.equalize.has_value() != y.equalize.has_value() || a.cpu_only != b.cpu_only ||
        a.reference != b.reference || x.region != y.region || x.scopes != y.scopes ||
        x.scope_engine != y.scope_engine)
        return false;
    if (!x.equalize) return true;
    const hs::EqualizeRequest &e = *x.equalize, &f = *y.equalize;
    return e.mode == f.mode && e.space == f.space && e.strength == f.strength && e.clip == f.clip &&
           e.tiles_x == f.tiles_x && e.tiles_y == f.tiles_y;
}

}  // namespace

StreamPlan plan_stream(const hs::ImageView& view, const FrameSettings& settings,
                       const FrameOptions& options, const EngineChoice& choice,
                       const hs::MatchReference* reference, std::uint64_t reference_generation,
                       EngineStatus& status) {
    StreamPlan plan;
    plan.cpu_only = options.cpu_only;
    plan.reference = reference_generation;
    hs::StreamConfig& config = plan.config;
    config.format = hs::FrameFormat::of(view);
    // One bin per code value: the window's bins and the exact statistics are summed from it.
    // Float samples have no code values: the window's own float bins (stops), their statistics
    // from the samples.
    const bool floating = hs::is_float(view.type);
    const hs::HistogramRequest request =
        floating ? histogram_request(view, settings.bins)
                 : histogram_request(view, static_cast<int>(view.max_value()) + 1,
                                     options.cfa != nullptr);
    choice.histogram(options.cpu_only ? QStringLiteral("cpu") : settings.engine, request, status);
    config.engine = status.resolved.toStdString();
    config.channels = request.channels;
    config.spec = request.spec;
    config.equalized_histograms = true;
    config.equalized_frame = options.equalized_frame;
    config.display = hs::DisplaySpec{std::max(options.factor, 1), settings.stretch_deep,
                                     settings.clipping, floating ? settings.exposure : 0.0};
    config.depth = options.depth;
    const int reduced_by = std::max(options.reduced_by, 1);
    config.region = frame_region(settings.region, view.width, view.height, reduced_by);
    plan.context.counted = config.region;
    if (config.region)
        plan.context.region = settings.region.intersected(
            QRect(0, 0, view.width * reduced_by, view.height * reduced_by));
    // Scopes count code values: a float frame has none to count.
    if (!floating) config.scopes = scope_specs(config.counted(view), settings.scopes);
    config.scope_engine = options.cpu_only ? "cpu" : "auto";
    plan.context.scopes = config.scopes;
    plan.context.bins = settings.bins;
    plan.context.engine = status.resolved;
    plan.context.cfa = options.cfa;
    plan.context.exposure = floating ? settings.exposure : 0.0;
    const EqualizeSettings& eq = settings.equalize;
    plan.context.equalize_wanted = eq.mode != EqualizeSettings::Mode::Off;
    if (eq.mode == EqualizeSettings::Mode::Off) {
        plan.context.equalize_note = QObject::tr("Equalization is off: choose a mode below");
        return plan;
    }
    if (floating) {
        plan.context.equalize_note = QObject::tr(
            "A float (HDR) image is tone mapped rather than equalized: histoscope-cli equalize "
            "maps it to 8 or 16 bits; here the exposure slider sets how it is shown");
        return plan;
    }
    if (options.cfa) {
        plan.context.equalize_note = QObject::tr(
            "Equalization works on the demosaiced image: View > Camera Raw Mosaic "
            "(M) switches to it");
        return plan;
    }
    if (eq.mode == EqualizeSettings::Mode::Match) {
        if (reference == nullptr) {
            plan.context.equalize_note =
                QObject::tr("Match: choose a reference image (Reference...)");
            return plan;
        }
    }
    try {
        const hs::EqualizeRequest request_eq = equalize_request(view, eq, reference);
        hs::EqualizeEngine* equalizer = choice.equalizer(
            options.cpu_only ? QStringLiteral("cpu") : settings.equalizer, request_eq);
        config.equalize = request_eq;
        config.equalizer = std::string(equalizer->name());
    } catch (const std::exception& e) {
        plan.context.equalize_note = QObject::tr("Equalization: %1").arg(describe(e));
    }
    return plan;
}

bool StreamSession::serves(const StreamPlan& plan) const {
    return stream_ && same_stream(requested_, plan);
}

void StreamSession::configure(const StreamPlan& plan) {
    if (serves(plan)) return;  // the bins aside (each frame's tag has them), nothing changed
    if (!tags_.empty()) throw std::logic_error("StreamSession::configure with frames in flight");
    hs::StreamEngine& engine = plan.cpu_only ? *registry_.find_stream_engine("cpu")
                                             : hs::choose_stream_engine(registry_, plan.config);
    const QString name = qstr(engine.name());
    StreamPlan next = plan;
    // The CPU stream has the equalized frame on the host anyway: handing it over costs nothing.
    if (name == QLatin1String("cpu")) next.config.equalized_frame = true;
    bool reconfigured = false;
    if (stream_ && name == engine_name_ && next.config.format == plan_.config.format) {
        try {
            stream_->reconfigure(next.config);
            reconfigured = true;
        } catch (const hs::UnsupportedError&) {
            // It cannot run these settings after all: opened anew below.
        }
    }
    if (!reconfigured) {
        close();
        stream_ = engine.open(next.config);
        stream_->set_ready_callback(ready_);
        engine_ = &engine;
        engine_name_ = name;
    }
    plan_ = std::move(next);
    equalizer_name_ = qstr(stream_->equalizer());
    requested_ = plan;
}

bool StreamSession::hasRoom() const {
    return stream_ && tags_.size() < static_cast<std::size_t>(plan_.config.depth);
}

void StreamSession::submit(FrameTag tag) {
    stream_->submit(tag.image);
    last_ = tag.image;
    queued(std::move(tag));
}

void StreamSession::resubmit(FrameTag tag) {
    stream_->resubmit();
    queued(std::move(tag));
}

void StreamSession::queued(FrameTag tag) {
    tag.context.stream = engine_name_;
    tag.context.equalizer = equalizer_name_;
    tags_.push_back(std::move(tag));
}

std::optional<StreamSession::Done> StreamSession::take(bool wait) {
    if (!stream_ || tags_.empty()) return std::nullopt;
    Done done;
    try {
        std::optional<hs::FrameResult> r = wait ? stream_->wait() : stream_->poll();
        if (!r) return std::nullopt;
        done.result = std::move(*r);
    } catch (const hs::DeviceError& e) {
        done.error = describe(e);
        done.device_error = true;
    } catch (const std::exception& e) {
        done.error = describe(e);
    }
    done.tag = std::move(tags_.front());
    tags_.pop_front();
    return done;
}

std::deque<FrameTag> StreamSession::discard() {
    if (stream_) stream_->discard();
    return std::exchange(tags_, {});
}

void StreamSession::close() {
    if (stream_) stream_->discard();
    stream_.reset();
    engine_ = nullptr;
    engine_name_.clear();
    equalizer_name_.clear();
    tags_.clear();
    last_.reset();
}

std::shared_ptr<hs::HostMemory> StreamSession::frameMemory() const {
    return engine_ != nullptr ? engine_->frame_memory() : nullptr;
}

}  // namespace hs::ui
