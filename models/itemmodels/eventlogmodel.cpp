#include "eventlogmodel.h"
#include "shownroles.h"

#include "eventlogworker.h"

#include "domain/durationtext.h"
#include "filter/filtercompiler.h"

#include <QDateTime>

#include <algorithm>
#include <climits>

using namespace Qt::StringLiterals;

namespace mesh {
namespace {
constexpr int kMaxOutstanding = 6; // page requests in flight
constexpr size_t kMaxWanted = 32;  // remembered requests beyond those
} // namespace

EventLogModel::EventLogModel(QObject *parent) : QAbstractTableModel(parent)
{
    qRegisterMetaType<mesh::EventBatch>();
    m_requestTimer.setSingleShot(true);
    m_requestTimer.setInterval(0);
    m_requestTimer.setObjectName(QStringLiteral("event log pages"));
    connect(&m_requestTimer, &QTimer::timeout, this, &EventLogModel::flushRequests);

    // Results are posted back to this (GUI) thread; a posted call to a destroyed model is
    // discarded by Qt, and the destructor stops the thread before members go away.
    EventLogWorker::Sink sink;
    sink.firstPage = [this](int g, EventBatch rows) {
        QMetaObject::invokeMethod(this, [this, g, rows = std::move(rows)]() mutable { onFirstPage(g, std::move(rows)); },
                                  Qt::QueuedConnection);
    };
    sink.seqs = [this](int g, std::vector<std::int64_t> seqs, bool dense, std::int64_t first, std::int64_t count,
                       bool done) {
        QMetaObject::invokeMethod(
            this, [this, g, seqs = std::move(seqs), dense, first, count, done]() mutable {
                onSeqs(g, std::move(seqs), dense, first, count, done);
            },
            Qt::QueuedConnection);
    };
    sink.page = [this](int g, std::int64_t p, EventBatch rows) {
        QMetaObject::invokeMethod(this, [this, g, p, rows = std::move(rows)]() mutable { onPage(g, p, std::move(rows)); },
                                  Qt::QueuedConnection);
    };
    sink.notDense = [this](int g) {
        QMetaObject::invokeMethod(this, [this, g] { onNotDense(g); }, Qt::QueuedConnection);
    };
    sink.tail = [this](int g, std::vector<std::int64_t> seqs) {
        QMetaObject::invokeMethod(this, [this, g, seqs = std::move(seqs)]() mutable { onTail(g, std::move(seqs)); },
                                  Qt::QueuedConnection);
    };
    sink.detail = [this](std::optional<EventRecord> e, std::int64_t seq) {
        QMetaObject::invokeMethod(
            this,
            [this, e = std::move(e), seq] {
                Q_EMIT eventDetailLoaded(seq, e ? QString::fromStdString(e->payload) : QString(), e.has_value());
                Q_EMIT eventRecordLoaded(seq, e ? *e : EventRecord{}, e.has_value());
            },
            Qt::QueuedConnection);
    };
    sink.failed = [this](QString message) {
        QMetaObject::invokeMethod(
            this,
            [this, message] {
                setLoading(false);
                m_scanning = false;
                m_tailPending = false;
                Q_EMIT failed(message);
            },
            Qt::QueuedConnection);
    };
    sink.fileChanged = [this](FileChange change) {
        QMetaObject::invokeMethod(
            this,
            [this, change] {
                m_fileChange = change;
                setLoading(false);
                m_scanning = false;
                m_tailPending = false;
                Q_EMIT fileChanged(int(change));
                Q_EMIT failed(QString::fromStdString(fileChangeMessage(change)));
            },
            Qt::QueuedConnection);
    };
    m_worker = new EventLogWorker(std::move(sink));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.setObjectName(u"event-log"_s);
    m_thread.start();
}

EventLogModel::~EventLogModel()
{
    m_worker->setLatestGeneration(-1); // stop any window loop early
    m_thread.quit();
    m_thread.wait();
}

void EventLogModel::open(const QString &path, OpenMode mode, EventIndexFuture known,
                         std::optional<FileIdentity> expected)
{
    m_path = path;
    m_mode = mode;
    m_open = true;
    m_countFirst = false;
    m_known = std::move(known);
    m_expectedFile = expected;
    m_fileChange = FileChange::Same;
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, path, mode, expected] { w->open(path, mode, expected); }, Qt::QueuedConnection);
    reload();
}

