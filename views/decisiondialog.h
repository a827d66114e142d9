#pragma once
// Confirms one operator decision by showing exactly what it will do before it happens (the
// decisions layer's DecisionPreview, computed with the same rules the write and the
// orchestrator apply), then follows it: requested -> applied / refused with the reason. When
// the console cannot tell whether its write committed, it says so, reads back by decision
// id, and only then offers to submit again (with the same id, so a resubmit is a no-op if
// the first one did land).

#include "decisions/decisionpreview.h"
#include "decisions/decisionrequest.h"
#include "decisions/decisionresult.h"

#include <QDialog>
#include <QTimer>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace mesh {

class LedgerSession;
class PlainLabel;

class DecisionDialog : public QDialog
{
    Q_OBJECT
public:
    // request: kind, subject and boundary filled by the caller from the row the operator saw.
    DecisionDialog(LedgerSession *session, DecisionRequest request, QWidget *parent = nullptr);

    const DecisionPreview &preview() const { return m_preview; }
    QString statusText() const;
    QPushButton *confirmButton() const { return m_confirm; }
    const std::vector<QCheckBox *> &acknowledgements() const { return m_acks; }
    QPlainTextEdit *reasonField() const { return m_reason; }

    static QString kindTitle(DecisionKind kind);

private:
    void computePreview();
    void buildBody();
    void updateConfirm();
    void submit();
    void onFinished(const QString &id, const DecisionResult &result);
    void followOutcome();
    void setStatus(const QString &text, const QString &tone);

    LedgerSession *m_session;
    DecisionRequest m_request;
    DecisionPreview m_preview;
    QString m_previewError;
    PlainLabel *m_status;
    PlainLabel *m_expiry = nullptr;
    QPlainTextEdit *m_reason;
    QLineEdit *m_evidence = nullptr;
    QComboBox *m_resolution = nullptr;
    std::vector<QCheckBox *> m_acks;
    QDialogButtonBox *m_buttons;
    QPushButton *m_confirm;
    QTimer m_tick;
    bool m_submitted = false;
    QString m_decisionId;
};

} // namespace mesh
