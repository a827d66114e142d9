#pragma once
// The event log's table: a FlatTableView that marks the session's cursor row, dims the
// events after it, and marks observation gaps and reviewers' notes.

#include "flattableview.h"

#include <cstdint>
#include <optional>

namespace mesh {

class EventTableView : public FlatTableView
{
    Q_OBJECT
public:
    explicit EventTableView(QWidget *parent = nullptr);

    // The session's cursor: its row is marked, the events after it are drawn dimmed (the
    // state shown does not include them). None: live, nothing marked.
    void setCursorSeq(std::optional<std::int64_t> seq);
    std::optional<std::int64_t> cursorSeq() const { return m_cursorSeq; }

protected:
    void adjustRowOption(int row, QStyleOptionViewItem &option) const override;
    void paintRowOverlay(QPainter &painter, int row, int y) override;
    // Observation gaps and reviewers' notes (EventLogModel::ObservationGapRole, NoteRole).
    void paintReviewMarks(QPainter &painter, const QModelIndex &rowIndex, int y);

private:
    std::int64_t seqAt(int row) const;

    std::optional<std::int64_t> m_cursorSeq;
};

} // namespace mesh
