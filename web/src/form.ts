/**
 * An endpoint's parameters as a form, from its spec: an enum is a select, a date-time a date-time
 * input with its zone, a regex a text field checked as it is typed, a required field marked.
 * Fields are checked by the service's own code (src/engine/serve/params.ts), so a message shown while
 * typing is the one the service would answer; the service's 400 for a field is shown beside it.
 * A parameter the key or token fixes (docs/access.md) is shown filled in and locked; one it allows
 * a few values for is a choice of those.
 */
import type { ParamSpec } from '../../src/core/types.js';
import { readParamValue } from '../../src/engine/serve/params.js';
import { h } from './dom.js';

export interface ParamsForm {
  /** The fields, to put in a form. */
  element: HTMLElement;
  /** Non-empty values, by name: an empty optional parameter means "absent" anyway. */
  values(): [string, string][];
  /** Shows `message` beside the field for `param`; false when there is no such field. */
  showError(param: string, message: string): boolean;
  clearErrors(): void;
}

interface Field {
  read(): string;
  message: HTMLElement;
  input: HTMLElement;
}

/** `fixed`: the values the caller's key or token allows for the parameters it fixes (the catalog's `fixed`). */
export function paramsForm(params: Record<string, ParamSpec>, initial: ReadonlyMap<string, string>, fixed: Record<string, string[]> = {}): ParamsForm {
  const fields = new Map<string, Field>();
  const rows = Object.entries(params).map(([name, given]) => {
    const id = `param-${name}`;
    const allowed = Object.hasOwn(fixed, name) ? fixed[name]! : undefined;
    const locked = allowed?.length === 1;
    // A few allowed values are a choice among them, whatever the spec's own type.
    const spec: ParamSpec = allowed && !locked ? { ...given, type: 'string', format: undefined, enum: allowed } : given;
    const message = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert', 'data-param': name });
    const { control, input, read } = fieldControl(id, spec, locked ? allowed[0]! : (initial.get(name) ?? ''));
    if (locked) lock(control);
    input.setAttribute('aria-describedby', `${id}-error ${id}-help`);
    if (spec.required) input.setAttribute('aria-required', 'true');
    const field: Field = { read, message, input };
    fields.set(name, field);
    const check = () => {
      let problem = '';
      try {
        readParamValue(name, spec, read());
      } catch (error) {
        problem = (error as Error).message;
      }
      setMessage(field, problem);
    };
    control.addEventListener('input', check);
    control.addEventListener('change', check);
    return h(
      'div',
      { class: locked ? 'field fixed' : 'field', 'data-param': name },
      h('label', { for: id }, name, spec.required ? h('abbr', { class: 'required', title: 'required' }, '*') : null),
      control,
      h('p', { class: 'help', id: `${id}-help` }, allowed ? `${locked ? 'Fixed' : 'Limited'} by your key or token: the service answers for no other value.` : helpText(spec)),
      message,
    );
  });
  return {
    element: h('div', { class: 'fields' }, ...rows),
    values: () => [...fields].map(([name, field]): [string, string] => [name, field.read()]).filter(([, value]) => value !== ''),
    showError(param, text) {
      const field = fields.get(param);
      if (!field) return false;
      setMessage(field, text);
      field.input.focus();
      return true;
    },
    clearErrors() {
      for (const field of fields.values()) setMessage(field, '');
    },
  };
}

/** Shown, read and sent as it is, never edited: an input is read-only, a choice disabled (its value is still read). */
function lock(control: HTMLElement): void {
  for (const element of [control, ...control.querySelectorAll('input, select')]) {
    if (element instanceof HTMLInputElement) element.readOnly = true;
    if (element instanceof HTMLSelectElement) element.disabled = true;
  }
}

function setMessage(field: Field, text: string): void {
  field.message.textContent = text;
  if (text) field.input.setAttribute('aria-invalid', 'true');
  else field.input.removeAttribute('aria-invalid');
}

function helpText(spec: ParamSpec): string {
  const kind = spec.enum ? 'one of the values listed' : spec.format === 'regex' ? 'an RE2 regular expression' : spec.format === 'date-time' ? 'a time, with its zone' : spec.type;
  return [spec.description, `(${kind}${spec.required ? '' : '; optional'})`].filter(Boolean).join(' ');
}

function fieldControl(id: string, spec: ParamSpec, initial: string): { control: HTMLElement; input: HTMLElement; read: () => string } {
  if (spec.enum) {
    const select = h('select', { id, name: id }, spec.required ? null : h('option', { value: '' }, '(none)'), ...spec.enum.map((value) => h('option', { value }, value)));
    if (initial && spec.enum.includes(initial)) select.value = initial;
    return { control: select, input: select, read: () => select.value };
  }
  if (spec.format === 'date-time') return dateTimeControl(id, initial);
  if (spec.type === 'boolean') {
    const select = h('select', { id, name: id }, h('option', { value: '' }, '(none)'), h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false'));
    select.value = initial === 'true' || initial === 'false' ? initial : '';
    return { control: select, input: select, read: () => select.value };
  }
  const input = h('input', {
    id,
    name: id,
    type: spec.type === 'string' ? 'text' : 'number',
    step: spec.type === 'integer' ? '1' : spec.type === 'number' ? 'any' : undefined,
    class: spec.format === 'regex' ? 'regex' : undefined,
    spellcheck: 'false',
    autocomplete: 'off',
  });
  input.value = initial;
  return { control: input, input, read: () => input.value };
}

/**
 * A date-time input (the browser's picker, to the second) and the zone it is in: UTC, or this
 * browser's offset on that date. The value sent is ISO 8601 with that zone, as the service
 * requires (a time without a zone names different instants for different people).
 */
function dateTimeControl(id: string, initial: string): { control: HTMLElement; input: HTMLElement; read: () => string } {
  const input = h('input', { id, name: id, type: 'datetime-local', step: '1' });
  const zone = h('select', { id: `${id}-zone`, 'aria-label': 'time zone' }, h('option', { value: 'Z' }, 'UTC'), h('option', { value: 'local' }, 'this browser’s zone'));
  // A value given with its zone (the last run, the address) is shown in UTC.
  const given = Date.parse(initial.replace(' ', 'T'));
  if (initial && Number.isFinite(given)) input.value = new Date(given).toISOString().slice(0, 19);
  const read = () => {
    if (!input.value) return '';
    const local = input.value.length === 16 ? `${input.value}:00` : input.value;
    return zone.value === 'Z' ? `${local}Z` : `${local}${offsetAt(local)}`;
  };
  return { control: h('span', { class: 'date-time' }, input, zone), input, read };
}

/** This browser's UTC offset at a local date and time, as `+HH:MM`. */
function offsetAt(local: string): string {
  const minutes = -new Date(local).getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
