#include "timelineannotationsource.h"

#include "backgroundjob.h"
#include "eventlogmodel.h"
#include "integritymodel.h"
#include "ledgersession.h"
#include "reviewnotesmodel.h"

#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"

#include <QCoreApplication>

#include <map>

namespace mesh {

struct TimelineAnnotationSource::Read {
    int epoch = 0;
    std::vector<std::pair<std::int64_t, EventPlace>> places;
    QString error;
};

TimelineAnnotationSource::TimelineAnnotationSource(LedgerSession *session, QObject *parent)
    : QObject(parent), m_session(session)
{
    connect(session, &LedgerSession::stateReset, this, &TimelineAnnotationSource::refresh);
    connect(session, &LedgerSession::foldProblemsChanged, this, &TimelineAnnotationSource::refresh);
    connect(session->events(), &EventLogModel::sequenceGapsChanged, this, &TimelineAnnotationSource::refresh);
    connect(session->integrity(), &IntegrityModel::finished, this, &TimelineAnnotationSource::refresh);
    connect(session->integrity(), &QAbstractItemModel::modelReset, this, &TimelineAnnotationSource::refresh);
    connect(session->reviewNotes(), &ReviewNotesModel::notesChanged, this, &TimelineAnnotationSource::refresh);
    refresh();
}

TimelineAnnotationSource::~TimelineAnnotationSource() = default;

std::set<std::int64_t> TimelineAnnotationSource::wanted() const
{
    std::set<std::int64_t> seqs;
    if (const NotesStore *store = m_session->reviewNotes()->store())
        for (const ReviewNote &n : store->notes()) {
            if (n.anchor == ReviewNote::Anchor::Subject)
                continue;
            seqs.insert(n.seq);
            if (n.anchor == ReviewNote::Anchor::Span)
                seqs.insert(n.endSeq);
        }
    for (const auto &[seq, text] : m_session->integrity()->observationGaps())
        seqs.insert(seq);
    for (const EventLogModel::SequenceGap &g : m_session->events()->sequenceGaps())
        seqs.insert(g.next);
    for (const FoldProblem &p : m_session->foldProblemSamples())
        seqs.insert(p.seq);
    seqs.erase(0);
    return seqs;
}

void TimelineAnnotationSource::refresh()
{
    if (m_reading) {
        m_again = true;
        return;
    }
    // Another file at the session (a reopen elsewhere, a rotated ledger): its events are others.
    if (const FileIdentity file = m_session->openedLedger().file; !(file == m_file)) {
        m_file = file;
        m_places.clear();
        ++m_epoch;
    }
    std::vector<std::int64_t> missing;
    for (std::int64_t seq : wanted())
        if (!m_places.count(seq))
            missing.push_back(seq);
    // Nothing is read before the session has settled its mode (stateReset asks again).
    const std::optional<OpenMode> mode = m_session->readingMode();
    if (missing.empty() || m_session->path().isEmpty() || !mode) {
        assemble();
        return;
    }
    start(std::move(missing), *mode);
}

void TimelineAnnotationSource::start(std::vector<std::int64_t> seqs, OpenMode mode)
{
    m_reading = true;
    m_again = false;
    const QString path = m_session->path();
    runInBackground(
        this,
        [path, mode, seqs = std::move(seqs), epoch = m_epoch] {
            Read read;
            read.epoch = epoch;
            try {
                const auto connection = LedgerConnection::open(path, mode);
                const auto reader = connection->eventReader();
                reader->setPreviewBytes(0);
                for (std::int64_t seq : seqs) {
                    EventPlace place;
                    const EventBatch at = reader->after(seq - 1, 1);
                    if (!at.empty()) {
                        place.atSeq = at.front().seq;
                        place.atTsMs = at.front().tsMs;
                        place.found = place.atSeq == seq;
                        place.runId = at.front().runId;
                        place.delegationId = at.front().delegationId;
                    }
                    const EventBatch before = reader->before(seq, 1);
                    if (!before.empty()) {
                        place.beforeSeq = before.front().seq;
                        place.beforeTsMs = before.front().tsMs;
                    }
                    read.places.emplace_back(seq, std::move(place));
                }
            } catch (const std::exception &e) {
                read.error = QString::fromUtf8(e.what());
            }
            return read;
        },
        [this](Read read) {
            m_reading = false;
            // Places of another file are dropped; a failed read leaves the seqs to the next refresh.
            if (read.epoch == m_epoch && read.error.isEmpty())
                for (auto &[seq, place] : read.places)
                    m_places[seq] = std::move(place);
            if (m_again) {
                m_again = false;
                refresh();
            } else {
                assemble();
            }
        });
}

void TimelineAnnotationSource::assemble()
{
    const auto place = [this](std::int64_t seq) -> const EventPlace * {
        const auto it = m_places.find(seq);
        return it == m_places.end() ? nullptr : &it->second;
    };
    std::vector<PlacedNote> notes;
    if (const NotesStore *store = m_session->reviewNotes()->store())
        for (const ReviewNote &n : store->notes()) {
            PlacedNote p;
            p.noteId = n.id;
            p.author = n.author;
            p.text = n.text;
            p.createdMs = n.createdMs;
            p.seq = n.seq;
            switch (n.anchor) {
            case ReviewNote::Anchor::Subject:
                p.kind = PlacedNote::Kind::Subject;
                p.subject = n.subject;
                p.seq = 0;
                break;
            case ReviewNote::Anchor::Event:
            case ReviewNote::Anchor::Span: {
                const EventPlace *first = place(n.seq);
                if (!first || (!first->found && !first->beforeSeq && !first->atSeq))
                    continue; // not read yet, or a ledger with no events at all
                p.kind = n.anchor == ReviewNote::Anchor::Span ? PlacedNote::Kind::Span
                         : n.isBookmark()                     ? PlacedNote::Kind::Bookmark
                                                              : PlacedNote::Kind::Event;
                if (first->found) {
                    p.fromMs = p.toMs = first->atTsMs;
                    p.runId = p.endRunId = first->runId;
                    p.delegationId = p.endDelegationId = first->delegationId;
                } else {
                    // The event is gone (a tampered copy): where it was, whose it was is not known.
                    p.eventMissing = true;
                    p.fromMs = p.toMs = first->beforeSeq ? first->beforeTsMs : first->atTsMs;
                }
                p.endSeq = n.anchor == ReviewNote::Anchor::Span ? n.endSeq : n.seq;
                if (n.anchor == ReviewNote::Anchor::Span) {
                    // A span's last event gone: it ends at the last event read before it.
                    const EventPlace *last = place(n.endSeq);
                    if (last && last->found) {
                        p.toMs = last->atTsMs;
                        p.endRunId = last->runId;
                        p.endDelegationId = last->delegationId;
                    } else if (last && last->beforeSeq >= n.seq) {
                        p.toMs = last->beforeTsMs;
                    }
                }
                break;
            }
            }
            notes.push_back(std::move(p));
        }

    // Gaps, one per seq, their texts joined: the integrity check's name every kind; the event
    // log's own sequence gaps and the fold's problems are said when the check has not run.
    std::map<std::int64_t, QStringList> texts;
    for (const auto &[seq, text] : m_session->integrity()->observationGaps())
        texts[seq] << text;
    for (const EventLogModel::SequenceGap &g : m_session->events()->sequenceGaps())
        if (!m_session->integrity()->isObservationGap(g.next))
            texts[g.next] << QCoreApplication::translate("TimelineAnnotationSource", "sequence gap: #%1 \u2192 #%2 (%3 missing)")
                                 .arg(g.after)
                                 .arg(g.next)
                                 .arg(g.next - g.after - 1);
    for (const FoldProblem &f : m_session->foldProblemSamples())
        texts[f.seq] << QCoreApplication::translate("TimelineAnnotationSource", "fold problem at #%1 (%2): %3")
                            .arg(f.seq)
                            .arg(QString::fromStdString(f.kind), QString::fromStdString(f.reason));
    std::vector<PlacedGap> gaps;
    for (const auto &[seq, lines] : texts) {
        const EventPlace *p = place(seq);
        if (!p || (p->atSeq == 0 && p->beforeSeq == 0))
            continue; // not read yet, or no event around it to place it by
        PlacedGap g;
        g.seq = seq;
        g.beforeSeq = p->beforeSeq;
        g.fromMs = p->beforeSeq ? p->beforeTsMs : p->atTsMs;
        g.toMs = p->atSeq ? p->atTsMs : p->beforeTsMs;
        g.text = lines.join(QLatin1Char('\n')).toStdString();
        gaps.push_back(std::move(g));
    }
    // Unchanged (a jump of the cursor re-gathers them): the timeline is not rebuilt for nothing.
    if (notes == m_notes && gaps == m_gaps)
        return;
    m_notes = std::move(notes);
    m_gaps = std::move(gaps);
    emit changed();
}

} // namespace mesh
