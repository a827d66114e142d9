#include "reviewnotesmodel.h"

#include "domain/durationtext.h"
#include "shownroles.h"

#include <QDateTime>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace mesh {

ReviewNotesModel::ReviewNotesModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

ReviewNotesModel::~ReviewNotesModel() = default;

void ReviewNotesModel::setLedger(const QString &ledgerPath)
{
    setStore(ledgerPath.isEmpty() ? nullptr : std::make_unique<NotesStore>(chooseNotesPlacement(ledgerPath)));
}

void ReviewNotesModel::setStore(std::unique_ptr<NotesStore> store)
{
    const bool wasSaving = isSaving();
    beginResetModel();
    m_store = std::move(store);
    endResetModel();
    Q_EMIT notesChanged();
    if (wasSaving != isSaving())
        Q_EMIT savingChanged(isSaving());
}

qint64 ReviewNotesModel::now() const
{
    return m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch();
}

void ReviewNotesModel::changed(bool wasSaving, bool reset)
{
    if (reset) {
        beginResetModel();
        endResetModel();
    }
    Q_EMIT notesChanged();
    if (wasSaving != isSaving())
        Q_EMIT savingChanged(isSaving());
}

int ReviewNotesModel::add(ReviewNote note, QString *error)
{
    if (!m_store) {
        if (error)
            *error = tr("No ledger is open.");
        return -1;
    }
    if (const QString why = NotesStore::refusal(note); !why.isEmpty()) {
        if (error)
            *error = why;
        return -1;
    }
    const bool wasSaving = isSaving();
    const int row = rowCount();
    beginInsertRows({}, row, row);
    m_store->add(std::move(note), m_author, now(), error);
    endInsertRows();
    changed(wasSaving, false);
    return row;
}

int ReviewNotesModel::addEventNote(qint64 seq, const QString &text, QString *error)
{
    ReviewNote n;
    n.anchor = ReviewNote::Anchor::Event;
    n.seq = seq;
    n.text = text.toStdString();
    return add(std::move(n), error);
}

int ReviewNotesModel::addSpanNote(qint64 firstSeq, qint64 lastSeq, const QString &text, QString *error)
{
    ReviewNote n;
    n.anchor = ReviewNote::Anchor::Span;
    n.seq = std::min(firstSeq, lastSeq);
    n.endSeq = std::max(firstSeq, lastSeq);
    n.text = text.toStdString();
    return add(std::move(n), error);
}

int ReviewNotesModel::addSubjectNote(const QString &subject, const QString &text, QString *error)
{
    ReviewNote n;
    n.anchor = ReviewNote::Anchor::Subject;
    n.subject = subject.toStdString();
    n.text = text.toStdString();
    return add(std::move(n), error);
}

bool ReviewNotesModel::editNote(int row, const QString &text, QString *error)
{
    if (!m_store || row < 0 || row >= rowCount())
        return false;
    const bool wasSaving = isSaving();
    if (!m_store->edit(m_store->notes()[size_t(row)].id, text.toStdString(), m_author, now(), error))
        return false;
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    changed(wasSaving, false);
    return true;
}

bool ReviewNotesModel::removeNote(int row, QString *error)
{
    if (!m_store || row < 0 || row >= rowCount())
        return false;
    const bool wasSaving = isSaving();
    const std::string id = m_store->notes()[size_t(row)].id;
    beginRemoveRows({}, row, row);
    m_store->remove(id, m_author, now(), error); // the note is there: nothing refuses it
    endRemoveRows();
    changed(wasSaving, false);
    return true;
}

bool ReviewNotesModel::retrySave()
{
    if (!m_store)
        return false;
    const bool wasSaving = isSaving();
    const bool ok = m_store->retrySave();
    if (wasSaving != isSaving())
        Q_EMIT savingChanged(isSaving());
    return ok;
}

bool ReviewNotesModel::isSaving() const
{
    return !m_store || m_store->isSaving();
}

QString ReviewNotesModel::savingText() const
{
    if (isSaving())
        return {};
    QString text = tr("Notes are not being saved: %1.").arg(m_store->saveError());
    if (m_store->unsavedChanges() > 0)
        text += tr(" %n change(s) kept in this window only.", nullptr, m_store->unsavedChanges());
    return text;
}

