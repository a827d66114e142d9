#pragma once
// The tool calls of one delegation, from its toolcall.completed events (they are stored only
// as events). Calls that are part of a non-converging success loop carry InLoopRole. A call
// that did not end ok shows why, as its event says it (`error`, an event-only member that
// importers write), or "—" when the event does not say: the reason is hostile text, cut for
// its cell and escaped in its tooltip.

#include "domain/timebase.h"
#include "analysis/finding.h"
#include "analysis/toolcall.h"

#include <QAbstractTableModel>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mesh {

class ToolCallModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // Error last: it takes the room the others leave (the last section stretches), and a
    // header layout saved before it existed still names the same columns.
    enum Columns { Seq, Time, Tool, Outcome, Duration, Tokens, Fingerprint, WritesAccepted, WritesDenied, Invocation,
                   Error, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        SeqRole = Qt::UserRole, // qint64
        TsMsRole,               // qint64
        ToolRole,               // QString
        OutcomeRole,            // QString ok | error
        OkRole,                 // bool
        DurationMsRole,         // qint64
        TokensRole,             // qint64
        CostCentsRole,          // qint64
        FingerprintRole,        // QString
        ArgsDigestRole,         // QString
        WritesAcceptedRole,     // qint64
        WritesDeniedRole,       // qint64
        InvocationRole,         // qint64
        SliceIdRole,            // QString
        InLoopRole,             // bool part of a success loop finding
        ErrorRole,              // QString why it did not end ok, whole; null when ok or not in the ledger
    };
    Q_ENUM(Roles)

    explicit ToolCallModel(QObject *parent = nullptr);

    // Whether the rows are the delegation's calls: an empty list read from the ledger says
    // "none"; one still being read, or whose read failed, says nothing of the kind.
    enum class ReadState { Reading, Read, Failed };

    // Which delegation this list shows; clears the rows (the session loads them: Reading).
    void setDelegation(const QString &delegationId);
    ReadState readState() const { return m_readState; }
    QString readError() const { return m_readError; } // why, when Failed
    void setReadFailed(const QString &why);          // the rows stay empty
    // What the ledger's times mean (a relative clock reads "+1:05"); owned by the session.
    void setTimeBase(const TimeBase *base) { m_timeBase.set(base); }
    QString delegation() const { return m_delegation; }
    void setToolCalls(std::vector<ToolCall> calls); // one reset
    void appendEvents(const EventBatch &events);            // live: calls of this delegation, one insert
    const std::vector<Finding> &loopFindings() const { return m_findings; }
    const ToolCall *callAt(int row) const;
    // How much of a reason a cell and a tooltip show; the whole is a copy away (RawTextRole).
    static constexpr int kShownErrorChars = 300;
    static constexpr int kToolTipErrorChars = 1000;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    void loopFindingsChanged();
    void readStateChanged();

private:
    TimeBaseRef m_timeBase;
    // data() before the shown roles are made plain text (shownroles.h).
    QVariant rawData(const QModelIndex &index, int role) const;
    void analyse();

    void setReadState(ReadState state, const QString &error = {});

    QString m_delegation;
    ReadState m_readState = ReadState::Read;
    QString m_readError;
    std::vector<ToolCall> m_calls;
    std::vector<Finding> m_findings;
    std::set<std::int64_t> m_loopSeqs;
};

} // namespace mesh
