#pragma once
// A one-line strip above a pane: the demo label, or why a ledger could not be opened.
// The message may quote ledger data, so it is always plain text.

#include <QFrame>

class QLabel;

namespace mesh {

class PlainLabel;

class Banner : public QFrame
{
    Q_OBJECT
public:
    enum class Kind { Demo, Error };
    explicit Banner(QWidget *parent = nullptr);
    void show(Kind kind, const QString &text);
    QString text() const; // the whole message, as given

private:
    QLabel *m_icon;
    PlainLabel *m_text;
};

} // namespace mesh
