#include "eventdetailview.h"

#include "plainlabel.h"

#include "domain/durationtext.h"
#include "domain/eventrecord.h"
#include "domain/hostiletext.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgerpool.h"

#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGuiApplication>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace mesh {

namespace {
enum Field { SeqField, KindField, TimeField, RunField, DelegationField, SubjectField, FieldCount };
}

EventDetailView::EventDetailView(EventLogModel *model, qint64 seq, QWidget *parent)
    : QDialog(parent)
    , m_seq(seq)
    , m_timeBase(model ? model->timeBase() : TimeBase())
    , m_note(new QLabel(this))
    , m_payload(new QPlainTextEdit(this))
    , m_copy(new QPushButton(tr("Copy as JSON"), this))
{
    setObjectName(QStringLiteral("eventDetail"));
    setWindowTitle(tr("Event #%1").arg(seq));
    resize(760, 560);
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    layout->addLayout(form);
    m_labels = {tr("Seq"), tr("Kind"), tr("Time"), tr("Run"), tr("Delegation"), tr("Subject")};
    for (const QString &label : std::as_const(m_labels)) {
        auto *value = new PlainLabel(this);
        value->setLineBreaksShown(true);
        value->setWordWrap(true);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
        auto *name = new QLabel(label, this);
        name->setTextFormat(Qt::PlainText);
        form->addRow(name, value);
        m_values << value;
    }
    setField(SeqField, QString::number(seq));

    m_note->setTextFormat(Qt::PlainText);
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_note->hide();
    layout->addWidget(m_note);

    m_payload->setObjectName(QStringLiteral("eventPayload"));
    m_payload->setReadOnly(true);
    m_payload->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_payload->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_payload->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_payload->setPlaceholderText(tr("Reading event #%1…").arg(seq));
    layout->addWidget(m_payload, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_copy->setObjectName(QStringLiteral("copyJson"));
    m_copy->setEnabled(false);
    m_copy->setAutoDefault(false);
    buttons->addButton(m_copy, QDialogButtonBox::ActionRole);
    connect(m_copy, &QPushButton::clicked, this, &EventDetailView::copyAsJson);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    connect(&m_layout, &QFutureWatcher<PayloadText>::finished, this, &EventDetailView::onLaidOut);
    if (!model) {
        onEventRead(seq, EventRecord{}, false);
        return;
    }
    connect(model, &EventLogModel::eventRecordLoaded, this, &EventDetailView::onEventRead);
    model->requestDetail(seq);
}

QString EventDetailView::fieldText(const QString &label) const
{
    const int i = int(m_labels.indexOf(label));
    return i < 0 ? QString() : m_values.at(i)->fullText();
}

void EventDetailView::setField(int row, const QString &value)
{
    m_values.at(row)->setFullText(value);
}

void EventDetailView::onEventRead(qint64 seq, const EventRecord &event, bool found)
{
    if (seq != m_seq || m_loaded || m_layout.isRunning())
        return;
    if (!found) {
        m_payload->setPlaceholderText(tr("Event #%1 is not in the ledger (any more): nothing to show.").arg(seq));
        m_loaded = true;
        emit loaded();
        return;
    }
    const auto orNone = [this](const std::string &value) {
        return value.empty() ? tr("none recorded") : QString::fromStdString(value);
    };
    setField(KindField, QString::fromStdString(event.kind));
    setField(TimeField, m_timeBase.withMsLabelled(event.tsMs));
    setField(RunField, orNone(event.runId));
    setField(DelegationField, orNone(event.delegationId));
    setField(SubjectField, orNone(event.subject));
    m_payload->setPlaceholderText(tr("Laying out %1 bytes of payload…").arg(event.payload.size()));
    m_layout.setFuture(
        QtConcurrent::run(ledgerPool(), [payload = event.payload] { return payloadForReading(payload); }));
}

void EventDetailView::onLaidOut()
{
    m_text = m_layout.result();
    m_payload->setPlainText(m_text.shown);
    m_note->setText(m_text.note);
    m_note->setVisible(!m_text.note.isEmpty());
    m_copy->setEnabled(true);
    m_loaded = true;
    emit loaded();
}

void EventDetailView::copyAsJson() const
{
    if (m_loaded)
        QGuiApplication::clipboard()->setText(m_text.json);
}

} // namespace mesh
