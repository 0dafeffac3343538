#pragma once
// Histogram and equalization engines and the one registry through which the CLI, the GUI and
// the tests reach them. The CPU reference engines (both named "cpu") are the judges every other
// engine must match exactly.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "histoscope/core/channels.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/core/image.hpp"

namespace hs {

struct HistogramRequest {
    ImageView image;
    std::vector<Channel> channels;
    HistogramSpec spec;
};

struct StageTime {
    std::string name;  // "upload", "histogram", "download", ...
    double ms = 0.0;
};

struct HistogramResult {
    std::vector<ChannelHistogram> channels;
    std::vector<StageTime> stages;  // what the engine measured itself (device events)
    double total_ms = 0.0;          // wall time of compute(), measured by the engine base
};

// What an engine can serve. unsupported_reason() turns these into a sentence.
struct Capabilities {
    bool u8 = true;
    bool u16 = true;
    // 32-bit float samples with their float bins (float_bins.hpp): only engines that say so.
    bool f32 = false;
    bool luma = true;
    bool alpha = true;
    bool joint = true;  // Channel::Joint (2^24 colours)
    bool edges = true;
    bool saturate = true;
    int max_bins = kMaxBins;
    // Largest number of samples whose counts the engine keeps exact (0 = unlimited).
    std::uint64_t max_samples = 0;
};

// How benchmark() repeats a request.
struct BenchOptions {
    int warmup_runs = 3;
    int timed_runs = 20;
    // Engines that read a device-resident input keep enough copies of it to cover at least
    // this many bytes and rotate through them, so that a frame smaller than the cache is not
    // read from the cache (0: one copy).
    std::size_t rotate_bytes = 0;
};

// Per timed run, in milliseconds.
struct BenchTiming {
    // The histogram alone: clearing the counters and the kernels, input already where the
    // engine reads it (device memory for GPU engines), measured with the engine's own clock
    // (CUDA events for GPU engines).
    std::vector<double> histogram_ms;
    // The same runs queued one after the other without a wait between them (as a stream of
    // frames runs them): the time of them all over their number, one value per benchmark()
    // call. Empty where runs cannot overlap their launches (the CPU engines).
    std::vector<double> back_to_back_ms;
    // Upload (from pinned host memory for GPU engines) + histogram + download of the counts.
    std::vector<double> end_to_end_ms;
    int input_copies = 1;
    std::vector<ChannelHistogram> last;  // counts of the last timed run, for verification
};

struct Availability {
    bool available = true;
    std::string reason;  // why not, when unavailable
};

class HistogramEngine {
  public:
    virtual ~HistogramEngine() = default;

    virtual std::string_view name() const = 0;
    virtual std::string_view description() const = 0;
    virtual Availability availability() const { return {}; }
    virtual Capabilities capabilities() const = 0;
    // Whether several threads may compute() at once (an engine that keeps no state of its
    // own); the others are called by one thread at a time.
    virtual bool concurrent() const { return false; }

    // Empty when the engine can serve `request`, otherwise one sentence saying why not.
    std::string unsupported_reason(const HistogramRequest& request) const;
    // Empty when the engine is available here and serves `request`, otherwise why not.
    std::string refusal(const HistogramRequest& request) const;

    // Validates the request, refuses what the capabilities exclude (UnsupportedError), runs
    // the engine and applies saturation. Never returns counts the engine cannot vouch for.
    HistogramResult compute(const HistogramRequest& request);

    // Repeats the request (same checks as compute()). The default times run() on the host
    // clock; GPU engines override it to time device-resident input with CUDA events.
    BenchTiming benchmark(const HistogramRequest& request, const BenchOptions& options);

