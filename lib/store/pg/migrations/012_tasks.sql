-- Tasks: tools/calls answered with a handle the client polls (MCP tasks, both eras). One row per
-- task; the record (owner, status, timestamps, TTL, result or error, outstanding input requests
-- and answers) is the same JSON a folder estate keeps in .tasks/<id>.json. A change is an update
-- from the revision it was read at, so of two replicas changing one task exactly one wins. Every create
-- and change is announced with pg_notify on channel estate_tasks (the task id), so a replica
-- waiting on a task hears of it at once.
create table tasks (
  id text primary key,
  owner text not null,
  revision integer not null,
  created_at timestamptz not null,
  record jsonb not null
);
create index tasks_owner on tasks (owner, created_at, id);
