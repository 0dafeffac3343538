#include "stream_session.hpp"

#include <utility>

#include "engine_choice.hpp"
#include "frame_work.hpp"
#include "histoscope/ui/controller.hpp"

namespace hs::ui {

StreamPlan plan_stream(const hs::ImageView& view, const FrameSettings& settings,
                       const EngineChoice& choice, const hs::Image* reference,
                       std::uint64_t reference_generation, EngineStatus& status) {
    const hs::HistogramRequest request = histogram_request(view, settings.bins);
    choice.histogram(settings.engine, request, status);
    StreamPlan plan;
    hs::StreamConfig& config = plan.config;
    config.format = hs::FrameFormat::of(view);
    config.engine = status.resolved.toStdString();
    config.channels = request.channels;
    config.spec = request.spec;
    const bool equalizing = settings.equalize.mode != EqualizeSettings::Mode::Off;
    plan.key = {
        config.format.describe(), config.engine,       config.spec.describe(), {}, equalizing,
        settings.equalize,        reference_generation};
    if (equalizing) {
        const hs::EqualizeRequest eq = equalize_request(view, settings.equalize, reference);
        config.equalize = eq;
        config.equalizer = std::string(choice.equalizer(settings.equalizer, eq)->name());
        plan.key.equalizer = config.equalizer;
    }
    return plan;
}

void StreamSession::submit(const StreamPlan& plan, std::int64_t index,
                           std::shared_ptr<const hs::Image> image, const Show& show) {
    const hs::StreamConfig& config = plan.config;
    const StreamKey& key = plan.key;
    if (stream_ && !(key == key_)) {
        drain(show);
        close();
    }
    if (!stream_) {
        hs::StreamEngine& engine = hs::choose_stream_engine(registry_, config);
        stream_ = engine.open(config);
        key_ = key;
        const std::string_view name = engine.name();
        engine_name_ = QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
    }
    const hs::ImageView view = image->view();
    in_flight_.emplace_back(index, std::move(image));
    stream_->submit(view);
    while (auto r = stream_->poll()) showReady({0, nullptr, std::move(*r)}, show);
}

void StreamSession::drain(const Show& show) {
    if (!stream_) return;
    while (auto r = stream_->wait()) showReady({0, nullptr, std::move(*r)}, show);
}

void StreamSession::close() {
    stream_.reset();
    key_ = {};
    engine_name_.clear();
    in_flight_.clear();
}

void StreamSession::showReady(StreamedFrame frame, const Show& show) {
    if (in_flight_.empty()) return;
    std::tie(frame.index, frame.image) = std::move(in_flight_.front());
    in_flight_.pop_front();
    show(frame);
}

}  // namespace hs::ui