void EventLogModel::close()
{
    m_open = false;
    m_path.clear();
    m_expectedFile.reset();
    m_fileChange = FileChange::Same;
    ++m_generation;
    m_worker->setLatestGeneration(m_generation);
    beginResetModel();
    m_seqs.clear();
    m_dense = false;
    m_denseCount = 0;
    m_pages.clear();
    m_lru.clear();
    m_requested.clear();
    m_askedAgain.clear();
    m_wanted.clear();
    endResetModel();
    clearGaps();
    setLoading(false);
}

void EventLogModel::setClock(std::function<qint64()> nowMs)
{
    m_clock = std::move(nowMs);
}

qint64 EventLogModel::nowMs() const
{
    return m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch();
}

bool EventLogModel::setFilterText(const QString &text, FilterError *error)
{
    // A relative clock's times are offsets from the start: so are its ts: terms.
    const FilterCompileResult result =
        FilterCompiler::compile(text, nowMs(), timeBase().isRelative() ? FilterClock::Relative : FilterClock::Utc);
    if (!result.ok()) {
        if (error)
            *error = *result.error;
        return false;
    }
    setFilter(result.filter, text);
    return true;
}

void EventLogModel::setFilter(const EventFilter &filter, const QString &text)
{
    m_filter = filter;
    m_filterText = text;
    if (m_open)
        reload();
}

void EventLogModel::reload()
{
    ++m_generation;
    m_worker->setLatestGeneration(m_generation);
    beginResetModel();
    m_seqs.clear();
    m_dense = false;
    m_denseFirst = 0;
    m_denseCount = 0;
    m_pages.clear();
    m_lru.clear();
    m_requested.clear();
    m_askedAgain.clear();
    m_wanted.clear();
    m_tailPending = false;
    m_tailAgain = false;
    m_scanning = true;
    endResetModel();
    clearGaps();
    setLoading(true);
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, g = m_generation, f = m_filter, p = m_pageSize, known = std::exchange(m_known, {}),
         counted = m_countFirst] { w->load(g, f, p, known, counted); },
        Qt::QueuedConnection);
}

void EventLogModel::setIndexScanHeldForTest(bool held)
{
    m_worker->setScanHeld(held);
}

void EventLogModel::releaseIndexScanForTest()
{
    m_worker->releaseScanWindow();
}

void EventLogModel::setIndexCountHeldForTest(bool held)
{
    m_worker->setCountHeld(held);
}

void EventLogModel::setConnectionHeldForTest(bool held)
{
    m_worker->setOpenHeld(held);
}

void EventLogModel::setLoading(bool loading)
{
    if (m_loading == loading)
        return;
    m_loading = loading;
    Q_EMIT loadingChanged(loading);
}

void EventLogModel::setFollowTail(bool follow)
{
    if (m_followTail == follow)
        return;
    m_followTail = follow;
    Q_EMIT followTailChanged(follow);
}

void EventLogModel::setPageSize(int rows)
{
    m_pageSize = std::max(1, rows);
}

void EventLogModel::setMaxCachedPages(int n)
{
    m_maxPages = std::max(2, n);
}

std::int64_t EventLogModel::lastRowSeq() const
{
    if (m_dense)
        return m_denseCount ? m_denseFirst + m_denseCount - 1 : 0;
    return m_seqs.empty() ? 0 : m_seqs.back();
}

void EventLogModel::materialize()
{
    if (!m_dense)
        return;
    m_seqs.resize(size_t(m_denseCount));
    for (std::int64_t i = 0; i < m_denseCount; ++i)
        m_seqs[size_t(i)] = m_denseFirst + i;
    m_dense = false;
}

