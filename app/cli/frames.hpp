#pragma once
// What the streaming commands read (hist --per-frame, equalize of a video, bench of a video or
// raw stream): the frames of a video or of a raw stream, one at a time, straight into a frame
// stream's input buffer; and how they drive the stream.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "histoscope/core/stream.hpp"
#include "histoscope/media/frame_source.hpp"
#include "histoscope/media/media.hpp"
#include "json.hpp"
#include "options.hpp"

namespace hs::cli {

// True when the command's input is one video file (not --raw).
bool input_is_video(const InputOptions& input);

// The input of a streaming command: the frames of the positional video or of --raw FMT
// [FILE|-], read through media::FrameSource `passes` times over (a fresh source each pass: a
// fresh decoder, as seeking a damaged file is not reliable), counted and timed.
class StreamInput {
  public:
    // `passes` > 1 reads the input again from the start that many times (not standard input,
    // nor raw frames from another pipe).
    StreamInput(const InputOptions& input, int passes);
    ~StreamInput();
    StreamInput(const StreamInput&) = delete;
    StreamInput& operator=(const StreamInput&) = delete;

    // What the command needs of a video's frames (before the first read_into): R, G, B (the
    // frames read_into() writes; without it, `dst` may be null) and/or the Y', Cb, Cr planes
    // (planes()). UsageError when the video has no Y'CbCr planes.
    void want(bool rgb, bool planes);
    // The planes of the frame read_into() read last (want(.., true)), valid until the next read.
    media::VideoPlanes planes() const;
    // How a video's pixels are coded (null for raw frames).
    const media::VideoCoding* coding() const { return kind_ == "video" ? &coding_ : nullptr; }

    const FrameFormat& format() const { return format_; }
    const std::string& name() const { return name_; }
    const std::string& kind() const { return kind_; }    // "video" or "raw"
    const std::string& codec() const { return codec_; }  // FourCC, or the raw format string
    double fps() const { return fps_; }                  // 0 for raw frames
    // Of a video, the presentation time of its frame `frame` in seconds after frame 0's
    // (VideoReader::frame_time()); -1 for raw frames, which carry none.
    double frame_time(std::int64_t frame) const;
    std::int64_t reported_frames() const { return reported_; }  // per pass; 0 when unknown
    // A video whose container stores no frame count: reported_frames() were counted.
    bool frames_counted() const { return counted_; }
    int passes() const { return passes_; }

    using Status = media::FrameSource::Status;
    // The next frame into `dst` (format().frame_bytes() bytes, packed). Failed: the frame could
    // not be decoded, or a raw stream ends inside it; `why` says which and why, and the next
    // call goes on after it. Ok with a non-empty `why`: a frame decoded with errors, kept
    // because of --allow-corrupt.
    Status read_into(std::byte* dst, std::string& why);
    // Whether read_into() would start without waiting for the input's writer (false only for
    // raw frames on standard input or a pipe that has nothing waiting).
    bool ready() const { return source_->ready(); }
    // Index (over all passes) of the frame the next read_into() reads.
    std::int64_t position() const { return position_; }
    std::int64_t decoded() const { return decoded_; }
    std::int64_t failed() const { return failed_; }
    double decode_ms() const { return decode_ms_; }  // time spent reading and decoding
    // What the video says of frames it lacks (a file cut short, packets missing).
    const std::vector<std::string>& notes() const { return notes_; }

  private:
    bool start_pass();  // false when no pass is left
    void apply_wants();

    std::string name_, kind_, codec_;
    media::RawFormat raw_format_;
    media::DecodeOptions options_;
    std::unique_ptr<media::FrameSource> source_;
    FrameFormat format_;
    double fps_ = 0.0;
    std::int64_t reported_ = 0;
    bool counted_ = false;
    int passes_ = 1, pass_ = 0;
    std::int64_t position_ = 0, decoded_ = 0, failed_ = 0;
    double decode_ms_ = 0.0;
    bool ended_in_pass_ = false;
    bool finished_ = false;  // every pass read
    std::vector<std::string> notes_;
    media::VideoCoding coding_;
    bool want_rgb_ = true, want_planes_ = false;
};

// {"input", "kind", "format", "width", "height", "depth", "sample_type", "image_channels",
//  "fps" (when known), "frames_reported", and a video's "frames_counted" and coding (planes.hpp's
//  add_coding_json)}: what the stream commands' JSON starts with.
Json source_json(const StreamInput& source);

// A progress line on standard error, redrawn at most 10 times a second, only when standard
// error is a terminal.
class Progress {
  public:
    explicit Progress(std::int64_t total);
    ~Progress();
    void update(std::int64_t done, std::int64_t failed);
    void finish();

  private:
    bool enabled_ = false, finished_ = false;
    std::int64_t total_ = 0;
    std::chrono::steady_clock::time_point start_, last_;
};

// What one streaming run saw, in frame order.
struct StreamEvents {
    // A processed frame: its index in the input (over all passes), why it is corrupt (empty:
    // it is not; only with --allow-corrupt) and the stream's result.
    std::function<void(std::int64_t frame, const std::string& corrupt, FrameResult&)> result;
    // A frame that failed to decode (or a truncated raw frame).
    std::function<void(std::int64_t frame, const std::string& why)> failed;
    // A frame just read, before it goes into the stream (the source still holds it: a video's
    // planes are counted here).
    std::function<void(std::int64_t frame)> read;
};

struct PumpStats {
    std::int64_t frames = 0, ok = 0, failed = 0;
    std::int64_t corrupt = 0;  // of the ok ones: decoded with errors (--allow-corrupt)
    double wall_ms = 0.0;      // from the first read to the last result
};

// Reads every frame of `source` (at most `limit` when > 0) into `stream` and reports results and
// failures in frame order. Without a stream (null), each frame read is a result at once (with an
// empty FrameResult): what is done with it is done by events.read.
PumpStats pump(StreamInput& source, FrameStream* stream, const StreamEvents& events,
               std::int64_t limit = 0);

// Resident host memory of this process in bytes (0 when the system does not say).
std::uint64_t host_resident_bytes();

}  // namespace hs::cli
