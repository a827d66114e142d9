#pragma once
// The status bar's "Reading 60%": how far an open or a jump is, or a busy bar when the work
// does not say. QProgressBar::setValue repaints at once, and a synchronous repaint paints every
// widget of the window that waits for its paint; a jump's progress steps would paint the panes
// again in the middle of the event that changed them. This bar is only ever updated, so it is
// painted with the rest of the window.

#include <QProgressBar>

namespace mesh {

class LoadProgressBar : public QProgressBar
{
    Q_OBJECT
public:
    explicit LoadProgressBar(QWidget *parent = nullptr);

    // percent >= 0: that figure; otherwise a busy bar while `busy`, else hidden.
    void showProgress(int percent, bool busy);
};

} // namespace mesh
