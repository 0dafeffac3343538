#include "histoscope/ui/export.hpp"

#include <QSaveFile>

#include "histoscope/media/atomic_file.hpp"
#include "histoscope/report/bench_report.hpp"

namespace hs::ui {

QString histogram_csv(const HistogramData& data, const HistogramData& equalized) {
    const bool with_eq = !equalized.empty() && equalized.bins == data.bins;
    // A float image's samples outside its bins, counted apart: the lines the CLI's CSV starts
    // with, of the same form.
    QString out;
    for (std::size_t i = 0;
         i < data.float_stats.size() && i < static_cast<std::size_t>(data.channel_names.size());
         ++i) {
        const hs::FloatStats& f = data.float_stats[i];
        out += QStringLiteral("# outside %1: below_range=%2 above_range=%3 non_finite=%4\n")
                   .arg(data.channel_names[static_cast<qsizetype>(i)])
                   .arg(f.below_range)
                   .arg(f.above_range)
                   .arg(f.non_finite);
    }
    // A float image's bins are stops: their edges in EV (the fp32 edges are 2^EV).
    out += data.unit == QLatin1String("EV") ? QStringLiteral("bin,lower_ev,upper_ev")
                                            : QStringLiteral("bin,lower,upper");
    for (const QString& name : data.channel_names) out += QLatin1Char(',') + name;
    if (with_eq)
        for (const QString& name : equalized.channel_names)
            out += QLatin1Char(',') + name + QStringLiteral("_equalized");
    out += QLatin1Char('\n');
    for (int bin = 0; bin < data.bins; ++bin) {
        out += QStringLiteral("%1,%2,%3")
                   .arg(bin)
                   .arg(data.bin_lower(bin), 0, 'g', 17)
                   .arg(data.bin_lower(bin + 1), 0, 'g', 17);
        for (const auto& counts : data.counts)
            out += QLatin1Char(',') + QString::number(counts[static_cast<std::size_t>(bin)]);
        if (with_eq)
            for (const auto& counts : equalized.counts)
                out += QLatin1Char(',') + QString::number(counts[static_cast<std::size_t>(bin)]);
        out += QLatin1Char('\n');
    }
    return out;
}

QString benchmark_csv(const QVector<BenchRow>& rows, const BenchContext& context) {
    return QString::fromStdString(
        hs::report::bench_csv(context, std::vector<BenchRow>(rows.begin(), rows.end())));
}

QString benchmark_json(const QVector<BenchRow>& rows, const BenchContext& context) {
    return QString::fromStdString(hs::report::to_text(
        hs::report::bench_json(context, std::vector<BenchRow>(rows.begin(), rows.end()))));
}

QString write_export(const QString& path, const QByteArray& bytes, const QString& input) {
    if (!input.isEmpty() && hs::media::same_file(path.toStdString(), input.toStdString()))
        return QObject::tr("%1 is the opened file: export under another name").arg(path);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QObject::tr("%1: %2").arg(path, file.errorString());
    file.write(bytes);
    if (!file.commit()) return QObject::tr("%1: %2").arg(path, file.errorString());
    return {};
}

QString write_text_file(const QString& path, const QString& text, const QString& input) {
    return write_export(path, text.toUtf8(), input);
}

}  // namespace hs::ui
