#include "histoscope/media/frame_source.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <system_error>
#include <utility>

#include "histoscope/core/error.hpp"

namespace hs::media {

FrameSource::FrameSource(std::unique_ptr<VideoReader> video)
    : video_(std::move(video)), format_(video_->frame_format()) {}

FrameSource::FrameSource(const std::string& path, const RawFormat& format, double fps)
    : raw_(std::make_unique<RawStreamReader>(path, format)),
      path_(path),
      format_(format),
      fps_(fps) {
    if (live()) return;
    // Before anyone allocates buffers for frames of this size: an input that cannot hold one
    // is refused first. (A pipe or a device has no size: its count is known at its end.)
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) return;
    // The frame cut short is one of the stream's, failed in its place when it is read.
    const RawFrameCount count = raw_frame_count(size, format, "raw input '" + path + "'");
    frames_ = count.frames + (count.extra_bytes > 0 ? 1 : 0);
    counted_ = true;
}

FrameSource::~FrameSource() = default;

std::int64_t FrameSource::frame_count() const {
    if (video_) return video_->frame_count();
    return counted_ ? frames_ : 0;
}

double FrameSource::fps() const {
    return video_ ? video_->fps() : fps_;
}

std::int64_t FrameSource::position() const {
    return video_ ? video_->position() : position_;
}

bool FrameSource::seekable() const {
    return !live();
}

void FrameSource::seek(std::int64_t index) {
    if (video_) return video_->seek(index);
    if (live()) throw InputError("standard input cannot seek: its frames come once, in order");
    if (index < 0 || (counted_ && index > frames_) || !raw_->seek(index))
        throw InputError("raw input '" + path_ + "' has no frame " + std::to_string(index) +
                         ": it holds " + std::to_string(frames_) + " frames");
    position_ = index;
}

bool FrameSource::ready() const {
    if (video_) return true;
    return (live() && position_ == 0 && first_read_) || raw_->ready();
}

bool FrameSource::fill_first() {
    // Standard input's size is unknown: its first frame is read into memory that grows as its
    // bytes arrive, so that a format too large for this machine, on an input that holds far
    // less, is said as such rather than tried.
    first_read_ = true;
    const std::size_t frame = format_.frame_bytes();
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    while (first_.size() < frame) {
        const std::size_t at = first_.size();
        const std::size_t want = std::min(kChunk, frame - at);
        first_.resize(at + want);
        const std::size_t got = raw_->read_some(first_.data() + at, want);
        first_.resize(at + got);
        if (got < want) break;
    }
    if (first_.size() == frame) {
        first_status_ = Status::Ok;
        return true;
    }
    first_status_ = first_.empty() ? Status::End : Status::Failed;
    failure_ = first_.empty()
                   ? std::string()
                   : "raw input on standard input ends after " + std::to_string(first_.size()) +
                         " bytes, inside its first " + to_string(format_) + " frame (" +
                         std::to_string(frame) + " bytes)";
    std::vector<std::byte>().swap(first_);
    return false;
}

void FrameSource::read_ahead() {
    if (!live() || first_read_) return;
    if (fill_first()) return;
    throw InputError(first_status_ == Status::End ? "raw input on standard input is empty"
                                                  : failure_);
}

FrameSource::Status FrameSource::read_first_live(const std::function<std::byte*()>& dst) {
    if (!first_read_) {
        try {
            fill_first();
        } catch (const std::exception& e) {  // a failed read
            first_status_ = Status::Failed;
            failure_ = e.what();
            std::vector<std::byte>().swap(first_);
        }
    }
    position_ = 1;
    if (first_status_ != Status::Ok) {
        // Nothing follows: the input's count is known.
        frames_ = 0;
        counted_ = true;
        if (first_status_ == Status::End) position_ = 0;
        return first_status_;
    }
    failure_.clear();
    std::byte* const to = dst();
    const std::size_t bytes = first_.size();
    std::memcpy(to, first_.data(), bytes);
    std::vector<std::byte>().swap(first_);
    try {
        raw_to_host_samples(to, bytes, format_);
    } catch (const InputError& e) {  // samples above the declared depth
        failure_ = "frame 0: " + std::string(e.what());
        return Status::Failed;
    }
    return Status::Ok;
}

FrameSource::Status FrameSource::read_raw(const std::function<std::byte*()>& dst) {
    if (live() && position_ == 0) return read_first_live(dst);
    failure_.clear();
    if (counted_ && position_ >= frames_) return Status::End;
    const std::int64_t index = position_;
    const std::size_t want = format_.frame_bytes();
    std::size_t got = 0;
    try {
        got = raw_->read_into(dst());
    } catch (const InputError& e) {  // samples above the declared depth, or a failed read
        failure_ = "frame " + std::to_string(index) + ": " + e.what();
        ++position_;
        if (!live()) static_cast<void>(raw_->seek(position_));  // the next frame from its start
        return Status::Failed;
    }
    if (got == 0) {  // the end (of live input), or a file cut short since it was opened
        frames_ = position_;
        counted_ = true;
        return Status::End;
    }
    ++position_;
    if (got < want) {  // cut short: the end follows
        failure_ = truncated_raw_frame(index, got, format_, live() ? "input" : "file");
        frames_ = index;
        counted_ = true;
        return Status::Failed;
    }
    return Status::Ok;
}

FrameSource::Status FrameSource::read_into(std::byte* dst) {
    if (!video_) return read_raw([dst] { return dst; });
    return video_status(video_->read_frame_into(dst));
}

FrameSource::Status FrameSource::read(Image& out) {
    if (video_) return video_status(video_->read_frame(out));
    // Given a frame's size only once there is a frame to hold (live input's first frame is
    // read ahead into memory that grows with it: see fill_first).
    return read_raw([&out, this] {
        const ImageView v = out.view();
        if (!format_.matches(v) || v.stride != v.row_bytes())
            out = Image(format_.width, format_.height, format_.channels, format_.type,
                        format_.bit_depth);
        return out.data();
    });
}

FrameSource::Status FrameSource::video_status(VideoReader::FrameStatus status) {
    switch (status) {
        case VideoReader::FrameStatus::Ok:
            failure_ = video_->corrupt() ? video_->failure() : std::string();
            return Status::Ok;
        case VideoReader::FrameStatus::Failed:
            failure_ = video_->failure();
            return Status::Failed;
        case VideoReader::FrameStatus::End:
            break;
    }
    failure_.clear();
    return Status::End;
}

bool FrameSource::corrupt() const {
    return video_ && video_->corrupt();
}

}  // namespace hs::media
