#pragma once
// The frames of a video or of a raw stream, one at a time: what histoscope-cli's streaming
// commands (hist --per-frame, equalize and bench of a stream) and the desktop application's
// reader thread both read frames from. A video is read by a VideoReader; raw frames come from a
// file of whole frames or, live, as they arrive on standard input. One thread at a time uses a
// source.
//
// A frame that cannot be read is reported in its place (Failed, with failure() saying why, in
// the VideoReader's words for a video: "frame 5 of 'clip.mp4' is corrupt (...)"; for raw frames
// "frame 3 is truncated: ..." or "frame 3: sample value ...") and the next read goes on with
// the frame after it: bad data never throws from a read.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "histoscope/core/image.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

class FrameSource {
  public:
    enum class Status { Ok, Failed, End };

    // A video's frames, from the reader's position (it may have delivered some already).
    explicit FrameSource(std::unique_ptr<VideoReader> video);
    // The raw frames of `format` in the file `path`, or as they arrive on standard input ("-":
    // live, a count unknown until it ends), at `fps` frames per second (raw frames carry no
    // rate; 0: none). Throws InputError when the file cannot be opened, or when it is shorter
    // than one frame (before anything is allocated for a frame).
    FrameSource(const std::string& path, const RawFormat& format, double fps = 0.0);
    ~FrameSource();
    FrameSource(const FrameSource&) = delete;
    FrameSource& operator=(const FrameSource&) = delete;

    // The frames read() and read_into() deliver.
    const FrameFormat& format() const { return format_; }
    // The video's reader (codec, coding, planes, set_rgb, set_planes, ...); null for raw frames.
    VideoReader* video() { return video_.get(); }
    const VideoReader* video() const { return video_.get(); }
    // As the source knows it: a video's count as its container reports it, a raw file's frames
    // (a last partial one included, until it is read), live input's once it ended (0 until
    // then). Corrected when the input ends early.
    std::int64_t frame_count() const;
    double fps() const;
    // Index of the frame the next read returns.
    std::int64_t position() const;
    // False for live input: its frames come once, in order, and seek() throws.
    bool seekable() const;
    // Throws InputError when `index` is out of range or cannot be reached.
    void seek(std::int64_t index);
    // Whether a read would start without waiting for the input's writer (false only for live
    // input that has nothing waiting).
    bool ready() const;
    // Live input: reads its first frame now, into memory that grows as its bytes arrive, so
    // that a frame declared far larger than what arrives costs nothing; throws InputError when
    // the input is empty or ends inside that frame. (Without it the first read does the same
    // and reports End or Failed.) Nothing for other sources.
    void read_ahead();

    // The next frame into `out` (its storage reused when it has the frame's shape), a frame that
    // cannot be read (Failed) or the end. Ok with corrupt(): a video frame decoded with errors,
    // kept because of DecodeOptions::allow_corrupt (failure() says why).
    Status read(Image& out);
    // The same, written packed into `dst` (format().frame_bytes() bytes): straight into a frame
    // stream's input buffer. `dst` may be null for a video read for its planes only
    // (VideoReader::set_rgb(false)).
    Status read_into(std::byte* dst);
    // Why the last Failed frame failed, or why the last frame read is corrupt.
    const std::string& failure() const { return failure_; }
    // Whether the frame read last was decoded with errors (a video, with allow_corrupt).
    bool corrupt() const;

  private:
    bool live() const { return video_ == nullptr && path_ == "-"; }
    // Raw frames into the buffer `dst` gives, asked for only when there is a frame to hold.
    Status read_raw(const std::function<std::byte*()>& dst);
    Status read_first_live(const std::function<std::byte*()>& dst);
    bool fill_first();  // live input's first frame into first_; false when it cannot be read
    Status video_status(VideoReader::FrameStatus status);

    std::unique_ptr<VideoReader> video_;
    // Raw frames.
    std::unique_ptr<RawStreamReader> raw_;
    std::string path_;
    FrameFormat format_;
    double fps_ = 0.0;
    std::int64_t frames_ = 0;  // raw: as known (live: counted as they come)
    bool counted_ = false;     // raw: frames_ is the input's count (a file's, or live input's end)
    std::int64_t position_ = 0;
    // Live input's first frame, read ahead (first_read_: tried; its status and why).
    std::vector<std::byte> first_;
    bool first_read_ = false;
    Status first_status_ = Status::End;
    std::string failure_;
};

}  // namespace hs::media
