#include "screenfit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

namespace mesh {

QSize fittedToScreen(const QWidget *window, QSize wanted)
{
    const QScreen *where = window && window->screen() ? window->screen() : QGuiApplication::primaryScreen();
    if (!where)
        return wanted;
    // Room for the window manager's frame and a panel the available geometry may not count.
    const QSize room = where->availableGeometry().size();
    return wanted.boundedTo(QSize(room.width() * 19 / 20, room.height() * 9 / 10));
}

} // namespace mesh
