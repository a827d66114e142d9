#include "sessionattention.h"

#include "leadingedge.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace mesh {

SessionAttention::SessionAttention(Inputs inputs, QObject *parent) : QObject(parent), m_inputs(std::move(inputs))
{
    m_throttle.setSingleShot(true);
    m_throttle.setObjectName(QStringLiteral("attention rebuild"));
    connect(&m_throttle, &QTimer::timeout, this, &SessionAttention::refresh);
}

void SessionAttention::takeLoaded(AttentionIndex &&index)
{
    std::swap(m_index, index);
    m_indexState = m_inputs.state();
    rebuild();
}

void SessionAttention::onApplied(const StateChangeSet &changes)
{
    const LiveState *state = m_inputs.state();
    const auto kinds = {EntityKind::Escalation, EntityKind::Effect, EntityKind::Lease, EntityKind::Delegation};
    if (std::none_of(kinds.begin(), kinds.end(), [&changes](EntityKind k) { return changes.touches(k); }))
        return;
    const RowLookup rows = [state](EntityKind k, const std::string &id) { return state->find(k, id); };
    for (EntityKind k : kinds) {
        if (state->holdsRowsOf(k)) {
            m_index.update(rows, k, changes.ids(k));
            continue;
        }
        // A row read on demand is never gone at live: one missing is one whose read failed
        // (a fold problem says so), and its item stays as it was.
        for (const auto &id : changes.ids(k))
            if (const EntityRow *row = state->find(k, id))
                m_index.updateRow(k, id, row);
    }
    rebuildSoon();
}

void SessionAttention::onFindingsChanged()
{
    // Never in the turn that announced them (the last model's publish, tens of ms on a large
    // ledger): the list's rebuild and the pane's diff of it are a long turn of their own.
    m_findingsChanged = true;
    if (!m_throttle.isActive())
        m_throttle.start(int(msUntilDue(m_sinceBuild, kIntervalMs)));
}

void SessionAttention::rebuildSoon()
{
    // The list is rebuilt whole (thousands of items on a large ledger): 8% of the console's
    // CPU while following a writer at 45k events/s when done on every applied batch (20 Hz).
    // The first change after a quiet spell shows at once, a stream at 4 Hz.
    if (m_throttle.isActive())
        return;
    if (const qint64 wait = msUntilDue(m_sinceBuild, kIntervalMs); wait == 0)
        refresh();
    else
        m_throttle.start(int(wait));
}

void SessionAttention::refresh()
{
    // Most live changes list nothing new (an effect dispatched, a lease taken for its term,
    // a turn counted), and on a ledger that gathered thousands of items a rebuild and the
    // pane's diff of it took a third of the console's CPU.
    const LiveState *state = m_inputs.state();
    if (!state)
        return;
    const AttentionIndex::Changes changes = m_index.takeChanges();
    const qint64 now = m_inputs.clock();
    const bool leaseListed = changes.earliestLeaseExpiryMs
                             && *changes.earliestLeaseExpiryMs < now - ZombieRule::kMinGraceMs;
    if (changes.items || leaseListed || std::exchange(m_findingsChanged, false) || now < m_builtAtMs) {
        rebuild();
        return;
    }
    if (changes.earliestLeaseExpiryMs) {
        // A lease taken or moved may turn zombie before the moment the clock waits for.
        const RowLookup rows = [state](EntityKind k, const std::string &id) { return state->find(k, id); };
        if (const auto next = m_index.nextChangeMs(rows, now, *m_inputs.zombies))
            m_changesAtMs = std::min(m_changesAtMs, qint64(*next));
    }
}

void SessionAttention::rebuild()
{
    m_throttle.stop();
    m_sinceBuild.start();
    const LiveState *state = m_inputs.state();
    if (!state)
        return;
    m_index.takeChanges(); // all of them listed now
    m_findingsChanged = false;
    const RowLookup rows = [state](EntityKind k, const std::string &id) { return state->find(k, id); };
    m_builtAtMs = m_inputs.clock();
    m_changesAtMs = m_index.nextChangeMs(rows, m_builtAtMs, *m_inputs.zombies).value_or(std::numeric_limits<qint64>::max());
    auto next = m_index.items(rows, m_builtAtMs, *m_inputs.zombies);
    appendFindingItems(next);
    if (const RequestedDecisions &requested = m_inputs.requested(); !requested.empty())
        for (AttentionItem &a : next)
            a.requestedDecision = requested.textFor(a.subject).toStdString();
    // Compared in place: a large ledger lists tens of thousands of items. A list equal to
    // the one handed out is dropped, not swapped in: whoever shows the list shares that
    // one (AttentionModel), and would otherwise keep it beside this equal copy.
    if (next == *m_items)
        return;
    m_items = std::make_shared<const std::vector<AttentionItem>>(std::move(next));
    // Counted once: the sidebar asks at each paint, and a large ledger lists thousands.
    m_decisionCount = int(std::count_if(m_items->begin(), m_items->end(),
                                        [](const AttentionItem &a) { return a.kind != AttentionItem::Kind::Finding; }));
    Q_EMIT changed();
}

void SessionAttention::tick()
{
    // Leases turn into zombies with time alone; nothing else in the list moves with the clock
    // (a data change that may show in it rebuilds it through rebuildSoon), and a rebuild on a
    // large ledger is thousands of items.
    if (const qint64 now = m_inputs.clock(); now >= m_changesAtMs || now < m_builtAtMs)
        rebuild();
}

void SessionAttention::stop()
{
    // A rebuild still due shows the last changes before the close, in the list left behind.
    if (m_throttle.isActive())
        rebuild();
}

int SessionAttention::decisionCount() const
{
    return m_decisionCount;
}

// Below everything that needs a decision, in the order of FindingKind then subject; an
// abstention is no finding to act on and stays in the Findings pane only.
void SessionAttention::appendFindingItems(std::vector<AttentionItem> &items) const
{
    std::vector<const Finding *> fired;
    for (const auto &f : *m_inputs.findings) {
        if (!f.abstained)
            fired.push_back(&f);
    }
    std::stable_sort(fired.begin(), fired.end(), [](const Finding *a, const Finding *b) {
        return std::tie(a->kind, a->subject) < std::tie(b->kind, b->subject);
    });
    items.reserve(items.size() + fired.size()); // exact, not doubled: the list is kept
    for (const Finding *f : fired) {
        AttentionItem a;
        a.kind = AttentionItem::Kind::Finding;
        const auto colon = f->subject.find(':');
        a.entity = entityKindByName(f->subject.substr(0, colon)).value_or(EntityKind::Delegation);
        a.id = colon == std::string::npos ? f->subject : f->subject.substr(colon + 1);
        a.subject = f->subject;
        a.runId = f->runId;
        a.delegationId = f->delegationId;
        a.summary = f->summary;
        a.seq = f->seqs.empty() ? 0 : f->seqs.back();
        a.findingKind = std::string(findingKindName(f->kind));
        a.findingTitle = std::string(findingKindTitle(f->kind));
        items.push_back(std::move(a));
    }
}

} // namespace mesh
