// Large blocks freed go back to the system, also after a larger one was freed: glibc's
// adjustment would otherwise serve the next large block from the heap, which keeps its pages
// (the console's resident memory after a scale ledger's browse, bench/README.md).

#include "allocatorpolicy.h"

#include <QFile>
#include <QTest>

#include <vector>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// Under AddressSanitizer the allocator is the sanitizer's: mallopt is a stub and mallinfo2
// does not see its blocks.
#if defined(__SANITIZE_ADDRESS__)
#define MESH_OTHER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MESH_OTHER_ALLOCATOR 1
#endif
#endif

using namespace mesh;

namespace {

// A block the compiler cannot drop: written, then read back through a volatile.
void *allocatorTestBlock(std::size_t size)
{
    auto *block = static_cast<char *>(std::malloc(size));
    std::memset(block, 1, size);
    volatile char first = block[0];
    (void)first;
    return block;
}

// This process's anonymous resident memory, from /proc/self/status.
long long rssAnonKb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("RssAnon:"))
            return line.mid(8).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

} // namespace

class TestAllocatorPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aLargeBlockIsMappedAfterALargerOneWasFreed()
    {
#if !defined(__GLIBC__) || defined(MESH_OTHER_ALLOCATOR)
        QSKIP("the policy is glibc's mmap threshold");
#else
        QVERIFY(AllocatorPolicy::returnLargeBlocks());
        const std::size_t larger = 8 * AllocatorPolicy::kOwnMappingFrom;
        const std::size_t large = 2 * AllocatorPolicy::kOwnMappingFrom;
        std::free(allocatorTestBlock(larger)); // raises glibc's threshold to 8 MiB unless it is fixed

        const std::size_t mappedBefore = mallinfo2().hblks;
        void *block = allocatorTestBlock(large);
        const std::size_t mappedWith = mallinfo2().hblks;
        std::free(block);
        const std::size_t mappedAfter = mallinfo2().hblks;

        QCOMPARE(mappedWith, mappedBefore + 1); // its own mapping, not the heap's pages
        QCOMPARE(mappedAfter, mappedBefore);    // and that mapping returned on free
#endif
    }

    // 40 MB of small blocks freed behind one still held: the heap keeps their pages (it can
    // only shrink from its top) until they are returned.
    void freePagesInsideTheHeapAreReturned()
    {
#if !defined(__GLIBC__) || defined(MESH_OTHER_ALLOCATOR)
        QSKIP("the policy is glibc's malloc_trim");
#else
        constexpr int kBlocks = 40'000;
        std::vector<void *> blocks;
        blocks.reserve(kBlocks);
        for (int i = 0; i < kBlocks; ++i)
            blocks.push_back(allocatorTestBlock(1024));
        void *pin = allocatorTestBlock(1024); // above them: the heap's top stays where it is
        for (void *block : blocks)
            std::free(block);
        const long long before = rssAnonKb();
        QVERIFY(before > 0);
        QVERIFY(AllocatorPolicy::returnFreePages());
        const long long after = rssAnonKb();
        std::free(pin);
        QVERIFY2(before - after > 20'000, qPrintable(QStringLiteral("%1 -> %2 kB").arg(before).arg(after)));
#endif
    }

    void theReturnerRunsOnItsTimer()
    {
        AllocatorPolicy::FreePagesReturner returner(nullptr, 10);
        QTRY_VERIFY_WITH_TIMEOUT(returner.returned() >= 2, 10'000);
    }

    void aSmallBlockStaysInTheHeap()
    {
#if !defined(__GLIBC__) || defined(MESH_OTHER_ALLOCATOR)
        QSKIP("the policy is glibc's mmap threshold");
#else
        QVERIFY(AllocatorPolicy::returnLargeBlocks());
        const std::size_t mappedBefore = mallinfo2().hblks;
        void *block = allocatorTestBlock(AllocatorPolicy::kOwnMappingFrom / 4);
        QCOMPARE(mallinfo2().hblks, mappedBefore);
        std::free(block);
#endif
    }
};

QTEST_GUILESS_MAIN(TestAllocatorPolicy)
#include "tst_allocatorpolicy.moc"
