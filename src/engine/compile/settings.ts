/** A CompileContext as plain data, which a worker thread can be handed and the compile cache keys on. */
import { dialectFromSettings } from '../../sql/dialects/from-settings.js';
import type { DialectSettings } from '../../sql/generator/dialect.js';
import type { CompileContext } from './compile.js';

export interface CompileSettings {
  dialects: DialectSettings[];
  sources: string[];
}

export function compileSettings(context: CompileContext): CompileSettings {
  return { dialects: [context.dialect, ...(context.alsoCheck ?? [])].map((dialect) => dialect.settings), sources: [...context.sources] };
}

export function contextOf(settings: CompileSettings): CompileContext {
  const [dialect, ...alsoCheck] = settings.dialects.map(dialectFromSettings);
  return { dialect: dialect!, alsoCheck, sources: settings.sources };
}