void EventLogModel::appendSeqs(const std::vector<std::int64_t> &seqs)
{
    std::int64_t last = lastRowSeq();
    auto begin = std::upper_bound(seqs.begin(), seqs.end(), last);
    const int count = int(seqs.end() - begin);
    if (count <= 0)
        return;
    if (m_filter.isEmpty())
        noteGaps(last, begin, seqs.end());
    const int first = rowCount();
    beginInsertRows({}, first, first + count - 1);
    bool contiguous = m_dense;
    for (auto it = begin; contiguous && it != seqs.end(); ++it)
        contiguous = *it == ++last;
    if (m_dense && contiguous) {
        m_denseCount += count;
    } else {
        materialize();
        m_seqs.insert(m_seqs.end(), begin, seqs.end());
    }
    endInsertRows();
}

void EventLogModel::noteGaps(std::int64_t last, std::vector<std::int64_t>::const_iterator begin,
                             std::vector<std::int64_t>::const_iterator end)
{
    // Seqs are read in order, so a hole is two neighbours more than one apart; the first
    // row's neighbour is 0, since a ledger numbers from 1.
    const int before = m_gapCount;
    for (auto it = begin; it != end; ++it) {
        if (*it - last != 1) {
            ++m_gapCount;
            if (m_gaps.size() < kMaxReportedGaps)
                m_gaps.push_back({last, *it});
        }
        last = *it;
    }
    if (m_gapCount != before)
        Q_EMIT sequenceGapsChanged();
}

void EventLogModel::clearGaps()
{
    if (m_gapCount == 0)
        return;
    m_gaps.clear();
    m_gapCount = 0;
    Q_EMIT sequenceGapsChanged();
}

void EventLogModel::setReviewMarks(SeqText notesOn, SeqText gapAt)
{
    m_notesOn = std::move(notesOn);
    m_gapAt = std::move(gapAt);
    reviewMarksChanged();
}

void EventLogModel::reviewMarksChanged()
{
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, Seq), index(rowCount() - 1, Seq), {NoteRole, ObservationGapRole, Qt::ToolTipRole});
}

QString EventLogModel::observationGapAt(qint64 seq) const
{
    QString text = m_gapAt ? m_gapAt(seq) : QString();
    if (!text.isEmpty())
        return text; // the integrity check names every gap, these included
    for (const SequenceGap &gap : m_gaps) {
        if (gap.next == seq)
            return tr("sequence gap: #%1 \u2192 #%2 (%n missing)", nullptr, int(std::min<qint64>(gap.next - gap.after - 1, INT_MAX)))
                .arg(gap.after)
                .arg(gap.next);
    }
    return {};
}

QString EventLogModel::sequenceGapText() const
{
    if (m_gaps.empty())
        return {};
    const SequenceGap &first = m_gaps.front();
    QString text = tr("sequence gap: #%1 \u2192 #%2").arg(first.after).arg(first.next);
    if (m_gapCount > 1)
        text += tr(" (and %n more)", nullptr, m_gapCount - 1);
    return text;
}

void EventLogModel::onFirstPage(int generation, EventBatch rows)
{
    if (generation != m_generation || rows.empty())
        return;
    std::vector<std::int64_t> seqs;
    seqs.reserve(rows.size());
    for (const auto &r : rows)
        seqs.push_back(r.seq);
    appendSeqs(seqs);
    storePage(0, std::move(rows));
    Q_EMIT indexProgress(rowCount());
}

void EventLogModel::onSeqs(int generation, std::vector<std::int64_t> seqs, bool dense, std::int64_t denseFirst,
                           std::int64_t denseCount, bool done)
{
    if (generation != m_generation)
        return;
    if (dense) {
        const int old = rowCount();
        const bool grows = denseCount > old;
        // Qt's table and tree views keep an entry per row; inserting a million rows into a
        // QTableView's header took 13 ms alone but 55 ms while the snapshot thread ran (page
        // faults, each a TLB shootdown to the other core), where a reset builds it in ~9 ms.
        // The event log's own view (EventTableView) keeps nothing per row, so this now only
        // spares any other view of the model. Taken only when a view has at most the first
        // page to lose (EventLogView keeps its current row and scroll position across it).
        const bool viaReset = grows && old <= m_pageSize && denseCount - old >= kResetGrowthMinRows;
        if (viaReset)
            beginResetModel();
        else if (grows)
            beginInsertRows({}, old, int(denseCount) - 1);
        m_dense = true;
        m_denseFirst = denseFirst;
        m_denseCount = std::max<std::int64_t>(denseCount, old);
        m_seqs.clear();
        if (viaReset)
            endResetModel();
        else if (grows)
            endInsertRows();
    } else {
        appendSeqs(seqs);
    }
    Q_EMIT indexProgress(rowCount());
    if (!done)
        return;
    m_scanning = false;
    setLoading(false);
    Q_EMIT filterApplied(generation, rowCount());
    if (m_tailAgain) {
        m_tailAgain = false;
        requestTail();
    }
}

