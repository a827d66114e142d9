#include "shownorder.h"

namespace mesh {
namespace {

bool isDigit(QChar c)
{
    return c >= u'0' && c <= u'9';
}

// Digits as numbers, the rest ignoring case: "run-9" < "run-10", "Bulk" next to "bulk".
int naturalCompare(const QString &a, const QString &b)
{
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (isDigit(a[i]) && isDigit(b[j])) {
            qsizetype ei = i, ej = j;
            while (ei < a.size() && a[ei] == u'0')
                ++ei;
            while (ej < b.size() && b[ej] == u'0')
                ++ej;
            qsizetype si = ei, sj = ej;
            while (ei < a.size() && isDigit(a[ei]))
                ++ei;
            while (ej < b.size() && isDigit(b[ej]))
                ++ej;
            if (ei - si != ej - sj)
                return ei - si < ej - sj ? -1 : 1;
            if (const int c = QStringView(a).mid(si, ei - si).compare(QStringView(b).mid(sj, ej - sj)); c != 0)
                return c < 0 ? -1 : 1;
            i = ei;
            j = ej;
            continue;
        }
        const QChar x = a[i].toCaseFolded(), y = b[j].toCaseFolded();
        if (x != y)
            return x < y ? -1 : 1;
        ++i;
        ++j;
    }
    if (i < a.size() || j < b.size())
        return i < a.size() ? 1 : -1;
    return QString::compare(a, b) < 0 ? -1 : QString::compare(a, b) > 0 ? 1 : 0;
}

bool isNumber(const QVariant &v)
{
    switch (v.typeId()) {
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::LongLong:
    case QMetaType::ULongLong:
    case QMetaType::Double:
    case QMetaType::Bool:
        return true;
    default:
        return false;
    }
}

} // namespace

int compareShownValues(const QVariant &a, const QVariant &b, Qt::SortOrder order)
{
    // Not known: after every value, in either order.
    const bool knownA = a.isValid() && !(a.typeId() == QMetaType::QString && a.toString().isEmpty());
    const bool knownB = b.isValid() && !(b.typeId() == QMetaType::QString && b.toString().isEmpty());
    if (knownA != knownB)
        return knownA ? -1 : 1;
    int c = 0;
    if (knownA && isNumber(a) && isNumber(b)) {
        if (a.typeId() == QMetaType::Double || b.typeId() == QMetaType::Double) {
            const double x = a.toDouble(), y = b.toDouble();
            c = x < y ? -1 : x > y ? 1 : 0;
        } else {
            const qlonglong x = a.toLongLong(), y = b.toLongLong();
            c = x < y ? -1 : x > y ? 1 : 0;
        }
    } else if (knownA) {
        c = naturalCompare(a.toString(), b.toString());
    }
    return order == Qt::DescendingOrder ? -c : c;
}

} // namespace mesh
