/**
 * The sandbox SQL editor: CodeMirror 6 with its SQL language (highlighting) in BigQuery's
 * lexical rules, completion of the endpoint's CTEs and their fields and of the functions the
 * sandbox allows (completion.ts), and of keywords, and the service's refusal of the SQL marked where it applies (violation.ts).
 */
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap, type CompletionSource } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { keywordCompletionSource, SQLDialect } from '@codemirror/lang-sql';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers, placeholder } from '@codemirror/view';
import type { CatalogEndpoint } from '../../src/core/types.js';
import { FUNCTIONS } from '../../src/sql/language.js';
import { completionsAt } from './completion.js';
import { violationSpan } from './violation.js';

/** BigQuery's lexical rules: backtick identifiers, "" and '' strings with backslash escapes, @params, # comments. */
const BIGQUERY = SQLDialect.define({
  keywords:
    'select from where group by having order limit offset with as and or not in is null like between case when then else end cast safe_cast ' +
    'distinct all union intersect except join inner left right full outer cross on using unnest exists interval asc desc nulls first last ' +
    'over partition rows range preceding following unbounded current row extract ordinal qualify window true false',
  types: 'string int64 float64 numeric bool timestamp datetime date time bytes array struct',
  // The functions the sandbox allows, from the table the service checks them with.
  builtin: [...FUNCTIONS.keys()].join(' '),
  identifierQuotes: '`',
  doubleQuotedStrings: true,
  backslashEscapes: true,
  hashComments: true,
  specialVar: '@',
});

/** The nonce this page load's CSP allows style elements with (src/http/console.ts): CodeMirror writes its styles in some. */
const styleNonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';

export interface SqlEditor {
  readonly element: HTMLElement;
  text(): string;
  setText(text: string): void;
  /** Marks where `message` (the service's answer to this SQL) applies, and says it. */
  showProblem(message: string): void;
  clearProblem(): void;
}

export function sqlEditor(endpoint: CatalogEndpoint, options: { id: string; onRun: () => void }): SqlEditor {
  const fromCatalog: CompletionSource = (context) => {
    const found = completionsAt(context.state.doc.toString(), context.pos, endpoint);
    if (!found) return null;
    // Offered only once a word is begun, unless asked for (Ctrl-Space) or after a dot.
    if (found.from === context.pos && !context.explicit && context.state.sliceDoc(context.pos - 1, context.pos) !== '.') return null;
    return { from: found.from, options: found.options, validFor: /^[\w@]*$/ };
  };
  const view = new EditorView({
    state: EditorState.create({
      extensions: [
        EditorView.cspNonce.of(styleNonce),
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        BIGQUERY.extension,
        syntaxHighlighting(defaultHighlightStyle),
        autocompletion({ override: [fromCatalog, keywordCompletionSource(BIGQUERY)] }),
        lintGutter(),
        placeholder(`select ... from ${endpoint.ctes?.[0]?.name ?? 'a CTE'}  (Ctrl-Space completes; Ctrl-Enter runs)`),
        keymap.of([
          { key: 'Mod-Enter', run: () => (options.onRun(), true) },
          ...closeBracketsKeymap,
          ...completionKeymap,
          ...historyKeymap,
          indentWithTab,
          ...defaultKeymap,
        ]),
        EditorView.contentAttributes.of({ id: options.id, 'aria-label': 'sandbox SQL', 'aria-describedby': `${options.id}-error` }),
        // An edit makes the last refusal stale.
        EditorView.updateListener.of((update) => {
          if (update.docChanged && problem.textContent) clear();
        }),
      ],
    }),
  });
  const problem = document.createElement('p');
  problem.className = 'field-error';
  problem.id = `${options.id}-error`;
  problem.setAttribute('role', 'alert');
  problem.dataset.param = 'sql';
  const element = document.createElement('div');
  element.className = 'sql-editor';
  element.append(view.dom, problem);

  const clear = () => {
    problem.textContent = '';
    view.dispatch(setDiagnostics(view.state, []));
  };
  return {
    element,
    text: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    showProblem(message) {
      const span = violationSpan(message, view.state.doc.toString());
      view.dispatch(setDiagnostics(view.state, [{ ...span, severity: 'error', message }]));
      view.dispatch({ selection: { anchor: span.from }, scrollIntoView: true });
      const line = view.state.doc.lineAt(span.from);
      problem.textContent = /\bline \d+, column \d+\b/.test(message) ? message : `${message} (at line ${line.number}, column ${span.from - line.from + 1})`;
      view.focus();
    },
    clearProblem: clear,
  };
}
