#include "histoscope/ui/stats_model.hpp"

namespace hs::ui {

StatsModel::StatsModel(QObject* parent) : QAbstractTableModel(parent) {}

int StatsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int StatsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(channels_.size());
}

QVariant StatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Horizontal)
        return section < channels_.size() ? channels_[section] : QVariant();
    return section < rows_.size() ? rows_[section] : QVariant();
}

QVariant StatsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    if (role == Qt::TextAlignmentRole) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::DisplayRole) return cell(index.column(), index.row());
    // The whole number, what it is and of what: for a column too narrow to read, and to say
    // what the short row names mean.
    if (role == Qt::ToolTipRole)
        return tr("%1, %2: %3")
            .arg(channels_.value(index.column()), explain(index.column(), index.row()),
                 cell(index.column(), index.row()));
    return {};
}

QString StatsModel::float_cell(int column, int row) const {
    const hs::FloatStats& s = float_stats_[static_cast<std::size_t>(column)];
    const auto n_pct = static_cast<int>(s.percentiles.size());
    const auto value = [](double v) { return QString::number(v, 'g', 6); };
    const double all = static_cast<double>(std::max<std::uint64_t>(s.count + s.non_finite, 1));
    const auto pct = [all](std::uint64_t v) {
        return QStringLiteral("%1%").arg(100.0 * static_cast<double>(v) / all, 0, 'f', 2);
    };
    switch (row) {
        case 0:
            return QString::number(s.count);
        case 1:
            return QString::number(s.non_finite);
        case 2:
            return value(s.mean);
        case 3:
            return value(s.stddev);
        case 4:
            return value(s.min);
        case 5:
            return value(s.max);
        case 6:
            return value(s.median);
        default:
            break;
    }
    const int p = row - 7;
    if (p >= 0 && p < n_pct) return value(s.percentiles[static_cast<std::size_t>(p)].second);
    switch (row - 7 - n_pct) {
        case 0:
            return QString::number(s.below_range);
        case 1:
            return pct(s.below_range);
        case 2:
            return QString::number(s.above_range);
        default:
            return pct(s.above_range);
    }
}

QString StatsModel::cell(int column, int row) const {
    if (!float_stats_.empty()) return float_cell(column, row);
    const hs::Stats& s = stats_[static_cast<std::size_t>(column)];
    const auto n_pct = static_cast<int>(s.percentiles.size());
    switch (row) {
        case 0:
            return QString::number(s.count);
        case 1:
            return QString::number(s.mean, 'f', 2);
        case 2:
            return QString::number(s.stddev, 'f', 2);
        case 3:
            return QString::number(s.min);
        case 4:
            return QString::number(s.max);
        case 5:
            return QString::number(s.median);
        default:
            break;
    }
    const int p = row - 6;
    if (p >= 0 && p < n_pct)
        return QString::number(s.percentiles[static_cast<std::size_t>(p)].second);
    // Counts and their share on rows of their own: a cell holding both was the widest of the
    // table and the first cut short.
    const double count = s.count > 0 ? static_cast<double>(s.count) : 1.0;
    const auto pct = [count](std::uint64_t v) {
        return QStringLiteral("%1%").arg(100.0 * static_cast<double>(v) / count, 0, 'f', 2);
    };
    switch (row - 6 - n_pct) {
        case 0:
            return QString::number(s.clipped_low);
        case 1:
            return pct(s.clipped_low);
        case 2:
            return QString::number(s.clipped_high);
        case 3:
            return pct(s.clipped_high);
        default:
            break;
    }
    // A CFA mosaic's levels (the equalized columns have none).
    if (static_cast<std::size_t>(column) >= levels_.size()) return {};
    const ChannelLevels& l = levels_[static_cast<std::size_t>(column)];
    switch (row - 10 - n_pct) {
        case 0:
            return QString::number(l.black);
        case 1:
            return QString::number(l.at_or_below_black);
        case 2:
            return pct(l.at_or_below_black);
        case 3:
            return QString::number(l.white);
        case 4:
            return QString::number(l.at_or_above_white);
        default:
            return pct(l.at_or_above_white);
    }
}

