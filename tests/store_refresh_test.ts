import assert from "node:assert/strict";
import { EstateDir } from "../lib/store/mod.ts";
import { lookup } from "./_store_fixtures.ts";

Deno.test("EstateDir.refresh() takes in another process's publishes and transitions, with events", async () => {
  await Deno.mkdir(".scratch", { recursive: true });
  const dir = await Deno.makeTempDir({ dir: ".scratch", prefix: "refresh-" });
  try {
    const server = EstateDir.open(dir);
    const writer = EstateDir.open(dir);
    writer.publish(lookup("1.0.0"));
    const events: string[] = [];
    server.registry.subscribe((e) => events.push(`${e.type} ${e.name}@${e.version}`));
    assert.equal(server.refresh(), 1);
    writer.publish(lookup("1.0.1", { title: "Retitled" }));
    writer.deprecate("payments.lookup", "1.0.0", { reason: "superseded" });
    server.refresh();
    server.refresh(); // nothing new: no repeated events
    assert.deepEqual(events, [
      "published payments.lookup@1.0.0",
      "published payments.lookup@1.0.1",
      "deprecated payments.lookup@1.0.0",
    ]);
    assert.equal(server.registry.latest("payments.lookup")?.version, "1.0.1");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("taking a tool's lock removes temporary lock files of dead processes, and keeps live ones", async () => {
  await Deno.mkdir(".scratch", { recursive: true });
  const dir = await Deno.makeTempDir({ dir: ".scratch", prefix: "locktemp-" });
  try {
    const estate = EstateDir.open(dir);
    estate.publish(lookup("1.0.0"));
    const tool = `${dir}/tools/payments.lookup`;
    // A waiter killed between writing its temporary file and linking it (pid 2^22+1 is never
    // a live pid on Linux), and one of a process that is alive (pid 1).
    await Deno.writeTextFile(`${tool}/.lock-4194305-0abc`, "{}");
    await Deno.writeTextFile(`${tool}/.lock-1-0def`, "{}");
    estate.publish(lookup("1.0.1", { title: "Retitled" }));
    const names = [...Deno.readDirSync(tool)].map((e) => e.name).sort();
    assert.deepEqual(names, [
      ".lock-1-0def",
      "1.0.0.json",
      "1.0.1.json",
      "lifecycle.json",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