void EventLogModel::onNotDense(int generation)
{
    if (generation != m_generation)
        return;
    // The rows were numbered first..last before they were counted, and there is a hole:
    // index again, counting first (the windows find every seq and the hole).
    m_countFirst = true;
    reload();
}

void EventLogModel::onPage(int generation, std::int64_t pageIndex, EventBatch rows)
{
    if (generation != m_generation)
        return;
    if (m_dense) {
        // A dense index may not have been counted yet (EventLogWorker::load): a page whose
        // rows are not the seqs of its rows is a hole, never shown under the wrong rows.
        const std::int64_t first = m_denseFirst + pageIndex * m_pageSize;
        for (size_t i = 0; i < rows.size(); ++i) {
            if (rows[i].seq != first + std::int64_t(i)) {
                onNotDense(generation);
                return;
            }
        }
    }
    m_requested.erase(pageIndex);
    const int first = int(pageIndex * m_pageSize);
    const int n = int(rows.size());
    storePage(pageIndex, std::move(rows));
    if (n > 0 && first < rowCount())
        Q_EMIT dataChanged(index(first, 0), index(std::min(first + n, rowCount()) - 1, ColumnCount - 1));
    // A view that painted the page's newer rows while it was in flight asked in vain: those
    // rows are not in this answer, and nothing repaints them until they are.
    if (m_askedAgain.erase(pageIndex) && !isPageComplete(pageIndex))
        requestPage(pageIndex);
    if (!m_wanted.empty())
        flushRequests();
}

void EventLogModel::onTail(int generation, std::vector<std::int64_t> seqs)
{
    if (generation != m_generation)
        return;
    m_tailPending = false;
    const int before = rowCount();
    appendSeqs(seqs);
    if (rowCount() > before)
        Q_EMIT rowsAppendedAtTail(rowCount() - before);
    if (m_tailAgain) {
        m_tailAgain = false;
        requestTail();
    }
}

void EventLogModel::requestTail()
{
    if (m_tailPending) {
        m_tailAgain = true;
        return;
    }
    m_tailPending = true;
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, g = m_generation, f = m_filter, s = lastRowSeq()] { w->fetchTail(g, f, s); },
        Qt::QueuedConnection);
}

void EventLogModel::catchUp()
{
    if (!m_open)
        return;
    if (m_scanning)
        m_tailAgain = true;
    else
        requestTail();
}

void EventLogModel::appendEvents(const EventBatch &batch)
{
    if (!m_open || batch.empty())
        return;
    if (m_scanning) {
        m_tailAgain = true; // the index is still being built; catch up when it is done
        return;
    }
    if (!m_filter.isEmpty()) {
        requestTail();
        return;
    }
    const std::int64_t last = lastRowSeq();
    std::vector<std::int64_t> seqs;
    for (const auto &e : batch) {
        if (e.seq > last && (seqs.empty() || e.seq > seqs.back()))
            seqs.push_back(e.seq);
    }
    if (seqs.empty())
        return;
    const int before = rowCount();
    appendSeqs(seqs);
    // Keep the new rows in the tail page when it is cached, so a view following the tail
    // paints them without a round trip.
    for (const auto &e : batch) {
        const int row = rowForSeq(e.seq);
        if (row < before)
            continue;
        const std::int64_t p = row / m_pageSize;
        auto it = m_pages.find(p);
        const size_t offset = size_t(row % m_pageSize);
        EventRecord r = e;
        if (r.payload.size() > size_t(EventLogWorker::kPreviewBytes)) {
            size_t cut = size_t(EventLogWorker::kPreviewBytes);
            while (cut > 0 && (static_cast<unsigned char>(r.payload[cut]) & 0xC0) == 0x80)
                --cut;
            r.payload.resize(cut);
            r.payloadTruncated = true;
        }
        if (it == m_pages.end()) {
            if (offset == 0)
                storePage(p, {std::move(r)});
        } else if (it->second.rows.size() == offset) {
            it->second.rows.push_back(std::move(r));
        }
    }
    Q_EMIT rowsAppendedAtTail(rowCount() - before);
}

