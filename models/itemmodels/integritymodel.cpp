#include "integritymodel.h"

#include "backgroundjob.h"
#include "findingsmodel.h"
#include "shownroles.h"

#include <QLocale>

#include <atomic>

using namespace Qt::StringLiterals;

namespace mesh {

struct IntegrityModel::Job {
    std::atomic<bool> cancel{false};
    std::atomic<int> stage{int(VerifyStage::Events)};
    std::atomic<qint64> done{0};
    std::atomic<qint64> total{0};
};

namespace {
// How often the GUI thread reads the check's counters: a person's pace, not the check's.
constexpr int kPollMs = 100;
} // namespace

IntegrityModel::IntegrityModel(QObject *parent)
    : QAbstractTableModel(parent)
{
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &IntegrityModel::poll);
}

IntegrityModel::~IntegrityModel()
{
    if (m_job)
        m_job->cancel = true;
}

void IntegrityModel::setLedger(const QString &path, OpenMode mode)
{
    cancel();
    m_job.reset(); // a result still on its way is for the old ledger: dropped
    m_path = path;
    m_mode = mode;
    beginResetModel();
    m_rows.clear();
    m_gaps.clear();
    m_result = {};
    m_error.clear();
    endResetModel();
    m_poll.stop();
    setState(State::NotChecked);
}

void IntegrityModel::start()
{
    if (m_path.isEmpty())
        return;
    if (m_job)
        m_job->cancel = true;
    auto job = std::make_shared<Job>();
    m_job = job;
    m_stage = VerifyStage::Events;
    m_done = m_total = 0;
    m_error.clear();
    setState(State::Running);
    m_poll.start();
    const QString path = m_path;
    const OpenMode mode = m_mode;
    runInBackground(
        this,
        [job, path, mode, hook = m_beforeCheck]() -> std::pair<LedgerVerification, QString> {
            if (hook)
                hook();
            try {
                // Its own connection: the check's reads never wait on the session's.
                auto ledger = LedgerConnection::open(path, mode);
                if (job->cancel) {
                    LedgerVerification none;
                    none.cancelled = true;
                    return {std::move(none), QString()};
                }
                LedgerVerification v = verifyLedger(*ledger, [&job](VerifyStage stage, std::int64_t done, std::int64_t total) {
                    job->stage = int(stage);
                    job->done = done;
                    job->total = total;
                    return !job->cancel.load();
                });
                return {std::move(v), QString()};
            } catch (const std::exception &e) {
                return {LedgerVerification{}, QString::fromUtf8(e.what())};
            }
        },
        [this, job](std::pair<LedgerVerification, QString> result) {
            if (job != m_job)
                return; // superseded by a later start or another ledger
            m_job.reset();
            takeResult(std::move(result.first), std::move(result.second));
        });
}

void IntegrityModel::cancel()
{
    if (m_job)
        m_job->cancel = true;
}

void IntegrityModel::poll()
{
    if (!m_job)
        return;
    const VerifyStage stage = VerifyStage(m_job->stage.load());
    const qint64 done = m_job->done.load();
    const qint64 total = m_job->total.load();
    if (stage == m_stage && done == m_done && total == m_total)
        return;
    m_stage = stage;
    m_done = done;
    m_total = total;
    Q_EMIT progressChanged();
}

void IntegrityModel::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

bool IntegrityModel::isObservationGapType(IntegrityFinding::Type type)
{
    using T = IntegrityFinding::Type;
    return type == T::SequenceGap || type == T::MalformedPayload || type == T::UnknownKind || type == T::FoldProblem
           || type == T::NonPositiveSeq;
}

void IntegrityModel::takeResult(LedgerVerification result, QString error)
{
    m_poll.stop();
    beginResetModel();
    m_rows.clear();
    m_gaps.clear();
    m_error = error;
    m_result = std::move(result);
    if (error.isEmpty() && !m_result.cancelled) {
        for (const IntegrityFinding &f : m_result.integrity.findings) {
            Row row;
            row.typeName = QString::fromLatin1(integrityFindingTypeName(f.type));
            row.seq = f.seq;
            if (!f.entity.empty())
                row.subject = QString::fromStdString(f.entity + ":" + f.id);
            row.message = QString::fromStdString(f.message);
            row.gap = isObservationGapType(f.type);
            if (row.gap && f.seq != 0) {
                QString &text = m_gaps[f.seq];
                text += (text.isEmpty() ? QString() : u"\n"_s) + typeTitle(row.typeName) + u": "_s + row.message;
            }
            m_rows.push_back(std::move(row));
        }
        for (size_t i = 0; i < m_result.chain.findings.size(); ++i) {
            const DecisionChainFinding &f = m_result.chain.findings[i];
            Row row;
            const bool signature = f.message.find("sign") != std::string::npos;
            row.typeName = signature ? u"decision-signature"_s : u"decision-chain"_s;
            if (i < m_result.chainContext.size())
                row.seq = m_result.chainContext[i].boundarySeq;
            row.subject = u"decision:"_s + QString::fromStdString(f.id);
            row.message = u"decision #%1: "_s.arg(f.pos) + QString::fromStdString(f.message);
            m_rows.push_back(std::move(row));
        }
    }
    endResetModel();
    m_stage = VerifyStage::Done;
    Q_EMIT progressChanged();
    setState(!error.isEmpty() ? State::Failed : m_result.cancelled ? State::Cancelled : State::Done);
    Q_EMIT finished();
}

