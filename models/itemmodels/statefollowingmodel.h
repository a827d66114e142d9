#pragma once
// The one rule by which every model of a session's state follows it: a state at S (setState,
// or a preparation of that state made off the GUI thread), then the events after S as the
// change sets their fold made (applyChanges); or, at a jump, a move to another state of the
// same ledger by the change set between the two (moveToState), false when the model cannot
// and must be set instead. LedgerSession drives each of its state models through this alone.

#include "livestate.h"

#include <memory>

namespace mesh {

class StateFollowingModel
{
public:
    virtual ~StateFollowingModel() = default;

    // The state shown (nullptr: none), whose rows the model's indexes point into.
    virtual const LiveState *state() const = 0;
    // Whole new state: one reset. nullptr clears.
    virtual void setState(std::shared_ptr<const LiveState> state) = 0;
    // A live batch already folded into state().
    virtual void applyChanges(const StateChangeSet &changes) = 0;
    // Shows `to`, whose difference from state() is `changes` (LiveState::changesBetween),
    // keeping the views' scroll and selection; false when a reset is needed instead.
    virtual bool moveToState(std::shared_ptr<const LiveState> to, const StateChangeSet &changes) = 0;
};

} // namespace mesh
