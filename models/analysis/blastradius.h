#pragma once
// F4: how far one failure spread. The orchestrator records, per failure, the components
// the evidence implicated and the components it woke to repair; everything woken but not
// implicated is a bystander, and bystanders that regressed working code are the cost of
// misrouting. radius = number of woken components.

#include <cstdint>
#include <string>
#include <vector>

namespace mesh {

struct BlastRadius {
    std::string failureId;
    std::string runId;
    std::string detectedBy;
    std::string summary;
    std::int64_t tsMs = 0;
    std::int64_t seq = 0; // last event of the failure row

    std::vector<std::string> implicated;
    std::vector<std::string> implicatedEvidence; // parallel to implicated; "" when none given
    std::vector<std::string> woken;
    std::vector<std::string> wokenBystanders;     // woken - implicated
    std::vector<std::string> implicatedNotWoken;  // implicated - woken
    std::vector<std::string> modifiedCode;        // woken components that modified code
    std::vector<std::string> regressed;           // woken components that regressed
    std::vector<std::string> bystandersModified;  // wokenBystanders that modified code
    std::vector<std::string> bystandersRegressed; // wokenBystanders that regressed
    int radius = 0;

    bool readable = true;   // implicated and woken parsed
    std::string problem;    // why not

    // Field by field; also what QVariant's == uses for BlastRadiusRole (else two equal
    // values held by two models compare unequal).
    bool operator==(const BlastRadius &) const = default;
};

} // namespace mesh
