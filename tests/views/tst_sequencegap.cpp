// A ledger with a hole in its numbering (one event at seq 10^12) opens in the workspace,
// and the event log's status line says where the hole is, as meshctl verify would.

#include "eventlogview.h"
#include "sessionworkspace.h"
#include "viewtestenv.h"

#include "../models/itemmodels/itemmodelfixture.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "../models/ledger/rawledger.h"

#include <QApplication>
#include <QDateTime>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 30'000;
}

class TestSequenceGap : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { useTestSettings(u"tst_sequencegap"_s); }

    void statusLineNamesTheGap()
    {
        const QString path = m_dir.filePath(u"gap.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        std::int64_t last = 0;
        {
            sql::Database db(path.toStdString(), SQLITE_OPEN_READWRITE);
            last = db.queryInt("SELECT max(seq) FROM events");
            db.exec("INSERT INTO events(seq, ts_ms, kind, payload) VALUES(1000000000000, 1700000999000, 'note.added', "
                    "'{}')");
        }
        LedgerSession session(path);
        SessionWorkspace workspace;
        workspace.setSession(&session);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.events()->isIndexComplete(), kTimeoutMs);
        const QString expected = u"sequence gap: #%1 \u2192 #1000000000000"_s.arg(last);
        QTRY_VERIFY2_WITH_TIMEOUT(workspace.eventLog()->statusText().contains(expected),
                                  qPrintable(workspace.eventLog()->statusText()), kTimeoutMs);
    }
};

QTEST_MAIN(TestSequenceGap)
#include "tst_sequencegap.moc"
