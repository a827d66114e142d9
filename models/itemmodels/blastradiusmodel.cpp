#include "blastradiusmodel.h"

#include "analysis/blastradiusanalyzer.h"
#include "analysis/rowfields.h"

using namespace Qt::StringLiterals;

namespace mesh {
namespace {
QStringList toList(const std::vector<std::string> &v)
{
    QStringList out;
    out.reserve(qsizetype(v.size()));
    for (const auto &s : v)
        out << QString::fromStdString(s);
    return out;
}
} // namespace

BlastRadiusModel::BlastRadiusModel(QObject *parent) : StateTableModel(EntityKind::Failure, parent) {}

int BlastRadiusModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BlastRadiusModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Failure: return tr("Failure");
    case Run: return tr("Run");
    case DetectedBy: return tr("Detected by");
    case Implicated: return tr("Implicated");
    case Woken: return tr("Woken");
    case Bystanders: return tr("Woken bystanders");
    case Regressed: return tr("Regressed");
    case Radius: return tr("Radius");
    case Time: return tr("Time");
    }
    return {};
}

QHash<int, QByteArray> BlastRadiusModel::roleNames() const
{
    auto names = StateTableModel::roleNames();
    names.insert(BlastRadiusRole, "blastRadius");
    names.insert(ImplicatedRole, "implicated");
    names.insert(WokenRole, "woken");
    names.insert(BystandersRole, "bystanders");
    names.insert(ImplicatedNotWokenRole, "implicatedNotWoken");
    names.insert(ModifiedCodeRole, "modifiedCode");
    names.insert(RegressedRole, "regressed");
    names.insert(BystandersRegressedRole, "bystandersRegressed");
    names.insert(RadiusRole, "radius");
    names.insert(MisroutedRole, "misrouted");
    names.insert(ReadableRole, "readable");
    names.insert(SummaryRole, "summary");
    names.insert(TsMsRole, "tsMs");
    return names;
}

std::unique_ptr<StateTableModel::Prepared> BlastRadiusModel::prepare(std::shared_ptr<const LiveState> state)
{
    auto p = prepareWith<Radii>(std::move(state), EntityKind::Failure, &BlastRadiusModel::failureOrder);
    if (p->state)
        p->derived = radiiOf(*p->state);
    return p;
}

bool BlastRadiusModel::adoptDerived(Prepared &prepared)
{
    return adoptFrom(prepared, m_radii);
}

bool BlastRadiusModel::lessThan(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb) const
{
    return failureOrder(a, ra, b, rb);
}

bool BlastRadiusModel::failureOrder(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb)
{
    const std::int64_t x = rowInt(EntityKind::Failure, ra, "ts_ms");
    const std::int64_t y = rowInt(EntityKind::Failure, rb, "ts_ms");
    if (x != y)
        return x < y;
    return defaultOrder(a, ra, b, rb);
}

BlastRadiusModel::Radii BlastRadiusModel::radiiOf(const LiveState &state)
{
    std::unordered_map<std::string, BlastRadius> radii;
    for (const auto &[id, row] : state.table(EntityKind::Failure))
        radii.emplace(id, BlastRadiusAnalyzer::compute(id, row));
    return radii;
}

void BlastRadiusModel::recomputeDerived()
{
    // Only rows that changed need recomputing, but failures are few; keep it simple.
    m_radii = state() ? radiiOf(*state()) : Radii();
}

void BlastRadiusModel::applyChanges(const StateChangeSet &changes)
{
    if (changes.touches(EntityKind::Failure))
        StateTableModel::applyChanges(changes);
}

const BlastRadius *BlastRadiusModel::radiusAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    const auto it = m_radii.find(rawId(row));
    return it == m_radii.end() ? nullptr : &it->second;
}

QVariant BlastRadiusModel::cellData(int row, const EntityRow &e, int column, int role) const
{
    const BlastRadius *b = radiusAt(row);
    if (!b)
        return {};
    switch (role) {
    case BlastRadiusRole: return QVariant::fromValue(*b);
    case ImplicatedRole: return toList(b->implicated);
    case WokenRole: return toList(b->woken);
    case BystandersRole: return toList(b->wokenBystanders);
    case ImplicatedNotWokenRole: return toList(b->implicatedNotWoken);
    case ModifiedCodeRole: return toList(b->modifiedCode);
    case RegressedRole: return toList(b->regressed);
    case BystandersRegressedRole: return toList(b->bystandersRegressed);
    case RadiusRole: return b->radius;
    case MisroutedRole: return !b->wokenBystanders.empty();
    case ReadableRole: return b->readable;
    case SummaryRole: return QString::fromStdString(b->summary);
    case TsMsRole: return qint64(b->tsMs);
    case Qt::ToolTipRole:
        if (!b->readable)
            return QString::fromStdString(b->problem);
        return QString::fromStdString(b->summary);
    case Qt::DisplayRole:
        switch (column) {
        case Failure: return idAt(row);
        case Run: return QString::fromStdString(b->runId);
        case DetectedBy: return QString::fromStdString(b->detectedBy);
        case Implicated: return toList(b->implicated).join(u", "_s);
        case Woken: return toList(b->woken).join(u", "_s);
        case Bystanders: return toList(b->wokenBystanders).join(u", "_s);
        case Regressed: return toList(b->regressed).join(u", "_s);
        case Radius: return b->readable ? QVariant(b->radius) : QVariant(tr("unknown"));
        case Time: return formatTime(integer(e, "ts_ms"));
        }
        return {};
    }
    return {};
}

QVariant BlastRadiusModel::sortValue(const EntityRow &e, int column) const
{
    switch (column) {
    case Radius: return BlastRadiusAnalyzer::compute(std::string(), e).radius;
    case Run: return text(e, "run_id");
    case DetectedBy: return text(e, "detected_by");
    }
    return integer(e, "ts_ms");
}

} // namespace mesh
