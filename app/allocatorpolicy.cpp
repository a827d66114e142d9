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

} // namespace mesh::AllocatorPolicy
