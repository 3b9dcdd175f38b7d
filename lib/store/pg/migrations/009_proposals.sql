-- Proposals: drafts awaiting (or past) a second owner's approval before publish. A proposal is
-- named by the SHA-256 of its tool file's exact text; the record (its text, classification,
-- state, approvals, rejection) is the same JSON a folder estate keeps in proposals/<id>.json.
-- Events on a tool's proposals are decided in one transaction holding an advisory lock on the
-- tool, so two owners approving at once, or a proposal racing an approval, are serialized.
create table proposals (
  id text primary key,
  tool text not null,
  version text not null,
  created timestamptz not null,
  record jsonb not null
);
create index proposals_tool on proposals (tool);
