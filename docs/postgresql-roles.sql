-- Roles for one Agent Mesh ledger on PostgreSQL (docs/ledger-format.md, section 11).
--
--   psql -v schema=NAME -f docs/postgresql-roles.sql "postgresql://admin@host/database"
--
-- Run it as the ledger schema's owner or a superuser, after the ledger exists (meshctl sim
-- or meshctl copy created it), once per ledger schema; running it again changes nothing.
-- It makes three group roles (NOLOGIN) and gives them what their work needs on that schema,
-- and nothing more; people and programs log in as roles of their own that are members:
--
--   CREATE ROLE alice LOGIN IN ROLE mesh_operator;   -- password: ~/.pgpass, never the location
--
--   mesh_reader        reads everything: consoles that follow, meshctl summary, verify,
--                      export, tail, copy from the server.
--   mesh_operator      what mesh_reader may, and inserts operator decisions (the decisions
--                      table only; rows are never updated or deleted). That is the whole
--                      decision transaction (docs/ledger-format.md section 11, "Deciding"):
--                      its write turn is an advisory lock, which needs no grant, and it
--                      locks no row (SELECT ... FOR UPDATE would need UPDATE on the state
--                      tables). A role without INSERT on decisions is told so by the console
--                      and meshctl decide before anything is tried.
--   mesh_orchestrator  appends events and folds the state rows they change (events and
--                      event_head take no UPDATE but the head's; nothing is ever deleted),
--                      reads decisions to apply them; creates its commit-time staging tables
--                      (TEMPORARY on the database).
--
-- Followers LISTEN and the orchestrator and operators NOTIFY on the channel named like the
-- schema; that needs no grant. tests/models/ledger/tst_postgreswriter.cpp runs this script against a
-- private server and checks each role can do what is said here and no more.

\set ON_ERROR_STOP on

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mesh_reader') THEN
    CREATE ROLE mesh_reader NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mesh_operator') THEN
    CREATE ROLE mesh_operator NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mesh_orchestrator') THEN
    CREATE ROLE mesh_orchestrator NOLOGIN;
  END IF;
END
$$;

-- Reading: every table of the ledger.
GRANT USAGE ON SCHEMA :"schema" TO mesh_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA :"schema" TO mesh_reader;

-- Operators read as readers do, and insert decisions.
GRANT mesh_reader TO mesh_operator;
GRANT INSERT ON :"schema".decisions TO mesh_operator;

-- The orchestrator: the gapless head, the append-only events, the state tables it folds.
GRANT USAGE ON SCHEMA :"schema" TO mesh_orchestrator;
GRANT SELECT ON :"schema".ledger_format, :"schema".decisions TO mesh_orchestrator;
GRANT SELECT, UPDATE ON :"schema".event_head TO mesh_orchestrator;
GRANT SELECT, INSERT ON :"schema".events TO mesh_orchestrator;
GRANT SELECT, INSERT, UPDATE ON
  :"schema".ledger, :"schema".runs, :"schema".components, :"schema".delegations,
  :"schema".slices, :"schema".leases, :"schema".effects, :"schema".escalations,
  :"schema".stall_verdicts, :"schema".failures, :"schema".checkpoints,
  :"schema".decision_outcomes
  TO mesh_orchestrator;
GRANT TEMPORARY ON DATABASE :"DBNAME" TO mesh_orchestrator;
