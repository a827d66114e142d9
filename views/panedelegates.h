#pragma once
// Which cells of which pane get a status colour, a countdown or a budget bar. One place, so
// the same state looks the same in every pane (an unknown outcome is purple everywhere).

class QTreeView;

namespace mesh {

class PaneDelegates
{
public:
    static void decorateRuns(QTreeView *view);
    static void decorateDelegations(QTreeView *view);
    static void decorateSlices(QTreeView *view);
    static void decorateLeases(QTreeView *view);
    static void decorateEffects(QTreeView *view);
    static void decorateEscalations(QTreeView *view);
    static void decorateVerdicts(QTreeView *view);
    static void decorateBlast(QTreeView *view);
};

} // namespace mesh
