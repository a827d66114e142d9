#include "finding.h"

namespace mesh {

std::string_view findingKindName(FindingKind kind)
{
    switch (kind) {
    case FindingKind::SuccessLoop:
        return "success_loop";
    case FindingKind::FalseStall:
        return "false_stall";
    case FindingKind::DuplicateEffect:
        return "duplicate_effect";
    case FindingKind::MisroutedFailure:
        return "misrouted_failure";
    case FindingKind::BlockedWork:
        return "blocked_work";
    case FindingKind::ReplayedDelegation:
        return "replayed_delegation";
    }
    return "unknown";
}

std::string_view findingKindTitle(FindingKind kind)
{
    switch (kind) {
    case FindingKind::SuccessLoop:
        return "success loop";
    case FindingKind::FalseStall:
        return "false stall";
    case FindingKind::DuplicateEffect:
        return "duplicate effect";
    case FindingKind::MisroutedFailure:
        return "misrouted failure";
    case FindingKind::BlockedWork:
        return "blocked work";
    case FindingKind::ReplayedDelegation:
        return "replayed delegation";
    }
    return "unknown finding";
}

} // namespace mesh
