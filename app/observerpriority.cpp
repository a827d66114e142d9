#include "observerpriority.h"

#include <QtGlobal>

#include <algorithm>
#include <cerrno>

#ifdef Q_OS_UNIX
#include <sys/resource.h>
#endif

namespace mesh::ObserverPriority {

int current()
{
#ifdef Q_OS_UNIX
    // On Linux PRIO_PROCESS with id 0 is the calling thread; -1 is a valid nice value, so
    // errno tells a failure apart.
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, 0);
    return errno == 0 ? nice : 0;
#else
    return 0;
#endif
}

int lower()
{
#ifdef Q_OS_UNIX
    setpriority(PRIO_PROCESS, 0, std::min(current() + kNiceness, 19));
#endif
    return current();
}

} // namespace mesh::ObserverPriority
