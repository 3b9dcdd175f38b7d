-- The estate on PostgreSQL, first schema. Text columns keep each record's bytes exactly as the
-- folder estate writes them (jsonb would reorder keys), so an export round-trips byte for byte.

-- One row per published version; the primary key makes a republish impossible at the database.
-- Rows are never updated or deleted (the trigger below refuses both).
create table tool_versions (
  name text not null,
  version text not null,
  spec text not null,
  published_seq bigserial not null,
  primary key (name, version)
);

-- Lifecycle as events, oldest first per version (active, deprecated, retired).
create table lifecycle_events (
  id bigserial primary key,
  name text not null,
  version text not null,
  entry text not null,
  foreign key (name, version) references tool_versions (name, version)
);
create index lifecycle_events_by_tool on lifecycle_events (name, id);

-- Stored calls, append-only, one stored-call line each; read in id order with a cursor.
create table stored_calls (
  id bigserial primary key,
  name text not null,
  call text not null
);
create index stored_calls_by_tool on stored_calls (name, id);

-- The principals, in order.
create table principals (
  position integer primary key,
  principal text not null
);

-- Server records the estate did not write, by id.
create table servers (
  id text primary key,
  record text not null
);

-- What the gateway observed of upstream servers, append-only.
create table drift (
  id bigserial primary key,
  record text not null
);

create function estate_refuse_change() returns trigger language plpgsql as $$
begin
  raise exception 'estate: % is append-only (% refused)', tg_table_name, tg_op;
end $$;

create trigger tool_versions_immutable before update or delete on tool_versions
  for each row execute function estate_refuse_change();
create trigger lifecycle_events_immutable before update or delete on lifecycle_events
  for each row execute function estate_refuse_change();
create trigger stored_calls_immutable before update or delete on stored_calls
  for each row execute function estate_refuse_change();
create trigger drift_immutable before update or delete on drift
  for each row execute function estate_refuse_change();
