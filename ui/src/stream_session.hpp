#pragma once
// The frame stream of the controller's frames, photos and video alike: a frame stream of the
// registry (the GPU frame pipeline when it can run the settings, else the CPU one on a pool of
// threads) that counts the histograms of the original and of the equalized frame, equalizes and
// makes the pictures at the view's size, several frames in flight. It stays open while the
// frames keep their format: new settings reconfigure it (once nothing is in flight), and a
// photo's frame, already on the device, is computed again without a new upload (resubmit()).
// Results come back in order, with the tag each frame was submitted with; the stream tells
// when one is ready through the callback given at construction (from any thread).

#include <QString>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "frame_work.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/stream.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

class EngineChoice;
struct FrameSettings;

// How a frame is to be computed beyond the user's settings.
struct FrameOptions {
    int factor = 1;                // the pictures reduced by this much (the view's size)
    bool equalized_frame = false;  // the full-resolution equalized frame too
    bool cpu_only = false;         // the CPU frame stream and engines (after a GPU failure)
    // Frames in flight: a clip's overlap the upload of one with the work of others; a photo's
    // one frame needs no more than the stream's least (and opens faster with fewer buffers).
    int depth = 3;
    // The frame is a copy reduced by this much: the region is scaled to it.
    int reduced_by = 1;
    // The frame is a camera raw file's CFA mosaic: its channels r, g1, g2, b, its levels marked,
    // no equalization (it works on the demosaiced image).
    CfaInfo cfa = nullptr;
};

// The stream configuration for frames like `view` with `settings` and `options`, and what the
// results are shown with; `status` says which histogram engine runs.
struct StreamPlan {
    hs::StreamConfig config;
    ResultContext context;
    std::uint64_t reference = 0;  // which match reference image (its generation)
    bool cpu_only = false;
};
StreamPlan plan_stream(const hs::ImageView& view, const FrameSettings& settings,
                       const FrameOptions& options, const EngineChoice& choice,
                       const hs::MatchReference* reference, std::uint64_t reference_generation,
                       EngineStatus& status);

// What came back for a frame: its result, or why it failed (a DeviceError: the GPU failed),
// and its tag (with what it is shown with).
struct StreamDone {
    FrameTag tag;
    std::optional<hs::FrameResult> result;
    QString error;
    bool device_error = false;
};

class StreamSession {
  public:
    using Done = StreamDone;

    StreamSession(hs::EngineRegistry& registry, std::function<void()> ready)
        : registry_(registry), ready_(std::move(ready)) {}

    // Opens, reconfigures or reopens the stream for `plan` (nothing may be in flight for a
    // change: take(true) or discard() first). Throws when no stream can run it.
    void configure(const StreamPlan& plan);
    // Whether the stream open computes `plan` as it is (configure() would change nothing).
    bool serves(const StreamPlan& plan) const;
    bool isOpen() const { return stream_ != nullptr; }
    // Whether a frame can be submitted without waiting for one in flight.
    bool hasRoom() const;
    std::size_t inFlight() const { return tags_.size(); }
    // Queues `tag.image`; resubmit() queues the frame submitted last again (a GPU stream reads
    // its device copy: no upload), when it is `tag.image`. The tag's context gets the names of
    // the stream and its equalizer.
    void submit(FrameTag tag);
    bool holds(const std::shared_ptr<const hs::Image>& image) const {
        return stream_ && last_ == image;
    }
    void resubmit(FrameTag tag);
    // The oldest result when ready (wait: waits for it); nullopt when none.
    std::optional<Done> take(bool wait = false);
    // Forgets what is in flight (their tags come back through the return value, unfinished).
    std::deque<FrameTag> discard();
    void close();

    const QString& engineName() const { return engine_name_; }
    // Where frames are read fastest from (pinned host memory for the GPU stream), null: any.
    std::shared_ptr<hs::HostMemory> frameMemory() const;

  private:
    void queued(FrameTag tag);

    hs::EngineRegistry& registry_;
    std::function<void()> ready_;
    std::unique_ptr<hs::FrameStream> stream_;
    hs::StreamEngine* engine_ = nullptr;
    StreamPlan plan_;       // what the stream runs
    StreamPlan requested_;  // what configure() was given for it
    QString engine_name_, equalizer_name_;
    std::deque<FrameTag> tags_;              // in flight, oldest first
    std::shared_ptr<const hs::Image> last_;  // the frame submitted last
};

}  // namespace hs::ui
