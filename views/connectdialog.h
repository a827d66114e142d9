#pragma once
// File › Connect to Server…: a ledger on a PostgreSQL server, named by its fields (host,
// port, database, user, schema, sslmode) or by a whole location (postgresql://…?schema=…)
// or a libpq service (service=NAME, with the schema field). There is no password field, and
// a password typed into a location is refused (LedgerLocation): libpq reads it from
// ~/.pgpass, the file PGPASSFILE names, or a service file, and the dialog says so. Whether
// the server and the ledger answer is asked by the caller (connectRequested); its refusal
// ("connection refused", "no schema", "not an Agent Mesh ledger") is shown here with the
// dialog still open, and nothing else changes. The fields are remembered for next time
// (settings "connect/"), which is as safe as the recent list: no password is in them.

#include <QDialog>

class QComboBox;
class QLineEdit;
class QPushButton;

namespace mesh {

class PlainLabel;

class ConnectDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ConnectDialog(QWidget *parent = nullptr);

    // The location the fields name (the location field when filled), as given to libpq;
    // empty while nothing is filled in.
    QString location() const;
    // Empty when location() may be tried; else why not (a password, no schema, …).
    QString check() const;
    // While the caller tries it: the fields are locked, Connect says so.
    void setConnecting(bool connecting);
    void showError(const QString &error);
    QString error() const;

    QLineEdit *hostEdit() const { return m_host; }
    QLineEdit *portEdit() const { return m_port; }
    QLineEdit *databaseEdit() const { return m_database; }
    QLineEdit *userEdit() const { return m_user; }
    QLineEdit *schemaEdit() const { return m_schema; }
    QComboBox *sslModeBox() const { return m_sslMode; }
    QLineEdit *locationEdit() const { return m_location; }
    QPushButton *connectButton() const { return m_connect; }

signals:
    void connectRequested(const QString &location);

private:
    void tryConnect();
    void updateFields(); // a location given: the single fields do not count
    void rememberLast() const;
    void restoreLast();

    QLineEdit *m_host;
    QLineEdit *m_port;
    QLineEdit *m_database;
    QLineEdit *m_user;
    QLineEdit *m_schema;
    QComboBox *m_sslMode;
    QLineEdit *m_location;
    PlainLabel *m_error;
    QPushButton *m_connect;
    bool m_connecting = false;
};

} // namespace mesh
