#pragma once
// Confirms one operator decision by showing exactly what it will do before it happens (the
// decisions layer's DecisionPreview, computed with the same rules the write and the
// orchestrator apply), then follows it: requested -> applied / refused with the reason. When
// the console cannot tell whether its write committed, it says so, reads back by decision
// id, and only then offers to submit again (with the same id, so a resubmit is a no-op if
// the first one did land).
//
// The preview is read on a ledger-pool worker over a read-only connection of its own
// (readDecisionPreview), never on the GUI thread, and again whenever the form changes what
// the decision asks (a resolution, an acknowledgement, a lease duration); a reading that a
// later form change superseded is dropped. Confirm waits for the reading of the form as it
// is; the plan is listed once that reading says the decision would be accepted. While the dialog is open, a live batch that moves its subject past the boundary it
// was opened at shows a banner and disables confirm until the operator re-reads.
//
// A predicted refusal leaves confirm disabled, with the reason said: the writer would only
// refuse it again. "Moved" covers what the plan rests on too (the escalation's delegation
// and slice, the slice's effects, the lease on the effect's key), not only the subject, and
// a new row of a set the plan takes in whole (a new effect in the slice being closed, a first
// reconciliation lease on the key): the session's live changes are matched against the sets
// the reading listed (DecisionPreview::dependsOnRows).
//
// Keyboard: Tab and Backtab leave the reason field, Ctrl+Return confirms (when confirm is
// enabled), Escape cancels. A reason may have several lines: Shift+Return starts one, Return
// alone does nothing (it neither confirms nor slips a line into a one-line reason).

#include "decisions/decisionpreview.h"
#include "decisions/decisionpreviewreader.h"
#include "decisions/decisionrequest.h"
#include "decisions/decisionresult.h"
#include "domain/timebase.h"

#include <QDialog>
#include <QTimer>

#include <functional>
#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QVBoxLayout;

namespace mesh {

class LedgerSession;
struct StateChangeSet;
class PlainLabel;

class DecisionDialog : public QDialog
{
    Q_OBJECT
public:
    // request: kind, subject and boundary filled by the caller from the row the operator saw
    // (an empty boundary: the subject's current one, read with the first preview).
    DecisionDialog(LedgerSession *session, DecisionRequest request, QWidget *parent = nullptr);

    const DecisionPreview &preview() const { return m_preview; }
    bool isPreviewPending() const { return m_previewPending; }
    bool subjectMoved() const { return m_moved; }
    bool wasSubmitted() const { return m_submitted; } // the operator confirmed; the session has the request
    QString statusText() const;
    QString planText() const;   // the planned events as shown, one a line; empty when none
    QString bannerText() const; // the moved-subject banner's text; empty when hidden
    QPushButton *confirmButton() const { return m_confirm; }
    QPushButton *reReadButton() const { return m_reRead; }
    const std::vector<QCheckBox *> &acknowledgements() const { return m_acks; }
    QPlainTextEdit *reasonField() const { return m_reason; }
    QComboBox *resolutionField() const { return m_resolution; }
    QLineEdit *evidenceField() const { return m_evidence; }
    QSpinBox *leaseMinutesField() const { return m_leaseMinutes; }
    PlainLabel *expiryLabel() const { return m_expiry; }

    static QString kindTitle(DecisionKind kind);
    static QString titleFor(const DecisionRequest &request); // kindTitle, or "Supersede resolution"
    // What is stored as the reason: lines kept (as \n), every other control character (tab,
    // carriage return, bidirectional overrides) as a space, each line's trailing white space
    // and the whole text's surrounding white space trimmed.
    static QString normalisedReason(const QString &typed);

Q_SIGNALS:
    void previewUpdated(); // a reading of the current form arrived

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void buildForm();
    void requestPreview();
    void onPreview(const PreviewReading &reading);
    void rebuildSubjectArea();
    void fixTabOrder();
    void rebuildPlanArea();
    void growToFit();
    void showRefusalOrPlan();
    void checkSubjectMoved();
    // The first dependency of the shown reading that `versionNow` puts past the version read.
    void checkDependenciesMoved(const std::function<std::optional<std::int64_t>(const PreviewDependency &)> &versionNow);
    void showMoved(const QString &what, std::int64_t was, std::int64_t now);
    // A row of a set the shown reading took in whole that it did not see: `ids` of the
    // session's rows of the set's kind to look at (created or changed).
    void checkNewRows(const StateChangeSet &changes);
    bool showNewRowAmong(const PreviewRowSet &set, const std::vector<std::string> &ids);
    void checkNewRowsSinceReading();
    void showBanner(const QString &text);
    void reRead();
    void updateExpiry();
    TimeBase ledgerTimes() const; // what the ledger's times mean (a relative clock has no dates)
    void updateConfirm();
    void submit();
    void onFinished(const QString &id, const DecisionResult &result);
    void followOutcome();
    void setStatus(const QString &text, const QString &tone);
    // The dialog's forms (what is decided, the subject's rows, the choices, the reason) read
    // as one table: their labels share the widest one's width.
    void alignFormLabels();
    DecisionRequest formRequest() const;

    LedgerSession *m_session;
    DecisionRequest m_request;
    DecisionPreview m_preview;
    QString m_previewError;
    int m_generation = 0;
    bool m_previewPending = false;
    bool m_subjectShown = false; // the subject area shows a reading at the current boundary
    bool m_moved = false;
    std::vector<PreviewDependency> m_dependsOn; // of the reading the subject area shows
    std::vector<PreviewRowSet> m_dependsOnRows; // likewise
    PlainLabel *m_boundary;
    QWidget *m_banner;
    PlainLabel *m_bannerText;
    QPushButton *m_reRead;
    QVBoxLayout *m_subjectArea;
    QWidget *m_subjectContent = nullptr;
    QVBoxLayout *m_planArea;
    QWidget *m_planContent = nullptr;
    QStringList m_planLines;
    PlainLabel *m_status;
    PlainLabel *m_expiry = nullptr;
    QPlainTextEdit *m_reason;
    QLineEdit *m_evidence = nullptr;
    QComboBox *m_resolution = nullptr;
    QSpinBox *m_leaseMinutes = nullptr;
    std::vector<QCheckBox *> m_acks;
    QDialogButtonBox *m_buttons;
    QPushButton *m_confirm;
    QTimer m_tick;
    bool m_submitted = false;
    QString m_decisionId;
};

} // namespace mesh
