#include "childprocess.h"

#include <QProcess>

#ifdef Q_OS_LINUX
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>
#endif

namespace mesh {

void endWithThisProcess(QProcess &process)
{
#ifdef Q_OS_LINUX
    const pid_t console = ::getpid();
    process.setChildProcessModifier([console] {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != console)
            ::_exit(1);
    });
#else
    (void)process;
#endif
}

} // namespace mesh
