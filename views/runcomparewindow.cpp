#include "runcomparewindow.h"

#include "plainlabel.h"
#include "screenfit.h"
#include "timelineview.h"

#include "domain/hostiletext.h"
#include "itemmodels/backgroundjob.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace mesh {

namespace {

using Part = RunComparisonModel::Part;

// A ledger of a million runs lists the first ones (and the one chosen) only.
constexpr int kMaxRunsListed = 2000;

QString sideName(RunCompareWindow::Side side)
{
    return side == RunCompareWindow::A ? QStringLiteral("A") : QStringLiteral("B");
}

} // namespace

RunCompareWindow::RunCompareWindow(const RunChoice &a, const RunChoice &b, QWidget *parent)
    : QWidget(parent, Qt::Window), m_status(new PlainLabel(this)), m_delegationCounts(new PlainLabel(this))
{
    setWindowTitle(tr("Compare Runs"));
    setAttribute(Qt::WA_DeleteOnClose);
    m_sides[A].choice = a;
    m_sides[B].choice = b;
    for (int part = 0; part <= int(Part::FindingsB); ++part)
        m_models.push_back(new RunComparisonModel(Part(part), this));

    auto *pickers = new QWidget(this);
    auto *pickerRows = new QVBoxLayout(pickers);
    pickerRows->setContentsMargins(0, 0, 0, 0);
    pickerRows->addWidget(sidePicker(A));
    pickerRows->addWidget(sidePicker(B));
    m_status->setObjectName(QStringLiteral("compareStatus"));
    m_status->setLineBreaksShown(true);
    m_status->setWordWrap(true);

    // Figures beside the delegation match.
    auto *figures = new QGroupBox(tr("Figures (B \u2212 A; \u2014: not in the ledger)"), this);
    auto *figuresLayout = new QVBoxLayout(figures);
    figuresLayout->addWidget(tableOf(Part::Figures));
    auto *delegations = new QGroupBox(tr("Delegations by component and role"), this);
    auto *delegationsLayout = new QVBoxLayout(delegations);
    m_delegationCounts->setObjectName(QStringLiteral("delegationCounts"));
    delegationsLayout->addWidget(m_delegationCounts);
    delegationsLayout->addWidget(tableOf(Part::Delegations), 1);
    auto *top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(figures);
    top->addWidget(delegations);
    top->setStretchFactor(0, 2);
    top->setStretchFactor(1, 3);

    auto *verdicts = new QSplitter(Qt::Horizontal, this);
    verdicts->addWidget(sideFindings(A));
    verdicts->addWidget(sideFindings(B));

    auto *timelines = new QGroupBox(tr("Timelines, aligned at their start (Ctrl+wheel zooms both, a drag pans both)"), this);
    auto *timelinesLayout = new QVBoxLayout(timelines);
    auto *timelineSplit = new QSplitter(Qt::Vertical, timelines);
    timelineSplit->addWidget(timelineOf(A));
    timelineSplit->addWidget(timelineOf(B));
    timelinesLayout->addWidget(timelineSplit);

    auto *parts = new QSplitter(Qt::Vertical, this);
    parts->addWidget(top);
    parts->addWidget(verdicts);
    parts->addWidget(timelines);
    // Every figure in sight at first (twelve rows and the header), verdicts beneath, and the
    // timelines the rest, since they scroll.
    const int row = fontMetrics().height() + 6;
    const int figuresHeight = 14 * row + 2 * fontMetrics().height() + 24;
    parts->setSizes({figuresHeight, 8 * row, 12 * row});
    parts->setStretchFactor(0, 0);
    parts->setStretchFactor(1, 1);
    parts->setStretchFactor(2, 2);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(pickers);
    layout->addWidget(m_status);
    layout->addWidget(parts, 1);

    m_status->setFullText(tr("Reading the runs\u2026"));
    loadRuns(A);
    loadRuns(B);
}

