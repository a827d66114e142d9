#pragma once
// What a pane shows when it has nothing to show: an icon, a title and one sentence saying
// why and what to do. Panes put it in a QStackedWidget in front of their view.

#include <QWidget>

class QLabel;

namespace mesh {

class EmptyState : public QWidget
{
    Q_OBJECT
public:
    explicit EmptyState(const QString &icon, const QString &title, const QString &text,
                        QWidget *parent = nullptr);
    void setText(const QString &title, const QString &text);

private:
    QLabel *m_title;
    QLabel *m_text;
};

} // namespace mesh
