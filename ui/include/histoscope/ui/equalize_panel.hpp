#pragma once
// The equalization panel: mode (off, global, CLAHE, match), luminance or per channel, strength,
// CLAHE clip limit and tile grid, the match reference and the equalization engine. It forwards
// intent through signals and owns no data.

#include <QVector>
#include <QWidget>

#include "histoscope/ui/types.hpp"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace hs::ui {

class EqualizePanel : public QWidget {
    Q_OBJECT

  public:
    explicit EqualizePanel(QWidget* parent = nullptr);

    EqualizeSettings settings() const;
    void setSettings(const EqualizeSettings& settings);  // without emitting settingsChanged
    void setEqualizers(const QVector<EngineInfo>& equalizers);
    void setReferenceName(const QString& name);
    // A gray image has no luminance/per-channel choice: it is equalized as it is. A float
    // (HDR) image is not equalized at all (the CLI tone maps it): every control is off, the
    // settings kept for the next image.
    void setImageChannels(int channels, bool floating = false);

    QComboBox* modeCombo() const { return mode_; }
    QSlider* strengthSlider() const { return strength_; }
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
    bool floating_ = false;
    bool quiet_ = false;
};

}  // namespace hs::ui
