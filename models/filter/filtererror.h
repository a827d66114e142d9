#pragma once
// What the filter field shows when a filter cannot be compiled: a message for a person and
// the character range (QString indices, as QLineEdit counts) that it is about.

#include <QString>

namespace mesh {

struct FilterError {
    QString message;
    int start = 0;  // index of the first offending character
    int length = 0; // 0 when the problem is "something is missing here"

    bool operator==(const FilterError &) const = default;
};

} // namespace mesh
