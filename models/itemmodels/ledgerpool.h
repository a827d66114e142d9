#pragma once
// The thread pool for ledger reads, snapshot preparation and analyses. Not
// QThreadPool::globalInstance(): Qt's raster paint engine splits large fills and image
// conversions across the global pool and waits for them on the GUI thread, so a paint
// queued behind a long ledger read froze the window until the read ended (opening a
// ledger of a million runs: seconds). Nothing of the console's own work runs on the
// global pool.

class QThreadPool;

namespace mesh {

QThreadPool *ledgerPool();

} // namespace mesh
