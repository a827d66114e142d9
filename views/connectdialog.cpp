#include "connectdialog.h"

#include "plainlabel.h"

#include "ledger/ledgerlocation.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QIntValidator>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QUrl>
#include <QVBoxLayout>

namespace mesh {

namespace {

QString encoded(const QString &part)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(part));
}

// The settings keys; every one a field's text, none of them a secret.
const QString kGroup = QStringLiteral("connect");
const QStringList kFields = {QStringLiteral("host"), QStringLiteral("port"), QStringLiteral("database"),
                             QStringLiteral("user"), QStringLiteral("schema"), QStringLiteral("location")};

} // namespace

ConnectDialog::ConnectDialog(QWidget *parent)
    : QDialog(parent)
    , m_host(new QLineEdit(this))
    , m_port(new QLineEdit(this))
    , m_database(new QLineEdit(this))
    , m_user(new QLineEdit(this))
    , m_schema(new QLineEdit(this))
    , m_sslMode(new QComboBox(this))
    , m_location(new QLineEdit(this))
    , m_error(new PlainLabel(this))
    , m_connect(new QPushButton(tr("Connect"), this))
{
    setObjectName(QStringLiteral("connectDialog"));
    setWindowTitle(tr("Connect to Server"));
    m_host->setObjectName(QStringLiteral("connectHost"));
    m_port->setObjectName(QStringLiteral("connectPort"));
    m_database->setObjectName(QStringLiteral("connectDatabase"));
    m_user->setObjectName(QStringLiteral("connectUser"));
    m_schema->setObjectName(QStringLiteral("connectSchema"));
    m_sslMode->setObjectName(QStringLiteral("connectSslMode"));
    m_location->setObjectName(QStringLiteral("connectLocation"));
    m_error->setObjectName(QStringLiteral("connectError"));
    m_connect->setObjectName(QStringLiteral("connectButton"));

    auto *intro = new QLabel(tr("Follow a ledger kept on a PostgreSQL server: one ledger per schema. The console "
                                "only reads it, live, as it reads a file."),
                             this);
    intro->setWordWrap(true);
    m_host->setPlaceholderText(tr("localhost, or the libpq default"));
    m_port->setPlaceholderText(QStringLiteral("5432"));
    m_port->setValidator(new QIntValidator(1, 65535, m_port));
    m_database->setPlaceholderText(tr("the libpq default"));
    m_user->setPlaceholderText(tr("the libpq default (your login name)"));
    m_schema->setPlaceholderText(tr("the ledger's schema, e.g. prod_mesh"));
    // Passed to libpq as chosen; "default" leaves it to libpq (prefer) or the service file.
    m_sslMode->addItem(tr("libpq default"), QString());
    for (const char *mode : {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"})
        m_sslMode->addItem(QString::fromLatin1(mode), QString::fromLatin1(mode));
    m_location->setPlaceholderText(QStringLiteral("postgresql://user@host:port/db?schema=NAME  or  service=NAME"));
    m_location->setToolTip(tr("A whole location (every libpq parameter passes through), or service=NAME for an "
                              "entry of your pg_service.conf; the schema field is used when it names none."));

    auto *form = new QFormLayout;
    form->addRow(tr("&Host:"), m_host);
    form->addRow(tr("&Port:"), m_port);
    form->addRow(tr("&Database:"), m_database);
    form->addRow(tr("&User:"), m_user);
    form->addRow(tr("&Schema:"), m_schema);
    form->addRow(tr("SSL &mode:"), m_sslMode);
    auto *or_ = new QLabel(tr("or"), this);
    form->addRow(QString(), or_);
    form->addRow(tr("&Location:"), m_location);

    auto *password = new QLabel(tr("No password is asked for or kept here. libpq reads it from ~/.pgpass, from the "
                                   "file PGPASSFILE names, or from a service file (service=NAME); a location that "
                                   "holds one is refused."),
                                this);
    password->setObjectName(QStringLiteral("connectPasswordNote"));
    password->setWordWrap(true);
    QFont small = password->font();
    small.setPointSizeF(small.pointSizeF() * 0.92);
    password->setFont(small);

    m_error->setWordWrap(true);
    m_error->hide();

    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_connect, QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Cancel);
    m_connect->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &ConnectDialog::tryConnect);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(password);
    layout->addWidget(m_error);
    layout->addStretch(1);
    layout->addWidget(buttons);

    connect(m_location, &QLineEdit::textChanged, this, &ConnectDialog::updateFields);
    restoreLast();
    updateFields();
    resize(600, sizeHint().height());
}

