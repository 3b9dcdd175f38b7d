-- The audit log: every governed event as one record of one hash chain (see lib/estate/audit.ts).
-- The record is the same JSON a folder estate keeps as a line of audit.jsonl; seq, at, kind,
-- principal, tool and hash are copied out of it for the filters and the head. An append reads the
-- head, seals its records after it and inserts them in one statement; the primary key refuses a
-- second record at one place, and the writer that lost reads the head again: writers on every
-- replica extend one chain, without a lock or a transaction on the call path.
create table audit_log (
  seq bigint primary key,
  at timestamptz not null,
  kind text not null,
  principal text,
  tool text,
  hash text not null,
  record jsonb not null
);
create index audit_log_tool on audit_log (tool, seq);
create index audit_log_principal on audit_log (principal, seq);
create index audit_log_at on audit_log (at);
-- Signed checkpoints of the log (seq and head hash, Ed25519), oldest first.
create table audit_checkpoints (
  id bigserial primary key,
  seq bigint not null,
  record jsonb not null
);
