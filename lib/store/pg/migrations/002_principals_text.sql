-- The principals as one text, exactly as principals.json holds it (key order, indentation, a
-- final newline or none), so that a folder estate migrated here exports byte for byte. No row:
-- no principals file. The per-principal rows of 001 become that text (in their order) and go.
create table principals_file (
  only_row boolean primary key default true check (only_row),
  text text not null
);

insert into principals_file (text)
  select E'[\n' || string_agg(principal, E',\n' order by position) || E'\n]\n'
  from principals
  having count(*) > 0;

drop table principals;
