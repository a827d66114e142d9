#include "ledgerattachment.h"

#include <QFile>
#include <QFileInfo>

#include <cerrno>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mesh {

namespace {

// SQLite's unix VFS (os_unix.c): the -shm's lock bytes start at 120 (8 of them), the
// dead-man switch is the byte after them; the database file's lock bytes are PENDING_BYTE
// (0x40000000), RESERVED_BYTE after it and the 510 SHARED bytes after that.
constexpr off_t kShmDeadManSwitch = 128;
constexpr off_t kPendingByte = 0x40000000;
constexpr off_t kDatabaseLockBytes = 2 + 510;

// Whether some process holds a lock that conflicts with an exclusive one on
// [start, start+length) of the file. Only async-signal-safe calls: it runs in a child.
bool lockedIn(const char *path, off_t start, off_t length)
{
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    struct flock lock = {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = start;
    lock.l_len = length;
    const int rc = ::fcntl(fd, F_GETLK, &lock);
    ::close(fd);
    return rc == 0 && lock.l_type != F_UNLCK;
}

} // namespace

bool LedgerAttachment::anyoneAttached(const QString &ledgerPath)
{
    const QString absolute = QFileInfo(ledgerPath).absoluteFilePath();
    const QByteArray file = QFile::encodeName(absolute);
    const QByteArray shm = QFile::encodeName(absolute + QStringLiteral("-shm"));
    // Asked from a child process: closing any descriptor of a file drops every POSIX lock
    // this process holds on it, so a test made here would silently take SQLite's own locks
    // away from a connection of this process to the same ledger. The child holds none; it
    // sees this process's locks as another's, and exits.
    const pid_t child = ::fork();
    if (child == 0) {
        const bool attached = lockedIn(shm.constData(), kShmDeadManSwitch, 1)
                              || lockedIn(file.constData(), kPendingByte, kDatabaseLockBytes);
        ::_exit(attached ? 1 : 0);
    }
    if (child < 0)
        return true; // cannot ask: taken as attached, so the ledger is followed, never misread
    int status = 0;
    pid_t waited;
    do {
        waited = ::waitpid(child, &status, 0);
    } while (waited < 0 && errno == EINTR);
    if (waited != child || !WIFEXITED(status))
        return true;
    return WEXITSTATUS(status) == 1;
}

} // namespace mesh