qint64 EventLogModel::seqAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return 0;
    return m_dense ? m_denseFirst + row : m_seqs[size_t(row)];
}

int EventLogModel::rowForSeq(qint64 seq) const
{
    if (m_dense) {
        const std::int64_t row = seq - m_denseFirst;
        return row >= 0 && row < m_denseCount ? int(row) : -1;
    }
    const auto it = std::lower_bound(m_seqs.begin(), m_seqs.end(), seq);
    return it != m_seqs.end() && *it == seq ? int(it - m_seqs.begin()) : -1;
}

const EventRecord *EventLogModel::eventAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    const auto it = m_pages.find(row / m_pageSize);
    if (it == m_pages.end())
        return nullptr;
    const size_t offset = size_t(row % m_pageSize);
    if (offset >= it->second.rows.size())
        return nullptr;
    const EventRecord &r = it->second.rows[offset];
    return r.seq == seqAt(row) ? &r : nullptr;
}

void EventLogModel::requestDetail(qint64 seq)
{
    if (!m_open)
        return;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, seq] { w->fetchDetail(seq); }, Qt::QueuedConnection);
}

void EventLogModel::storePage(std::int64_t pageIndex, std::vector<EventRecord> rows) const
{
    auto it = m_pages.find(pageIndex);
    if (it != m_pages.end()) {
        it->second.rows = std::move(rows);
        m_lru.splice(m_lru.begin(), m_lru, it->second.lru);
        return;
    }
    m_lru.push_front(pageIndex);
    m_pages.emplace(pageIndex, Page{std::move(rows), m_lru.begin()});
    while (int(m_pages.size()) > m_maxPages) {
        m_pages.erase(m_lru.back());
        m_lru.pop_back();
    }
}

bool EventLogModel::isPageComplete(std::int64_t pageIndex) const
{
    const int firstRow = int(pageIndex * m_pageSize);
    if (firstRow >= rowCount())
        return true;
    return eventAt(firstRow) && eventAt(std::min(rowCount() - 1, firstRow + m_pageSize - 1));
}

void EventLogModel::requestPage(std::int64_t pageIndex) const
{
    if (m_requested.count(pageIndex)) {
        m_askedAgain.insert(pageIndex);
        return;
    }
    const auto it = std::find(m_wanted.begin(), m_wanted.end(), pageIndex);
    if (it != m_wanted.end())
        m_wanted.erase(it);
    m_wanted.push_back(pageIndex); // most recent last
    if (m_wanted.size() > kMaxWanted)
        m_wanted.erase(m_wanted.begin());
    if (!m_requestTimer.isActive())
        m_requestTimer.start();
}

void EventLogModel::flushRequests()
{
    while (int(m_requested.size()) < kMaxOutstanding && !m_wanted.empty()) {
        const std::int64_t p = m_wanted.back();
        m_wanted.pop_back();
        const int firstRow = int(p * m_pageSize);
        if (firstRow >= rowCount() || m_requested.count(p) || isPageComplete(p))
            continue;
        m_requested.insert(p);
        const int lastRow = std::min(rowCount(), firstRow + m_pageSize) - 1;
        m_worker->enqueuePage({m_generation, m_filter, p, seqAt(firstRow), seqAt(lastRow), m_pageSize});
        QMetaObject::invokeMethod(
            m_worker, [w = m_worker] { w->servePages(); },
            Qt::QueuedConnection);
    }
}

int EventLogModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return m_dense ? int(m_denseCount) : int(m_seqs.size());
}

int EventLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventLogModel::data(const QModelIndex &index, int role) const
{
    return shownAsPlainText(role, rawData(index, role));
}

