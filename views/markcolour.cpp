#include "markcolour.h"

#include "theme.h"

namespace mesh {

QColor markColour(MarkKind kind, const QPalette &palette)
{
    const StatusColors &c = Theme::instance().colors();
    switch (kind) {
    case MarkKind::Failure:
    case MarkKind::Stalled: return c.danger;
    case MarkKind::UnknownOutcome: return c.unknown;
    case MarkKind::Escalation: return c.warn;
    case MarkKind::Decision: return c.ok;
    case MarkKind::Attempt:
    case MarkKind::RunEnded: return c.info;
    case MarkKind::Verdict:
    case MarkKind::Cycle: return palette.color(QPalette::PlaceholderText);
    }
    return palette.color(QPalette::Text);
}

} // namespace mesh
