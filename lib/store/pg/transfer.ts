/**
 * Moving an estate between a folder and PostgreSQL: {@linkcode migrateToPostgres} copies a folder
 * estate into an empty database, {@linkcode exportToFolder} writes a database's estate out as a
 * folder. The round trip gives back the folder's estate files byte for byte: version files,
 * server records, `principals.json` and the settings files (`estate.json`, `rules.json`) are kept
 * as their text; `lifecycle.json` is written by the
 * folder store's own formatter from the histories; `calls.jsonl` and `drift.jsonl` keep each
 * line's text; `audit.jsonl` keeps each record (written back as the folder store writes it, its
 * canonical JSON, so its hash chain holds in either place) with `audit-checkpoints.jsonl`. Where a folder file is not in the form an export writes (a hand-edited
 * `lifecycle.json`, CRLF line ends, a torn last line), the migration says so, file by file.
 *
 * Stored calls and drift records are streamed both ways in batches (memory stays flat for
 * millions of calls). Files outside the estate (a `README.md`, dotfiles such as `.gitkeep`) are
 * not copied; the migration lists them.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import { Buffer } from "node:buffer";
import type postgres from "postgres";
import type { TransactionSql } from "postgres";
import type { LifecycleEntry } from "../../estate/lifecycle.ts";
import { ESTATE_FILES, estateFileProblems } from "../../estate/estate_files.ts";
import { CorpusError } from "../corpus_error.ts";
import { EstateDir } from "../estate_dir.ts";
import { parsePrincipals } from "../principals.ts";
import { DRIFT_FILE, readDriftLines } from "../drift_log.ts";
import { readStoredCallLines, type TornLine } from "../read_calls.ts";
import type { RecordLine } from "../_jsonl.ts";
import { formatLifecycle, type Lifecycle } from "../_lifecycle.ts";
import { openNoFollow } from "../_no_follow.ts";
import { loadServerDir, SERVERS_DIR } from "../_server_dir.ts";
import { CALLS_FILE, LIFECYCLE_FILE, loadToolDir } from "../_tool_dir.ts";
import { CHANGE_CHANNEL, type PgEstateStore } from "./pg_store.ts";
import { type AuditRecord, auditRecordText } from "../../estate/audit.ts";
import type { AuditCheckpoint } from "../../estate/audit_checkpoint.ts";
import {
  AUDIT_CHECKPOINTS_FILE,
  AUDIT_FILE,
  AUDIT_LOCK_DIR,
  checkpointLine,
  readAuditLines,
  readCheckpointLines,
} from "../_audit_file.ts";

/** The principals file's name. */
const PRINCIPALS_FILE = "principals.json";
/** The folder of tool folders. */
const TOOLS_DIR = "tools";
/** Rows per insert, and per cursor fetch, by default. */
const DEFAULT_BATCH = 2000;
/** The tables an estate lives in, and what one of their rows is, for the refusal's message. */
const ESTATE_TABLES: [table: string, what: string][] = [
  ["tool_versions", "tool versions"],
  ["lifecycle_events", "lifecycle events"],
  ["stored_calls", "stored calls"],
  ["servers", "server records"],
  ["drift", "drift records"],
  ["principals_file", "principals file"],
  ["estate_files", "settings files"],
];

/** What a transfer copied. */
export interface TransferCounts {
  /** Tools (folders under `tools/`). */
  tools: number;
  /** Published versions. */
  versions: number;
  /** Lifecycle entries, over every version. */
  lifecycleEvents: number;
  /** Stored calls, over every tool. */
  calls: number;
  /** Server records. */
  servers: number;
  /** Drift records. */
  drift: number;
  /** Principals. */
  principals: number;
  /** Audit records (their checkpoints go with them); absent where none are counted. */
  audit?: number;
}

/** An estate file an export will not give back byte for byte, and why. */
export interface TransferNote {
  /** The file, relative to the estate folder (`/`-separated). */
  file: string;
  /** What differs. */
  note: string;
}

/** Options for {@linkcode migrateToPostgres}. */
export interface MigrateOptions {
  /** Stored calls (and drift records) per insert. Default 2000. */
  batchSize?: number;
  /** Told of a torn last line of a `calls.jsonl` or `drift.jsonl`, which is not copied. */
  onTornLine?: (torn: TornLine) => void;
}

/** The outcome of {@linkcode migrateToPostgres}. */
export interface MigrateResult extends TransferCounts {
  /**
   * Torn last lines (appends that never finished, as the folder store reports them): skipped,
   * as every reader of the folder skips them.
   */
  tornLines: TornLine[];
  /** Estate files an export will not give back byte for byte, and why (empty for most estates). */
  changed: TransferNote[];
  /** Files in the folder that are not part of the estate, not copied (`/`-separated, sorted). */
  skipped: string[];
}

