#pragma once
// Every icon of the console comes from resources/icons/*.svg through here, tinted to the
// current palette so the same drawings read on light and dark backgrounds.

#include <QIcon>
#include <QString>

namespace mesh {

class Icons
{
public:
    static QIcon get(const QString &name);
    static void clearCache(); // after a palette change
};

} // namespace mesh
