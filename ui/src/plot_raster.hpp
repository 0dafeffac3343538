#pragma once
// The filled areas of a histogram plot written straight into an RGB32 image, a row at a time.
//
// A QPainterPath fill per channel (antialiased, blended) cost tens of milliseconds at
// 1920x1080 and saturated the GUI thread during playback. Here every pixel is written once:
// consecutive rows differ only where some channel's top or outline starts or ends, so each row
// is the previous one with those few columns recomputed, and the colour of a column is looked
// up from the set of channels covering it (their colours added, saturating per component, so
// overlapping R, G and B mix as light does).

#include <QImage>
#include <QRgb>
#include <vector>

namespace hs::ui {

struct PlotFill {
    int left = 0;          // image column of top[0]
    std::vector<int> top;  // per column: the first row filled; rows down to the plot's bottom
    QRgb fill = 0;         // added below the top (0: an outline only)
    QRgb edge = 0;         // the outline: added from the top down to the neighbours' tops,
                           // at least `edge_rows` rows, so that it is continuous
    int edge_rows = 1;
};

struct PlotRaster {
    QRgb background = 0;
    int top = 0, bottom = 0;                 // the rows [top, bottom) the fills cover
    std::vector<std::pair<int, int>> lanes;  // columns [left, right) of each lane
    std::vector<int> grid_rows;              // rows of the grid lines across every lane
    QRgb grid = 0;                           // added on the grid lines
    QRgb frame = 0;                          // the border around each lane
    std::vector<PlotFill> fills;             // at most 5; they may overlap (overlay) or not
};

// Fills `image` (Format_RGB32) with the background, then the plot's rows with the fills added,
// the grid lines and the lanes' borders. (Semi-transparent QPainter lines over a large image
// cost more than all of this.)
void paint_plot(QImage& image, const PlotRaster& plot);

}  // namespace hs::ui