  protected:
    // Requests reaching run() are valid and supported. Engines may apply the saturation cap
    // themselves; compute() applies it again, which is idempotent.
    virtual HistogramResult run(const HistogramRequest& request) = 0;
    // Engine-specific limits beyond Capabilities (e.g. the device's shared memory).
    virtual std::string extra_unsupported_reason(const HistogramRequest&) const { return {}; }
    virtual BenchTiming run_benchmark(const HistogramRequest& request, const BenchOptions& options);

  private:
    void check_request(const HistogramRequest& request) const;
};

struct EqualizeResult {
    Image image;                    // same size, sample type, depth and channels as the input
    std::vector<StageTime> stages;  // what the engine measured itself
    double total_ms = 0.0;          // wall time of equalize(), measured by the engine base
};

// Contrast equalization (global, CLAHE, histogram matching; see equalize.hpp). The output must
// equal equalize_reference() exactly.
class EqualizeEngine {
  public:
    virtual ~EqualizeEngine() = default;

    virtual std::string_view name() const = 0;
    virtual std::string_view description() const = 0;
    virtual Availability availability() const { return {}; }
    // Empty when the engine can serve a valid `request`, otherwise one sentence saying why not.
    virtual std::string unsupported_reason(const EqualizeRequest&) const { return {}; }
    // Whether several threads may equalize() at once (see HistogramEngine::concurrent()).
    virtual bool concurrent() const { return false; }
    // Empty when the engine is available here and serves `request`, otherwise why not.
    std::string refusal(const EqualizeRequest& request) const;

    // Validates the request (UsageError), refuses what the engine cannot do (UnsupportedError),
    // then runs and times it.
    EqualizeResult equalize(const EqualizeRequest& request);

  protected:
    // Requests reaching run() are valid and supported.
    virtual EqualizeResult run(const EqualizeRequest& request) = 0;
};

class StreamEngine;  // histoscope/core/stream.hpp
class ScopeEngine;   // histoscope/core/scopes.hpp

class EngineRegistry {
  public:
    EngineRegistry();
    ~EngineRegistry();
    EngineRegistry(const EngineRegistry&) = delete;
    EngineRegistry& operator=(const EngineRegistry&) = delete;

    void add(std::unique_ptr<HistogramEngine> engine);  // names must be unique
    HistogramEngine* find(std::string_view name) const;
    const std::vector<std::unique_ptr<HistogramEngine>>& engines() const { return engines_; }
    std::vector<std::string> names() const;

    // Equalization engines: a separate list with its own unique names.
    void add_equalizer(std::unique_ptr<EqualizeEngine> engine);
    EqualizeEngine* find_equalizer(std::string_view name) const;
    const std::vector<std::unique_ptr<EqualizeEngine>>& equalizers() const { return equalizers_; }
    std::vector<std::string> equalizer_names() const;

    // Stream engines (frames of a video or raw stream): a third list with its own unique names.
    void add_stream_engine(std::unique_ptr<StreamEngine> engine);
    StreamEngine* find_stream_engine(std::string_view name) const;
    const std::vector<std::unique_ptr<StreamEngine>>& stream_engines() const {
        return stream_engines_;
    }

    // Scope engines (waveform, parade, vectorscope): a fourth list with its own unique names.
    void add_scope_engine(std::unique_ptr<ScopeEngine> engine);
    ScopeEngine* find_scope_engine(std::string_view name) const;
    const std::vector<std::unique_ptr<ScopeEngine>>& scope_engines() const {
        return scope_engines_;
    }

  private:
    std::vector<std::unique_ptr<HistogramEngine>> engines_;
    std::vector<std::unique_ptr<EqualizeEngine>> equalizers_;
    std::vector<std::unique_ptr<StreamEngine>> stream_engines_;
    std::vector<std::unique_ptr<ScopeEngine>> scope_engines_;
};

// Adds the engines of hs::core: the "cpu" histogram reference, the "cpu" equalizer, the "cpu"
// stream engine (which runs the registry's engines frame by frame) and the "cpu" scope engine.
void register_core_engines(EngineRegistry& registry);

}  // namespace hs
