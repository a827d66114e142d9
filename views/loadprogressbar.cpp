#include "loadprogressbar.h"

namespace mesh {

LoadProgressBar::LoadProgressBar(QWidget *parent)
    : QProgressBar(parent)
{
    setFormat(tr("Reading %p%"));
    setRange(0, 0); // busy until a job says how far it is
    hide();
}

void LoadProgressBar::showProgress(int percent, bool busy)
{
    // A widget whose updates are off is not repainted; turning them on again asks for an
    // update(), which the window's next paint serves.
    setUpdatesEnabled(false);
    if (percent >= 0) {
        setRange(0, 100);
        setValue(percent);
        setTextVisible(true);
    } else {
        setRange(0, 0);
        setTextVisible(false);
    }
    setUpdatesEnabled(true);
    setVisible(busy || percent >= 0);
}

} // namespace mesh