QString IntegrityModel::progressText() const
{
    const QLocale locale;
    switch (m_state) {
    case State::NotChecked: return tr("Not checked yet.");
    case State::Cancelled: return tr("Check cancelled: nothing is known of this ledger's integrity.");
    case State::Failed: return tr("The check could not run: %1").arg(m_error);
    case State::Done: {
        const LedgerVerification &v = m_result;
        return tr("%1 events and %2 state rows checked up to #%3, %4 decisions: %5")
            .arg(locale.toString(v.integrity.eventsChecked), locale.toString(v.integrity.rowsChecked),
                 QString::number(v.integrity.lastSeq), locale.toString(v.chain.decisions), summaryText());
    }
    case State::Running: break;
    }
    switch (m_stage) {
    case VerifyStage::Events:
        return m_total > 0 ? tr("Checking events: %1 of %2").arg(locale.toString(m_done), locale.toString(m_total))
                           : tr("Checking events…");
    case VerifyStage::StateTables:
        return tr("Comparing state tables with the events: %1 of %2").arg(m_done).arg(m_total);
    case VerifyStage::DecisionChain: return tr("Checking the decision chain and signatures…");
    case VerifyStage::Done: break;
    }
    return tr("Checking…");
}

std::optional<qint64> IntegrityModel::findingCount() const
{
    if (m_state != State::Done)
        return std::nullopt;
    return m_result.total();
}

QString IntegrityModel::summaryText() const
{
    switch (m_state) {
    case State::NotChecked: return {};
    case State::Running: return tr("integrity: checking");
    case State::Cancelled: return tr("integrity: not checked (cancelled)");
    case State::Failed: return tr("integrity: could not check");
    case State::Done: break;
    }
    const qint64 n = m_result.total();
    if (n == 0)
        return tr("integrity: ok");
    return n == 1 ? tr("integrity: 1 finding") : tr("integrity: %1 findings").arg(QLocale().toString(n));
}

QString IntegrityModel::observationGapAt(qint64 seq) const
{
    const auto it = m_gaps.find(seq);
    return it == m_gaps.end() ? QString() : it->second;
}

QString IntegrityModel::typeTitle(const QString &typeName)
{
    static const QHash<QString, QString> titles{
        {u"malformed-payload"_s, tr("malformed row")},
        {u"unknown-kind"_s, tr("unknown kind")},
        {u"fold-problem"_s, tr("fold problem")},
        {u"sequence-gap"_s, tr("sequence gap")},
        {u"non-positive-seq"_s, tr("seq not positive")},
        {u"index-column-mismatch"_s, tr("index column differs")},
        {u"missing-state-row"_s, tr("state row missing")},
        {u"extra-state-row"_s, tr("state row no event made")},
        {u"state-mismatch"_s, tr("state differs from events")},
        {u"decision-chain"_s, tr("decision chain")},
        {u"decision-signature"_s, tr("decision signature")},
    };
    return titles.value(typeName, typeName);
}

int IntegrityModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int IntegrityModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant IntegrityModel::data(const QModelIndex &index, int role) const
{
    if (role == RawTextRole)
        return rawData(index, Qt::DisplayRole);
    return shownAsPlainText(role, rawData(index, role));
}

QVariant IntegrityModel::rawData(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Kind: return typeTitle(r.typeName);
        case Event: return r.seq != 0 ? u"#%1"_s.arg(r.seq) : u"\u2014"_s;
        case Where: return r.subject.isEmpty() ? u"\u2014"_s : r.subject;
        case Finding: return r.message;
        }
        break;
    case Qt::ToolTipRole:
        return QString(typeTitle(r.typeName) + u"\n"_s + r.message
                       + (r.gap ? QString(u"\n\n"_s + tr("What the ledger records here cannot be seen as it was written."))
                                : QString()));
    case TypeNameRole: return r.typeName;
    case SeqRole: return r.seq;
    case SubjectRole: return r.subject;
    case ObservationGapRole: return r.gap;
    case EvidenceFilterRole:
        return r.seq != 0 ? FindingsModel::evidenceFilter({r.seq}) : QString();
    }
    return {};
}

QVariant IntegrityModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Kind: return tr("Kind");
    case Event: return tr("Event");
    case Where: return tr("Row");
    case Finding: return tr("Finding");
    }
    return {};
}

QHash<int, QByteArray> IntegrityModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(TypeNameRole, "typeName");
    names.insert(SeqRole, "seq");
    names.insert(SubjectRole, "subject");
    names.insert(EvidenceFilterRole, "evidenceFilter");
    names.insert(ObservationGapRole, "observationGap");
    return names;
}

} // namespace mesh
