/** A CompileContext as plain data, which a worker thread can be handed and the compile cache keys on. */
import { columnsData, columnsLookup, type ShapeData } from '../../sql/analyse/shape-data.js';
import { dialectFromSettings } from '../../sql/dialects/from-settings.js';
import type { DialectSettings } from '../../sql/generator/dialect.js';
import type { CompileContext } from './compile.js';

export interface CompileSettings {
  dialects: DialectSettings[];
  sources: string[];
  /** CompileContext's `columns`, as data: each source's columns by name. */
  columns?: Record<string, [string, ShapeData][]>;
}

export function compileSettings(context: CompileContext): CompileSettings {
  const settings: CompileSettings = { dialects: [context.dialect, ...(context.alsoCheck ?? [])].map((dialect) => dialect.settings), sources: [...context.sources] };
  return context.columns ? { ...settings, columns: columnsData(context.sources, context.columns) } : settings;
}

export function contextOf(settings: CompileSettings): CompileContext {
  const [dialect, ...alsoCheck] = settings.dialects.map(dialectFromSettings);
  const context: CompileContext = { dialect: dialect!, alsoCheck, sources: settings.sources };
  return settings.columns ? { ...context, columns: columnsLookup(settings.columns) } : context;
}

