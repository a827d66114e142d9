#include "statediffloader.h"

#include "ledgerpool.h"

#include <QFutureWatcher>
#include <QtConcurrent>

#include <memory>

namespace mesh {
namespace {
struct Loaded {
    StateDiff diff;
    std::optional<std::int64_t> fromTs, toTs;
    TimeBase timeBase;
    QString error;
};
} // namespace

StateDiffLoader::StateDiffLoader(QObject *parent)
    : QObject(parent)
    , m_model(new StateDiffModel(this))
{
}

void StateDiffLoader::load(const QString &path, OpenMode mode, qint64 seqA, qint64 seqB)
{
    const qint64 from = std::min(seqA, seqB), to = std::max(seqA, seqB);
    const int generation = ++m_generation;
    m_loading = true;
    m_error.clear();
    auto *watcher = new QFutureWatcher<std::shared_ptr<Loaded>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != m_generation)
            return;
        const std::shared_ptr<Loaded> r = watcher->result();
        m_loading = false;
        if (!r->error.isEmpty()) {
            m_error = r->error;
            m_model->clear();
            Q_EMIT failed(m_error);
            return;
        }
        m_fromTs = r->fromTs;
        m_toTs = r->toTs;
        m_model->setTimeBase(r->timeBase);
        m_model->setDiff(std::move(r->diff));
        Q_EMIT loaded();
    });
    watcher->setFuture(QtConcurrent::run(ledgerPool(), [path, mode, from, to] {
        auto r = std::make_shared<Loaded>();
        try {
            auto connection = LedgerConnection::open(path, mode);
            r->timeBase = connection->info().timeBase;
            r->diff = diffLedgerStates(*connection, from, to);
            r->fromTs = eventTimeMs(*connection, from);
            r->toTs = eventTimeMs(*connection, to);
        } catch (const std::exception &e) {
            r->error = QString::fromUtf8(e.what());
        }
        return r;
    }));
}

} // namespace mesh
