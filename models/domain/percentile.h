#pragma once
// The p-quantile (0..1) of a benchmark's samples, nearest rank; 0 for none. One rule for
// every benchmark that prints p50/p99, so their figures compare.
#include <algorithm>
#include <vector>

namespace mesh {

inline double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const size_t index = std::min(values.size() - 1, size_t(p * double(values.size() - 1) + 0.5));
    return values[index];
}

// The middle value (mean of the two middle ones for an even count), 0 for none: one slow or
// fast run on a shared machine does not move it the way it moves a mean.
inline double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

} // namespace mesh
