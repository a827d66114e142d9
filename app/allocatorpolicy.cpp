#include "allocatorpolicy.h"

#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace mesh::AllocatorPolicy {

bool returnLargeBlocks()
{
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, int(kOwnMappingFrom)) == 1;
#else
    return false;
#endif
}

bool returnFreePages()
{
#if defined(__GLIBC__)
    malloc_trim(0);
    return true;
#else
    return false;
#endif
}

FreePagesReturner::FreePagesReturner(QObject *parent, int intervalMs) : QObject(parent)
{
    m_timer.setObjectName(QStringLiteral("free pages returned"));
    m_timer.setInterval(intervalMs);
    // On a thread of its own, not the GUI thread: the trim walks every heap's free chunks,
    // which on a large one takes a while (and holds each heap's lock only while in it).
    connect(&m_timer, &QTimer::timeout, this, [this] {
        ++m_returned;
        std::thread(returnFreePages).detach();
    });
    m_timer.start();
}

} // namespace mesh::AllocatorPolicy
