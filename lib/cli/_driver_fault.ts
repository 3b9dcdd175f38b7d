/**
 * A known fault of the PostgreSQL driver (porsager `postgres` 3.4.9, porsager/postgres#1066,
 * #1154, #1208, unfixed in any release): when a connection is lost in the middle of a transaction,
 * the driver's rollback writes to the closed socket from a timer, and the `TypeError` it throws
 * cannot be caught where the query was made. The database has rolled the transaction back, so
 * nothing of it was written; but the driver's connection keeps the unsent bytes, so carrying on
 * could send them later on a new connection. The command line therefore stops with a clear
 * message and exit code 2 instead of a stack trace. (`estate serve` itself writes without
 * transactions, so a replica does not meet it; the guard covers it all the same.)
 *
 * @module
 */
import process from "node:process";

/** Whether an uncaught error is the driver's write to a closed socket. */
export function isDriverFault(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  return /reading 'write'|evaluating 'socket\.write'/.test(error.message) &&
    /postgres(@[\d.]+)?\/(?:[\d.]+\/)?src\/connection\.js/.test(
      error.stack ?? "",
    );
}

/** The one line said when the fault stops a command. */
export const DRIVER_FAULT_MESSAGE =
  "estate: the connection to the database was lost in the middle of a transaction; the database rolled it back, so nothing of it was written. Run the command again (the PostgreSQL driver cannot carry on safely after this: porsager/postgres#1208).";

/**
 * Stops the process with {@linkcode DRIVER_FAULT_MESSAGE} when the driver's fault escapes as an
 * uncaught error; any other uncaught error is left as it is. In Deno it listens for the global
 * `error` event; in Node (the npm package's `estate`), for `uncaughtException`, printing any other
 * error's stack and exiting with 1 as Node would.
 *
 * @param options `stderr`: where the message goes; `exit`: ends the process with a code.
 */
export function stopOnDriverFault(options: {
  stderr: (text: string) => void;
  exit: (code: number) => void;
}): void {
  if (typeof globalThis.addEventListener === "function") {
    globalThis.addEventListener("error", (event) => {
      if (!isDriverFault(event.error)) return;
      event.preventDefault();
      options.stderr(`${DRIVER_FAULT_MESSAGE}\n`);
      options.exit(2);
    });
    return;
  }
  process.on("uncaughtException", (error) => {
    if (isDriverFault(error)) {
      options.stderr(`${DRIVER_FAULT_MESSAGE}\n`);
      options.exit(2);
      return;
    }
    options.stderr(
      `${error instanceof Error && error.stack ? error.stack : String(error)}\n`,
    );
    options.exit(1);
  });
}
