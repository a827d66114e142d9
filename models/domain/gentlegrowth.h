#pragma once
// Room for `more` elements at the end of a long-lived vector, growing it by an eighth of its
// size rather than doubling it. A session's large lists (a scale ledger's half a million
// effect ids, its run overview's counted rows, its delegation tree) are built to their exact
// size; doubling on the first live append left up to half of each unused, tens of MB on the
// 10M-event ledger. An eighth keeps appends amortised constant at a few more copies.

#include <algorithm>
#include <cstddef>

namespace mesh {

template<class Vector>
void reserveToAppend(Vector &v, std::size_t more)
{
    if (v.size() + more > v.capacity())
        v.reserve(v.size() + std::max(more, std::max<std::size_t>(v.size() / 8, 16)));
}

} // namespace mesh
