/** Endpoint files written by tests: params and query as lists of lines, a fresh UUID each. */
import { randomUUID } from 'node:crypto';

export function endpointText(name: string, params: string[], query: string[]): string {
  return [
    '# yaml-language-server: $schema=../schemas/endpoint.schema.json',
    `id: ${randomUUID()}`,
    `name: ${name}`,
    'description: A test endpoint.',
    'language: bq_sql',
    'max_rows: 100',
    'cache: false',
    'sandbox: false',
    'redact_pii: false',
    ...(params.length ? ['params:', ...params.map((line) => `  ${line}`)] : ['params: {}']),
    'query: |',
    ...query.map((line) => `  ${line}`),
    '',
  ].join('\n');
}

/** The 1-based file line of the first line containing `needle`. */
export function lineOf(text: string, needle: string): number {
  const index = text.split('\n').findIndex((line) => line.includes(needle));
  if (index < 0) throw new Error(`"${needle}" is not in the file`);
  return index + 1;
}
