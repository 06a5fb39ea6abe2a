import { LocatedSqlError, type SqlLocation } from '../parse/errors.js';

/** The one shape of the message: the construct, then every backend that cannot run it. */
export function unsupportedMessage(construct: string, backends: readonly string[]): string {
  const names = backends.length > 1 ? `${backends.slice(0, -1).join(', ')} and ${backends[backends.length - 1]} backends` : `${backends[0]} backend`;
  return `unsupported SQL: ${construct} (the ${names} cannot run it)`;
}

/**
 * A construct a backend cannot run, raised by the generator (the one place that refuses) with the
 * construct and the backend named: `cannery check` reports it at load, the sandbox as a 400.
 */
export class UnsupportedConstruct extends LocatedSqlError {
  readonly construct: string;
  readonly backend: string;
  constructor(construct: string, backend: string, location: SqlLocation | undefined) {
    super(unsupportedMessage(construct, [backend]), location);
    this.construct = construct;
    this.backend = backend;
  }
}
