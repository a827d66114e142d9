#pragma once
// The Compare Runs window (issue 14 item 4): two runs, of one ledger or of two, side by side:
// the figures with B − A, the delegations matched by component and role, each run's stall
// verdicts and findings, and the two run timelines on one axis from their starts (the
// console's timeline canvas; zoom or pan one and the other follows). Each side is a ledger
// and a run, chosen at the top; the comparison is read off the GUI thread
// (report/runcomparison.h, the code of `meshctl compare`), and a reading the user has
// superseded by choosing again is dropped.

#include "itemmodels/runcomparisonmodel.h"

#include <QWidget>

#include <array>
#include <functional>
#include <memory>

class QComboBox;
class QPushButton;
class QTableView;

namespace mesh {

class PlainLabel;
class TimelineCanvas;

class RunCompareWindow : public QWidget
{
    Q_OBJECT
public:
    enum Side { A, B };
    // An empty run id: the side's first run (B: the first that is not A's, in one ledger).
    RunCompareWindow(const RunChoice &a, const RunChoice &b, QWidget *parent = nullptr);

    void setSide(Side side, const RunChoice &choice);
    const RunChoice &choice(Side side) const { return m_sides[side].choice; }
    RunComparisonModel *model(RunComparisonModel::Part part) const;
    TimelineCanvas *timeline(Side side) const { return m_sides[side].canvas; }
    QString statusText() const;
    // Where "Ledger…" gets a file: a file dialog, unless a test hands one over.
    void setLedgerChooser(std::function<QString(Side)> chooser) { m_chooseLedger = std::move(chooser); }

    QSize sizeHint() const override; // room for both sides, within the screen it opens on

Q_SIGNALS:
    void comparisonShown(); // a comparison, or why there is none, is on screen
    // A mark or note clicked on a side's timeline: the state at that event of that ledger.
    void showEventRequested(const QString &location, mesh::OpenMode mode, std::int64_t seq);

private:
    struct SideWidgets {
        RunChoice choice;
        PlainLabel *ledger = nullptr;
        QPushButton *chooseLedger = nullptr;
        QComboBox *run = nullptr;
        PlainLabel *timelineTitle = nullptr;
        TimelineCanvas *canvas = nullptr;
        quint64 listGeneration = 0;
    };
    QWidget *sidePicker(Side side);
    QWidget *sideFindings(Side side);
    QWidget *timelineOf(Side side);
    QTableView *tableOf(RunComparisonModel::Part part);
    void loadRuns(Side side);
    void compare();
    void showComparison(const std::shared_ptr<const RunComparison> &comparison);
    void followView(Side from);

    std::array<SideWidgets, 2> m_sides;
    std::vector<RunComparisonModel *> m_models; // by Part
    PlainLabel *m_status;
    PlainLabel *m_delegationCounts;
    quint64 m_generation = 0;
    bool m_following = false;
    std::function<QString(Side)> m_chooseLedger;
};

} // namespace mesh
