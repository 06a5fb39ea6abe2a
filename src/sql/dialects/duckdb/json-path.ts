/**
 * BigQuery's JSONPath (`$.class.students[0].name`) as a JSON Pointer (RFC 6901,
 * `/class/students/0/name`), the path form DuckDB's JSON functions read without any syntax of
 * their own to escape: a key may hold dots, brackets, quotes or spaces.
 *
 * A step is an object key or an array index, as BigQuery reads it: `[0]` on an object looks up
 * the key "0", as a pointer does. The functions that set a value at a path mark a subscript's step
 * (`/~21` for `[1]`; RFC 6901 escapes only `~0` and `~1`, so no key writes it): BigQuery's
 * JSON_SET ignores `$[1]` on an object, where a key "1" would be added.
 */

/**
 * How keys that are not plain names are quoted: JSON_QUERY and JSON_VALUE use double quotes
 * (`$."a.b"`), the legacy JSON_EXTRACT functions single quotes in brackets (`$['a.b']`).
 */
export type JsonPathQuoting = 'double' | 'bracket';

export class InvalidJsonPath extends Error {}

const PLAIN_KEY = /^[^.[\]"'\s]+/;

function pointerStep(key: string): string {
  return '/' + key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The JSON Pointer of a BigQuery JSONPath; throws InvalidJsonPath for a path BigQuery refuses. */
export function jsonPointer(path: string, quoting: JsonPathQuoting, markSubscripts = false): string {
  if (!path.startsWith('$')) throw new InvalidJsonPath(`JSONPath must start with '$': ${path}`);
  let pointer = '';
  let rest = path.slice(1);
  while (rest !== '') {
    if (rest.startsWith('.')) {
      rest = rest.slice(1);
      const quoted = quoting === 'double' ? /^"((?:[^"\\]|\\.)*)"/.exec(rest) : null;
      if (quoted) {
        pointer += pointerStep(quoted[1]!.replace(/\\(.)/g, '$1'));
        rest = rest.slice(quoted[0].length);
        continue;
      }
      const plain = PLAIN_KEY.exec(rest);
      if (!plain) throw new InvalidJsonPath(`JSONPath has an empty or unquoted key after '.': ${path}`);
      pointer += pointerStep(plain[0]);
      rest = rest.slice(plain[0].length);
      continue;
    }
    const index = /^\[(\d+)\]/.exec(rest);
    if (index) {
      pointer += markSubscripts ? `/~2${index[1]!}` : pointerStep(index[1]!);
      rest = rest.slice(index[0].length);
      continue;
    }
    const bracketed = quoting === 'bracket' ? /^\['((?:[^'\\]|\\.)*)'\]|^\[([^\]'"]+)\]/.exec(rest) : null;
    if (bracketed) {
      pointer += pointerStep((bracketed[1] ?? bracketed[2]!).replace(/\\(.)/g, '$1'));
      rest = rest.slice(bracketed[0].length);
      continue;
    }
    throw new InvalidJsonPath(`JSONPath is not valid at '${rest}': ${path}`);
  }
  return pointer;
}