/** Options for {@linkcode exportToFolder}. */
export interface ExportOptions {
  /** Rows per cursor fetch. Default 2000. */
  batchSize?: number;
}

/** The outcome of {@linkcode exportToFolder}. */
export interface ExportResult extends TransferCounts {
  /** The files written, relative to the folder (`/`-separated), in the order written. */
  files: string[];
}

/** Nothing copied yet. */
function noCounts(): TransferCounts {
  return {
    tools: 0,
    versions: 0,
    lifecycleEvents: 0,
    calls: 0,
    servers: 0,
    drift: 0,
    principals: 0,
    audit: 0,
  };
}

/** A file's text, exactly: refused when it is not UTF-8 (a byte order mark is kept). */
function readExact(file: string): string {
  const fd = openNoFollow(file, fs.constants.O_RDONLY);
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(
      bytes,
    );
  } catch {
    throw new CorpusError(file, "not valid UTF-8");
  }
}

/** Every file under `dir`, relative and `/`-separated, sorted. */
function walk(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = `${prefix}${e.name}`;
    if (e.isDirectory()) out.push(...walk(path.join(dir, e.name), `${rel}/`));
    else out.push(rel);
  }
  return out.sort();
}

function batchSizeOf(options: { batchSize?: number }): number {
  const n = options.batchSize ?? DEFAULT_BATCH;
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`batchSize must be a positive integer, got ${n}`);
  }
  return n;
}

/**
 * Copies the lines of a JSON Lines file into the database batch by batch, and says how the file
 * differs from what an export writes back (each line's text and a newline).
 */
async function copyLines<T>(
  file: string,
  rel: string,
  lines: Generator<RecordLine<T>>,
  insert: (texts: string[]) => Promise<void>,
  batchSize: number,
  torn: TornLine[],
  changed: TransferNote[],
): Promise<number> {
  const before = torn.length;
  let count = 0, bytes = 0, unterminated = false;
  let batch: string[] = [];
  for (const { text, terminated } of lines) {
    batch.push(text);
    count++;
    bytes += Buffer.byteLength(text) + (terminated ? 1 : 0);
    if (!terminated) unterminated = true;
    if (batch.length >= batchSize) {
      await insert(batch);
      batch = [];
    }
  }
  if (batch.length) await insert(batch);
  const size = fs.statSync(file).size;
  const tornBytes = torn.slice(before).reduce((n, t) => n + t.bytes, 0);
  if (torn.length > before) {
    changed.push({
      file: rel,
      note: `torn last line (${tornBytes} bytes) not copied`,
    });
  }
  if (count === 0) {
    changed.push({
      file: rel,
      note: `${size === 0 ? "empty" : "no whole lines"}; an export writes no file`,
    });
  } else {
    if (unterminated) {
      changed.push({ file: rel, note: "the last line gains its newline" });
    }
    if (bytes + tornBytes !== size) {
      changed.push({
        file: rel,
        note: "CRLF line ends or a byte order mark are not kept",
      });
    }
  }
  return count;
}

/**
 * Copies a folder estate into an empty PostgreSQL estate, in one transaction (a failure leaves
 * the database empty): `principals.json`, the settings files (`estate.json`, `rules.json`, each
 * checked as its readers check it), every server record and every version file as their text, each version's lifecycle history exactly (timestamps, reasons, retire-after dates), every
 * tool's stored calls in file order and the drift log, line by line, in batches. The folder is
 * checked as `EstateDir.open` checks it, and each line as its readers check it. Then the store
 * reloads. Migrate a folder no one is writing to.
 *
 * A torn last line of a `calls.jsonl` or `drift.jsonl` (an append that never finished) is
 * skipped, as the folder's readers skip it, reported to `onTornLine` and listed in the result.
 *
 * @param fromDir The estate folder (e.g. `corpus`).
 * @param store An open store on the database; its tables must hold no estate.
 * @param options Rows per insert, the torn-line report.
 * @returns What was copied, the torn lines skipped, the files an export will not give back byte
 *   for byte (and why), and the files left out as not part of the estate.
 * @throws {Error} When the database already holds an estate, naming what it holds.
 * @throws {CorpusError} Naming the file (and line) of the first estate file that is not valid;
 *   nothing is written.
 *
 * @example
 * ```ts ignore
 * const store = await PgEstateStore.open("postgres://estate@127.0.0.1:5432/estate");
 * const result = await migrateToPostgres("corpus", store);
 * console.log(`${result.versions} versions, ${result.calls} calls`, result.changed);
 * await store.close();
 * ```
 */
