#pragma once
// Scopes: the waveform, the RGB parade and the vectorscope, as generalized histograms (a
// histogram per image column, a 2-D histogram of the chroma pair), with exact 64-bit counts,
// and the engines that compute them.
//
// Every scope is a plane of `width` x `height` counts, stored column by column: counts[x *
// height + y] is the count drawn at column x, height y (y upwards).
//
// Waveform of channel ch (gray, r, g, b, a, luma, luma709) over L levels and N columns (N = the
// image's width W unless asked): pixel (x, y) belongs to column c = floor(x * N / W), its value
// v to level floor(v * L / 2^D), D the image's declared bit depth; a value above 2^D - 1 (a
// sample, or the luma of samples, above the declared depth) is outside and not counted, as in
// histograms. Plane: N x L.
// Parade: the waveforms of R, G and B (three planes), each as above.
// Vectorscope over S x S bins: for each pixel with R, G, B <= 2^D - 1, in integers
//   Y  = (r2y R + g2y G + b2y B + 2^13) >> 14
//   Cb = clamp(((B - Y) cb + 2^(D - 1 + 14) + 2^13) >> 14, 0, 2^D - 1)
//   Cr = clamp(((R - Y) cr + 2^(D - 1 + 14) + 2^13) >> 14, 0, 2^D - 1)
// (>> an arithmetic shift, that is floor), counted at x = floor(Cb * S / 2^D), y = floor(Cr * S
// / 2^D). Rec.601 (r2y, g2y, b2y, cr, cb) = (4899, 9617, 1868, 11682, 9241): OpenCV's
// COLOR_RGB2YCrCb, bit-exact; Rec.709 = (3483, 11718, 1183, 10404, 8829): 2^14 times
// (0.2126, 0.7152, 0.0722, 0.5 / (1 - 0.2126), 0.5 / (1 - 0.0722)), rounded. Plane: S x S.
// Gray images have no chroma: their vectorscope is refused.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "histoscope/core/channels.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/image.hpp"

namespace hs {

enum class ScopeKind : std::uint8_t { Waveform, Parade, Vectorscope };
enum class ChromaMatrix : std::uint8_t { Rec601, Rec709 };

std::string_view scope_kind_name(ScopeKind kind);  // "waveform", "parade", "vectorscope"
std::optional<ScopeKind> parse_scope_kind(std::string_view name);
std::string_view matrix_name(ChromaMatrix matrix);  // "601", "709"
std::optional<ChromaMatrix> parse_matrix(std::string_view name);

inline constexpr int kMaxScopeLevels = 4096;
inline constexpr int kMaxScopeSize = 1024;

struct ScopeSpec {
    ScopeKind kind = ScopeKind::Waveform;
    Channel channel = Channel::Luma601;  // the waveform's channel
    int levels = 256;                    // waveform and parade: 1..4096
    int columns = 0;                     // waveform and parade: 1..width; 0 = one per column
    int size = 256;                      // vectorscope: S x S bins, 1..1024
    ChromaMatrix matrix = ChromaMatrix::Rec601;

    // The channels the planes show: {channel}, {R, G, B}, or none for the vectorscope.
    std::vector<Channel> channels() const;
    // Columns of the output for an image `width` wide.
    int output_columns(int width) const { return columns == 0 ? width : columns; }
    // How many planes, and the counts of all of them, for an image `width` wide.
    int planes() const { return kind == ScopeKind::Parade ? 3 : 1; }
    std::size_t counts(int width) const;
    // Throws UsageError naming the problem (a channel or colour the image lacks, levels,
    // columns or size out of range).
    void validate(const ImageView& image) const;
    // "waveform luma, 256 levels x 3840 columns", "vectorscope 601, 256x256".
    std::string describe(int width) const;
    friend bool operator==(const ScopeSpec&, const ScopeSpec&) = default;
};

struct ScopePlane {
    std::string name;                   // "luma", "r", "g", "b", or "cb,cr"
    int width = 0;                      // columns (waveform) or Cb bins (vectorscope)
    int height = 0;                     // levels (waveform) or Cr bins (vectorscope)
    std::vector<std::uint64_t> counts;  // counts[x * height + y]

