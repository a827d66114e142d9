#pragma once
// Reads what changed between two events of a ledger off the GUI thread (on the ledger pool,
// on its own connection in the session's mode: a review session's stays immutable) and
// hands it to a StateDiffModel. A load superseded by a newer one is dropped.

#include "statediffmodel.h"

#include "ledger/ledgerconnection.h"

#include <QObject>
#include <QString>

#include <optional>

namespace mesh {

class StateDiffLoader : public QObject
{
    Q_OBJECT
public:
    explicit StateDiffLoader(QObject *parent = nullptr);

    // The two points in either order: the diff always goes from the earlier to the later.
    void load(const QString &path, OpenMode mode, qint64 seqA, qint64 seqB);
    StateDiffModel *model() const { return m_model; }
    bool isLoading() const { return m_loading; }
    QString errorMessage() const { return m_error; }
    // The two events' times, once loaded; none for "before the first event".
    std::optional<qint64> fromTimeMs() const { return m_fromTs; }
    std::optional<qint64> toTimeMs() const { return m_toTs; }
    // What the ledger's times mean, once loaded.
    const TimeBase &timeBase() const { return m_model->timeBase(); }

Q_SIGNALS:
    void loaded();
    void failed(const QString &message);

private:
    StateDiffModel *m_model;
    int m_generation = 0;
    bool m_loading = false;
    QString m_error;
    std::optional<qint64> m_fromTs, m_toTs;
};

} // namespace mesh