export async function migrateToPostgres(
  fromDir: string,
  store: PgEstateStore,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const batchSize = batchSizeOf(options);
  EstateDir.open(fromDir); // checks every version, lifecycle, server record and principals.json
  const torn: TornLine[] = [];
  const onTornLine = (t: TornLine) => {
    torn.push(t);
    options.onTornLine?.(t);
  };
  const changed: TransferNote[] = [];
  const estateFiles = new Set<string>();
  const counts = noCounts();
  await store.sql.begin(async (tx) => {
    await refuseNonEmpty(tx, fromDir);

    const principalsFile = path.join(fromDir, PRINCIPALS_FILE);
    if (fs.existsSync(principalsFile)) {
      const text = readExact(principalsFile);
      counts.principals = parsePrincipals(text, principalsFile).length;
      await tx`insert into principals_file (text) values (${text})`;
      estateFiles.add(PRINCIPALS_FILE);
    }

    for (const name of ESTATE_FILES) {
      const file = path.join(fromDir, name);
      if (!fs.existsSync(file)) continue;
      const text = readExact(file);
      const problems = estateFileProblems(name, text);
      if (problems.length) throw new CorpusError(file, problems.join("; "));
      await tx`insert into estate_files (name, text) values (${name}, ${text})`;
      estateFiles.add(name);
    }

    for (
      const { record, file } of loadServerDir(path.join(fromDir, SERVERS_DIR))
    ) {
      await tx`insert into servers (id, record) values (${record.id}, ${readExact(file)})`;
      estateFiles.add(`${SERVERS_DIR}/${path.basename(file)}`);
      counts.servers++;
    }

    const toolsDir = path.join(fromDir, TOOLS_DIR);
    const names = fs.existsSync(toolsDir)
      ? fs.readdirSync(toolsDir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name).sort()
      : [];
    for (const name of names) {
      const dir = path.join(toolsDir, name);
      const rel = `${TOOLS_DIR}/${name}`;
      const tool = loadToolDir(dir, name);
      const lifecycle: Lifecycle = {};
      for (const v of tool.versions) {
        await tx`insert into tool_versions (name, version, spec)
          values (${name}, ${v.spec.version}, ${readExact(v.file)})`;
        estateFiles.add(`${rel}/${path.basename(v.file)}`);
        for (const entry of v.history) {
          await tx`insert into lifecycle_events (name, version, entry)
            values (${name}, ${v.spec.version}, ${JSON.stringify(entry)})`;
        }
        lifecycle[v.spec.version] = v.history;
        counts.versions++;
        counts.lifecycleEvents += v.history.length;
      }
      const lifecycleFile = path.join(dir, LIFECYCLE_FILE);
      const had = fs.existsSync(lifecycleFile) ? readExact(lifecycleFile) : undefined;
      const written = tool.versions.length ? formatLifecycle(lifecycle) : undefined;
      if (had !== undefined) estateFiles.add(`${rel}/${LIFECYCLE_FILE}`);
      if (had !== written) {
        changed.push({
          file: `${rel}/${LIFECYCLE_FILE}`,
          note: written === undefined
            ? "no versions; an export writes no file"
            : !tool.lifecycleComplete
            ? "a version without a history gains one (active since its file's time), as the folder's next write records"
            : "not in the form the folder store writes (versions ascending, two-space indent, final newline); an export writes that form",
        });
      }
      const callsFile = path.join(dir, CALLS_FILE);
      if (fs.existsSync(callsFile)) {
        estateFiles.add(`${rel}/${CALLS_FILE}`);
        counts.calls += await copyLines(
          callsFile,
          `${rel}/${CALLS_FILE}`,
          readStoredCallLines(callsFile, { onTornLine }),
          async (texts) => {
            const rows = texts.map((call) => ({ name, call }));
            await tx`insert into stored_calls ${tx(rows, "name", "call")}`;
          },
          batchSize,
          torn,
          changed,
        );
      }
      if (tool.versions.length || fs.existsSync(callsFile)) counts.tools++;
    }

    const driftFile = path.join(fromDir, DRIFT_FILE);
    if (fs.existsSync(driftFile)) {
      estateFiles.add(DRIFT_FILE);
      counts.drift = await copyLines(
        driftFile,
        DRIFT_FILE,
        readDriftLines(driftFile, { onTornLine }),
        async (texts) => {
          const rows = texts.map((record) => ({ record }));
          await tx`insert into drift ${tx(rows, "record")}`;
        },
        batchSize,
        torn,
        changed,
      );
    }
    const auditFile = path.join(fromDir, AUDIT_FILE);
    if (fs.existsSync(auditFile)) {
      // One chain: the folder's log is copied only into a database that has none.
      await tx`lock table audit_log, audit_checkpoints in exclusive mode`;
      const [{ n }] = await tx`select count(*)::int as n from audit_log`;
      if (n > 0) {
        const [{ db }] = await tx`select current_database() as db`;
        throw new Error(
          `Cannot migrate ${fromDir} into database ${db}: it already holds an audit log (${n} records); migrate into an empty database`,
        );
      }
      estateFiles.add(AUDIT_FILE);
      let canonical = true;
      counts.audit = await copyLines(
        auditFile,
        AUDIT_FILE,
        readAuditLines(auditFile, { onTornLine }),
        async (texts) => {
          for (const text of texts) {
            const r = JSON.parse(text) as AuditRecord;
            canonical &&= auditRecordText(r) === text;
            await tx`insert into audit_log (seq, at, kind, principal, tool, hash, record)
              values (${r.seq}, ${new Date(r.at)}, ${r.kind}, ${r.principal ?? null},
                ${r.tool ?? null}, ${r.hash}, ${tx.json(r as unknown as postgres.JSONValue)})`;
          }
        },
        batchSize,
        torn,
        changed,
      );
      if (!canonical) {
        changed.push({
          file: AUDIT_FILE,
          note:
            "records not in canonical JSON (keys sorted) are written back in it; their hashes do not depend on the form",
        });
      }
    }
    const checkpointsFile = path.join(fromDir, AUDIT_CHECKPOINTS_FILE);
    if (fs.existsSync(checkpointsFile)) {
      estateFiles.add(AUDIT_CHECKPOINTS_FILE);
      for (const { text, value } of readCheckpointLines(checkpointsFile)) {
        if (checkpointLine(value) !== text) {
          changed.push({
            file: AUDIT_CHECKPOINTS_FILE,
            note: "a checkpoint not in the form the folder store writes is written back in it",
          });
        }
        await tx`insert into audit_checkpoints (seq, record)
          values (${value.seq}, ${tx.json(JSON.parse(checkpointLine(value)))})`;
      }
    }
    await tx`select pg_notify(${CHANGE_CHANNEL}, ${JSON.stringify({ kind: "unknown" })})`;
  });
  await store.reload();
  // The audit log's lock is runtime, not estate: neither copied nor listed.
  const skipped = walk(fromDir).filter((f) =>
    !estateFiles.has(f) && !f.startsWith(`${AUDIT_LOCK_DIR}/`)
  );
  return { ...counts, tornLines: torn, changed, skipped };
}

