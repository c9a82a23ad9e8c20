// Includes QCustomPlot under QT_NO_KEYWORDS: its header uses Qt's keyword macros
// (signals, slots, emit, foreach), which Skytrace disables globally because they
// collide with LibTorch. The macros exist only while the header is parsed.
// Include this instead of <qcustomplot.h>, and never from a TU that includes torch.
#pragma once

#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
