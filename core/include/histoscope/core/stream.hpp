#pragma once
// Streams of frames of one format (the frames of a video, a raw stream, a photo as a stream of
// one frame): exact histograms, equalization and the pictures that show them, through a stream
// engine of the registry. "cpu" (hs::core) runs any histogram engine and any equalizer of the
// registry on a pool of host threads, several frames at once; the GPU frame pipeline (hs::cuda,
// "gpu") overlaps the upload of one frame with the kernels of another and the download of a
// third, and makes the pictures on the device so that only they come back.
//
// Use:
//   std::unique_ptr<FrameStream> s = engine.open(config);
//   for each frame: fill s->next_input() and s->submit(), or s->submit(view) (copies), or
//                   s->submit(shared_ptr<const Image>) (no copy: frames in the engine's
//                   frame_memory() go to the device straight from their pinned memory);
//                   while (auto r = s->poll()) use(*r);
//   while (auto r = s->wait()) use(*r);
// Results come back in submission order. Back-pressure: a submission waits for the oldest
// frame in flight when every one of the `depth` slots is busy; it throws std::logic_error when
// `depth` results are ready and nobody took them, so memory stays bounded by the ring.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "histoscope/core/display.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/scopes.hpp"

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
    int depth = 3;  // frames in flight, 2..16
    // Also the histograms (`channels`, `spec`) of the equalized frame.
    bool equalized_histograms = false;
    // The full-resolution equalized frame in each result (FrameResult::equalized); without it,
    // a GPU stream downloads only the histograms and pictures.
    bool equalized_frame = true;
    // The pictures of the original and the equalized frame (display.hpp), when set.
    std::optional<DisplaySpec> display;
    // The part of every frame that the histograms (of the original and of the equalized frame)
    // and the scopes count; none: the whole frame. Equalization and the pictures always take
    // the whole frame.
    std::optional<Region> region;
    // The scopes of every frame (of its region), by the scope engine named `scope_engine` (""
    // or "auto": the stream engine's choice).
    std::vector<ScopeSpec> scopes;
    std::string scope_engine;

    // What histograms and scopes count of `frame`: its region (a view, no copy) or all of it.
    ImageView counted(const ImageView& frame) const {
        return region ? crop(frame, *region) : frame;
    }
    // The shape of what they count (no data), for engines' refusals and plans; UsageError when
    // the region reaches outside the frame.
    ImageView counted_shape() const;
    // Throws UsageError naming the first problem (format, channels, spec, equalization, region,
    // scopes, depth).
    void validate() const;
};

// What a frame looks like, as display.hpp defines it: 8-bit pictures reduced by the display
// factor, the clipping masks (empty without clipping), the ranges they were shown over.
struct FramePictures {
    Image original, equalized;  // equalized: empty without equalization
    Image original_clipping, equalized_clipping;
    DisplayRange original_range, equalized_range;
    int factor = 1;
};

struct FrameResult {
    std::int64_t index = 0;  // submission number, from 0
    std::vector<ChannelHistogram> channels;
    std::vector<ChannelHistogram> equalized_channels;  // with equalized_histograms
    Image equalized;                        // empty without equalization or equalized_frame
    std::optional<FramePictures> pictures;  // with a display spec
    // The frame as submitted with submit(shared_ptr) (null otherwise).
    std::shared_ptr<const Image> source;
    // The engine's own times in milliseconds (GPU: CUDA events; "gpu_total" spans the frame's
    // first to last event, and the stages of overlapping frames overlap).
    std::vector<StageTime> stages;
    std::string histogram_engine;  // the engine that counted (empty without histograms)
    // The planes of each of the config's scopes, in its order, and the engine that made them.
    std::vector<std::vector<ScopePlane>> scopes;
    std::string scope_engine;
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
    // Queues `frame` (the configured format, else InputError) without copying it: the stream
    // holds it until its result is taken (FrameResult::source). A frame in the stream engine's
    // frame_memory() goes to the device without a copy on the host.
    virtual void submit(std::shared_ptr<const Image> frame) = 0;
    // The last frame submitted, again, with the current configuration (a GPU stream reads its
    // device copy: no upload). Throws std::logic_error before any submission.
    virtual void resubmit() = 0;
    // New settings for the next frames (same format: else UsageError; UnsupportedError when
    // this stream cannot serve them; then the old settings stay). Nothing may be in flight and
    // no result waiting (std::logic_error).
    virtual void reconfigure(const StreamConfig& config) = 0;
    // Forgets the frames in flight and the results waiting (a CPU stream stops their work
    // between stages); returns when no work of theirs runs any more.
    virtual void discard() = 0;
    // Called, from any thread, each time a result becomes ready (poll() then returns it), for
    // callers that wait for results in an event loop instead of polling. Set it with nothing
    // in flight.
    virtual void set_ready_callback(std::function<void()> callback) = 0;

