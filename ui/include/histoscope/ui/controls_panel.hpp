#pragma once
// The control panels. They forward intent through signals and own no data.
// ControlsPanel: channel toggles, log scale, cumulative curve, overlay or parade, bin count and
// the histogram kernel combo filled from the registry.
// EqualizePanel: mode (off, global, CLAHE, match), luminance or per channel, strength, CLAHE
// clip limit and tile grid, the match reference and the equalization engine.

#include <QStringList>
#include <QWidget>

#include "histoscope/ui/types.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace hs::ui {

class ControlsPanel : public QWidget {
    Q_OBJECT

  public:
    explicit ControlsPanel(QWidget* parent = nullptr);

    // Channel checkboxes for these channels ("r", "g", "b", "luma" or "gray").
    void setChannels(const QStringList& names);
    // Bin counts offered for an image of this depth: powers of two from 16 up to 2^depth. The
    // count last chosen (or restored) is shown again as soon as the depth offers it.
    void setBitDepth(int bit_depth);
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

  signals:
    void channelToggled(const QString& name, bool visible);
    void logToggled(bool on);
    void cumulativeToggled(bool on);
    void paradeToggled(bool on);
    void binsChanged(int bins);
    void engineChanged(const QString& name);

  private:
    QWidget* channel_box_;
    QList<QCheckBox*> channel_checks_;
    QCheckBox* log_;
    QCheckBox* cumulative_;
    QCheckBox* parade_;
    QComboBox* bins_;
    QComboBox* engines_;
    QString wanted_engine_ = QStringLiteral("auto");
    int wanted_bins_ = 256;
};

class EqualizePanel : public QWidget {
    Q_OBJECT

  public:
    explicit EqualizePanel(QWidget* parent = nullptr);

    EqualizeSettings settings() const;
    void setSettings(const EqualizeSettings& settings);  // without emitting settingsChanged
    void setEqualizers(const QVector<EngineInfo>& equalizers);
    void setReferenceName(const QString& name);
    // A gray image has no luminance/per-channel choice: it is equalized as it is.
    void setImageChannels(int channels);

    QComboBox* modeCombo() const { return mode_; }
    QComboBox* spaceCombo() const { return space_; }
    QSlider* strengthSlider() const { return strength_; }
    QDoubleSpinBox* clipSpin() const { return clip_; }
    QSpinBox* tilesXSpin() const { return tiles_x_; }
    QSpinBox* tilesYSpin() const { return tiles_y_; }
    QComboBox* equalizerCombo() const { return equalizers_; }

  signals:
    void settingsChanged(const hs::ui::EqualizeSettings& settings);
    void referenceRequested();
    void equalizerChanged(const QString& name);

  private:
    void changed();
    void updateEnabled();

    QComboBox* mode_;
    QComboBox* space_;
    QSlider* strength_;
    QLabel* strength_label_;
    QDoubleSpinBox* clip_;
    QSpinBox* tiles_x_;
    QSpinBox* tiles_y_;
    QPushButton* reference_;
    QLabel* reference_label_;
    QComboBox* equalizers_;
    int channels_ = 3;
    bool quiet_ = false;
};

}  // namespace hs::ui
