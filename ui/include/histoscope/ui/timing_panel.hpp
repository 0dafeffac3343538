#pragma once
// Live timing: the latest frame's stages as bars (ms), its throughput (Gpix/s, GB/s, percent
// of the device's read bandwidth), a sparkline of the recent frames and the history table.

#include <QWidget>

#include "histoscope/ui/timing_model.hpp"

class QLabel;
class QTableView;

namespace hs::ui {

// Bars of the latest frame's stages, one row each, labelled with their milliseconds.
class StageBars : public QWidget {
    Q_OBJECT

  public:
    explicit StageBars(TimingModel* model, QWidget* parent = nullptr);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    int rowHeight() const;

    TimingModel* model_;
    int rows_ = 0;
};

// The histogram milliseconds of the recent frames, oldest left.
class Sparkline : public QWidget {
    Q_OBJECT

  public:
    explicit Sparkline(TimingModel* model, QWidget* parent = nullptr);
    QSize sizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    TimingModel* model_;
};

class TimingPanel : public QWidget {
    Q_OBJECT

  public:
    explicit TimingPanel(TimingModel* model, QWidget* parent = nullptr);
    QString summary() const;                      // the headline as plain text
    QTableView* table() const { return table_; }  // the frames listed

  private:
    void refresh();

    TimingModel* model_;
    QLabel* summary_;
    StageBars* bars_;
    Sparkline* sparkline_;
    QTableView* table_;
};

}  // namespace hs::ui
