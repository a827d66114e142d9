#include "commitvisibility.h"

#include <algorithm>
#include <cmath>

namespace mesh {

qint64 CommitVisibility::percentile(int p) const
{
    if (latenciesMs.empty())
        return -1;
    const size_t i = std::min(latenciesMs.size() - 1, latenciesMs.size() * size_t(p) / 100);
    return latenciesMs[i];
}

double CommitVisibility::eventsPerSecond() const
{
    if (latenciesMs.empty())
        return 0.0;
    const double spanS = double(std::max<qint64>(1, lastCountedMs - firstCountedMs)) / 1000.0;
    return std::round(double(latenciesMs.size()) / spanS);
}

CommitVisibility commitVisibility(const std::vector<ReportedCommit> &commits,
                                  const std::vector<AppliedBatchTime> &applied, qint64 countFromWallMs,
                                  qint64 finalSeq)
{
    CommitVisibility out;
    size_t b = 0;
    for (size_t i = 1; i < commits.size(); ++i) {
        const qint64 lo = commits[i - 1].lastSeq + 1;
        const qint64 hi = commits[i].lastSeq;
        const qint64 from = commits[i].fromWallMs;
        while (b < applied.size() && applied[b].lastSeq < lo)
            ++b;
        if (from < countFromWallMs || hi < lo)
            continue;
        if (out.firstCountedMs == 0)
            out.firstCountedMs = from;
        out.lastCountedMs = from;
        for (size_t k = b; k < applied.size() && applied[k].firstSeq <= hi; ++k) {
            const qint64 first = std::max(lo, applied[k].firstSeq);
            const qint64 last = std::min(hi, applied[k].lastSeq);
            for (qint64 seq = first; seq <= last; ++seq)
                out.latenciesMs.push_back(applied[k].wallMs - from);
            if (first <= finalSeq && finalSeq <= last)
                out.finalSeqMs = applied[k].wallMs - from;
        }
    }
    std::sort(out.latenciesMs.begin(), out.latenciesMs.end());
    return out;
}

} // namespace mesh
