/** A parameter and an endpoint's settings in a few words, as `describe` and `diff` print them. */
import type { EndpointDefinition, ParamSpec } from '../core/types.js';
import { cacheText } from '../engine/contracts/contract.js';

export function paramText(name: string, spec: Omit<ParamSpec, 'description'>): string {
  const parts = [name, spec.type, spec.required ? 'required' : 'optional'];
  if (spec.enum) parts.push(`one of ${spec.enum.join(', ')}`);
  if (spec.format) parts.push(`format ${spec.format}`);
  return parts.join(' ');
}

export function settingsText(definition: EndpointDefinition): string {
  return [
    `max_rows ${definition.max_rows}`,
    `cache ${cacheText(definition.cache)}`,
    `sandbox ${definition.sandbox ? 'on' : 'off'}`,
    `redact_pii ${definition.redact_pii ? 'on' : 'off'}`,
  ].join('; ');
}
