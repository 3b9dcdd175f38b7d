-- The 2026-07-28 requestStates already used: a retry claims its state's nonce by inserting it, and
-- only the first insert of a nonce succeeds, whichever replica makes it, so a confirmation runs its
-- call once across every replica sharing the sealing key. A row is needed only until the state
-- lapses (expires); claims delete the lapsed rows as they go.
create table request_states_spent (
  nonce text primary key,
  expires timestamptz not null
);
create index request_states_spent_expires on request_states_spent (expires);
