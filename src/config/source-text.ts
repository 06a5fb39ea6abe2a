/**
 * A declaration written as a source file: what `cannery sources infer` and `cannery sources pull`
 * print, ready to redirect into sources/. The fields are in the file's order (id when it has one,
 * name, description, time_column, columns, bigquery), each column on one line in BigQuery's schema
 * form, a RECORD over several with its fields below; parseSourceFile reads the text back as the same declaration.
 */
import type { DeclaredField, SourceDeclaration } from './source-declaration.js';

/**
 * `schema`: the path from the file's folder to schemas/source.schema.json, for the editor hint
 * endpoint files have as their first line. `note`: comment lines after the hint saying where the
 * file came from and what to check in it.
 */
export function sourceFileText(source: SourceDeclaration, schema: string, note: readonly string[]): string {
  return [
    `# yaml-language-server: $schema=${schema}`,
    ...note.map((line) => `# ${line}`),
    ...(source.id === undefined ? [] : [`id: ${source.id}`]),
    `name: ${scalar(source.name)}`,
    ...(source.description === undefined ? [] : [`description: ${text(source.description)}`]),
    ...(source.timeColumn === undefined ? [] : [`time_column: ${scalar(source.timeColumn)}`]),
    'columns:',
    ...source.columns.flatMap((column) => fieldYaml(column, '  ')),
    ...(source.bigqueryTable === undefined ? [] : ['bigquery:', `  table: ${scalar(source.bigqueryTable)}`]),
    '',
  ].join('\n');
}

const PLAIN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** A name as a plain scalar where YAML reads it back as that string, else quoted. */
function scalar(value: string): string {
  return PLAIN.test(value) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(value) ? value : JSON.stringify(value);
}

/** Free text (a description) always quoted: a JSON string is a YAML double-quoted scalar with the same escapes. */
function text(value: string): string {
  return JSON.stringify(value);
}

function fieldYaml(entry: DeclaredField, indent: string): string[] {
  const mode = entry.mode === 'NULLABLE' ? '' : `, mode: ${entry.mode}`;
  const description = entry.description === undefined ? '' : `, description: ${text(entry.description)}`;
  if (entry.type !== 'RECORD') return [`${indent}- { name: ${scalar(entry.name)}, type: ${entry.type}${mode}${description} }`];
  return [
    `${indent}- name: ${scalar(entry.name)}`,
    `${indent}  type: RECORD`,
    ...(entry.mode === 'NULLABLE' ? [] : [`${indent}  mode: ${entry.mode}`]),
    ...(entry.description === undefined ? [] : [`${indent}  description: ${text(entry.description)}`]),
    `${indent}  fields:`,
    ...(entry.fields ?? []).flatMap((inner) => fieldYaml(inner, `${indent}    `)),
  ];
}