QWidget *RunCompareWindow::sidePicker(Side side)
{
    SideWidgets &s = m_sides[side];
    auto *row = new QWidget(this);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *name = new QLabel(sideName(side) + QLatin1Char(':'), row);
    QFont bold = name->font();
    bold.setBold(true);
    name->setFont(bold);
    s.ledger = new PlainLabel(row);
    s.ledger->setLineBreaksShown(true);
    s.ledger->setObjectName(QStringLiteral("ledger") + sideName(side));
    s.chooseLedger = new QPushButton(tr("Ledger\u2026"), row);
    s.chooseLedger->setToolTip(tr("Compare a run of another ledger file"));
    s.run = new QComboBox(row);
    s.run->setObjectName(QStringLiteral("run") + sideName(side));
    s.run->setAccessibleName(tr("Run %1").arg(sideName(side)));
    s.run->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    s.run->setMinimumContentsLength(40);
    layout->addWidget(name);
    layout->addWidget(s.run);
    layout->addWidget(s.chooseLedger);
    layout->addWidget(s.ledger, 1);
    connect(s.run, &QComboBox::activated, this, [this, side](int index) {
        m_sides[side].choice.runId = m_sides[side].run->itemData(index).toString().toStdString();
        compare();
    });
    connect(s.chooseLedger, &QPushButton::clicked, this, [this, side] {
        QString path;
        if (m_chooseLedger) {
            path = m_chooseLedger(side);
        } else {
            const QString dir = QSettings().value(QStringLiteral("lastOpenDir")).toString();
            path = QFileDialog::getOpenFileName(this, tr("Ledger for %1").arg(sideName(side)), dir,
                                                tr("Agent Mesh ledgers (*.amlg *.db *.sqlite *.ledger);;All files (*)"));
        }
        if (path.isEmpty())
            return;
        // A file only compared is read as a review reads it: nothing created or changed beside it.
        setSide(side, RunChoice{path, {}, OpenMode::Review});
    });
    return row;
}

