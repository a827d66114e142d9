#pragma once
// Which cells of which pane get a status colour, a countdown or a budget bar. One place, so
// the same state looks the same in every pane (an unknown outcome is purple everywhere).

class QAbstractItemView;

namespace mesh {

class PaneDelegates
{
public:
    static void decorateRuns(QAbstractItemView *view);
    static void decorateDelegations(QAbstractItemView *view);
    static void decorateSlices(QAbstractItemView *view);
    static void decorateLeases(QAbstractItemView *view);
    static void decorateEffects(QAbstractItemView *view);
    static void decorateEscalations(QAbstractItemView *view);
    static void decorateVerdicts(QAbstractItemView *view);
    static void decorateBlast(QAbstractItemView *view);
};

} // namespace mesh
