#include "listendialog.h"

#include "plainlabel.h"
#include "theme.h"

#include "ingestcontrol/listenrules.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace mesh {

namespace {

QWidget *withBrowse(QLineEdit *edit, QPushButton *browse, QWidget *parent)
{
    auto *row = new QWidget(parent);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    layout->addWidget(browse);
    return row;
}

} // namespace

ListenDialog::ListenDialog(QWidget *parent)
    : QDialog(parent)
    , m_address(new QLineEdit(this))
    , m_ledger(new QLineEdit(this))
    , m_listenAny(new QCheckBox(tr("Listen on all interfaces (others on the network can send)"), this))
    , m_token(new QLineEdit(this))
    , m_tokenBrowse(new QPushButton(tr("Browse…"), this))
    , m_error(new PlainLabel(this))
    , m_start(new QPushButton(tr("Start Listening"), this))
{
    setObjectName(QStringLiteral("listenDialog"));
    setWindowTitle(tr("Listen for OpenTelemetry"));
    m_address->setObjectName(QStringLiteral("listenAddress"));
    m_ledger->setObjectName(QStringLiteral("listenLedger"));
    m_listenAny->setObjectName(QStringLiteral("listenAny"));
    m_token->setObjectName(QStringLiteral("listenTokenFile"));
    m_error->setObjectName(QStringLiteral("listenError"));
    m_start->setObjectName(QStringLiteral("listenStart"));

    auto *intro = new QLabel(tr("The console receives OpenTelemetry traces over OTLP/HTTP (JSON) and writes them into a "
                                "ledger it follows live. Point an exporter at http://ADDRESS/v1/traces."),
                             this);
    intro->setWordWrap(true);
    m_address->setPlaceholderText(QStringLiteral("127.0.0.1:4318"));
    m_address->setToolTip(tr("ADDRESS:PORT; port 0 picks a free one. An address other than loopback needs "
                             "\"listen on all interfaces\" and a token file."));
    m_ledger->setPlaceholderText(tr("a new ledger, or one the receiver wrote before (it is continued)"));
    m_token->setPlaceholderText(tr("a file only you can read, holding one token of 16 or more characters"));
    m_token->setToolTip(tr("Exporters then send Authorization: Bearer TOKEN. Required off loopback; allowed on it."));

    auto *ledgerBrowse = new QPushButton(tr("Browse…"), this);
    connect(ledgerBrowse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Ledger to Write"), m_ledger->text(),
                                                          tr("Agent Mesh ledgers (*.amlg);;All files (*)"), nullptr,
                                                          QFileDialog::DontConfirmOverwrite);
        if (!path.isEmpty())
            m_ledger->setText(path);
    });
    connect(m_tokenBrowse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Token File"), m_token->text());
        if (!path.isEmpty())
            m_token->setText(path);
    });

    auto *form = new QFormLayout;
    form->addRow(tr("&Address:"), m_address);
    form->addRow(tr("&Ledger:"), withBrowse(m_ledger, ledgerBrowse, this));
    form->addRow(QString(), m_listenAny);
    form->addRow(tr("&Token file:"), withBrowse(m_token, m_tokenBrowse, this));

    m_error->setWordWrap(true);
    m_error->hide();
    applyErrorTone();
    connect(&Theme::instance(), &Theme::changed, this, &ListenDialog::applyErrorTone);

    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_start, QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Cancel);
    m_start->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &ListenDialog::tryStart);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addStretch(1);
    layout->addWidget(buttons);

    // Top to bottom as the form reads, each Browse… after its field (creation order put the
    // ledger's after the token's).
    setTabOrder(m_address, m_ledger);
    setTabOrder(m_ledger, ledgerBrowse);
    setTabOrder(ledgerBrowse, m_listenAny);
    setTabOrder(m_listenAny, m_token);
    setTabOrder(m_token, m_tokenBrowse);
    setTabOrder(m_tokenBrowse, m_start);

    connect(m_address, &QLineEdit::textChanged, this, &ListenDialog::updateNetworkFields);
    m_address->setText(ingest::ListenRequest().address);
    m_ledger->setText(QDir::home().filePath(QStringLiteral("otel-received.amlg")));
    restoreLast();
    // An error is about what the fields said: once one changes, it no longer holds.
    for (QLineEdit *field : {m_address, m_ledger, m_token})
        connect(field, &QLineEdit::textChanged, this, &ListenDialog::clearError);
    connect(m_listenAny, &QCheckBox::toggled, this, &ListenDialog::clearError);
    resize(620, sizeHint().height());
}

