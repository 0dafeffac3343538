#include "frame_source.hpp"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

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
              std::int64_t position, double fps)
        : reader_(path, format), path_(path), frames_(frames), fps_(fps) {
        if (live()) return;
        seek(position);
    }
    // Live input: a count known once it ends.
    std::int64_t frameCount() const override { return live() && !ended_ ? 0 : frames_; }
    // Raw frames carry no rate: the one the user gave.
    double fps() const override { return fps_; }
    bool seekable() const override { return !live(); }
    std::int64_t position() const override { return position_; }
    void seek(std::int64_t index) override {
        if (live())
            throw hs::InputError("standard input cannot seek: its frames are shown as they come");
        if (index < 0 || index > frames_ || !reader_.seek(index))
            throw hs::InputError("raw input '" + path_ + "' has no frame " + std::to_string(index) +
                                 ": it holds " + std::to_string(frames_) + " frames");
        position_ = index;
    }
    Status read(hs::Image& out) override {
        const hs::media::RawFormat& f = reader_.format();
        if (position_ >= frames_ && !live()) return Status::End;
        if (live() && position_ == 0) return readFirstLive(out);
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
        if (got == 0) {  // the end (of live input), or the file was cut short since it was opened
            frames_ = position_;
            ended_ = true;
            return Status::End;
        }
        const std::int64_t index = position_++;
        if (got < f.frame_bytes()) {  // cut short: the end follows
            failure_ = (live() ? "standard input ended inside it: " : "the file ends inside it: ") +
                       std::to_string(got) + " of its " + std::to_string(f.frame_bytes()) +
                       " bytes";
            frames_ = index;
            ended_ = true;
            return Status::Failed;
        }
        if (live()) frames_ = position_;
        return Status::Ok;
    }
    std::string failure() const override { return failure_; }

  private:
    bool live() const { return path_ == "-"; }

    // Standard input's first frame is read into memory that grows as its bytes arrive, before a
    // frame of the declared size is allocated: a format too large for this machine, on an input
    // that holds far less, is said as such rather than tried.
    Status readFirstLive(hs::Image& out) {
        const hs::media::RawFormat& f = reader_.format();
        constexpr std::size_t kChunk = std::size_t{1} << 20;
        std::vector<std::byte> bytes;
        try {
            while (bytes.size() < f.frame_bytes()) {
                const std::size_t at = bytes.size();
                const std::size_t want = std::min(kChunk, f.frame_bytes() - at);
                bytes.resize(at + want);
                const std::size_t got = reader_.read_some(bytes.data() + at, want);
                bytes.resize(at + got);
                if (got < want) break;
            }
        } catch (const std::exception& e) {
            failure_ = e.what();
            frames_ = 0;
            ended_ = true;
            return Status::Failed;
        }
        if (bytes.empty()) {
            frames_ = 0;
            ended_ = true;
            return Status::End;
        }
        if (bytes.size() < f.frame_bytes()) {
            failure_ =
                "standard input ended inside its first frame: " + std::to_string(bytes.size()) +
                " of the " + std::to_string(f.frame_bytes()) + " bytes of a " +
                hs::media::to_string(f) + " frame";
            frames_ = 0;
            ended_ = true;
            return Status::Failed;
        }
        ++position_;
        frames_ = position_;
        if (!f.matches(out.view()) || out.view().stride != out.view().row_bytes())
            out = hs::Image(f.width, f.height, f.channels, f.type, f.bit_depth);
        std::memcpy(out.data(), bytes.data(), bytes.size());
        try {
            hs::media::raw_to_host_samples(out.data(), bytes.size(), f);
        } catch (const std::exception& e) {
            failure_ = e.what();
            return Status::Failed;
        }
        return Status::Ok;
    }

    hs::media::RawStreamReader reader_;
    std::string path_;
    std::int64_t frames_;
    double fps_;
    std::int64_t position_ = 0;
    bool ended_ = false;
    std::string failure_;
};

}  // namespace

std::unique_ptr<FrameSource> video_source(std::unique_ptr<hs::media::VideoReader> reader) {
    return std::make_unique<VideoSource>(std::move(reader));
}

std::unique_ptr<FrameSource> raw_source(const std::string& path, const hs::media::RawFormat& format,
                                        std::int64_t frames, std::int64_t position, double fps) {
    return std::make_unique<RawSource>(path, format, frames, position, fps);
}

std::unique_ptr<FrameSource> stdin_raw_source(const hs::media::RawFormat& format, double fps) {
    return std::make_unique<RawSource>("-", format, 0, 0, fps);
}

}  // namespace hs::ui