/** Locks the estate's tables against writers and refuses unless they are all empty. */
async function refuseNonEmpty(
  tx: TransactionSql,
  fromDir: string,
): Promise<void> {
  await tx.unsafe(
    `lock table ${ESTATE_TABLES.map(([t]) => t).join(", ")} in exclusive mode`,
  );
  const held: string[] = [];
  for (const [table, what] of ESTATE_TABLES) {
    const [{ n }] = await tx.unsafe(`select count(*)::int as n from ${table}`);
    if (n > 0) {
      held.push(
        table === "principals_file" ? "a principals file" : `${what}: ${n}`,
      );
    }
  }
  if (held.length) {
    const [{ db }] = await tx`select current_database() as db`;
    throw new Error(
      `Cannot migrate ${fromDir} into database ${db}: it already holds an estate (${
        held.join(", ")
      }); migrate into an empty database`,
    );
  }
}

/**
 * Writes a PostgreSQL estate out as an estate folder, from one consistent snapshot (a read-only,
 * repeatable-read transaction): `principals.json`, `estate.json` and `rules.json`,
 * `servers/<id>.json` and every
 * `tools/<name>/<version>.json` as their stored text, each tool's `lifecycle.json` formatted as
 * the folder store formats it, and `calls.jsonl` and `drift.jsonl` a stored line each, streamed
 * through cursors (memory stays flat). `EstateDir.open(toDir)` then loads the same estate.
 *
 * @param store An open store on the database.
 * @param toDir The folder: created when missing; it must be empty.
 * @param options Rows per cursor fetch.
 * @returns What was written: counts, and the files.
 * @throws {Error} When `toDir` is a file or a folder that is not empty, naming what is there. A
 *   failure part way (a full disk) leaves a partial folder: remove it and export again.
 *
 * @example
 * ```ts ignore
 * const store = await PgEstateStore.open("postgres://estate@127.0.0.1:5432/estate");
 * const result = await exportToFolder(store, "estate-export");
 * console.log(`${result.files.length} files`);
 * await store.close();
 * ```
 */
