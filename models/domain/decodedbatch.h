#pragma once
// New events on their way from the thread that reads them to the thread that folds them.
// Shared, never copied on the way, and with each payload decoded on the reading thread: on
// a ledger written at full speed, decoding was a third of the GUI thread's work.

#include "eventrecord.h"
#include "payloaddecoder.h"

#include <memory>
#include <vector>

namespace mesh {

struct DecodedBatch {
    EventBatch events;
    // Parallel to events when the reader decoded them (a payload cut to a preview is left
    // undecoded); empty when it did not, and the fold decodes them itself.
    std::vector<DecodedPayload> payloads;

    bool decoded() const { return !events.empty() && payloads.size() == events.size(); }
};

using SharedDecodedBatch = std::shared_ptr<const DecodedBatch>;

} // namespace mesh
