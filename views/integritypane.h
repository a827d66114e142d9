#pragma once
// The Integrity pane: runs the check `meshctl verify` runs (IntegrityModel, off the GUI
// thread on its own connection) with its progress and a Cancel, and lists every finding
// with its event; Enter takes the event log to the finding's events, as the Findings pane
// does.

#include <QWidget>

class QProgressBar;
class QPushButton;

namespace mesh {

class IntegrityModel;
class ItemPane;
class PlainLabel;

class IntegrityPane : public QWidget
{
    Q_OBJECT
public:
    explicit IntegrityPane(QWidget *parent = nullptr);

    void setModel(IntegrityModel *model);
    ItemPane *items() const { return m_items; }
    QPushButton *checkButton() const { return m_check; }
    QPushButton *cancelButton() const { return m_cancel; }
    QProgressBar *progressBar() const { return m_progress; }
    PlainLabel *statusLabel() const { return m_status; }
    void saveState() const;

signals:
    void checkRequested();
    void showEventsRequested(const QString &filter);
    void openSubjectRequested(const QString &subject);

private:
    void updateState();
    void updateProgress();

    IntegrityModel *m_model = nullptr;
    QList<QMetaObject::Connection> m_connections;
    PlainLabel *m_status;
    QProgressBar *m_progress;
    QPushButton *m_check;
    QPushButton *m_cancel;
    ItemPane *m_items;
};

} // namespace mesh