    std::uint64_t at(int x, int y) const {
        return counts[static_cast<std::size_t>(x) * static_cast<std::size_t>(height) +
                      static_cast<std::size_t>(y)];
    }
    friend bool operator==(const ScopePlane&, const ScopePlane&) = default;
};

// The planes of `spec` for `image`: counts zero (what every engine fills), or, with `counts`,
// copied from 32-bit counts laid out plane after plane as ScopePlane::counts (what the GPU's
// kernels write).
std::vector<ScopePlane> scope_planes(const ImageView& image, const ScopeSpec& spec,
                                     const std::uint32_t* counts = nullptr);

struct ChromaWeights {
    std::int32_t r2y, g2y, b2y, cr, cb;
};
inline constexpr ChromaWeights kChroma601{kYcc.r2y, kYcc.g2y, kYcc.b2y, kYcc.cr, kYcc.cb};
inline constexpr ChromaWeights kChroma709{3483, 11718, 1183, 10404, 8829};
constexpr ChromaWeights chroma_weights(ChromaMatrix m) {
    return m == ChromaMatrix::Rec709 ? kChroma709 : kChroma601;
}

struct Chroma {
    std::uint32_t cb, cr;
};
// Cb and Cr of one pixel, as the header says.
constexpr Chroma chroma(ChromaWeights w, std::uint32_t r, std::uint32_t g, std::uint32_t b,
                        int bit_depth) {
    const auto R = static_cast<std::int32_t>(r), G = static_cast<std::int32_t>(g),
               B = static_cast<std::int32_t>(b);
    const std::int32_t half_scaled = std::int32_t{1} << (bit_depth - 1 + kYccShift);
    const std::int32_t y = ycc_descale(R * w.r2y + G * w.g2y + B * w.b2y);
    return {ycc_clamp(ycc_descale((B - y) * w.cb + half_scaled), bit_depth),
            ycc_clamp(ycc_descale((R - y) * w.cr + half_scaled), bit_depth)};
}
// The bin of a value under `bins` even bins over [0, 2^bit_depth): floor(v * bins / 2^depth);
// `bins` values <= 2^16 and v < 2^16 keep the product in 32 bits.
constexpr std::uint32_t scope_bin(std::uint32_t value, std::uint32_t bins, int bit_depth) {
    return (value * bins) >> bit_depth;
}

// Exact reference, 64-bit counts, on every hardware thread. Validates the image and the spec.
std::vector<ScopePlane> reference_scope(const ImageView& image, const ScopeSpec& spec);

struct ScopeRequest {
    ImageView image;
    ScopeSpec spec;
};

struct ScopeResult {
    std::vector<ScopePlane> planes;
    std::vector<StageTime> stages;  // what the engine measured itself (device events)
    double total_ms = 0.0;          // wall time of compute()
};

struct ScopeBenchTiming {
    std::vector<double> scope_ms;         // the scope alone, input where the engine reads it
    std::vector<double> back_to_back_ms;  // as BenchTiming's (empty on the host)
    std::vector<double> end_to_end_ms;    // upload + scope + download (the host: the same)
    int input_copies = 1;
    std::vector<ScopePlane> last;  // of the last timed run, for verification
};

// Scope engines: "cpu" (the reference) and the GPU's, reached through the registry.
class ScopeEngine {
  public:
    virtual ~ScopeEngine() = default;
    virtual std::string_view name() const = 0;
    virtual std::string_view description() const = 0;
    virtual Availability availability() const { return {}; }
    // Whether several threads may compute() at once.
    virtual bool concurrent() const { return false; }
    // Empty when the engine serves a valid `request`, otherwise one sentence saying why not.
    virtual std::string unsupported_reason(const ScopeRequest&) const { return {}; }
    // Empty when the engine is available here and serves `request`, otherwise why not.
    std::string refusal(const ScopeRequest& request) const;

    // Validates (UsageError), refuses (UnsupportedError), runs and times.
    ScopeResult compute(const ScopeRequest& request);
    // Repeats the request, as HistogramEngine::benchmark() does.
    ScopeBenchTiming benchmark(const ScopeRequest& request, const BenchOptions& options);

  protected:
    virtual ScopeResult run(const ScopeRequest& request) = 0;
    // The default times run() on the host clock.
    virtual ScopeBenchTiming run_benchmark(const ScopeRequest& request,
                                           const BenchOptions& options);

  private:
    void check_request(const ScopeRequest& request) const;
};

// The scope engine `name` names, available here: UsageError for an unknown name, DeviceError
// when it is not available.
ScopeEngine& available_scope_engine(const EngineRegistry& registry, std::string_view name);
// The scope engine `name` names; "auto" (or ""): the first available engine other than "cpu"
// that serves `request`, else "cpu". Throws UsageError for an unknown name, DeviceError when
// the named engine is not available here, UnsupportedError when it cannot serve the request.
ScopeEngine& choose_scope_engine(const EngineRegistry& registry, std::string_view name,
                                 const ScopeRequest& request);
// The same for several requests that one engine serves together (a stream's scopes).
ScopeEngine& choose_scope_engine(const EngineRegistry& registry, std::string_view name,
                                 const std::vector<ScopeRequest>& requests);

}  // namespace hs
