#include "histoscope/core/engine.hpp"

#include <algorithm>
#include <chrono>

#include "histoscope/core/error.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/core/stream.hpp"
#include "histoscope/core/timing.hpp"

#include "cpu_equalize.hpp"

namespace hs {

std::string HistogramEngine::unsupported_reason(const HistogramRequest& r) const {
    const Capabilities caps = capabilities();
    const std::string who = "engine '" + std::string(name()) + "' ";
    if (r.image.type == SampleType::U8 && !caps.u8) return who + "does not handle 8-bit samples";
    if (r.image.type == SampleType::U16 && !caps.u16) return who + "does not handle 16-bit samples";
    if (r.image.type == SampleType::F32 && !caps.f32)
        return who + "does not handle 32-bit float samples";
    if (r.spec.is_float() && !caps.f32) return who + "does not handle float bins";
    for (Channel c : r.channels) {
        if (is_luma(c) && r.image.channels > 1 && !caps.luma) return who + "does not compute luma";
        if (c == Channel::Joint && !caps.joint)
            return who + "does not compute joint colour histograms";
        if (c == Channel::A && !caps.alpha) return who + "does not handle the alpha channel";
    }
    if (r.spec.has_edges() && !caps.edges) return who + "does not handle explicit bin edges";
    if (r.spec.saturate && !caps.saturate) return who + "does not handle saturating counters";
    if (r.spec.bins > caps.max_bins)
        return who + "handles at most " + std::to_string(caps.max_bins) + " bins";
    if (caps.max_samples != 0 && r.image.pixel_count() > caps.max_samples)
        return who + "keeps counts exact only up to " + std::to_string(caps.max_samples) +
               " pixels";
    return extra_unsupported_reason(r);
}

void HistogramEngine::check_request(const HistogramRequest& request) const {
    validate(request.image);
    request.spec.validate_for(request.image);
    if (request.channels.empty()) throw UsageError("no channel requested");
    for (Channel c : request.channels) check_channel(c, request.image.channels, request.image.type);
    if (std::string why = refusal(request); !why.empty()) throw UnsupportedError(why);
}

namespace {

template <typename Engine, typename Request>
std::string refusal_of(const Engine& engine, const Request& request) {
    if (const Availability a = engine.availability(); !a.available)
        return "engine '" + std::string(engine.name()) + "' is not available: " + a.reason;
    return engine.unsupported_reason(request);
}

// The default benchmark of an engine without a clock of its own: `run()` timed on the host's,
// the last run's result kept for verification.
template <typename Timing, typename Run>
Timing host_timed(const BenchOptions& options, std::vector<double> Timing::*ms, Run&& run) {
    Timing timing;
    for (int i = 0; i < options.warmup_runs; ++i) run();
    for (int i = 0; i < options.timed_runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        auto result = run();
        const double elapsed = ms_since(start);
        (timing.*ms).push_back(elapsed);
        timing.end_to_end_ms.push_back(elapsed);
        if (i + 1 == options.timed_runs) timing.last = std::move(result);
    }
    return timing;
}

void check_bench_options(const BenchOptions& options) {
    if (options.warmup_runs < 0 || options.timed_runs < 1)
        throw UsageError("a benchmark needs at least one timed run");
}

}  // namespace

std::string HistogramEngine::refusal(const HistogramRequest& request) const {
    return refusal_of(*this, request);
}

std::string EqualizeEngine::refusal(const EqualizeRequest& request) const {
    return refusal_of(*this, request);
}

HistogramResult HistogramEngine::compute(const HistogramRequest& request) {
    check_request(request);
    const auto start = std::chrono::steady_clock::now();
    HistogramResult result = run(request);
    apply_saturation(request.spec, result.channels);
    result.total_ms = ms_since(start);
    return result;
}

BenchTiming HistogramEngine::benchmark(const HistogramRequest& request,
                                       const BenchOptions& options) {
    check_request(request);
    check_bench_options(options);
    BenchTiming timing = run_benchmark(request, options);
    apply_saturation(request.spec, timing.last);
    return timing;
}

BenchTiming HistogramEngine::run_benchmark(const HistogramRequest& request,
                                           const BenchOptions& options) {
    return host_timed<BenchTiming>(options, &BenchTiming::histogram_ms,
                                   [&] { return run(request).channels; });
}

void ScopeEngine::check_request(const ScopeRequest& request) const {
    validate(request.image);
    request.spec.validate(request.image);
    if (std::string why = refusal(request); !why.empty()) throw UnsupportedError(why);
}

std::string ScopeEngine::refusal(const ScopeRequest& request) const {
    return refusal_of(*this, request);
}

ScopeResult ScopeEngine::compute(const ScopeRequest& request) {
    check_request(request);
    const auto start = std::chrono::steady_clock::now();
    ScopeResult result = run(request);
    result.total_ms = ms_since(start);
    return result;
}

ScopeBenchTiming ScopeEngine::benchmark(const ScopeRequest& request, const BenchOptions& options) {
    check_request(request);
    check_bench_options(options);
    return run_benchmark(request, options);
}

ScopeBenchTiming ScopeEngine::run_benchmark(const ScopeRequest& request,
                                            const BenchOptions& options) {
    return host_timed<ScopeBenchTiming>(options, &ScopeBenchTiming::scope_ms,
                                        [&] { return run(request).planes; });
}

EngineRegistry::EngineRegistry() = default;
EngineRegistry::~EngineRegistry() = default;

namespace {

template <typename Engine>
Engine* find_named(const std::vector<std::unique_ptr<Engine>>& list, std::string_view name) {
    for (const auto& e : list)
        if (e->name() == name) return e.get();
    return nullptr;
}

template <typename Engine>
void add_named(std::vector<std::unique_ptr<Engine>>& list, std::unique_ptr<Engine> engine,
               const char* what) {
    if (find_named(list, engine->name()) != nullptr)
        throw UsageError(std::string(what) + "'" + std::string(engine->name()) +
                         "' is registered twice");
    list.push_back(std::move(engine));
}

template <typename Engine>
std::vector<std::string> names_of(const std::vector<std::unique_ptr<Engine>>& list) {
    std::vector<std::string> out;
    for (const auto& e : list) out.emplace_back(e->name());
    return out;
}

}  // namespace

void EngineRegistry::add(std::unique_ptr<HistogramEngine> engine) {
    add_named(engines_, std::move(engine), "engine ");
}

HistogramEngine* EngineRegistry::find(std::string_view name) const {
    return find_named(engines_, name);
}

std::vector<std::string> EngineRegistry::names() const {
    return names_of(engines_);
}

EqualizeResult EqualizeEngine::equalize(const EqualizeRequest& request) {
    request.validate();
    if (std::string why = refusal(request); !why.empty()) throw UnsupportedError(why);
    const auto start = std::chrono::steady_clock::now();
    EqualizeResult result = run(request);
    result.total_ms = ms_since(start);
    return result;
}

void EngineRegistry::add_equalizer(std::unique_ptr<EqualizeEngine> engine) {
    add_named(equalizers_, std::move(engine), "equalize engine ");
}

EqualizeEngine* EngineRegistry::find_equalizer(std::string_view name) const {
    return find_named(equalizers_, name);
}

std::vector<std::string> EngineRegistry::equalizer_names() const {
    return names_of(equalizers_);
}

void EngineRegistry::add_stream_engine(std::unique_ptr<StreamEngine> engine) {
    add_named(stream_engines_, std::move(engine), "stream engine ");
}

StreamEngine* EngineRegistry::find_stream_engine(std::string_view name) const {
    return find_named(stream_engines_, name);
}

ScopeEngine& available_scope_engine(const EngineRegistry& registry, std::string_view name) {
    ScopeEngine* engine = registry.find_scope_engine(name);
    if (engine == nullptr) {
        std::string known;
        for (const auto& e : registry.scope_engines()) known += " " + std::string(e->name());
        throw UsageError("no scope engine named '" + std::string(name) + "' (known: auto" + known +
                         ")");
    }
    if (const Availability a = engine->availability(); !a.available)
        throw DeviceError("scope engine '" + std::string(name) + "' is not available: " + a.reason);
    return *engine;
}

ScopeEngine& choose_scope_engine(const EngineRegistry& registry, std::string_view name,
                                 const std::vector<ScopeRequest>& requests) {
    const auto serves = [&](const ScopeEngine& e) {
        return std::all_of(requests.begin(), requests.end(),
                           [&](const ScopeRequest& r) { return e.refusal(r).empty(); });
    };
    if (name.empty() || name == "auto") {
        for (const auto& e : registry.scope_engines())
            if (e->name() != "cpu" && serves(*e)) return *e;
        name = "cpu";
    }
    ScopeEngine& engine = available_scope_engine(registry, name);
    for (const ScopeRequest& r : requests)
        if (std::string why = engine.unsupported_reason(r); !why.empty())
            throw UnsupportedError(why);
    return engine;
}

ScopeEngine& choose_scope_engine(const EngineRegistry& registry, std::string_view name,
                                 const ScopeRequest& request) {
    return choose_scope_engine(registry, name, std::vector<ScopeRequest>{request});
}

void EngineRegistry::add_scope_engine(std::unique_ptr<ScopeEngine> engine) {
    add_named(scope_engines_, std::move(engine), "scope engine ");
}

ScopeEngine* EngineRegistry::find_scope_engine(std::string_view name) const {
    return find_named(scope_engines_, name);
}

namespace {

// equalize_reference()'s values (cpu_equalize.cpp).
class CpuEqualizeEngine final : public EqualizeEngine {
  public:
    std::string_view name() const override { return "cpu"; }
    std::string_view description() const override {
        return "exact CPU reference: OpenCV-exact global equalization, YCrCb and CLAHE; global "
               "and matching in two passes over the pixels on every hardware thread";
    }
    bool concurrent() const override { return true; }

