/**
 * DuckDB lets one process write a database file, or any number of processes read it, never both
 * at once. Opening against another process's lock fails with advice for DuckDB's own CLI (its
 * `-readonly` flag), which does not apply to cannery: DatabaseBusy says instead who holds the file
 * and how, for the command line to put in its words.
 */
export class DatabaseBusy extends Error {
  /** The database file. */
  readonly path: string;
  /** The process that holds the file, as DuckDB names it. */
  readonly holder: number | undefined;
  /** Whether the holder writes (it took the file for itself) or only reads (it shares it with readers). */
  readonly holderWrites: boolean;

  constructor(path: string, holder: number | undefined, holderWrites: boolean, options?: ErrorOptions) {
    super(`the DuckDB database ${path} is held by another process${holder === undefined ? '' : ` (PID ${holder})`}`, options);
    this.name = 'DatabaseBusy';
    this.path = path;
    this.holder = holder;
    this.holderWrites = holderWrites;
  }
}

const LOCK_CONFLICT = /Could not set lock on file .*Conflicting lock is held in/;
const HOLDER = /Conflicting lock is held in .*?\(PID (\d+)\)/;
/** DuckDB adds this when a read-only open would have worked: the holder only reads. */
const READERS_ONLY = /open this database in read-only mode/;

/** The DatabaseBusy that `error`, from opening `path`, means; undefined when it is another failure. */
export function databaseBusy(error: unknown, path: string, forWriting: boolean): DatabaseBusy | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (!LOCK_CONFLICT.test(message)) return undefined;
  const pid = HOLDER.exec(message)?.[1];
  const holder = pid === undefined ? undefined : Number(pid);
  return new DatabaseBusy(path, holder, !(forWriting && READERS_ONLY.test(message)), { cause: error });
}
