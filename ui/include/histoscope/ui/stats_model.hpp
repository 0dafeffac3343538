#pragma once
// Exact statistics per channel (rows = statistics, columns = channels); each cell's tooltip
// says what it is, with its whole value. A float image's rows are its own (FloatStats). A camera
// raw mosaic's channels add the photosites at or below their black level and at or above their
// white level (clipped).

#include <QAbstractTableModel>
#include <QStringList>
#include <vector>

#include "histoscope/ui/types.hpp"

namespace hs::ui {

class StatsModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    explicit StatsModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // `levels`: of the first channels (a CFA mosaic's), or none.
    void setStats(const QStringList& channels, const std::vector<hs::Stats>& stats,
                  const std::vector<ChannelLevels>& levels = {});
    // A float image's: its finite samples' statistics, the non-finite ones, and those below and
    // above the bins' range.
    void setFloatStats(const QStringList& channels, const std::vector<hs::FloatStats>& stats);

  private:
    QString cell(int column, int row) const;
    QString explain(int column, int row) const;  // what row `row` counts, in words

    QStringList channels_;
    std::vector<hs::Stats> stats_;
    std::vector<hs::FloatStats> float_stats_;  // non-empty: the float rows
    QString float_cell(int column, int row) const;
    std::vector<ChannelLevels> levels_;
    QStringList rows_;
};

}  // namespace hs::ui
