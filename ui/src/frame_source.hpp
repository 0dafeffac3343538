#pragma once
// What playback reads frames from, whichever it is: a video (FFmpeg through
// hs::media::VideoReader), a raw stream (hs::media::RawStreamReader over a file of whole
// frames) or raw frames arriving on standard input, live. Playback's reader thread knows only
// this interface; one thread at a time uses a source.

#include <cstdint>
#include <memory>
#include <string>

#include "histoscope/core/image.hpp"
#include "histoscope/media/media.hpp"

namespace hs::ui {

class FrameSource {
  public:
    enum class Status { Ok, Failed, End };

    virtual ~FrameSource() = default;
    // As the source knows it (a container may claim more frames than it holds); 0 if unknown.
    virtual std::int64_t frameCount() const = 0;
    virtual double fps() const = 0;  // 0 or not finite when a video's header has none
    // Index of the frame the next read() returns.
    virtual std::int64_t position() const = 0;
    // False for a live source (standard input): frames come once, in order, and seek() throws.
    virtual bool seekable() const { return true; }
    // Throws hs::InputError when `index` is out of range or cannot be reached.
    virtual void seek(std::int64_t index) = 0;
    // The next frame into `out` (its storage reused when it has the frame's shape), a frame that
    // cannot be read (Failed: failure() says why, and the next read goes on with the next frame)
    // or the end. Never throws for bad data.
    virtual Status read(hs::Image& out) = 0;
    virtual std::string failure() const = 0;
};

// A video's frames; the reader may already have delivered some.
std::unique_ptr<FrameSource> video_source(std::unique_ptr<hs::media::VideoReader> reader);
// The `frames` whole frames of a raw file (its size already checked), from frame `position`, at
// `fps` frames per second. Throws hs::InputError when the file cannot be opened.
std::unique_ptr<FrameSource> raw_source(const std::string& path, const hs::media::RawFormat& format,
                                        std::int64_t frames, std::int64_t position, double fps);
// Raw frames of `format` as they arrive on standard input (a count unknown until it ends), at
// `fps` frames per second (0: as they come).
std::unique_ptr<FrameSource> stdin_raw_source(const hs::media::RawFormat& format, double fps);

}  // namespace hs::ui
