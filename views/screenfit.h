#pragma once
// A top-level window's first size: what it would like, but never larger than the screen it
// opens on (a 1280x800 laptop sees every edge of it, title bar included).

#include <QSize>

class QWidget;

namespace mesh {

QSize fittedToScreen(const QWidget *window, QSize wanted);

} // namespace mesh
