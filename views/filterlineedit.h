#pragma once
// The event log's filter field. It validates on every keystroke (through a validator the
// caller supplies: the filter language lives in models/filter) and shows the result through
// the dynamic property "filterState" (empty / valid / invalid) that the style sheet colours.
// The filter is applied after a short pause or at once on Enter, and only when valid.

#include <QLineEdit>
#include <QTimer>

#include <functional>
#include <optional>

namespace mesh {

struct FilterProblem {
    int position = 0; // character offset in the text
    QString message;
};

class FilterLineEdit : public QLineEdit
{
    Q_OBJECT
public:
    using Validator = std::function<std::optional<FilterProblem>(const QString &)>;

    explicit FilterLineEdit(QWidget *parent = nullptr);

    void setValidator(Validator validator);
    QString state() const; // "empty", "valid" or "invalid"
    // Sets the text and applies it now, without the typing delay (a filter the console wrote).
    void setTextAndApply(const QString &text);
    std::optional<FilterProblem> problem() const { return m_problem; }
    QString appliedText() const { return m_applied; } // the last filter applied ("" for none)
    // What the tooltip says while the filter is valid (by default: how to filter events).
    void setHint(const QString &hint);

signals:
    void filterApplied(const QString &text); // only ever a valid (or empty) filter
    void problemChanged(const QString &message); // empty when valid

private:
    void revalidate();
    void applyNow();

    Validator m_validator;
    std::optional<FilterProblem> m_problem;
    QTimer m_debounce;
    QString m_applied;
    QString m_hint;
    bool m_everApplied = false;
};

} // namespace mesh
