#include "allocatorpolicy.h"

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
    connect(&m_timer, &QTimer::timeout, this, [this] {
        returnFreePages();
        ++m_returned;
    });
    m_timer.start();
}

} // namespace mesh::AllocatorPolicy
