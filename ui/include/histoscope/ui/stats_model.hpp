#pragma once
// Exact statistics per channel (rows = statistics, columns = channels); each cell's tooltip
// says what it is, with its whole value.

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

    void setStats(const QStringList& channels, const std::vector<hs::Stats>& stats);

  private:
    QString cell(const hs::Stats& s, int row) const;
    QString explain(const hs::Stats& s, int row) const;  // what row `row` counts, in words

    QStringList channels_;
    std::vector<hs::Stats> stats_;
    QStringList rows_;
};

}  // namespace hs::ui
