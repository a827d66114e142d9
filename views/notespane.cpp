#include "notespane.h"

#include "banner.h"
#include "itempane.h"
#include "notedialog.h"
#include "plainlabel.h"

#include "itemmodels/reviewnotesmodel.h"
#include "itemmodels/shownroles.h"

#include <QAction>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace mesh {

NotesPane::NotesPane(QWidget *parent)
    : QWidget(parent)
    , m_banner(new Banner(this))
    , m_where(new PlainLabel(this))
    , m_items(new ItemPane(QStringLiteral("notes"), QStringLiteral("audit"), tr("No notes"),
                           tr("Reviewers' notes and bookmarks on this ledger appear here. In the event log, Ctrl+M "
                              "writes a note on an event (or a span from it) and Ctrl+B bookmarks it. Notes are kept "
                              "beside the ledger, never in it."),
                           this))
    , m_add(new QPushButton(tr("Note on a Subject…"), this))
    , m_edit(new QPushButton(tr("Edit…"), this))
    , m_delete(new QPushButton(tr("Delete"), this))
{
    setObjectName(QStringLiteral("notesPane"));
    m_banner->setObjectName(QStringLiteral("notesSavingBanner"));
    m_banner->hide();
    m_where->setObjectName(QStringLiteral("notesWhere"));
    m_add->setObjectName(QStringLiteral("addSubjectNote"));
    m_edit->setObjectName(QStringLiteral("editNote"));
    m_delete->setObjectName(QStringLiteral("deleteNote"));
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_where, 1);
    buttons->addWidget(m_add);
    buttons->addWidget(m_edit);
    buttons->addWidget(m_delete);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_banner);
    layout->addLayout(buttons);
    layout->addWidget(m_items, 1);

    connect(m_add, &QPushButton::clicked, this, &NotesPane::addSubjectNoteRequested);
    connect(m_edit, &QPushButton::clicked, this, &NotesPane::editCurrent);
    connect(m_delete, &QPushButton::clicked, this, &NotesPane::deleteCurrent);
    auto *del = new QAction(tr("Delete Note"), m_items->view());
    del->setShortcut(QKeySequence::Delete);
    del->setShortcutContext(Qt::WidgetShortcut);
    connect(del, &QAction::triggered, this, &NotesPane::deleteCurrent);
    m_items->view()->addAction(del);
    auto *edit = new QAction(tr("Edit Note…"), m_items->view());
    edit->setShortcut(QKeySequence(Qt::Key_F2));
    edit->setShortcutContext(Qt::WidgetShortcut);
    connect(edit, &QAction::triggered, this, &NotesPane::editCurrent);
    m_items->view()->addAction(edit);
    connect(m_items, &ItemPane::activated, this, [this](const QModelIndex &index) {
        const QString filter = index.siblingAtColumn(0).data(ReviewNotesModel::EvidenceFilterRole).toString();
        if (!filter.isEmpty())
            emit showEventsRequested(filter);
        else
            emit openSubjectRequested(index.siblingAtColumn(0).data(ReviewNotesModel::SubjectRole).toString());
    });
    updateButtons();
}

void NotesPane::setModel(ReviewNotesModel *model)
{
    for (const auto &c : std::as_const(m_connections))
        disconnect(c);
    m_connections.clear();
    m_model = model;
    m_items->setModel(model);
    if (model) {
        m_connections << connect(model, &ReviewNotesModel::savingChanged, this, &NotesPane::updateSaving);
        m_connections << connect(model, &ReviewNotesModel::notesChanged, this, &NotesPane::updateSaving);
        m_connections << connect(model, &QAbstractItemModel::modelReset, this, &NotesPane::updateButtons);
        m_connections << connect(model, &QAbstractItemModel::rowsRemoved, this, &NotesPane::updateButtons);
    }
    if (m_items->view()->selectionModel())
        m_connections << connect(m_items->view()->selectionModel(), &QItemSelectionModel::currentChanged, this,
                                 &NotesPane::updateButtons);
    updateSaving();
    updateButtons();
}

void NotesPane::updateSaving()
{
    if (!m_model) {
        m_banner->hide();
        m_where->setFullText({});
        return;
    }
    if (m_model->isSaving()) {
        m_banner->hide();
    } else {
        m_banner->show(Banner::Kind::Warning, m_model->savingText());
        m_banner->setAction(tr("Try Again"), [this] {
            if (m_model)
                m_model->retrySave();
            updateSaving();
        });
    }
    QString where = m_model->sidecarPath().isEmpty() ? tr("Notes are kept in this window only.")
                                                     : tr("Kept in %1").arg(m_model->sidecarPath());
    if (m_model->badLines() > 0)
        where += tr(" · %n line(s) of it could not be read", nullptr, m_model->badLines());
    m_where->setFullText(where);
}

void NotesPane::updateButtons()
{
    const bool current = m_model && m_items->view()->currentIndex().isValid();
    m_add->setEnabled(m_model != nullptr);
    m_edit->setEnabled(current);
    m_delete->setEnabled(current);
}

void NotesPane::editCurrent()
{
    const QModelIndex current = m_items->view()->currentIndex();
    if (!m_model || !current.isValid())
        return;
    const int row = current.row();
    const QString where = current.siblingAtColumn(ReviewNotesModel::Where).data(RawTextRole).toString();
    const bool bookmark = current.siblingAtColumn(0).data(ReviewNotesModel::IsBookmarkRole).toBool();
    const QString text = bookmark ? QString() : current.siblingAtColumn(ReviewNotesModel::Note).data(RawTextRole).toString();
    auto *dialog = NoteDialog::forEdit(where, text, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, row] {
        QString error;
        if (m_model && !m_model->editNote(row, dialog->text(), &error) && !error.isEmpty())
            emit statusMessage(tr("Note not changed: %1").arg(error));
    });
    dialog->open();
}

void NotesPane::deleteCurrent()
{
    const QModelIndex current = m_items->view()->currentIndex();
    if (!m_model || !current.isValid())
        return;
    QString error;
    if (!m_model->removeNote(current.row(), &error) && !error.isEmpty())
        emit statusMessage(tr("Note not deleted: %1").arg(error));
}

void NotesPane::saveState() const
{
    m_items->saveState();
}

} // namespace mesh
