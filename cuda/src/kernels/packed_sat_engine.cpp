// Strategy "packed-sat" as an engine: saturating packed counters (kernels in packed_sat.cu,
// request handling shared with "packed" through PackedEngineBase, see packed.cuh).

#include <memory>
#include <string>

#include "kernels/packed.cuh"
#include "kernels/packed_tuning.hpp"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

class PackedSatEngine final : public PackedEngineBase {
  public:
    explicit PackedSatEngine(const PackedTuning& tuning) : PackedEngineBase(tuning, true) {}
    std::string_view name() const override { return "packed-sat"; }
    std::string_view description() const override {
        return "GPU: saturating packed 8- or 16-bit counters in shared memory (Parboil style, "
               "atomicCAS stops each counter at the cap); only for requests with a saturation "
               "cap of at most 65535; bins beyond shared memory in tiles (up to 2^24)";
    }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        const std::string who = "engine 'packed-sat' ";
        if (!r.spec.saturate)
            return who +
                   "only counts with a saturation cap (its counters stop at the cap); "
                   "the request has none";
        const std::uint64_t limit = tuning_.counter_bits == 8 ? 255 : 65535;
        if (*r.spec.saturate > limit)
            return who + "only serves saturation caps up to " + std::to_string(limit) + " (its " +
                   (limit == 255 ? "8" : "16") + "-bit counters stop at the cap), not " +
                   std::to_string(*r.spec.saturate);
        return PackedEngineBase::extra_unsupported_reason(r);
    }
};

}  // namespace

std::unique_ptr<HistogramEngine> make_packed_sat_engine(const PackedTuning& tuning) {
    return std::make_unique<PackedSatEngine>(tuning);
}

std::unique_ptr<HistogramEngine> make_packed_sat_engine() {
    return make_packed_sat_engine(PackedTuning{});
}

}  // namespace hs::cuda::detail
