#include "histoscope/ui/export.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace hs::ui {

QString histogram_csv(const HistogramData& data, const HistogramData& equalized) {
    const bool with_eq = !equalized.empty() && equalized.bins == data.bins;
    QString out = QStringLiteral("bin,lower,upper");
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

QString benchmark_csv(const QVector<BenchRow>& rows, const BenchContext& c) {
    QString out = QStringLiteral("# input: %1, %2x%3, %4 channels, %5-bit\n")
                      .arg(c.input)
                      .arg(c.width)
                      .arg(c.height)
                      .arg(c.image_channels)
                      .arg(c.depth) +
                  QStringLiteral("# histogram: %1 of %2\n").arg(c.spec, c.channels) +
                  QStringLiteral("# %1 timed runs after %2 warm-up, inputs rotated over %3 bytes\n")
                      .arg(c.timed_runs)
                      .arg(c.warmup_runs)
                      .arg(c.rotate_bytes) +
                  QStringLiteral("# device: %1; cpu: %2, read bandwidth %3 GB/s\n")
                      .arg(c.device, c.cpu)
                      .arg(c.host_read_bandwidth_gbs, 0, 'f', 1) +
                  QStringLiteral("# date: %1; histoscope %2\n").arg(c.date, c.version);
    out += QStringLiteral(
        "input,kernel,channels,spec,status,median_ms,min_ms,gpix_s,gb_s,pct_read_bw,"
        "e2e_median_ms,runs,verified,reason\n");
    auto quoted = [](QString text) {
        return QLatin1Char('"') + text.replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
               QLatin1Char('"');
    };
    for (const BenchRow& r : rows) {
        out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14\n")
                   .arg(quoted(c.input), r.engine, quoted(c.channels), quoted(c.spec), r.status)
                   .arg(r.median_ms, 0, 'f', 6)
                   .arg(r.min_ms, 0, 'f', 6)
                   .arg(r.gpix_per_s, 0, 'f', 6)
                   .arg(r.gb_per_s, 0, 'f', 3)
                   .arg(r.pct_read_bw, 0, 'f', 2)
                   .arg(r.end_to_end_median_ms, 0, 'f', 6)
                   .arg(r.runs)
                   .arg(r.verified ? QStringLiteral("true") : QStringLiteral("false"),
                        quoted(r.reason));
    }
    return out;
}

QString benchmark_json(const QVector<BenchRow>& rows, const BenchContext& c) {
    QJsonArray results;
    for (const BenchRow& r : rows) {
        QJsonObject o{{QStringLiteral("input"), c.input},
                      {QStringLiteral("width"), c.width},
                      {QStringLiteral("height"), c.height},
                      {QStringLiteral("image_channels"), c.image_channels},
                      {QStringLiteral("depth"), c.depth},
                      {QStringLiteral("bytes"), static_cast<qint64>(c.bytes)},
                      {QStringLiteral("channels"), c.channels},
                      {QStringLiteral("spec"), c.spec},
                      {QStringLiteral("kernel"), r.engine},
                      {QStringLiteral("status"), r.status}};
        if (!r.reason.isEmpty()) o.insert(QStringLiteral("reason"), r.reason);
        if (r.status == QLatin1String("ok")) {
            o.insert(QStringLiteral("median_ms"), r.median_ms);
            o.insert(QStringLiteral("min_ms"), r.min_ms);
            o.insert(QStringLiteral("runs"), r.runs);
            o.insert(QStringLiteral("gpix_s"), r.gpix_per_s);
            o.insert(QStringLiteral("gb_s"), r.gb_per_s);
            o.insert(QStringLiteral("pct_read_bw"), r.pct_read_bw);
            o.insert(QStringLiteral("end_to_end_median_ms"), r.end_to_end_median_ms);
            o.insert(QStringLiteral("verified"), r.verified);
        }
        results.append(o);
    }
    const QJsonObject root{{QStringLiteral("device"), c.device},
                           {QStringLiteral("cpu"), c.cpu},
                           {QStringLiteral("host_read_bandwidth_gbs"), c.host_read_bandwidth_gbs},
                           {QStringLiteral("bins"), c.bins},
                           {QStringLiteral("timed_runs"), c.timed_runs},
                           {QStringLiteral("warmup_runs"), c.warmup_runs},
                           {QStringLiteral("rotate_bytes"), static_cast<qint64>(c.rotate_bytes)},
                           {QStringLiteral("date"), c.date},
                           {QStringLiteral("version"), c.version},
                           {QStringLiteral("results"), results}};
    return QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented));
}

QString write_text_file(const QString& path, const QString& text) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return QObject::tr("%1: %2").arg(path, file.errorString());
    file.write(text.toUtf8());
    if (!file.commit()) return QObject::tr("%1: %2").arg(path, file.errorString());
    return {};
}

}  // namespace hs::ui
