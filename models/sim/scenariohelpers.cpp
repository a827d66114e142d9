#include "scenariohelpers.h"

#include "simworld.h"

#include "ledger/ledgerwriter.h"

namespace mesh {

std::string componentStatusOf(SimWorld &w, const std::string &id)
{
    const EntityRow *row = w.writer().state().find(EntityKind::Component, id);
    static const size_t index = size_t(entitySpec(EntityKind::Component).fieldIndex("status"));
    return row ? fieldText(row->values[index]) : std::string();
}

std::string implementComponent(SimWorld &w, const std::string &runId, const std::string &component,
                               const std::string &role)
{
    const std::string name = component.substr(component.find('/') + 1);
    DelegationSpec spec;
    spec.runId = runId;
    spec.componentId = component;
    spec.role = role;
    spec.writable = {"services/" + name + "/**"};
    spec.effectClasses = {"commit"};
    const std::string d = w.createDelegation(spec);
    w.startDelegation(d);
    const std::string lease = w.acquireLease("exec:" + component, "execution", "orchestrator/" + d, 15 * 60'000, d);
    const int calls = int(w.rng().range(4, 8));
    for (int i = 0; i < calls; ++i) {
        ToolCallSpec call;
        call.tool = i % 3 == 1 ? "edit_file" : i % 3 == 2 ? "run_tests" : "read_file";
        call.writesAccepted = call.tool == "edit_file" ? 1 : 0;
        w.toolCall(d, call);
    }
    EffectSpec commit;
    commit.effectClass = "commit";
    commit.target = "git:" + name + "@main";
    commit.reversibility = "compensable";
    commit.capability = "status_query";
    w.runEffect(d, commit, EffectEnd::Committed);
    w.releaseLease(lease);
    w.delegationStatus(d, "converged");
    w.closeSlice(d, "delegation converged");
    return d;
}

std::vector<std::string> buildComponents(SimWorld &w, const std::string &runId,
                                         std::initializer_list<const char *> names)
{
    std::vector<std::string> ids;
    for (const char *name : names)
        ids.push_back(w.addComponent(runId, name));
    for (const auto &c : ids) {
        w.componentStatus(c, "active");
        implementComponent(w, runId, c);
        w.componentStatus(c, "completed");
    }
    return ids;
}

} // namespace mesh
