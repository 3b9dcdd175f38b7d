/**
 * A real PostgreSQL for the tests: `initdb` and `pg_ctl` from Debian's packages, in a temporary
 * folder, on 127.0.0.1 and a free port, run as the `postgres` user when the tests run as root
 * (PostgreSQL refuses root), and stopped by `stop()`. Where the binaries are absent,
 * {@linkcode postgresSkipReason} says so and the tests are ignored with that reason — except where
 * PostgreSQL is required (`ESTATE_REQUIRE_POSTGRES=1`, or `CI=true`: `.ci/run` installs it): there
 * the tests run and fail, saying what is missing, so CI never skips them silently.
 */
import postgres from "postgres";

/** Where Debian puts PostgreSQL's server binaries, one folder per major version. */
const DEBIAN_PG = "/usr/lib/postgresql";

/**
 * The folder of `initdb` and `pg_ctl`: `ESTATE_PG_BIN` when set (`.ci/run` sets it), else the
 * newest `/usr/lib/postgresql/<major>/bin` that has them, else Debian 12's
 * `/usr/lib/postgresql/15/bin`.
 */
export const PG_BIN: string = Deno.env.get("ESTATE_PG_BIN") ??
  findDebianBin() ??
  `${DEBIAN_PG}/15/bin`;

function findDebianBin(): string | undefined {
  let majors: string[];
  try {
    majors = [...Deno.readDirSync(DEBIAN_PG)].filter((e) => /^\d+$/.test(e.name))
      .map((e) => e.name).sort((a, b) => Number(b) - Number(a));
  } catch {
    return undefined;
  }
  return majors.map((m) => `${DEBIAN_PG}/${m}/bin`).find((bin) => missingBinary(bin) === undefined);
}

function missingBinary(bin: string): string | undefined {
  for (const name of ["initdb", "pg_ctl"]) {
    try {
      Deno.statSync(`${bin}/${name}`);
    } catch {
      return `${bin}/${name}`;
    }
  }
  return undefined;
}

/**
 * Whether the PostgreSQL tests must run here (and fail when they cannot) rather than skip:
 * `ESTATE_REQUIRE_POSTGRES=1`, or `CI=true`.
 *
 * @returns True when required.
 */
export function postgresRequired(): boolean {
  return Deno.env.get("ESTATE_REQUIRE_POSTGRES") === "1" ||
    Deno.env.get("CI") === "true";
}

/** Why PostgreSQL cannot run here, or undefined when it can. */
function missingReason(): string | undefined {
  const missing = missingBinary(PG_BIN);
  return missing &&
    `no PostgreSQL server binaries: ${missing} is absent (apt-get install postgresql, or set ESTATE_PG_BIN)`;
}

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
 * Why the PostgreSQL tests are skipped here, or undefined when they run: the binaries are
 * absent, and PostgreSQL is not required (see {@linkcode postgresRequired}). Where it is required
 * they run, and {@linkcode startPostgres} fails saying what is missing.
 *
 * @returns The reason, naming the missing binary.
 */
export function postgresSkipReason(): string | undefined {
  return postgresRequired() ? undefined : missingReason();
}

function isRoot(): boolean {
  return Deno.uid?.() === 0;
}

async function run(args: string[]): Promise<void> {
  const [cmd, ...rest] = isRoot() ? ["runuser", "-u", "postgres", "--", ...args] : args;
  const out = await new Deno.Command(cmd, {
    args: rest,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr) +
      new TextDecoder().decode(out.stdout);
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
 * @param options `durable`: keep `fsync` on, as a production server has it (benchmarks compare it
 *   with a folder store that fsyncs every write); tests turn it off for speed.
 * @returns The running server; call `stop()` when done.
 * @throws {Error} When the binaries are absent or the server does not start (with its output).
 */
export async function startPostgres(
  options: { durable?: boolean } = {},
): Promise<TestPostgres> {
  const reason = missingReason();
  if (reason) {
    throw new Error(
      postgresRequired()
        ? `${reason}; PostgreSQL is required here (ESTATE_REQUIRE_POSTGRES=1 or CI=true), so the PostgreSQL tests fail instead of skipping`
        : reason,
    );
  }
  const dir = await Deno.makeTempDir({ prefix: "estate-pg-" });
  if (isRoot()) {
    const out = await new Deno.Command("chown", { args: ["postgres", dir] })
      .output();
    if (!out.success) throw new Error(`chown postgres ${dir} failed`);
  }
  const data = `${dir}/data`;
  await run([
    `${PG_BIN}/initdb`,
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "estate",
    "-E",
    "UTF8",
  ]);
  let port = 0;
  const start = () =>
    run([
      `${PG_BIN}/pg_ctl`,
      "-D",
      data,
      "-w",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${options.durable ? "" : " -c fsync=off"}`,
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
