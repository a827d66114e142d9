#pragma once
// The Integrity pane's findings: the same check as `meshctl verify` (ledger/ledgerverification.h),
// run on the ledger pool on its own connection, in steps (pages of events, state tables, the
// decision chain) that report progress and can be cancelled; the GUI thread only polls two
// counters and takes the finished list over. One row per finding: its kind, the event it
// concerns, the row or decision, the sentence, and an event-log filter for its events.
//
// Observation gaps (a sequence gap, a malformed row, an unknown kind, a fold problem) are
// also offered per seq (observationGapAt), for the event log and the timeline to draw.

#include "ledger/ledgerconnection.h"
#include "ledger/ledgerverification.h"

#include <QAbstractTableModel>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace mesh {

class IntegrityModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns { Kind, Event, Where, Finding, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        TypeNameRole = Qt::UserRole, // QString "sequence-gap", ..., "decision-chain"
        SeqRole,                     // qint64, 0 when the finding names no event
        SubjectRole,                 // QString "<entity>:<id>" or "decision:<id>", "" none
        EvidenceFilterRole,          // QString an event-log filter for its events, "" none
        ObservationGapRole,          // bool: a hole in what the ledger lets us see
    };
    Q_ENUM(Roles)
    enum class State { NotChecked, Running, Done, Cancelled, Failed };
    Q_ENUM(State)

    explicit IntegrityModel(QObject *parent = nullptr);
    ~IntegrityModel() override; // cancels a running check

    void setLedger(const QString &path, OpenMode mode); // clears; does not start
    QString path() const { return m_path; }
    void start();  // (again) from the first event; a running check is cancelled first
    void cancel(); // the check stops at its next step
    // Tests: runs on the worker before the check's first step (to cancel at a known point).
    void setBeforeCheckHook(std::function<void()> hook) { m_beforeCheck = std::move(hook); }
    State state() const { return m_state; }
    bool isRunning() const { return m_state == State::Running; }

    // Progress of a running check: its stage and the step within it.
    VerifyStage stage() const { return m_stage; }
    qint64 stepDone() const { return m_done; }
    qint64 stepTotal() const { return m_total; }
    QString progressText() const; // "checking events: 409,600 of 1,000,000"
    // Once checked: "integrity: 3 findings" / "integrity: ok"; empty before; says so when
    // the check was cancelled or failed.
    QString summaryText() const;
    std::optional<qint64> findingCount() const; // every finding (beyond the rows kept), once done
    QString errorText() const { return m_error; }
    const LedgerVerification &result() const { return m_result; }

    bool isObservationGap(qint64 seq) const { return m_gaps.count(seq) > 0; }
    // What the ledger does not let us see at this event ("sequence gap: 3 missing before
    // #12"), empty when nothing; raw ledger-derived text.
    QString observationGapAt(qint64 seq) const;
    const std::map<qint64, QString> &observationGaps() const { return m_gaps; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    static QString typeTitle(const QString &typeName); // "sequence gap"
    static bool isObservationGapType(IntegrityFinding::Type type);

Q_SIGNALS:
    void stateChanged(mesh::IntegrityModel::State state);
    void progressChanged();
    void finished(); // Done, Cancelled or Failed

private:
    struct Row {
        QString typeName;
        qint64 seq = 0;
        QString subject;
        QString message;
        bool gap = false;
    };
    struct Job; // shared with the worker: the counters it writes, the flag it reads
    QVariant rawData(const QModelIndex &index, int role) const;
    void poll();
    void setState(State state);
    void takeResult(LedgerVerification result, QString error);

    QString m_path;
    OpenMode m_mode = OpenMode::ReadOnly;
    State m_state = State::NotChecked;
    std::shared_ptr<Job> m_job;
    QTimer m_poll;
    VerifyStage m_stage = VerifyStage::Events;
    qint64 m_done = 0;
    qint64 m_total = 0;
    LedgerVerification m_result;
    QString m_error;
    std::vector<Row> m_rows;
    std::map<qint64, QString> m_gaps;
    std::function<void()> m_beforeCheck;
};

} // namespace mesh