  protected:
    EqualizeResult run(const EqualizeRequest& r) override { return detail::cpu_equalize(r); }
};

class CpuReferenceEngine final : public HistogramEngine {
  public:
    std::string_view name() const override { return "cpu"; }
    std::string_view description() const override {
        return "exact CPU reference: 64-bit counts, lookup table (float samples: their fp32 "
               "edges), rows split over threads";
    }
    Capabilities capabilities() const override {
        Capabilities caps;
        caps.f32 = true;
        return caps;
    }
    bool concurrent() const override { return true; }

  protected:
    HistogramResult run(const HistogramRequest& r) override {
        const auto start = std::chrono::steady_clock::now();
        HistogramResult result;
        result.channels = reference_histogram(r.image, r.channels, r.spec);
        result.stages.push_back({"histogram", ms_since(start)});
        return result;
    }
};

class CpuScopeEngine final : public ScopeEngine {
  public:
    std::string_view name() const override { return "cpu"; }
    std::string_view description() const override {
        return "exact CPU reference: 64-bit counts; waveforms by column bands, vectorscopes by "
               "rows, over every hardware thread";
    }
    bool concurrent() const override { return true; }

  protected:
    ScopeResult run(const ScopeRequest& r) override {
        const auto start = std::chrono::steady_clock::now();
        ScopeResult result;
        result.planes = reference_scope(r.image, r.spec);
        result.stages.push_back({"scope", ms_since(start)});
        return result;
    }
};

}  // namespace

void register_core_engines(EngineRegistry& registry) {
    registry.add(std::make_unique<CpuReferenceEngine>());
    registry.add_equalizer(std::make_unique<CpuEqualizeEngine>());
    registry.add_stream_engine(make_cpu_stream_engine(registry));
    registry.add_scope_engine(std::make_unique<CpuScopeEngine>());
}

}  // namespace hs
