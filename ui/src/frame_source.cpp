#include "frame_source.hpp"

#include <utility>

#include "histoscope/core/error.hpp"

namespace hs::ui {

namespace {

class VideoSource final : public FrameSource {
  public:
    explicit VideoSource(std::unique_ptr<hs::media::VideoReader> reader)
        : reader_(std::move(reader)) {}
    std::int64_t frameCount() const override { return reader_->frame_count(); }
    double fps() const override { return reader_->fps(); }
    std::int64_t position() const override { return reader_->position(); }
    void seek(std::int64_t index) override { reader_->seek(index); }
    Status read(hs::Image& out) override {
        switch (reader_->read_frame(out)) {
            case hs::media::VideoReader::FrameStatus::Ok:
                return Status::Ok;
            case hs::media::VideoReader::FrameStatus::Failed:
                return Status::Failed;
            case hs::media::VideoReader::FrameStatus::End:
                break;
        }
        return Status::End;
    }
    std::string failure() const override { return reader_->failure(); }

  private:
    std::unique_ptr<hs::media::VideoReader> reader_;
};

}  // namespace

std::unique_ptr<FrameSource> video_source(std::unique_ptr<hs::media::VideoReader> reader) {
    return std::make_unique<VideoSource>(std::move(reader));
}

}  // namespace hs::ui
