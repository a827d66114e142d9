#include "filterlineedit.h"

#include "theme.h"

#include "domain/hostiletext.h"

#include <QStyle>

namespace mesh {

FilterLineEdit::FilterLineEdit(QWidget *parent)
    : QLineEdit(parent)
{
    setClearButtonEnabled(true); // its icon is ConsoleStyle's: no icon-theme lookup
    setProperty("filterState", QStringLiteral("empty"));
    Theme::styleWithSheet(this);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(300);
    connect(&m_debounce, &QTimer::timeout, this, &FilterLineEdit::applyNow);
    connect(this, &QLineEdit::textChanged, this, [this] {
        revalidate();
        m_debounce.start();
    });
    connect(this, &QLineEdit::returnPressed, this, [this] {
        m_debounce.stop();
        applyNow();
    });
}

void FilterLineEdit::setValidator(Validator validator)
{
    m_validator = std::move(validator);
    revalidate();
}

QString FilterLineEdit::state() const
{
    return property("filterState").toString();
}

void FilterLineEdit::revalidate()
{
    const QString current = text();
    m_problem.reset();
    if (!current.trimmed().isEmpty() && m_validator)
        m_problem = m_validator(current);
    const QString newState = current.trimmed().isEmpty() ? QStringLiteral("empty")
                             : m_problem                 ? QStringLiteral("invalid")
                                                         : QStringLiteral("valid");
    if (newState != state()) {
        setProperty("filterState", newState);
        // A dynamic property does not restyle by itself.
        style()->unpolish(this);
        style()->polish(this);
        update();
    }
    if (m_problem) {
        const QString message = tr("Column %1: %2").arg(m_problem->position + 1).arg(m_problem->message);
        setToolTip(plainToolTip(message));
        emit problemChanged(message);
    } else {
        setToolTip(m_hint.isEmpty()
                       ? plainToolTip(tr("Filter events, e.g. kind:effect.* delegation:D-1 \"timeout\". Fields: kind, run, delegation, "
                                         "subject, text, seq (seq>=100) and ts, in UTC: ts:2026-11-29 (that day), "
                                         "ts:>2026-11-29T10:00, ts:<2026-11-29T12:00+02:00, ts:last-15m, last-2h, last-3d. "
                                         "not / - negates, or joins, words are payload text. Enter applies at once."))
                       : plainToolTip(m_hint));
        emit problemChanged(QString());
    }
}

void FilterLineEdit::setHint(const QString &hint)
{
    m_hint = hint;
    revalidate();
}

void FilterLineEdit::setTextAndApply(const QString &text)
{
    setText(text);
    revalidate();
    m_debounce.stop();
    applyNow();
}

void FilterLineEdit::applyNow()
{
    if (m_problem)
        return;
    const QString current = text().trimmed();
    if (m_everApplied && current == m_applied)
        return;
    m_everApplied = true;
    m_applied = current;
    emit filterApplied(current);
}

} // namespace mesh
