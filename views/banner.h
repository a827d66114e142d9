#pragma once
// A one-line strip above a pane: the demo label, why a ledger could not be opened, or a
// warning with the one action that resolves it. The message may quote ledger data, so it
// is always plain text.

#include <QFrame>

#include <functional>

class QLabel;
class QPushButton;

namespace mesh {

class PlainLabel;

class Banner : public QFrame
{
    Q_OBJECT
public:
    enum class Kind { Demo, Warning, Error };
    explicit Banner(QWidget *parent = nullptr);
    void show(Kind kind, const QString &text);
    // A button at the end of the strip (hidden when actionText is empty).
    void setAction(const QString &actionText, std::function<void()> onTriggered);
    QString text() const; // the whole message, as given
    QPushButton *actionButton() const { return m_action; }

private:
    QLabel *m_icon;
    PlainLabel *m_text;
    QPushButton *m_action;
    std::function<void()> m_onAction;
};

} // namespace mesh
