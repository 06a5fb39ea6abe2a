/**
 * CONTAINS_SUBSTR: whether the search text is in the value, both NFKC-normalized and case-folded,
 * searching every field of a STRUCT and element of an ARRAY (TRUE if any holds it; else NULL if
 * any is NULL; else FALSE), and a JSON value's values, keys or both.
 */
import { isJsonObject, type JsonValue } from '../../../sql/functions/json-value.js';
import { HostFunctionError } from './errors.js';
import { valueAsText } from './format.js';
import type { SqlValue } from './sql-values.js';
import { normalize } from './text.js';

export type JsonScope = 'JSON_VALUES' | 'JSON_KEYS' | 'JSON_KEYS_AND_VALUES';

function folded(text: string): string {
  return normalize(text, 'NFKC', true);
}

/** TRUE, FALSE, or NULL (no match and a NULL among the searched). */
function searchJson(value: JsonValue, search: string, scope: JsonScope): boolean | null {
  if (Array.isArray(value)) return any(value.map((item) => searchJson(item, search, scope)));
  if (value !== null && isJsonObject(value)) {
    const results: (boolean | null)[] = [];
    for (const [key, member] of value) {
      if (scope !== 'JSON_VALUES') results.push(folded(key).includes(search));
      results.push(searchJson(member, search, scope));
    }
    return any(results);
  }
  if (scope === 'JSON_KEYS') return false;
  if (value === null) return false;
  return folded(typeof value === 'string' ? value : String(value)).includes(search);
}

function any(results: readonly (boolean | null)[]): boolean | null {
  if (results.includes(true)) return true;
  return results.includes(null) ? null : false;
}

function searchValue(value: SqlValue, search: string, scope: JsonScope): boolean | null {
  switch (value.type) {
    case 'null':
      return null;
    case 'array':
      return any(value.elements.map((element) => searchValue(element, search, scope)));
    case 'struct':
      return any(value.fields.map((field) => searchValue(field.value, search, scope)));
    case 'json':
      return searchJson(value.value, search, scope);
    case 'float64':
    case 'bytes':
    case 'interval':
      throw new HostFunctionError(`CONTAINS_SUBSTR does not search a ${value.type.toUpperCase()} value`);
    default:
      return folded(valueAsText(value)).includes(search);
  }
}

export function containsSubstr(value: SqlValue, search: string, scope: string): boolean | null {
  if (scope !== 'JSON_VALUES' && scope !== 'JSON_KEYS' && scope !== 'JSON_KEYS_AND_VALUES') throw new HostFunctionError(`json_scope must be JSON_VALUES, JSON_KEYS or JSON_KEYS_AND_VALUES, got ${scope}`);
  return searchValue(value, folded(search), scope);
}
