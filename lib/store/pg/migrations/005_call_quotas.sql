-- The call limits' counters (estate.json "limits"): one row per limit, whose count it is (a
-- principal, or the estate) and window, shared by every replica of the estate. A call is counted
-- against each of its counters in one transaction, all or none: a counter at its max refuses the
-- call and gives back what the call took from the counters before it, so the replicas between them
-- never admit more than a limit allows in a window, and a refused call counts nowhere. A row is
-- needed only until its window ends; takes delete ended rows as they go. Unlogged: a count is not
-- the estate's history, and a take commits without waiting for the disk; a database crash (or a
-- failover to a standby) empties the table, so the windows then in progress start afresh.
create unlogged table call_quotas (
  key text primary key,
  n integer not null,
  ends timestamptz not null
);
create index call_quotas_ends on call_quotas (ends);

-- Counts one call against each counter, in order: -1 when all were counted, else the (0-based)
-- index of the first counter at its max, nothing counted.
create function estate_take_quota(keys text[], maxes integer[], ends timestamptz[])
returns integer language plpgsql as $$
declare
  counted integer;
begin
  for i in 1 .. coalesce(array_length(keys, 1), 0) loop
    insert into call_quotas (key, n, ends) values (keys[i], 1, ends[i])
      on conflict (key) do update set n = call_quotas.n + 1
      where call_quotas.n < maxes[i]
      returning n into counted;
    if not found then
      -- The rows this call took are locked by this transaction until it ends: give them back.
      update call_quotas set n = n - 1 where key = any(keys[1:i - 1]);
      return i - 1;
    end if;
  end loop;
  return -1;
end
$$;
