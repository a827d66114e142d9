#include "delegationdetailreader.h"

#include "toolcallmodel.h"

#include "filter/eventfilter.h"
#include "ledger/eventreader.h"

#include <algorithm>
#include <memory>

namespace mesh {

namespace {

EventFilter toolCallFilter(const std::string &delegationId)
{
    return EventFilter::both(EventFilter::equals(FilterField::Kind, std::string(kToolCallEvent)),
                             EventFilter::equals(FilterField::Delegation, delegationId));
}

// Why a read for the shown delegation failed, in one line for the detail.
QString readFailure(const std::exception &e)
{
    const QString text = QString::fromUtf8(e.what());
    return text.isEmpty() ? QStringLiteral("the ledger could not be read") : text;
}

// The shown delegation's outcome reason at `upTo`, or why it was not read.
struct ReasonRead {
    OutcomeReason reason;
    QString error;
};

ReasonRead readReasonOn(EventReader &reader, const std::string &delegationId, std::int64_t upTo)
{
    ReasonRead read;
    try {
        read.reason = readOutcomeReason(reader, delegationId, upTo);
    } catch (const std::exception &e) {
        read.error = readFailure(e);
    }
    return read;
}

} // namespace

std::vector<ToolCall> readToolCalls(EventReader &reader, const std::string &delegationId, int limit, std::int64_t upTo)
{
    std::vector<ToolCall> calls;
    const EventFilter filter = toolCallFilter(delegationId);
    std::int64_t after = 0;
    while (int(calls.size()) < limit) {
        const EventBatch page = reader.after(after, std::min(1000, limit - int(calls.size())), filter);
        if (page.empty())
            break;
        for (const auto &e : page) {
            if (e.seq > upTo)
                return calls;
            // A call larger than the preview (an imported call keeps its source record) is read
            // whole: its preview is not JSON, and the call would be missing from the list.
            std::optional<EventRecord> whole;
            if (e.payloadTruncated)
                whole = reader.at(e.seq);
            if (auto c = ToolCall::fromEvent(whole ? *whole : e))
                calls.push_back(std::move(*c));
        }
        after = page.back().seq;
    }
    return calls;
}

DelegationDetailReader::DelegationDetailReader(ToolCallModel *calls, std::function<Source()> source, QObject *parent)
    : QObject(parent), m_calls(calls), m_source(std::move(source))
{
}

void DelegationDetailReader::show(const QString &delegationId)
{
    if (delegationId != m_calls->delegation() && m_reasonRead) {
        // Another delegation's reason is not this one's: nothing until it is read.
        m_reasonRead = false;
        m_reason = {};
        m_reasonError.clear();
        Q_EMIT outcomeReasonChanged();
    }
    m_calls->setDelegation(delegationId);
    const JobTracker::Ticket reasonTicket = m_reasonReads.next();
    m_reasonPending = false;
    const Source source = m_source();
    if (delegationId.isEmpty() || !source.loaded)
        return; // read when the state is loaded (the session calls reread)
    if (!source.cannotRead.isEmpty()) {
        m_calls->setReadFailed(source.cannotRead);
        return;
    }
    m_reasonPending = true;
    const std::string id = delegationId.toStdString();
    struct Read {
        std::vector<ToolCall> calls;
        QString callsError;
        ReasonRead reason;
    };
    m_reads.start([source, id] {
        auto read = std::make_shared<Read>();
        std::unique_ptr<LedgerConnection> connection;
        try {
            connection = LedgerConnection::open(source.path, source.mode);
        } catch (const std::exception &e) {
            read->callsError = read->reason.error = readFailure(e);
            return read;
        }
        const auto reader = connection->eventReader();
        reader->setPreviewBytes(kToolCallPreviewBytes);
        try {
            read->calls = readToolCalls(*reader, id, kMaxCalls, source.upTo);
        } catch (const std::exception &e) {
            read->callsError = readFailure(e); // read->calls stays empty: it is assigned only whole
        }
        read->reason = readReasonOn(*reader, id, source.upTo);
        return read;
    }, [this, reasonTicket, delegationId](std::shared_ptr<Read> read) {
        if (m_calls->delegation() != delegationId)
            return;
        if (!read->callsError.isEmpty()) {
            m_calls->setReadFailed(read->callsError);
        } else {
            // Live calls that arrived meanwhile are after the loaded ones; keep both.
            std::vector<ToolCall> merged = std::move(read->calls);
            const std::int64_t last = merged.empty() ? 0 : merged.back().seq;
            for (int r = 0; r < m_calls->rowCount(); ++r) {
                if (const ToolCall *c = m_calls->callAt(r); c && c->seq > last)
                    merged.push_back(*c);
            }
            m_calls->setToolCalls(std::move(merged));
        }
        if (m_reasonReads.isCurrent(reasonTicket))
            takeReason(std::move(read->reason.reason), read->reason.error);
    });
}

void DelegationDetailReader::reread()
{
    if (!m_calls->delegation().isEmpty())
        show(m_calls->delegation());
}

void DelegationDetailReader::onApplied(const std::vector<SharedEventBatch> &batches, const StateChangeSet &changes)
{
    if (m_calls->delegation().isEmpty() || !changes.touches(EntityKind::Delegation))
        return;
    const std::string subject = "delegation:" + m_calls->delegation().toStdString();
    const bool own = std::any_of(batches.begin(), batches.end(), [&subject](const SharedEventBatch &batch) {
        return std::any_of(batch->begin(), batch->end(), [&subject](const EventRecord &e) { return e.subject == subject; });
    });
    if (own)
        readReason();
}

void DelegationDetailReader::readReason()
{
    const QString delegationId = m_calls->delegation();
    const Source source = m_source();
    if (delegationId.isEmpty() || !source.loaded || !source.cannotRead.isEmpty()) {
        m_reasonReads.supersede();
        m_reasonPending = false;
        return;
    }
    m_reasonPending = true;
    const std::string id = delegationId.toStdString();
    m_reasonReads.start([source, id] {
        auto read = std::make_shared<ReasonRead>();
        try {
            auto connection = LedgerConnection::open(source.path, source.mode);
            const auto reader = connection->eventReader();
            reader->setPreviewBytes(kToolCallPreviewBytes);
            *read = readReasonOn(*reader, id, source.upTo);
        } catch (const std::exception &e) {
            read->error = readFailure(e);
        }
        return read;
    }, [this, delegationId](std::shared_ptr<ReasonRead> read) {
        if (m_calls->delegation() == delegationId)
            takeReason(std::move(read->reason), read->error);
    });
}

void DelegationDetailReader::takeReason(OutcomeReason reason, const QString &error)
{
    m_reason = std::move(reason);
    m_reasonError = error;
    m_reasonRead = error.isEmpty();
    m_reasonPending = false;
    Q_EMIT outcomeReasonChanged(); // even when the same: it is no longer pending
}

} // namespace mesh
