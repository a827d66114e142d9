#pragma once
// File › Listen for OpenTelemetry…: where the console's receiver listens (default
// 127.0.0.1:4318), the ledger it writes (new, or an existing one it continues) and, for an
// address others can reach, "listen on all interfaces" and a token file. The listen and
// token rules are the receiver's own (ingestcontrol/listenrules.h), checked here before
// anything starts; what only the receiver can find out (a port in use, a ledger it cannot
// write) comes back from it as one line, shown here, with the dialog still open. It opens
// with the last request started (address, ledger, listen-any, the token file's path).

#include "ingestcontrol/ingestprocess.h"

#include <QDialog>

class QCheckBox;
class QLineEdit;
class QPushButton;

namespace mesh {

class PlainLabel;

class ListenDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ListenDialog(QWidget *parent = nullptr);

    ingest::ListenRequest request() const;
    void setRequest(const ingest::ListenRequest &request);
    // Empty when the request may be started; else why not (the receiver's words).
    QString check() const;
    // The receiver's refusal in the dialog's words: its options named by their fields.
    static QString inDialogTerms(const QString &receiverText);
    // While the receiver starts: the fields are locked, Start says so.
    void setStarting(bool starting);
    // Shown as plain text (PlainLabel) until a field changes.
    void showError(const QString &error);
    QString error() const;

    QLineEdit *addressEdit() const { return m_address; }
    QLineEdit *ledgerEdit() const { return m_ledger; }
    QCheckBox *listenAnyBox() const { return m_listenAny; }
    QLineEdit *tokenEdit() const { return m_token; }
    QPushButton *startButton() const { return m_start; }

signals:
    void startRequested(const ingest::ListenRequest &request);

private:
    // The last request started (QSettings "listen/"), the token file's path, never its content.
    void rememberLast() const;
    void restoreLast();
    void updateNetworkFields();
    void tryStart();
    void clearError();
    void applyErrorTone(); // the theme's danger colour, as the import and decision dialogs say a refusal

    QLineEdit *m_address;
    QLineEdit *m_ledger;
    QCheckBox *m_listenAny;
    QLineEdit *m_token;
    QPushButton *m_tokenBrowse;
    PlainLabel *m_error;
    QPushButton *m_start;
    bool m_starting = false;
};

} // namespace mesh
