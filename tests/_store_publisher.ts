/**
 * A child process for the crash and race tests: publishes a spec file to an estate and prints the
 * outcome as one JSON line. Usage: `deno run -A tests/_store_publisher.ts <estate> <spec.json>
 * [<go file>]`. Prints `ready` once the estate is open; with a go file, waits for it to exist
 * before publishing (a barrier, so that two children really race); prints `start` just before.
 */
import { EstateDir } from "../lib/store/mod.ts";
import type { PublishError } from "../mod.ts";

const [dir, specFile, go] = Deno.args;
const estate = EstateDir.open(dir);
const out = (line: string) => Deno.stdout.writeSync(new TextEncoder().encode(line + "\n"));
out("ready");
if (go) {
  while (true) {
    try {
      Deno.statSync(go);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 1));
    }
  }
}
out("start");
try {
  const result = estate.publish(specFile);
  out(JSON.stringify({ status: result.status }));
} catch (e) {
  out(
    JSON.stringify({
      error: (e as Error).name,
      refusal: (e as PublishError).refusal,
      message: (e as Error).message,
    }),
  );
}
