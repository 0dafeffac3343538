#include "benchmark_runner.hpp"

#include "engine_choice.hpp"
#include "histoscope/core/histogram.hpp"

namespace hs::ui {

bool compare_engines(hs::EngineRegistry& registry, const hs::HistogramRequest& request,
                     const QString& input, int runs, const ControllerOptions& options,
                     EngineChoice& choice, const BenchHooks& hooks) {
    const std::vector<hs::ChannelHistogram> reference =
        hs::reference_histogram(request.image, request.channels, request.spec);
    const hs::BenchOptions bench = hs::bench_options(runs, options.gpu_l2_bytes);
    QString where;
    const double host_bw = choice.readBandwidthGbs(QStringLiteral("cpu"), where);
    double gpu_bw = 0.0;
    if (!options.gpu_device.isEmpty() && !options.gpu_engines.isEmpty())
        gpu_bw = choice.readBandwidthGbs(options.gpu_engines.front(), where);
    const BenchContext context =
        hs::bench_context(bench, options.gpu_device.toStdString(),
                          options.gpu_absence.toStdString(), gpu_bw, host_bw);
    // The floor first, where there is a GPU: every row then says how far it is from it.
    const bool floor_here = !options.gpu_device.isEmpty() && options.gpu_floor;
    int available = floor_here ? 1 : 0;
    for (const auto& engine : registry.engines())
        if (engine->availability().available) ++available;
    const int total = available * runs;
    if (hooks.started) hooks.started(context, total);
    int done = 0;  // runs of the rows before this one
    const auto control_for = [&](const QString& name) {
        if (hooks.progress) hooks.progress(done, total, name);
        hs::BenchControl control;
        control.cancel = hooks.cancel;
        control.progress = [&, name](int runs_done) {
            if (hooks.progress) hooks.progress(done + runs_done, total, name);
        };
        return control;
    };
    BenchRow floor;
    if (floor_here) {
        if (!hs::bench_floor(options.gpu_floor, request.image, bench, gpu_bw, floor,
                             control_for(QStringLiteral("floor"))))
            return false;
        floor.input = input.toStdString();
        done += runs;
        if (hooks.row) hooks.row(floor);
    }
    for (const auto& engine : registry.engines()) {
        const QString name =
            QString::fromUtf8(engine->name().data(), static_cast<qsizetype>(engine->name().size()));
        const bool available_here = engine->availability().available;
        const hs::BenchControl control =
            available_here ? control_for(name) : hs::BenchControl{hooks.cancel, {}};
        BenchRow row;
        if (!hs::bench_engine(*engine, request, reference, bench,
                              options.gpu_engines.contains(name) ? gpu_bw : host_bw, row, control))
            return false;
        row.input = input.toStdString();
        hs::relate_to_floor(floor, row);
        if (available_here) done += runs;
        if (hooks.row) hooks.row(row);
    }
    if (hooks.progress) hooks.progress(total, total, QString());
    return true;
}

}  // namespace hs::ui