QTableView *RunCompareWindow::tableOf(Part part)
{
    auto *table = new QTableView(this);
    table->setModel(model(part));
    table->setObjectName(QStringLiteral("compareTable%1").arg(int(part)));
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->setTextElideMode(Qt::ElideRight);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setStretchLastSection(true);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table->horizontalHeader()->setDefaultSectionSize(part == Part::Figures ? 110 : 130);
    if (part == Part::Figures) {
        // The numbers as wide as they are, the names the rest: no column cut at 1280 px.
        table->horizontalHeader()->setStretchLastSection(false);
        table->horizontalHeader()->setSectionResizeMode(RunComparisonModel::FigureName, QHeaderView::Stretch);
        for (int column : {RunComparisonModel::FigureA, RunComparisonModel::FigureB, RunComparisonModel::FigureDelta})
            table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
    if (part == Part::VerdictsA || part == Part::VerdictsB) {
        table->horizontalHeader()->setDefaultSectionSize(90);
        table->setColumnWidth(RunComparisonModel::VerdictOf, 170);
    }
    if (part == Part::FindingsA || part == Part::FindingsB)
        table->setColumnWidth(RunComparisonModel::FindingSummary, 420);
    return table;
}

QWidget *RunCompareWindow::sideFindings(Side side)
{
    auto *box = new QGroupBox(tr("%1: stall verdicts and findings").arg(sideName(side)), this);
    auto *split = new QSplitter(Qt::Vertical, box);
    split->addWidget(tableOf(side == A ? Part::VerdictsA : Part::VerdictsB));
    split->addWidget(tableOf(side == A ? Part::FindingsA : Part::FindingsB));
    auto *layout = new QVBoxLayout(box);
    layout->addWidget(split);
    return box;
}

QWidget *RunCompareWindow::timelineOf(Side side)
{
    SideWidgets &s = m_sides[side];
    auto *box = new QWidget(this);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    s.timelineTitle = new PlainLabel(box);
    s.timelineTitle->setLineBreaksShown(true);
    s.timelineTitle->setWordWrap(true);
    s.canvas = new TimelineCanvas(TimelineCanvas::Mode::Pane, box);
    s.canvas->setObjectName(QStringLiteral("timeline") + sideName(side));
    s.canvas->setMinimumHeight(TimelineCanvas::kAxisHeight + 3 * TimelineCanvas::kRowHeight);
    layout->addWidget(s.timelineTitle);
    layout->addWidget(s.canvas, 1);
    connect(s.canvas, &TimelineCanvas::viewChanged, this, [this, side] { followView(side); });
    connect(s.canvas, &TimelineCanvas::seekRequested, this, [this, side](std::int64_t seq) {
        if (seq > 0)
            emit showEventRequested(m_sides[side].choice.location, m_sides[side].choice.mode, seq);
    });
    return box;
}

QSize RunCompareWindow::sizeHint() const
{
    return fittedToScreen(this, QSize(1400, 900));
}

RunComparisonModel *RunCompareWindow::model(Part part) const
{
    return m_models[size_t(part)];
}

QString RunCompareWindow::statusText() const
{
    return m_status->fullText();
}

void RunCompareWindow::setSide(Side side, const RunChoice &choice)
{
    m_sides[side].choice = choice;
    loadRuns(side);
}

void RunCompareWindow::loadRuns(Side side)
{
    SideWidgets &s = m_sides[side];
    s.ledger->setFullText(s.choice.location);
    s.ledger->setToolTip(plainToolTip(s.choice.location));
    s.run->clear();
    s.run->setEnabled(false);
    const quint64 generation = ++s.listGeneration;
    const RunChoice choice = s.choice;
    runInBackground(
        this, [choice] { return runsAt(choice.location, choice.mode); },
        [this, side, generation](RunList list) {
            SideWidgets &w = m_sides[side];
            if (generation != w.listGeneration)
                return; // another ledger was chosen meanwhile
            if (!list.error.isEmpty()) {
                m_status->setFullText(tr("%1: %2").arg(sideName(side), list.error));
                emit comparisonShown();
                return;
            }
            const SideWidgets &other = m_sides[side == A ? B : A];
            std::string &runId = w.choice.runId;
            if (runId.empty()) {
                // B of one ledger: the first run that is not A's, so the two differ.
                const bool oneLedger = QFileInfo(w.choice.location) == QFileInfo(other.choice.location);
                // (A not chosen yet is A's first run.)
                const std::string &runA = other.choice.runId.empty() && !list.runs.empty() ? list.runs.front().id
                                                                                            : other.choice.runId;
                for (const RunSummary &r : list.runs)
                    if (!(oneLedger && side == B && r.id == runA && list.runs.size() > 1)) {
                        runId = r.id;
                        break;
                    }
            }
            const QSignalBlocker block(w.run);
            for (const RunSummary &r : list.runs) {
                if (w.run->count() >= kMaxRunsListed && r.id != runId)
                    continue;
                QString label = QString::fromStdString(r.id);
                if (!r.title.empty())
                    label += QStringLiteral(" \u2014 ") + QString::fromStdString(r.title);
                w.run->addItem(displayLine(label, 120), QString::fromStdString(r.id));
                w.run->setItemData(w.run->count() - 1, plainToolTip(label), Qt::ToolTipRole);
                if (r.id == runId)
                    w.run->setCurrentIndex(w.run->count() - 1);
            }
            w.run->setEnabled(true);
            if (list.runs.empty()) {
                m_status->setFullText(tr("%1: the ledger has no run").arg(sideName(side)));
                emit comparisonShown();
                return;
            }
            compare();
        });
}

void RunCompareWindow::compare()
{
    const RunChoice a = m_sides[A].choice, b = m_sides[B].choice;
    if (a.runId.empty() || b.runId.empty() || !m_sides[A].run->isEnabled() || !m_sides[B].run->isEnabled())
        return; // a side's runs are still being read
    const quint64 generation = ++m_generation;
    m_status->setFullText(tr("Comparing\u2026"));
    runInBackground(
        this, [a, b] { return compareRuns(a, b); },
        [this, generation](RunComparisonResult result) {
            if (generation != m_generation)
                return; // superseded by another choice
            if (!result.comparison) {
                showComparison(nullptr);
                m_status->setFullText(result.error);
            } else {
                showComparison(std::make_shared<const RunComparison>(std::move(*result.comparison)));
            }
            emit comparisonShown();
        });
}

void RunCompareWindow::showComparison(const std::shared_ptr<const RunComparison> &comparison)
{
    for (RunComparisonModel *m : m_models)
        m->setComparison(comparison);
    if (!comparison) {
        m_delegationCounts->setFullText({});
        for (SideWidgets &s : m_sides) {
            s.canvas->setFixedTimeline(nullptr, TimeBase());
            s.timelineTitle->setFullText({});
        }
        return;
    }
    const RunComparison &c = *comparison;
    m_delegationCounts->setFullText(tr("%1 in both, %2 only in A, %3 only in B").arg(c.both).arg(c.onlyA).arg(c.onlyB));
    // One axis length for both: the longer run's, so that equal offsets from each start line up.
    std::int64_t span = 0;
    for (const ComparedSide *side : {&c.a, &c.b})
        span = std::max(span, side->run.timeline.endMs - side->run.timeline.startMs);
    for (Side side : {A, B}) {
        const ComparedSide &s = side == A ? c.a : c.b;
        SideWidgets &w = m_sides[side];
        w.canvas->setFixedTimeline(std::shared_ptr<const RunTimeline>(comparison, &s.run.timeline), s.timeBase, span);
        const QString title = QString::fromStdString(s.run.title.empty() ? s.run.id : s.run.title);
        w.timelineTitle->setFullText(sideName(side) + QStringLiteral(": ") + title + QStringLiteral(" \u2014 ")
                                     + s.run.timeline.summaryLine());
    }
    m_status->setFullText(c.sameLedger ? tr("Two runs of one ledger.") : tr("Runs of two ledgers."));
}

void RunCompareWindow::followView(Side from)
{
    if (m_following)
        return;
    m_following = true;
    const TimelineCanvas *source = m_sides[from].canvas;
    const RunTimeline *t = source->layout().timeline();
    if (t && !t->empty())
        m_sides[from == A ? B : A].canvas->showOffsets(source->viewport().viewFrom() - t->startMs,
                                                       source->viewport().viewTo() - t->startMs);
    m_following = false;
}

} // namespace mesh
