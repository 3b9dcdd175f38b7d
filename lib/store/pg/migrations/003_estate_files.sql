-- The estate's settings files, each as one text exactly as the folder holds it (key order,
-- indentation, a final newline or none), so that a folder estate migrated here exports byte for
-- byte: estate.json (the estate's compatibility mode) and rules.json (rule severities and ignores
-- for estate check). No row: no such file.
create table estate_files (
  name text primary key check (name in ('estate.json', 'rules.json')),
  text text not null
);