export async function exportToFolder(
  store: PgEstateStore,
  toDir: string,
  options: ExportOptions = {},
): Promise<ExportResult> {
  const batchSize = batchSizeOf(options);
  const stat = fs.statSync(toDir, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory()) {
    throw new Error(
      `Cannot export the estate to ${toDir}: it is a file, not a folder`,
    );
  }
  if (stat) {
    const there = fs.readdirSync(toDir).sort();
    if (there.length) {
      const shown = there.slice(0, 5).join(", ") +
        (there.length > 5 ? ", …" : "");
      throw new Error(
        `Cannot export the estate to ${toDir}: the folder is not empty (it holds ${shown}); export into a new or empty folder`,
      );
    }
  }
  fs.mkdirSync(toDir, { recursive: true });
  const files: string[] = [];
  const counts = noCounts();
  const write = (rel: string, text: string) => {
    const file = path.join(toDir, ...rel.split("/"));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { flag: "wx" });
    files.push(rel);
  };
  /** Streams a query's text column into a JSON Lines file, a line a row; how many rows. */
  const writeLines = async (
    rel: string,
    rows: AsyncIterable<{ text: string }[]>,
  ): Promise<number> => {
    let fd: number | undefined;
    let n = 0;
    try {
      for await (const batch of rows) {
        if (batch.length === 0) continue;
        if (fd === undefined) {
          const file = path.join(toDir, ...rel.split("/"));
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fd = fs.openSync(file, "wx");
          files.push(rel);
        }
        fs.writeSync(fd, batch.map((r) => r.text).join("\n") + "\n");
        n += batch.length;
      }
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    return n;
  };

  await store.sql.begin(
    "isolation level repeatable read read only",
    async (tx) => {
      const [principals] = await tx`select text from principals_file`;
      if (principals) {
        write(PRINCIPALS_FILE, principals.text as string);
        counts.principals = parsePrincipals(principals.text as string, PRINCIPALS_FILE).length;
      }
      for (
        const f of await tx`select name, text from estate_files order by name`
      ) {
        write(f.name as string, f.text as string);
      }
      for (const s of await tx`select id, record from servers order by id`) {
        write(`${SERVERS_DIR}/${s.id}.json`, s.record as string);
        counts.servers++;
      }
      const names = await tx`select name from tool_versions union select name from stored_calls
      order by name`;
      for (const { name } of names) {
        const rel = `${TOOLS_DIR}/${name}`;
        const versions = await tx`select version, spec from tool_versions where name = ${name}
        order by published_seq`;
        const events = await tx`select version, entry from lifecycle_events where name = ${name}
        order by id`;
        const lifecycle: Lifecycle = {};
        for (const e of events) {
          (lifecycle[e.version as string] ??= []).push(
            JSON.parse(e.entry as string) as LifecycleEntry,
          );
        }
        for (const v of versions) {
          write(`${rel}/${v.version}.json`, v.spec as string);
          counts.versions++;
        }
        counts.lifecycleEvents += events.length;
        if (versions.length) {
          write(
            `${rel}/${LIFECYCLE_FILE}`,
            formatLifecycle(lifecycle),
          );
        }
        counts.calls += await writeLines(
          `${rel}/${CALLS_FILE}`,
          tx`select call as text from stored_calls where name = ${name} order by id`
            .cursor(batchSize) as AsyncIterable<{ text: string }[]>,
        );
        counts.tools++;
      }
      counts.drift = await writeLines(
        DRIFT_FILE,
        tx`select record as text from drift order by id`.cursor(
          batchSize,
        ) as AsyncIterable<
          { text: string }[]
        >,
      );
      // The audit log as the folder store writes it: each record's canonical JSON, a line.
      const audit = tx`select record from audit_log order by seq`.cursor(batchSize);
      counts.audit = await writeLines(
        AUDIT_FILE,
        (async function* () {
          for await (const rows of audit) {
            yield rows.map((r) => ({ text: auditRecordText(r.record as AuditRecord) }));
          }
        })(),
      );
      const checkpoints = await tx`select record from audit_checkpoints order by id`;
      if (checkpoints.length) {
        write(
          AUDIT_CHECKPOINTS_FILE,
          checkpoints.map((c) => checkpointLine(c.record as AuditCheckpoint) + "\n").join(""),
        );
      }
    },
  );
  return { ...counts, files };
}