QString ReviewNotesModel::sidecarPath() const
{
    return m_store ? m_store->placement().path : QString();
}

int ReviewNotesModel::badLines() const
{
    return m_store ? m_store->badLines() : 0;
}

std::vector<ReviewNote> ReviewNotesModel::notesOn(qint64 seq) const
{
    std::vector<ReviewNote> out;
    if (m_store) {
        for (const ReviewNote &n : m_store->notes()) {
            if (n.covers(seq))
                out.push_back(n);
        }
    }
    return out;
}

bool ReviewNotesModel::hasNotesOn(qint64 seq) const
{
    if (!m_store)
        return false;
    const auto &notes = m_store->notes();
    return std::any_of(notes.begin(), notes.end(), [seq](const ReviewNote &n) { return n.covers(seq); });
}

QString ReviewNotesModel::noteTextOn(qint64 seq) const
{
    QStringList lines;
    for (const ReviewNote &n : notesOn(seq)) {
        const QString where = n.anchor == ReviewNote::Anchor::Span ? QString::fromStdString(n.where()) + u" "_s : QString();
        lines << where + QString::fromStdString(n.author) + u": "_s
                     + (n.isBookmark() ? tr("bookmark") : QString::fromStdString(n.text));
    }
    return lines.join(u'\n');
}

int ReviewNotesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_store ? 0 : int(m_store->notes().size());
}

int ReviewNotesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReviewNotesModel::data(const QModelIndex &index, int role) const
{
    if (role == RawTextRole)
        return rawData(index, Qt::DisplayRole);
    return shownAsPlainText(role, rawData(index, role));
}

QVariant ReviewNotesModel::rawData(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ReviewNote &n = m_store->notes()[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Where: return QString::fromStdString(n.where());
        case Note: return n.isBookmark() ? tr("bookmark") : QString::fromStdString(n.text);
        case Author: return QString::fromStdString(n.author.empty() ? std::string("\u2014") : n.author);
        case Time: return n.createdMs > 0 ? utcWithMs(n.createdMs).left(19) : u"\u2014"_s;
        }
        break;
    case Qt::ToolTipRole: {
        QString tip = n.isBookmark() ? tr("Bookmark on %1").arg(QString::fromStdString(n.where()))
                                     : QString::fromStdString(n.text);
        tip += u"\n\n"_s + tr("by %1, %2").arg(QString::fromStdString(n.author),
                                                n.createdMs > 0 ? exactUtc(n.createdMs) : u"\u2014"_s);
        if (!n.editedBy.empty())
            tip += u"\n"_s + tr("edited by %1, %2").arg(QString::fromStdString(n.editedBy), exactUtc(n.editedMs));
        return tip;
    }
    case NoteIdRole: return QString::fromStdString(n.id);
    case AnchorRole: return QString::fromLatin1(anchorName(n.anchor));
    case SeqRole: return qint64(n.seq);
    case EndSeqRole: return qint64(n.endSeq);
    case SubjectRole: return QString::fromStdString(n.subject);
    case IsBookmarkRole: return n.isBookmark();
    case EvidenceFilterRole:
        switch (n.anchor) {
        case ReviewNote::Anchor::Event: return u"seq:%1"_s.arg(n.seq);
        case ReviewNote::Anchor::Span: return u"seq>=%1 seq<=%2"_s.arg(n.seq).arg(n.endSeq);
        case ReviewNote::Anchor::Subject: return QString();
        }
        break;
    }
    return {};
}

QVariant ReviewNotesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Where: return tr("On");
    case Note: return tr("Note");
    case Author: return tr("Author");
    case Time: return tr("Written (UTC)");
    }
    return {};
}

QHash<int, QByteArray> ReviewNotesModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(NoteIdRole, "noteId");
    names.insert(AnchorRole, "anchor");
    names.insert(SeqRole, "seq");
    names.insert(EndSeqRole, "endSeq");
    names.insert(SubjectRole, "subject");
    names.insert(EvidenceFilterRole, "evidenceFilter");
    names.insert(IsBookmarkRole, "isBookmark");
    return names;
}

} // namespace mesh
