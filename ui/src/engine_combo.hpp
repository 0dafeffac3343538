#pragma once
// The engine combos of the panels: "auto" first, then the registry's engines, those that cannot
// run here disabled with the reason as their tooltip.

#include <QString>
#include <QVector>

#include "histoscope/ui/types.hpp"

class QComboBox;

namespace hs::ui {

// Fills `combo` without emitting, selecting `wanted` (else "auto"); `auto_tip` describes
// "auto" unless the registry has an "auto" engine of its own.
void fill_engine_combo(QComboBox* combo, const QVector<EngineInfo>& engines,
                       const QString& auto_tip, const QString& wanted);

}  // namespace hs::ui