QString StatsModel::explain(int column, int row) const {
    if (!float_stats_.empty()) {
        const hs::FloatStats& f = float_stats_[static_cast<std::size_t>(column)];
        const auto n = static_cast<int>(f.percentiles.size());
        if (row == 0) return tr("finite samples counted");
        if (row == 1) return tr("samples that are NaN or infinite (in no bin, in no statistic)");
        if (row == 3) return tr("standard deviation (population) of the finite samples");
        if (row >= 7 && row < 7 + n)
            return tr("percentile %1 (nearest rank) of the finite samples")
                .arg(f.percentiles[static_cast<std::size_t>(row - 7)].first);
        switch (row - 7 - n) {
            case 0:
                return tr("finite samples below the bins (-16 EV; zero and negative values too)");
            case 1:
                return tr("share of all samples below the bins");
            case 2:
                return tr("finite samples at or above the bins (+16 EV)");
            case 3:
                return tr("share of all samples at or above the bins");
            default:
                return rows_.value(row);
        }
    }
    const hs::Stats& s = stats_[static_cast<std::size_t>(column)];
    const auto n_pct = static_cast<int>(s.percentiles.size());
    if (row == 0) return tr("samples counted");
    if (row == 2) return tr("standard deviation (population)");
    const int p = row - 6;
    if (p >= 0 && p < n_pct)
        return tr("percentile %1 (nearest rank)")
            .arg(s.percentiles[static_cast<std::size_t>(p)].first);
    switch (row - 6 - n_pct) {
        case 0:
            return tr("samples at 0");
        case 1:
            return tr("share of the samples at 0");
        case 2:
            return tr("samples at the largest code value");
        case 3:
            return tr("share of the samples at the largest code value");
        case 4:
            return tr("the black level");
        case 5:
            return tr("photosites at or below the black level");
        case 6:
            return tr("share of the photosites at or below the black level");
        case 7:
            return tr("the white level");
        case 8:
            return tr("photosites at or above the white level (clipped)");
        case 9:
            return tr("share of the photosites at or above the white level (clipped)");
        default:
            break;
    }
    return rows_.value(row);
}

void StatsModel::setStats(const QStringList& channels, const std::vector<hs::Stats>& stats,
                          const std::vector<ChannelLevels>& levels) {
    beginResetModel();
    channels_ = channels;
    stats_ = stats;
    float_stats_.clear();
    levels_ = levels;
    rows_ = QStringList{tr("count"), tr("mean"), tr("std dev"), tr("min"), tr("max"), tr("median")};
    if (!stats_.empty()) {
        for (const auto& [p, v] : stats_.front().percentiles) rows_ << tr("p%1").arg(p);
    }
    rows_ << tr("clipped low") << tr("clipped low %") << tr("clipped high") << tr("clipped high %");
    if (!levels_.empty())
        rows_ << tr("black level") << tr("<= black") << tr("<= black %") << tr("white level")
              << tr(">= white (clipped)") << tr(">= white %");
    if (stats_.empty()) rows_.clear();
    endResetModel();
}

void StatsModel::setFloatStats(const QStringList& channels,
                               const std::vector<hs::FloatStats>& stats) {
    beginResetModel();
    channels_ = channels;
    stats_.clear();
    levels_.clear();
    float_stats_ = stats;
    rows_ = QStringList{tr("count"), tr("non-finite"), tr("mean"),  tr("std dev"),
                        tr("min"),   tr("max"),        tr("median")};
    if (!float_stats_.empty())
        for (const auto& [p, v] : float_stats_.front().percentiles) rows_ << tr("p%1").arg(p);
    rows_ << tr("below range") << tr("below range %") << tr("above range") << tr("above range %");
    if (float_stats_.empty()) rows_.clear();
    endResetModel();
}

}  // namespace hs::ui
