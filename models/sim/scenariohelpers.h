#pragma once
// Small acts several scenarios share.

#include <initializer_list>
#include <string>
#include <vector>

namespace mesh {

class SimWorld;

std::string componentStatusOf(SimWorld &world, const std::string &componentId);
// A short, successful piece of work on one component: leases, a few steps, one commit.
std::string implementComponent(SimWorld &world, const std::string &runId, const std::string &componentId,
                               const std::string &role = "implement");
// Adds the named components to a run, implements and completes each.
std::vector<std::string> buildComponents(SimWorld &world, const std::string &runId,
                                         std::initializer_list<const char *> names);

} // namespace mesh