    // The oldest result when it is ready (never blocks).
    virtual std::optional<FrameResult> poll() = 0;
    // The oldest result, waiting for it; nullopt when nothing is queued or in flight.
    virtual std::optional<FrameResult> wait() = 0;
    virtual std::size_t in_flight() const = 0;

    // Benchmarks. Upload alone: `runs` back-to-back uploads of one frame (GPU: from pinned
    // memory, CUDA events), in ms; empty for engines without an upload.
    virtual std::vector<double> measure_upload_ms(int runs);
    // The copy floor: `runs` times the upload of one frame and, at once on another stream, the
    // downloads of one frame's results (what the configuration asks for: counts, scopes,
    // equalized frame, pictures), with no kernel; the ms from the start of both to the end of
    // both. A stream whose kernels hide under its copies runs at this pace. Empty for engines
    // without copies.
    virtual std::vector<double> measure_copy_floor_ms(int runs);
    // Steady state: the frames in the input buffers resubmitted `frames` times back to back; the
    // time per frame in ms (GPU: device time from the first frame's start to the last frame's
    // end, with overlap; otherwise the host clock). Call it with nothing in flight and no result
    // waiting: the results it produces are discarded.
    virtual double measure_steady_state_ms(int frames);
    // Device memory in use on the stream's GPU (cudaMemGetInfo), nullopt without one.
    virtual std::optional<std::size_t> device_memory_used() const { return std::nullopt; }

  protected:
    // InputError unless `frame` has the configured format.
    void check_frame(const ImageView& frame) const;
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
    // Memory that frames submitted by shared_ptr come fastest from (pinned host memory for a
    // GPU); null: any memory serves as well.
    virtual std::shared_ptr<HostMemory> frame_memory() const { return nullptr; }
};

// "cpu": on a pool of host threads (one per hardware thread, at most `depth`), each frame on
// one of them, with the registry's histogram engine (any; "" or "auto": the registry's "auto"
// engine when it can run, else "cpu"), equalizer ("" or "auto": "cpu") and scope engine (any;
// "" or "auto": choose_scope_engine's). Engines that are not concurrent() run one frame at a
// time. Host-clock stages "histogram", "scopes", "equalize", "histogram (equalized)" and
// "pictures".
std::unique_ptr<StreamEngine> make_cpu_stream_engine(const EngineRegistry& registry);

// The pictures of `frame` as `spec` shows it (display.hpp), of its equalized frame when there
// is one: what every stream engine's pictures must equal. A float frame is shown at the spec's
// exposure (its range is then {0, 255}: the 8 bits of the picture).
FramePictures make_pictures(const ImageView& frame, const ImageView* equalized,
                            const DisplaySpec& spec);

// The first available stream engine other than "cpu" that serves `config`, else "cpu" (which
// then says why it cannot, if it cannot). `why` gets the reasons the others declined.
StreamEngine& choose_stream_engine(const EngineRegistry& registry, const StreamConfig& config,
                                   std::string* why = nullptr);

}  // namespace hs
