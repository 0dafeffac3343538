#include "stream_session.hpp"

#include <utility>

namespace hs::ui {

void StreamSession::submit(const hs::StreamConfig& config, const StreamKey& key, std::int64_t index,
                           std::shared_ptr<const hs::Image> image, const Show& show) {
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
