-- Idempotency keys of tools/call: a call carrying a key claims it by inserting its row (one
-- insert wins, whichever replica makes it), stores its outcome there before it is answered, and a
-- repeat on any replica is answered from the row instead of running again. A key is per principal
-- and bound to the tool, the version and a digest of the arguments. A row is needed only until it
-- lapses (expires); a claim replaces a lapsed row, and claims delete lapsed rows as they go.
create table idempotency_keys (
  principal text not null,
  key text not null,
  tool text not null,
  version text not null,
  digest text not null,
  owner text not null,
  started_at timestamptz not null,
  expires timestamptz not null,
  outcome jsonb,
  primary key (principal, key)
);
create index idempotency_keys_expires on idempotency_keys (expires);
