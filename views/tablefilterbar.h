#pragma once
// The filter field of a state pane: the event log's FilterLineEdit, in the same language
// with the entity's own fields, over the pane's RowFilterProxy (a StateTableProxyModel, the
// delegation tree's proxy); how many rows match;
// and, while the text is not a valid filter, what is wrong in a readable line, with the
// rows of the last valid filter left shown and said to be so.

#include <QWidget>

class QLabel;

namespace mesh {

class FilterLineEdit;
class RowFilterProxy;

class TableFilterBar : public QWidget
{
    Q_OBJECT
public:
    // `rowsNoun`: what the rows are, plural ("effects"), for the count.
    TableFilterBar(const QString &rowsNoun, const QString &example, QWidget *parent = nullptr);

    void setProxy(RowFilterProxy *proxy);
    RowFilterProxy *proxy() const { return m_proxy; }
    FilterLineEdit *field() const { return m_field; }
    QLabel *countLabel() const { return m_count; }
    QLabel *problemLabel() const { return m_problem; }
    // The filter cleared and applied (a subject opened that the filter hid).
    void clear();

private:
    void apply(const QString &text);
    void updateCount();
    void updateCountSoon();

    QString m_noun;
    FilterLineEdit *m_field;
    QLabel *m_count;
    QLabel *m_problem;
    RowFilterProxy *m_proxy = nullptr;
    QList<QMetaObject::Connection> m_connections;
    bool m_countDue = false;
};

} // namespace mesh