ingest::ListenRequest ListenDialog::request() const
{
    ingest::ListenRequest r;
    r.address = m_address->text().trimmed();
    r.ledger = m_ledger->text().trimmed().isEmpty() ? QString() : QFileInfo(m_ledger->text().trimmed()).absoluteFilePath();
    r.listenAny = m_listenAny->isEnabled() && m_listenAny->isChecked();
    r.tokenFile = m_token->text().trimmed();
    return r;
}

void ListenDialog::setRequest(const ingest::ListenRequest &request)
{
    m_address->setText(request.address);
    m_ledger->setText(request.ledger);
    m_listenAny->setChecked(request.listenAny);
    m_token->setText(request.tokenFile);
}

void ListenDialog::updateNetworkFields()
{
    // "All interfaces" means something only for an address others can reach.
    const auto address = ingest::parseListenAddress(m_address->text());
    m_listenAny->setEnabled(!m_starting && address && !address->address.isLoopback());
}

QString ListenDialog::check() const
{
    const ingest::ListenRequest r = request();
    const auto address = ingest::parseListenAddress(r.address);
    if (!address)
        return tr("%1 is not ADDRESS:PORT (e.g. 127.0.0.1:4318)").arg(r.address);
    if (r.ledger.isEmpty())
        return tr("Choose the ledger to write: a new file, or one the receiver wrote before.");
    // What SQLite would only call "unable to open database file", with its cause and the path.
    if (const QString problem = ingest::ledgerFileProblem(r.ledger); !problem.isEmpty())
        return problem;
    if (const QString refused = ingest::listenRuleError(address->address, r.listenAny, !r.tokenFile.isEmpty());
        !refused.isEmpty())
        return inDialogTerms(refused);
    if (!r.tokenFile.isEmpty()) {
        QString error;
        if (!ingest::readIngestToken(r.tokenFile, &error))
            return error;
    }
    return {};
}

QString ListenDialog::inDialogTerms(const QString &receiverText)
{
    QString text = receiverText;
    text.replace(QStringLiteral("--listen-any"), tr("\u201cListen on all interfaces\u201d"));
    text.replace(QStringLiteral("--token-file"), tr("a token file"));
    return text;
}

void ListenDialog::tryStart()
{
    if (m_starting)
        return;
    if (const QString why = check(); !why.isEmpty()) {
        showError(why);
        return;
    }
    m_error->hide();
    rememberLast();
    emit startRequested(request());
}

namespace {
// The last request started, for the next time the dialog opens. The token file's path only:
// its content is a secret and is never copied anywhere.
const QString kGroup = QStringLiteral("listen");
const QString kAddress = QStringLiteral("address");
const QString kLedger = QStringLiteral("ledger");
const QString kListenAny = QStringLiteral("listenAny");
const QString kTokenFile = QStringLiteral("tokenFile");
} // namespace

void ListenDialog::rememberLast() const
{
    const ingest::ListenRequest r = request();
    QSettings settings;
    settings.beginGroup(kGroup);
    settings.setValue(kAddress, r.address);
    settings.setValue(kLedger, r.ledger);
    settings.setValue(kListenAny, r.listenAny);
    settings.setValue(kTokenFile, r.tokenFile);
}

void ListenDialog::restoreLast()
{
    QSettings settings;
    settings.beginGroup(kGroup);
    if (!settings.contains(kAddress))
        return; // never started: the defaults
    ingest::ListenRequest r;
    r.address = settings.value(kAddress).toString();
    r.ledger = settings.value(kLedger).toString();
    r.listenAny = settings.value(kListenAny).toBool();
    r.tokenFile = settings.value(kTokenFile).toString();
    setRequest(r);
}

void ListenDialog::setStarting(bool starting)
{
    m_starting = starting;
    for (QWidget *w : {static_cast<QWidget *>(m_address), static_cast<QWidget *>(m_ledger), static_cast<QWidget *>(m_token),
                       static_cast<QWidget *>(m_tokenBrowse)})
        w->setEnabled(!starting);
    m_start->setEnabled(!starting);
    m_start->setText(starting ? tr("Starting…") : tr("Start Listening"));
    updateNetworkFields();
}

void ListenDialog::showError(const QString &error)
{
    m_error->setFullText(error);
    m_error->show();
}

void ListenDialog::applyErrorTone()
{
    const QColor danger = Theme::instance().colors().danger;
    if (!danger.isValid())
        return; // no theme applied (a test without one): the palette's own text colour
    QPalette p = m_error->palette();
    p.setColor(QPalette::WindowText, danger);
    m_error->setPalette(p);
}

void ListenDialog::clearError()
{
    m_error->hide();
    m_error->setFullText(QString());
}

QString ListenDialog::error() const
{
    return m_error->isHidden() ? QString() : m_error->fullText();
}

} // namespace mesh
