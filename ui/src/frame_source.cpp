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

class RawSource final : public FrameSource {
  public:
    RawSource(const std::string& path, const hs::media::RawFormat& format, std::int64_t frames,
              std::int64_t position)
        : reader_(path, format), path_(path), frames_(frames) {
        seek(position);
    }
    std::int64_t frameCount() const override { return frames_; }
    // Raw frames carry no rate: they play at the rate of PAL video.
    double fps() const override { return 25.0; }
    std::int64_t position() const override { return position_; }
    void seek(std::int64_t index) override {
        if (index < 0 || index > frames_ || !reader_.seek(index))
            throw hs::InputError("raw input '" + path_ + "' has no frame " + std::to_string(index) +
                                 ": it holds " + std::to_string(frames_) + " frames");
        position_ = index;
    }
    Status read(hs::Image& out) override {
        const hs::media::RawFormat& f = reader_.format();
        if (position_ >= frames_) return Status::End;
        if (!f.matches(out.view()) || out.view().stride != out.view().row_bytes())
            out = hs::Image(f.width, f.height, f.channels, f.type, f.bit_depth);
        std::size_t got = 0;
        try {
            got = reader_.read_into(out.data());
        } catch (const std::exception& e) {
            failure_ = e.what();
            ++position_;
            static_cast<void>(reader_.seek(position_));  // the next frame from its start
            return Status::Failed;
        }
        if (got == 0) {  // the file was cut short since it was opened
            frames_ = position_;
            return Status::End;
        }
        const std::int64_t index = position_++;
        if (got < f.frame_bytes()) {  // cut short since it was opened: the end follows
            failure_ = "the file ends inside it: " + std::to_string(got) + " of its " +
                       std::to_string(f.frame_bytes()) + " bytes";
            frames_ = index;
            return Status::Failed;
        }
        return Status::Ok;
    }
    std::string failure() const override { return failure_; }

  private:
    hs::media::RawStreamReader reader_;
    std::string path_;
    std::int64_t frames_;
    std::int64_t position_ = 0;
    std::string failure_;
};

}  // namespace

std::unique_ptr<FrameSource> video_source(std::unique_ptr<hs::media::VideoReader> reader) {
    return std::make_unique<VideoSource>(std::move(reader));
}

std::unique_ptr<FrameSource> raw_source(const std::string& path, const hs::media::RawFormat& format,
                                        std::int64_t frames, std::int64_t position) {
    return std::make_unique<RawSource>(path, format, frames, position);
}

}  // namespace hs::ui
