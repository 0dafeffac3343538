#pragma once
// Writing histograms and benchmark results to files. Each returns an empty string on success,
// otherwise one line saying what failed.

#include <QString>
#include <QVector>

#include "histoscope/ui/types.hpp"

namespace hs::ui {

// bin,lower,upper,<channel>... one row per bin (the CLI's --format csv), then the equalized
// image's channels as <channel>_equalized when `equalized` is not empty (same bins).
QString histogram_csv(const HistogramData& data, const HistogramData& equalized = {});
QString benchmark_csv(const QVector<BenchRow>& rows);
QString benchmark_json(const QVector<BenchRow>& rows, const QString& input);

QString write_text_file(const QString& path, const QString& text);

}  // namespace hs::ui
