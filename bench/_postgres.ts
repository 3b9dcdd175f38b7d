/**
 * A PostgreSQL for the benchmarks, started as tests/_postgres.ts starts one (Debian's `initdb` and
 * `pg_ctl`, a temporary folder, 127.0.0.1 on a free port, run as `postgres` when run as root) but
 * durable: `fsync` and `synchronous_commit` keep their defaults (on), since the folder store it is
 * compared with fsyncs every write. The test helper turns `fsync` off for speed.
 *
 * @module
 */
import fs from "node:fs";
import postgres from "postgres";

/** A running PostgreSQL started by {@linkcode startPostgres}. */
export interface BenchPostgres {
  /** A URL of the `postgres` database (superuser `estate`, trust authentication). */
  url: string;
  /** Makes a fresh database and returns its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown) and removes its folder. */
  stop(): Promise<void>;
}

/** Where the binaries are: `ESTATE_PG_BIN`, else the newest `/usr/lib/postgresql/N/bin`. */
function pgBin(): string {
  const given = Deno.env.get("ESTATE_PG_BIN");
  if (given) return given;
  const majors = fs.existsSync("/usr/lib/postgresql")
    ? fs.readdirSync("/usr/lib/postgresql").filter((d) => /^\d+$/.test(d)).map(Number)
    : [];
  if (!majors.length) {
    throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql (set ESTATE_PG_BIN)");
  }
  return `/usr/lib/postgresql/${Math.max(...majors)}/bin`;
}

const root = () => Deno.uid?.() === 0;

async function run(args: string[]): Promise<void> {
  const [cmd, ...rest] = root() ? ["runuser", "-u", "postgres", "--", ...args] : args;
  const out = await new Deno.Command(cmd, { args: rest, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
    throw new Error(`${args.join(" ")} failed (${out.code}): ${text}`);
  }
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Starts a durable PostgreSQL in a new temporary folder.
 *
 * @returns The running server; call `stop()` when done.
 * @throws {Error} When the binaries are absent or the server does not start (with its output).
 */
export async function startPostgres(): Promise<BenchPostgres> {
  const bin = pgBin();
  const dir = await Deno.makeTempDir({ prefix: "estate-bench-pg-" });
  if (root()) {
    const out = await new Deno.Command("chown", { args: ["postgres", dir] }).output();
    if (!out.success) throw new Error(`chown postgres ${dir} failed`);
  }
  const data = `${dir}/data`;
  await run([`${bin}/initdb`, "-D", data, "-A", "trust", "-U", "estate", "-E", "UTF8"]);
  let port = 0;
  for (let attempt = 0;; attempt++) {
    port = freePort();
    try {
      await run([
        `${bin}/pg_ctl`,
        "-D",
        data,
        "-w",
        "-o",
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
        "-l",
        `${dir}/log`,
        "start",
      ]);
      break;
    } catch (e) {
      if (attempt >= 2) throw e;
    }
  }
  const url = `postgres://estate@127.0.0.1:${port}/postgres`;
  let n = 0;
  let stopped = false;
  return {
    url,
    async createDatabase() {
      const name = `bench_${++n}`;
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`create database ${name}`);
      } finally {
        await sql.end();
      }
      return `postgres://estate@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await run([`${bin}/pg_ctl`, "-D", data, "-m", "fast", "-w", "stop"]);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  };
}
