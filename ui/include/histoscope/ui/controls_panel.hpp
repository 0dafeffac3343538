#pragma once
// The histogram's control panel: channel toggles, log scale, cumulative curve, overlay or
// parade, bin count and the histogram kernel combo filled from the registry. It forwards intent
// through signals and owns no data. (Equalization has its own panel: equalize_panel.hpp.)

#include <QStringList>
#include <QWidget>

#include "histoscope/ui/types.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;

namespace hs::ui {

class ControlsPanel : public QWidget {
    Q_OBJECT

  public:
    explicit ControlsPanel(QWidget* parent = nullptr);

    // Channel checkboxes for these channels ("r", "g", "b", "luma" or "gray").
    void setChannels(const QStringList& names);
    // Bin counts offered for an image of this depth: powers of two from 16 up to 2^depth. The
    // count last chosen (or restored) is shown again as soon as the depth offers it. A float
    // image (`floating`) is offered 16 to 4096 stops over -16..+16 EV, and the exposure slider.
    void setBitDepth(int bit_depth, bool floating = false);
    double exposure() const;      // EV
    void setExposure(double ev);  // without emitting exposureChanged
    void setEngines(const QVector<EngineInfo>& engines);
    void selectEngine(const QString& name);  // without emitting engineChanged
    void selectBins(int bins);               // without emitting binsChanged
    int bins() const;
    QString engine() const;

    QComboBox* engineCombo() const { return engines_; }
    QComboBox* binsCombo() const { return bins_; }
    QCheckBox* logCheck() const { return log_; }
    QCheckBox* cumulativeCheck() const { return cumulative_; }
    QCheckBox* paradeCheck() const { return parade_; }
    QCheckBox* channelCheck(const QString& name) const;
    QSlider* exposureSlider() const { return exposure_; }

  signals:
    void channelToggled(const QString& name, bool visible);
    void logToggled(bool on);
    void cumulativeToggled(bool on);
    void paradeToggled(bool on);
    void binsChanged(int bins);
    void engineChanged(const QString& name);
    void exposureChanged(double ev);

  private:
    QWidget* channel_box_;
    QList<QCheckBox*> channel_checks_;
    QCheckBox* log_;
    QCheckBox* cumulative_;
    QCheckBox* parade_;
    QComboBox* bins_;
    QComboBox* engines_;
    QWidget* exposure_row_;
    QSlider* exposure_;  // tenths of a stop
    QLabel* exposure_value_;
    QString wanted_engine_ = QStringLiteral("auto");
    int wanted_bins_ = 256;
};

}  // namespace hs::ui
