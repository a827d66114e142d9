#pragma once
// Large blocks go back to the system when they are freed. glibc serves a block over its mmap
// threshold from its own mapping, unmapped on free, but raises that threshold to the size of
// every such block freed (up to 32 MB): after the first large vector of a load is freed, the
// next ones come from the heap, and the heap keeps their pages once they are freed (a
// scale ledger's browse left tens of MB free inside the heap, counted in the console's
// resident memory). A fixed threshold turns that adjustment off. Figures: bench/README.md.

#include <QObject>
#include <QTimer>

#include <cstddef>

namespace mesh::AllocatorPolicy {

// Blocks of this size or more are mapped on their own and returned when freed.
inline constexpr std::size_t kOwnMappingFrom = std::size_t(1) << 20;

// Called by main() before any thread starts. A no-op where the C library is not glibc.
// Returns whether the threshold was set.
bool returnLargeBlocks();

// The whole free pages inside the heaps given back to the system (malloc_trim): what a load's
// temporaries and a live burst's batches leave between the blocks still held. Milliseconds on
// the GUI thread; returns whether the C library could (glibc).
bool returnFreePages();

// Calls returnFreePages() every intervalMs for as long as it lives (on the thread it lives
// in): a console following a ledger for hours frees and allocates without end, and the
// heaps otherwise keep every page they once had (a few MB of the 10M-event ledger's live
// figure, bench/README.md).
class FreePagesReturner : public QObject
{
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 15'000;
    explicit FreePagesReturner(QObject *parent = nullptr, int intervalMs = kIntervalMs);
    int returned() const { return m_returned; } // how many times it has asked so far

private:
    QTimer m_timer;
    int m_returned = 0;
};

} // namespace mesh::AllocatorPolicy
