#pragma once
// Writing histograms and benchmark results to files. Each returns an empty string on success,
// otherwise one line saying what failed.

#include <QByteArray>
#include <QString>
#include <QVector>

#include "histoscope/ui/types.hpp"

namespace hs::ui {

// bin,lower,upper,<channel>... one row per bin (the CLI's --format csv), then the equalized
// image's channels as <channel>_equalized when `equalized` is not empty (same bins). A float
// image's lines "# outside <channel>: below_range=N above_range=N non_finite=N" come first, as
// in the CLI's.
QString histogram_csv(const HistogramData& data, const HistogramData& equalized = {});
// The kernel comparison in the CLI's bench formats (its JSON names; its CSV with '#' lines
// first), with what makes it reproducible: image, channels, bins, runs, device, CPU, date and
// application version.
QString benchmark_csv(const QVector<BenchRow>& rows, const BenchContext& context);
QString benchmark_json(const QVector<BenchRow>& rows, const BenchContext& context);

// `bytes` as the whole content of `path`, through a temporary file that replaces it only once
// complete (QSaveFile); refused when `path` is the file `input` the export was made from (a
// histogram saved over its own photo would destroy it).
QString write_export(const QString& path, const QByteArray& bytes, const QString& input = {});
QString write_text_file(const QString& path, const QString& text, const QString& input = {});

}  // namespace hs::ui