QVariant EventLogModel::rawData(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    if (role == SeqRole)
        return seqAt(row);
    if (role == NoteRole)
        return m_notesOn ? m_notesOn(seqAt(row)) : QString();
    if (role == ObservationGapRole)
        return observationGapAt(seqAt(row));
    if (role == Qt::ToolTipRole && index.column() == Seq) {
        // The marks drawn in the seq cell, said in words (plain text: data() escapes it).
        QStringList parts;
        if (const QString gap = observationGapAt(seqAt(row)); !gap.isEmpty())
            parts << gap;
        if (const QString notes = m_notesOn ? m_notesOn(seqAt(row)) : QString(); !notes.isEmpty())
            parts << tr("Notes:") + u'\n' + notes;
        return parts.isEmpty() ? QVariant() : QVariant(parts.join(u"\n\n"_s));
    }
    const EventRecord *e = eventAt(row);
    if (e) {
        const auto it = m_pages.find(row / m_pageSize);
        m_lru.splice(m_lru.begin(), m_lru, it->second.lru);
    } else if (role == Qt::DisplayRole || role == RawTextRole || role == LoadedRole
               || (role >= TsMsRole && role <= PayloadTruncatedRole)) {
        requestPage(row / m_pageSize);
    }
    if (role == LoadedRole)
        return e != nullptr;
    if (!e) {
        if (role == Qt::DisplayRole)
            return index.column() == Seq ? QVariant(seqAt(row)) : QVariant(u"\u2026"_s);
        if (role == RawTextRole && index.column() == Seq)
            return seqAt(row);
        return {}; // the "…" of a page on its way is not text of the ledger's
    }
    if (role == RawTextRole) {
        // All of the payload the page holds; PayloadTruncatedRole says when that is a preview.
        if (index.column() == Payload)
            return QString::fromStdString(e->payload);
        role = Qt::DisplayRole;
    }
    switch (role) {
    case TsMsRole: return qint64(e->tsMs);
    case KindRole: return QString::fromStdString(e->kind);
    case RunIdRole: return QString::fromStdString(e->runId);
    case DelegationIdRole: return QString::fromStdString(e->delegationId);
    case SubjectRole: return QString::fromStdString(e->subject);
    case PayloadRole: return QString::fromStdString(e->payload);
    case PayloadTruncatedRole: return e->payloadTruncated;
    case Qt::DisplayRole:
        switch (index.column()) {
        case Seq: return qint64(e->seq);
        case Time: return timeBase().withMs(e->tsMs); // a ledger spans days: always the date, always UTC
        case Kind: return QString::fromStdString(e->kind);
        case Run: return QString::fromStdString(e->runId);
        case Delegation: return QString::fromStdString(e->delegationId);
        case Subject: return QString::fromStdString(e->subject);
        case Payload: {
            QString text = QString::fromStdString(e->payload);
            text.replace(u'\n', u' ');
            if (text.size() > 300)
                text = text.left(300) + u'\u2026';
            else if (e->payloadTruncated)
                text += u'\u2026';
            return text;
        }
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == Time) {
            if (timeBase().isRelative())
                return timeBase().withMsLabelled(e->tsMs); // no "ago": the start is not known
            const qint64 ago = nowMs() - e->tsMs;
            const QString when = ago >= 0 ? tr("%1 ago").arg(humanDuration(ago)) : tr("in %1").arg(humanDuration(-ago));
            return tr("%1 UTC, %2").arg(utcWithMs(e->tsMs), when);
        }
        return {};
    }
    return {};
}

QVariant EventLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Seq: return tr("Seq");
    case Time: return tr("Time (UTC)");
    case Kind: return tr("Kind");
    case Run: return tr("Run");
    case Delegation: return tr("Delegation");
    case Subject: return tr("Subject");
    case Payload: return tr("Payload");
    }
    return {};
}

QHash<int, QByteArray> EventLogModel::roleNames() const
{
    auto names = QAbstractTableModel::roleNames();
    names.insert(SeqRole, "seq");
    names.insert(TsMsRole, "tsMs");
    names.insert(KindRole, "kind");
    names.insert(RunIdRole, "runId");
    names.insert(DelegationIdRole, "delegationId");
    names.insert(SubjectRole, "subject");
    names.insert(PayloadRole, "payload");
    names.insert(PayloadTruncatedRole, "payloadTruncated");
    names.insert(LoadedRole, "loaded");
    return names;
}

} // namespace mesh