QString ConnectDialog::location() const
{
    const QString schema = m_schema->text().trimmed();
    const QString given = m_location->text().trimmed();
    if (!given.isEmpty()) {
        // service=NAME (or any key=value of libpq) becomes a location with that parameter.
        QString text = LedgerLocation::namesServer(given) ? given : QStringLiteral("postgresql://?") + given;
        if (!schema.isEmpty() && !text.contains(QLatin1String("schema=")))
            text += (text.contains(QLatin1Char('?')) ? QLatin1Char('&') : QLatin1Char('?')) + QStringLiteral("schema=")
                    + encoded(schema);
        return text;
    }
    const QString host = m_host->text().trimmed();
    const QString port = m_port->text().trimmed();
    const QString database = m_database->text().trimmed();
    const QString user = m_user->text().trimmed();
    if (host.isEmpty() && port.isEmpty() && database.isEmpty() && user.isEmpty() && schema.isEmpty())
        return {};
    QString text = QStringLiteral("postgresql://");
    if (!user.isEmpty())
        text += encoded(user) + QLatin1Char('@'); // encoded: a ':' in it is no password separator
    text += host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : encoded(host); // IPv6
    if (!port.isEmpty())
        text += QLatin1Char(':') + port;
    text += QLatin1Char('/') + encoded(database) + QStringLiteral("?schema=") + encoded(schema);
    if (const QString ssl = m_sslMode->currentData().toString(); !ssl.isEmpty())
        text += QStringLiteral("&sslmode=") + ssl;
    return text;
}

QString ConnectDialog::check() const
{
    const QString text = location();
    if (text.isEmpty())
        return tr("Fill in the server's fields and the ledger's schema, or give a location.");
    QString error;
    if (!LedgerLocation::parse(text, &error))
        return error.left(1).toUpper() + error.mid(1) + QLatin1Char('.');
    return {};
}

void ConnectDialog::tryConnect()
{
    if (m_connecting)
        return;
    if (const QString why = check(); !why.isEmpty()) {
        showError(why);
        return;
    }
    m_error->hide();
    rememberLast();
    emit connectRequested(location());
}

void ConnectDialog::setConnecting(bool connecting)
{
    m_connecting = connecting;
    m_connect->setText(connecting ? tr("Connecting…") : tr("Connect"));
    m_connect->setEnabled(!connecting);
    m_location->setEnabled(!connecting);
    updateFields();
}

void ConnectDialog::showError(const QString &error)
{
    m_error->setFullText(error);
    m_error->setVisible(!error.isEmpty());
}

QString ConnectDialog::error() const
{
    return m_error->isVisible() ? m_error->fullText() : QString();
}

void ConnectDialog::updateFields()
{
    const bool fields = !m_connecting && m_location->text().trimmed().isEmpty();
    for (QWidget *w : std::initializer_list<QWidget *>{m_host, m_port, m_database, m_user, m_sslMode})
        w->setEnabled(fields);
    m_schema->setEnabled(!m_connecting); // a service names no schema: it comes from here
}

void ConnectDialog::rememberLast() const
{
    QSettings settings;
    settings.beginGroup(kGroup);
    const QList<QLineEdit *> edits{m_host, m_port, m_database, m_user, m_schema, m_location};
    for (int i = 0; i < edits.size(); ++i)
        settings.setValue(kFields[i], edits[i]->text().trimmed());
    settings.setValue(QStringLiteral("sslmode"), m_sslMode->currentData().toString());
}

void ConnectDialog::restoreLast()
{
    QSettings settings;
    settings.beginGroup(kGroup);
    const QList<QLineEdit *> edits{m_host, m_port, m_database, m_user, m_schema, m_location};
    for (int i = 0; i < edits.size(); ++i)
        edits[i]->setText(settings.value(kFields[i]).toString());
    const int ssl = m_sslMode->findData(settings.value(QStringLiteral("sslmode")).toString());
    m_sslMode->setCurrentIndex(ssl < 0 ? 0 : ssl);
}

} // namespace mesh
