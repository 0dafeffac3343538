#pragma once
// Streams of frames of one format (the frames of a video, a raw stream): exact histograms and
// equalization of every frame, through a stream engine of the registry. "cpu" (hs::core) runs
// any histogram engine and any equalizer of the registry frame by frame; the GPU frame pipeline
// (hs::cuda, "gpu") overlaps the upload of one frame with the kernels of another and the
// download of a third.
//
// Use:
//   std::unique_ptr<FrameStream> s = engine.open(config);
//   for each frame: fill s->next_input() (or s->submit(view)); s->submit();
//                   while (auto r = s->poll()) use(*r);
//   while (auto r = s->wait()) use(*r);
// Results come back in submission order. Back-pressure: next_input() waits for the oldest frame
// in flight when every slot is busy; it throws std::logic_error when `depth` results are ready
// and nobody took them, so memory stays bounded by the ring.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "histoscope/core/engine.hpp"

namespace hs {

struct StreamConfig {
    FrameFormat format;
    // Histograms of `channels` (none: no histograms) with `spec`, by the histogram engine named
    // `engine` ("" or "auto": the stream engine's choice).
    std::string engine;
    std::vector<Channel> channels;
    HistogramSpec spec;
    // Equalization of every frame (its `image` is ignored; a match reference must outlive the
    // stream) by the registry's equalizer named `equalizer` ("" or "auto": the stream engine's
    // choice).
    std::optional<EqualizeRequest> equalize;
    std::string equalizer;
    int depth = 3;  // frames in flight for engines that overlap them, 2..16

    // Throws UsageError naming the first problem (format, channels, spec, equalization, depth).
    void validate() const;
};

struct FrameResult {
    std::int64_t index = 0;  // submission number, from 0
    std::vector<ChannelHistogram> channels;
    Image equalized;  // empty without equalization
    // The engine's own times in milliseconds (GPU: CUDA events; "gpu_total" spans the frame's
    // first to last event, and the stages of overlapping frames overlap).
    std::vector<StageTime> stages;
    std::string histogram_engine;  // the engine that counted (empty without histograms)
};

class FrameStream {
  public:
    virtual ~FrameStream() = default;

    // The histogram engine whose kernels run ("" without histograms) and the equalizer.
    virtual std::string histogram_engine() const = 0;
    virtual std::string equalizer() const = 0;
    virtual const StreamConfig& config() const = 0;

    // The buffer of the next frame (config().format.frame_bytes() bytes, packed; pinned host
    // memory on a GPU). It may still hold an earlier frame. Valid until submit().
    virtual std::byte* next_input() = 0;
    // Queues the frame written into next_input().
    virtual void submit() = 0;
    // Copies `frame` (any stride, the configured format, else InputError) into next_input() and
    // submits it.
    void submit(const ImageView& frame);

    // The oldest result when it is ready (never blocks).
    virtual std::optional<FrameResult> poll() = 0;
    // The oldest result, waiting for it; nullopt when nothing is queued or in flight.
    virtual std::optional<FrameResult> wait() = 0;
    virtual std::size_t in_flight() const = 0;

    // Benchmarks. Upload alone: `runs` back-to-back uploads of one frame (GPU: from pinned
    // memory, CUDA events), in ms; empty for engines without an upload.
    virtual std::vector<double> measure_upload_ms(int runs);
    // Steady state: the frames in the input buffers resubmitted `frames` times back to back; the
    // time per frame in ms (GPU: device time from the first frame's start to the last frame's
    // end, with overlap; otherwise the host clock). Call it with nothing in flight and no result
    // waiting: the results it produces are discarded.
    virtual double measure_steady_state_ms(int frames);
    // Device memory in use on the stream's GPU (cudaMemGetInfo), nullopt without one.
    virtual std::optional<std::size_t> device_memory_used() const { return std::nullopt; }
};

class StreamEngine {
  public:
    virtual ~StreamEngine() = default;
    virtual std::string_view name() const = 0;
    virtual std::string_view description() const = 0;
    virtual Availability availability() const { return {}; }
    // Empty when the engine can stream a valid `config`, otherwise one sentence saying why not.
    virtual std::string unsupported_reason(const StreamConfig& config) const = 0;
    // Validates (UsageError), refuses (UnsupportedError), allocates (DeviceError).
    virtual std::unique_ptr<FrameStream> open(const StreamConfig& config) = 0;
};

// "cpu": frame by frame on the calling thread, with the registry's histogram engine (any;
// "" or "auto": the registry's "auto" engine when it can run, else "cpu") and equalizer ("" or
// "auto": "cpu"). Host-clock stages "histogram" and "equalize".
std::unique_ptr<StreamEngine> make_serial_stream_engine(const EngineRegistry& registry);

// The first available stream engine other than "cpu" that serves `config`, else "cpu" (which
// then says why it cannot, if it cannot). `why` gets the reasons the others declined.
StreamEngine& choose_stream_engine(const EngineRegistry& registry, const StreamConfig& config,
                                   std::string* why = nullptr);

}  // namespace hs
