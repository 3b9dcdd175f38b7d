-- Pending calls: tools/calls held for a second person's decision (estate.json callApprovals).
-- One row per call; the record (tool, version, caller, the exact arguments and their SHA-256, the
-- rule, when it lapses, the decision) is the same JSON a folder estate keeps in
-- .pending-calls/<id>.json. A decision is an update from the state it was read in, so of two
-- replicas deciding one call exactly one wins.
create table pending_calls (
  id text primary key,
  state text not null,
  created_at timestamptz not null,
  record jsonb not null
);
create index pending_calls_state on pending_calls (state);
