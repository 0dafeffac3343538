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
// The kernel comparison in the CLI's bench formats (its JSON names; its CSV with '#' lines
// first), with what makes it reproducible: image, channels, bins, runs, device, CPU, date and
// application version.
QString benchmark_csv(const QVector<BenchRow>& rows, const BenchContext& context);
QString benchmark_json(const QVector<BenchRow>& rows, const BenchContext& context);

QString write_text_file(const QString& path, const QString& text);

}  // namespace hs::ui
