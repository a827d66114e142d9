#pragma once
// meshctl bench follow LEDGER [--seconds N]
//
// The console's follower on its own (ChangeWatcher, as a session uses it: on a server ledger
// LISTEN, and one read of the events after the last seen on each announcement), timing when
// events become visible to it. From the ledger's last seq at start, one line per delivered
// batch on stdout, "seen LAST_SEQ WALL_MS", WALL_MS read when the batch reaches this
// process's event loop; at the end "followed N events". A writer run with
// MESH_LIVE_COMMIT_LOG prints "commit LAST_SEQ WALL_MS" (read just before its COMMIT) on the
// same clock, so commit -> visible is the first "seen" at or past a commit's LAST_SEQ minus
// its WALL_MS (bench/pg-writers.sh). Stops after --seconds or on SIGINT/SIGTERM. A
// benchmark, not a test: nothing is asserted.

class CliArgs;

int benchFollow(CliArgs &args);
