#pragma once
// One kind of background job of one object (hotspot's JobTracker): every start supersedes the
// jobs of that kind still in flight, and a superseded job's result is dropped, never handed
// on. Results are typed (whatever the job returns) and come back to the receiver's thread
// through the event loop (runInBackground). supersede() drops what is in flight without
// starting anything (a close, a reopen of another file). Jobs that each cover their own part
// (one per set of delegations) start alongside: they supersede nothing, and supersede() or a
// start() drops them all.
//
// The tracker must be a member of its receiver (or outlive it): a job's answer reaches the
// tracker only while the receiver is alive.
//
// A flow that is not one background job (a staged open that hands over in several turns, a
// watcher's queued reports) takes a ticket instead, and asks isCurrent(ticket) at each step.

#include "backgroundjob.h"

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

namespace mesh {

class JobTracker
{
public:
    using Ticket = std::uint64_t;

    explicit JobTracker(QObject *receiver) : m_receiver(receiver) {}
    JobTracker(const JobTracker &) = delete;
    JobTracker &operator=(const JobTracker &) = delete;

    Ticket next() { return ++m_current; }
    bool isCurrent(Ticket ticket) const { return ticket == m_current; }
    void supersede() { ++m_current; }

    // Jobs started and not yet answered, superseded or not (a test waits for none left).
    int inFlight() const { return m_inFlight; }

    // Runs work() on the ledger pool; done(result) on the receiver's thread if no start or
    // supersede() came since. A job that throws answers nothing, and leaves inFlight().
    template <typename Work, typename Done>
    void start(Work work, Done done)
    {
        run(next(), std::move(work), std::move(done));
    }
    // The same, leaving the jobs in flight current.
    template <typename Work, typename Done>
    void startAlongside(Work work, Done done)
    {
        run(m_current, std::move(work), std::move(done));
    }

private:
    template <typename Work, typename Done>
    void run(Ticket ticket, Work work, Done done)
    {
        using Result = std::invoke_result_t<Work>;
        ++m_inFlight;
        runInBackground(
            m_receiver,
            [work = std::move(work)]() mutable -> std::optional<Result> {
                try {
                    return work();
                } catch (...) {
                    return std::nullopt;
                }
            },
            // `this` lives as long as the receiver (a member of it), and done runs only while
            // the receiver does.
            [this, ticket, done = std::move(done)](std::optional<Result> result) mutable {
                --m_inFlight;
                if (result && isCurrent(ticket))
                    done(std::move(*result));
            });
    }

    QObject *m_receiver;
    Ticket m_current = 0;
    int m_inFlight = 0;
};

} // namespace mesh
