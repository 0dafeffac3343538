#pragma once
// The "auto" engine's selection, pure host code: the features of a request (sample type, what
// is counted, channels, bins, size and a race factor sampled from the image in the spirit of
// Henriksen et al.) and the lookup of those features in a selection map learned from
// benchmarks on the GPU (in the spirit of Milic et al.): selection_map.inc, written by
// `scripts/gpu.sh learn-auto`.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "histoscope/core/engine.hpp"

namespace hs::cuda::detail {

enum class AutoKind : std::uint8_t { Plain, Luma, Joint, Edges };

struct AutoKey {
    int u16 = 0;  // 16-bit samples
    AutoKind kind = AutoKind::Plain;
    int channels = 1;          // requested channels
    int image_channels = 1;    // samples per pixel
    int bins_log2 = 8;         // ceil(log2(bins))
    int size_log2 = 0;         // floor(log2(bytes of the image))
    int race = 0;              // floor(log2(race factor)), 0..5; -1: unknown (no samples)
    std::string text() const;  // "u16=0 kind=plain channels=1 image_channels=1 bins=8 ..."
};

// Sampled windows of 32 consecutive pixels (one warp's worth).
inline constexpr int kAutoSampledWindows = 64;

// The race factor of a request: over sampled windows of 32 consecutive pixels of its first
// channel, the mean of the largest number of pixels falling into one bin (1: all distinct or
// outside, 32: one value). Deterministic for a given image.
double auto_race_factor(const HistogramRequest& request);
// With `sample_race` false the image's samples are not read (a stream's frame shape before its
// first frame): the race is unknown and ignored by auto_key_distance().
AutoKey auto_key(const HistogramRequest& request, bool sample_race = true);

struct AutoMapEntry {
    AutoKey key;
    const char* ranking;  // engine names, fastest first, comma-separated
    const char* origin;   // the benchmark case it was learned from
};
// The learned map (selection_map.inc).
const std::vector<AutoMapEntry>& auto_selection_map();

// Distance between two keys; keys of another sample type, kind or channel layout are far.
int auto_key_distance(const AutoKey& a, const AutoKey& b);
// Map entries ordered by distance to `key` (nearest first, ties in map order).
std::vector<const AutoMapEntry*> auto_nearest(const std::vector<AutoMapEntry>& map,
                                              const AutoKey& key);
std::vector<std::string> auto_split_ranking(std::string_view ranking);

// An engine auto may pick for a key, and where the suggestion comes from.
struct AutoCandidate {
    std::string engine;
    std::string origin;  // "map entry 'CASE' (KEY)" or "fallback order"
};
// Every engine auto tries for `key`, in order, each once: the rankings of the map's entries,
// nearest first, then the strategy table's order (kernels/strategies.hpp). The "auto" engine
// and the GPU frame pipeline take the first one that is available and serves the request.
std::vector<AutoCandidate> auto_candidates(const AutoKey& key);

}  // namespace hs::cuda::detail
