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

QString benchmark_csv(const QVector<BenchRow>& rows) {
    QString out = QStringLiteral(
        "kernel,status,median_ms,min_ms,e2e_median_ms,gpix_s,gb_s,pct_read_bw,runs,"
        "verified,reason\n");
    for (const BenchRow& r : rows) {
        QString reason = r.reason;
        reason.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,\"%11\"\n")
                   .arg(r.engine, r.status)
                   .arg(r.median_ms, 0, 'f', 6)
                   .arg(r.min_ms, 0, 'f', 6)
                   .arg(r.end_to_end_median_ms, 0, 'f', 6)
                   .arg(r.gpix_per_s, 0, 'f', 6)
                   .arg(r.gb_per_s, 0, 'f', 3)
                   .arg(r.pct_read_bw, 0, 'f', 2)
                   .arg(r.runs)
                   .arg(r.verified ? QStringLiteral("true") : QStringLiteral("false"), reason);
    }
    return out;
}

QString benchmark_json(const QVector<BenchRow>& rows, const QString& input) {
    QJsonArray results;
    for (const BenchRow& r : rows) {
        QJsonObject o{{QStringLiteral("kernel"), r.engine},
                      {QStringLiteral("status"), r.status},
                      {QStringLiteral("median_ms"), r.median_ms},
                      {QStringLiteral("min_ms"), r.min_ms},
                      {QStringLiteral("end_to_end_median_ms"), r.end_to_end_median_ms},
                      {QStringLiteral("gpix_s"), r.gpix_per_s},
                      {QStringLiteral("gb_s"), r.gb_per_s},
                      {QStringLiteral("pct_read_bw"), r.pct_read_bw},
                      {QStringLiteral("runs"), r.runs},
                      {QStringLiteral("verified"), r.verified}};
        if (!r.reason.isEmpty()) o.insert(QStringLiteral("reason"), r.reason);
        results.append(o);
    }
    const QJsonObject root{{QStringLiteral("input"), input}, {QStringLiteral("results"), results}};
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
