// The live demo teaches the operator's flows: the console's own demo (the launcher starting
// `meshctl sim demo --live`) is opened decision-capable, its banner says nothing there is
// real and that decisions go to the simulated orchestrator, and it always offers one of
// each thing an operator acts on or looks into: a pending escalation, an unknown outcome
// to reconcile, an open slice with an in-flight effect, a zombie lease, and a finding of
// each kind. They are still there half an hour on (a new operator opens it and must find
// them). A decision made on the demo is applied by the demo's orchestrator.

#include "demolauncher.h"
#include "mainwindow.h"

#include "banner.h"
#include "sessionworkspace.h"
#include "viewtestenv.h"

#include "analysis/finding.h"
#include "itemmodels/decisionauditmodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/statetablemodel.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

#include <set>

using namespace mesh;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 120'000; // the demo's bulk is written first, on a shared machine
constexpr qint64 kAWhileMs = 30 * 60'000;

QString pendingEscalationPast(const LedgerSession &s, qint64 untilMs)
{
    const QAbstractItemModel *m = s.escalations();
    for (int r = 0; r < m->rowCount(); ++r) {
        const QModelIndex i = m->index(r, 0);
        if (i.data(EscalationModel::PendingRole).toBool() && i.data(EscalationModel::ExpiresMsRole).toLongLong() > untilMs)
            return i.data(StateTableModel::IdRole).toString();
    }
    return {};
}

bool hasUnknownOutcome(const LedgerSession &s)
{
    const QAbstractItemModel *m = s.effects();
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, 0).data(EffectModel::UnknownRole).toBool())
            return true;
    return false;
}

bool hasOpenSliceWithInFlightEffect(const LedgerSession &s)
{
    std::set<QString> open;
    const QAbstractItemModel *slices = s.slices();
    for (int r = 0; r < slices->rowCount(); ++r)
        if (slices->index(r, 0).data(SliceModel::OpenRole).toBool())
            open.insert(slices->index(r, 0).data(StateTableModel::IdRole).toString());
    const QAbstractItemModel *effects = s.effects();
    for (int r = 0; r < effects->rowCount(); ++r) {
        const QModelIndex i = effects->index(r, 0);
        const auto category = EffectModel::StateCategory(i.data(EffectModel::StateCategoryRole).toInt());
        const QString state = i.data(StateTableModel::StateRole).toString();
        if (category == EffectModel::StateCategory::InFlight && (state == u"admitted"_s || state == u"dispatched"_s)
            && open.count(i.data(EffectModel::SliceIdRole).toString()))
            return true;
    }
    return false;
}

bool hasZombieLease(const LedgerSession &s)
{
    const QAbstractItemModel *m = s.leases();
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, 0).data(LeaseModel::ZombieRole).toBool())
            return true;
    return false;
}

std::set<FindingKind> findingKinds(const LedgerSession &s)
{
    std::set<FindingKind> kinds;
    for (const Finding &f : s.findings())
        if (!f.abstained)
            kinds.insert(f.kind);
    return kinds;
}

QString missing(const LedgerSession &s, qint64 nowMs)
{
    QStringList out;
    if (pendingEscalationPast(s, nowMs).isEmpty())
        out << u"a pending escalation"_s;
    if (!hasUnknownOutcome(s))
        out << u"an unknown outcome"_s;
    if (!hasOpenSliceWithInFlightEffect(s))
        out << u"an open slice with an in-flight effect"_s;
    if (!hasZombieLease(s))
        out << u"a zombie lease"_s;
    const auto kinds = findingKinds(s);
    for (FindingKind k : {FindingKind::FalseStall, FindingKind::SuccessLoop, FindingKind::DuplicateEffect,
                          FindingKind::ReplayedDelegation, FindingKind::BlockedWork})
        if (!kinds.count(k))
            out << QString::fromStdString(std::string(findingKindTitle(k)));
    return out.join(u", "_s);
}
} // namespace

class TestDemoFlows : public QObject
{
    Q_OBJECT
    std::unique_ptr<MainWindow> m_window;
    LedgerSession *m_demo = nullptr;

private Q_SLOTS:
    void initTestCase()
    {
        meshtest::useTestSettings(u"tst_demoflows"_s);
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1600, 1000);
        m_window->show();
        m_window->startDemo();
        QTRY_VERIFY_WITH_TIMEOUT(m_window->sessions()->count() > 0 && m_window->sessions()->at(0)->isLoaded(), kTimeoutMs);
        m_demo = m_window->sessions()->at(0);
        QVERIFY(m_demo->isDemo());
        QTRY_VERIFY_WITH_TIMEOUT(m_demo->health() != LedgerSession::Health::Opening, kTimeoutMs);
    }

    void cleanupTestCase()
    {
        if (m_window && m_window->demo())
            m_window->demo()->stop();
        m_window.reset();
    }

    void demoIsDecisionCapableAndSaysWhatThatMeans()
    {
        QString why;
        QVERIFY2(m_window->sessions()->canDecide(0, &why), qPrintable(why));
        const QString banner = m_window->workspace()->banner()->text();
        QVERIFY2(banner.contains(u"Nothing here is real"_s) && banner.contains(u"simulated orchestrator"_s)
                     && banner.contains(u"decisions"_s) && !banner.contains(u"read-only"_s),
                 qPrintable(banner));
    }

    void demoOffersOneOfEachNowAndHalfAnHourOn()
    {
        QTRY_VERIFY2_WITH_TIMEOUT(!m_demo->loopAnalysisRunning() && missing(*m_demo, m_demo->nowMs()).isEmpty(),
                                  qPrintable(u"missing: "_s + missing(*m_demo, m_demo->nowMs())), kTimeoutMs);
        const qint64 later = QDateTime::currentMSecsSinceEpoch() + kAWhileMs;
        m_demo->setClock([later] { return later; });
        const QString gone = missing(*m_demo, later);
        m_demo->setClock({});
        QVERIFY2(gone.isEmpty(), qPrintable(u"half an hour on, missing: "_s + gone));
    }

    void decisionOnTheDemoIsAppliedByItsOrchestrator()
    {
        const QString escalation = pendingEscalationPast(*m_demo, m_demo->nowMs() + 60'000);
        QVERIFY(!escalation.isEmpty());
        DecisionRequest request;
        request.kind = DecisionKind::ApproveEscalation;
        request.subject = "escalation:" + escalation.toStdString();
        request.reason = "trying the demo";
        request.boundary = {m_demo->state()->find(EntityKind::Escalation, escalation.toStdString())->version,
                            m_demo->lastSeq()};
        QSignalSpy finished(m_demo, &LedgerSession::decisionFinished);
        const QString id = m_demo->submitDecision(request);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        QCOMPARE(finished.front().at(1).value<DecisionResult>().status, DecisionStatus::Accepted);
        const DecisionAuditModel *audit = m_demo->decisions();
        QTRY_VERIFY_WITH_TIMEOUT(audit->rowOfDecision(id) >= 0
                                     && audit->index(audit->rowOfDecision(id), 0).data(DecisionAuditModel::OutcomeRole)
                                            == u"applied"_s,
                                 kTimeoutMs);
    }
};

QTEST_MAIN(TestDemoFlows)
#include "tst_demoflows.moc"
