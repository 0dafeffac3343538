// The "auto" engine: for every request, computes its features (auto_select.hpp: the race factor
// is sampled from the image on the host), looks them up in the learned selection map and
// delegates to the first engine of the nearest entry's ranking that is available and serves the
// request. Every engine it can pick is exact, so auto is exact.
//
// HS_AUTO_TRACE=FILE appends one line per selection ("key<TAB>engine<TAB>origin") to FILE:
// `scripts/gpu.sh learn-auto` reads the keys of its benchmark cases from there.

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "auto/auto_select.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

struct Choice {
    HistogramEngine* engine = nullptr;
    std::string why;
};

class AutoEngine final : public HistogramEngine {
  public:
    explicit AutoEngine(std::vector<HistogramEngine*> engines) : candidates_(std::move(engines)) {}

    std::string_view name() const override { return "auto"; }
    std::string_view description() const override {
        const std::lock_guard lock(mutex_);
        return *note_;
    }
    Availability availability() const override {
        std::string why = "no GPU engine is registered";
        for (HistogramEngine* e : candidates_) {
            const Availability a = e->availability();
            if (a.available) return {};
            why = a.reason;
        }
        return {false, why};
    }
    Capabilities capabilities() const override { return {}; }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        for (HistogramEngine* e : candidates_)
            if (serves(e, r)) return {};
        return "engine 'auto': no available GPU engine serves this request";
    }

    HistogramResult run(const HistogramRequest& r) override {
        const auto t0 = std::chrono::steady_clock::now();
        const Choice c = choose(r);
        const double select_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        HistogramResult result = c.engine->compute(r);
        result.stages.push_back(StageTime{"select", select_ms});
        return result;
    }

    BenchTiming run_benchmark(const HistogramRequest& r, const BenchOptions& options) override {
        return choose(r).engine->benchmark(r, options);
    }

  private:
    bool serves(HistogramEngine* e, const HistogramRequest& r) const {
        return e->refusal(r).empty();
    }
    HistogramEngine* find(std::string_view name) const {
        for (HistogramEngine* e : candidates_)
            if (e->name() == name) return e;
        return nullptr;
    }

    Choice choose(const HistogramRequest& r) {
        const AutoKey key = auto_key(r);
        Choice c;
        std::string origin;
        for (const AutoCandidate& candidate : auto_candidates(key)) {
            HistogramEngine* e = find(candidate.engine);
            if (e != nullptr && serves(e, r)) {
                c.engine = e;
                origin = candidate.origin;
                break;
            }
        }
        if (c.engine == nullptr)
            for (HistogramEngine* e : candidates_)
                if (serves(e, r)) {
                    c.engine = e;
                    origin = "registry order";
                    break;
                }
        if (c.engine == nullptr)
            throw UnsupportedError("engine 'auto': no available GPU engine serves this request");
        c.why =
            "picked '" + std::string(c.engine->name()) + "' for " + key.text() + " from " + origin;
        record(key, c, origin);
        return c;
    }

    void record(const AutoKey& key, const Choice& c, const std::string& origin) {
        const std::lock_guard lock(mutex_);
        std::string text = std::string(kBase) + ". Last request: " + c.why;
        auto it = notes_.find(text);
        if (it == notes_.end() && notes_.size() < 256) it = notes_.insert(std::move(text)).first;
        if (it != notes_.end()) note_ = &*it;
        if (const char* trace = std::getenv("HS_AUTO_TRACE"); trace != nullptr && *trace != '\0') {
            std::ofstream out(trace, std::ios::app);
            out << key.text() << '\t' << c.engine->name() << '\t' << origin << '\n';
        }
    }

    static constexpr const char* kBase =
        "GPU auto-selection: samples a race factor from the image, looks the request's features "
        "(sample type, channels, bins, size, race factor) up in a selection map learned from "
        "benchmarks on the GPU and delegates to the fastest engine there that serves it";
    std::vector<HistogramEngine*> candidates_;
    mutable std::mutex mutex_;
    std::set<std::string> notes_{std::string(kBase)};
    const std::string* note_ = &*notes_.begin();
};

}  // namespace

std::unique_ptr<HistogramEngine> make_auto_engine(std::vector<HistogramEngine*> engines) {
    return std::make_unique<AutoEngine>(std::move(engines));
}

}  // namespace hs::cuda::detail
