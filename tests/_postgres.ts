/**
 * A real PostgreSQL for the tests: `initdb` and `pg_ctl` from Debian's packages, in a temporary
 * folder, on 127.0.0.1 and a free port, run as the `postgres` user when the tests run as root
 * (PostgreSQL refuses root), and stopped by `stop()`. Where the binaries are absent,
 * {@linkcode postgresSkipReason} says so and the tests are ignored with that reason.
 */
import postgres from "postgres";

/** Where Debian's PostgreSQL 15 puts its binaries; `ESTATE_PG_BIN` overrides it. */
export const PG_BIN: string = Deno.env.get("ESTATE_PG_BIN") ?? "/usr/lib/postgresql/15/bin";

/** A running PostgreSQL started by {@linkcode startPostgres}. */
export interface TestPostgres {
  /** The port on 127.0.0.1. */
  port: number;
  /** A URL of the `postgres` database (superuser `estate`, trust authentication). */
  url: string;
  /** Makes a fresh database and returns its URL. */
  createDatabase(): Promise<string>;
  /**
   * Restarts the server on the same port (fast shutdown: open connections are cut), after
   * `downMs` milliseconds down.
   */
  restart(options?: { downMs?: number }): Promise<void>;
  /** Stops the server (fast shutdown) and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Why PostgreSQL cannot run here, or undefined when it can.
 *
 * @returns The reason, naming the missing binary.
 */
export function postgresSkipReason(): string | undefined {
  for (const bin of ["initdb", "pg_ctl"]) {
    try {
      Deno.statSync(`${PG_BIN}/${bin}`);
    } catch {
      return `no PostgreSQL server binaries: ${PG_BIN}/${bin} is absent (apt-get install postgresql)`;
    }
  }
  return undefined;
}

function isRoot(): boolean {
  return Deno.uid?.() === 0;
}

async function run(args: string[]): Promise<void> {
  const [cmd, ...rest] = isRoot() ? ["runuser", "-u", "postgres", "--", ...args] : args;
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
 * Starts a PostgreSQL in a new temporary folder.
 *
 * @returns The running server; call `stop()` when done.
 * @throws {Error} When the binaries are absent or the server does not start (with its output).
 */
export async function startPostgres(): Promise<TestPostgres> {
  const reason = postgresSkipReason();
  if (reason) throw new Error(reason);
  const dir = await Deno.makeTempDir({ prefix: "estate-pg-" });
  if (isRoot()) {
    const out = await new Deno.Command("chown", { args: ["postgres", dir] }).output();
    if (!out.success) throw new Error(`chown postgres ${dir} failed`);
  }
  const data = `${dir}/data`;
  await run([`${PG_BIN}/initdb`, "-D", data, "-A", "trust", "-U", "estate", "-E", "UTF8"]);
  let port = 0;
  const start = () =>
    run([
      `${PG_BIN}/pg_ctl`,
      "-D",
      data,
      "-w",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      "-l",
      `${dir}/log`,
      "start",
    ]);
  for (let attempt = 0;; attempt++) {
    port = freePort();
    try {
      await start();
      break;
    } catch (e) {
      if (attempt >= 2) throw e;
    }
  }
  const url = `postgres://estate@127.0.0.1:${port}/postgres`;
  let n = 0;
  let stopped = false;
  return {
    port,
    url,
    async createDatabase() {
      const name = `estate_${++n}`;
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`create database ${name}`);
      } finally {
        await sql.end();
      }
      return `postgres://estate@127.0.0.1:${port}/${name}`;
    },
    async restart(options = {}) {
      await run([`${PG_BIN}/pg_ctl`, "-D", data, "-m", "fast", "-w", "stop"]);
      await new Promise((r) => setTimeout(r, options.downMs ?? 0));
      await start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await run([`${PG_BIN}/pg_ctl`, "-D", data, "-m", "fast", "-w", "stop"]);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  };
}
