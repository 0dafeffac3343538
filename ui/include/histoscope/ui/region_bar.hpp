#pragma once
// The region's numbers: x, y, width and height in full-resolution pixels, editable, and a
// button that clears it (the whole frame again). The image view draws the same region with
// Shift+drag; the window keeps both in step. It forwards the user's edits and owns no data.

#include <QRect>
#include <QWidget>

class QLabel;
class QSpinBox;
class QToolButton;

namespace hs::ui {

class RegionBar : public QWidget {
    Q_OBJECT

  public:
    explicit RegionBar(QWidget* parent = nullptr);

    // The image's size: the numbers' ranges (the region is cleared).
    void setImageSize(QSize size);
    // Shows `region` (null: the whole frame) without emitting regionEdited.
    void setRegion(const QRect& region);
    QRect region() const { return region_; }
    QSpinBox* spin(int i) const { return spins_[i]; }  // x, y, width, height
    QToolButton* clearButton() const { return clear_; }

  signals:
    // The user typed a region (kept inside the image) or cleared it (null).
    void regionEdited(QRect region);

  private:
    void edited();
    void show(const QRect& shown);

    QSize size_;
    QRect region_;
    QSpinBox* spins_[4];
    QToolButton* clear_;
    QLabel* state_;
};

}  // namespace hs::ui
