/** Server paths are taken out of backend messages before they reach a caller. */
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { withoutServerPaths } from '../../src/core/server-paths.js';

describe('withoutServerPaths', () => {
  it('reduces a quoted absolute path to its file name', () => {
    expect(withoutServerPaths('IO Error: Could not read enough bytes from file "/srv/data/cannery.duckdb": attempted to read 262144 bytes')).toBe(
      'IO Error: Could not read enough bytes from file "cannery.duckdb": attempted to read 262144 bytes',
    );
  });

  it('takes the folders given, the working folder and the home folder off unquoted paths', () => {
    expect(withoutServerPaths('The file at /etc/keys/bq.json does not exist', ['/etc/keys'])).toBe('The file at bq.json does not exist');
    expect(withoutServerPaths(`lstat '${process.cwd()}/data/x.duckdb'`)).toBe("lstat 'data/x.duckdb'");
    expect(withoutServerPaths(`open '${homedir()}/.duckdb/extensions/icu.duckdb_extension'`)).toBe("open '.duckdb/extensions/icu.duckdb_extension'");
  });

  it("leaves a caller's own values and a message without paths as they are", () => {
    const message = "Conversion Error: Could not convert string '/rest/v1/users' to INT64";
    expect(withoutServerPaths(message)).toBe(message);
    expect(withoutServerPaths('Binder Error: Referenced column "status_code" not found')).toBe('Binder Error: Referenced column "status_code" not found');
  });
});
