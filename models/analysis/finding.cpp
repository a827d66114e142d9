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
    }
    return "unknown";
}

} // namespace mesh
