/**
 * The console: asks for the API key, lists the endpoints the service serves (GET /api/endpoints),
 * and for the one chosen gives a form from its parameter spec, the sandbox SQL editor when it
 * takes one, and the answer as a table, a chart and downloads; the request sent can be copied as
 * curl. `#name?param=value` in the address picks an endpoint and fills its fields (never the key).
 */
import type { CatalogEndpoint } from '../../src/core/types.js';
import { CatalogRefused, fetchCatalog, queryRequest, send } from './api.js';
import { curlCommand, type SentRequest } from './curl.js';
import { h, replace } from './dom.js';
import { paramsForm } from './form.js';
import { forgetKey, storedKey, storeKey } from './key.js';
import { showAnswer } from './results.js';
import { sqlEditor } from './sql-editor.js';
import { templatesFor } from './templates.js';
import { rowsText } from './row-limits.js';

const root = document.getElementById('app')!;
void start();

async function start(): Promise<void> {
  const key = storedKey();
  if (key === undefined) return askForKey();
  try {
    showConsole(key, await fetchCatalog(key));
  } catch (error) {
    if (error instanceof CatalogRefused && error.status === 401) forgetKey();
    askForKey(refusal(error));
  }
}

function refusal(error: unknown): string {
  if (error instanceof CatalogRefused) {
    return error.status === 401
      ? `The service refused this key (${error.error.message}). Use one of CANNERY_API_KEYS, or the key \`cannery serve\` printed at start-up.`
      : `The service answered ${error.status}: ${error.error.message}`;
  }
  return `The service could not be reached (${(error as Error).message}).`;
}

function askForKey(message = ''): void {
  const input = h('input', { type: 'password', id: 'api-key', name: 'api-key', autocomplete: 'off', spellcheck: 'false', required: true });
  const problem = h('p', { class: 'key-error', role: 'alert' }, message);
  const form = h(
    'form',
    { class: 'key-form', novalidate: true },
    h('h2', {}, 'Connect'),
    h('p', {}, 'The console calls the service with your API key, as any client does. It is kept in this tab only (until you close it), never in the address.'),
    h('label', { for: 'api-key' }, 'API key'),
    input,
    h('button', { type: 'submit' }, 'Connect'),
    problem,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) {
      problem.textContent = 'Enter a key.';
      return;
    }
    // What CANNERY_API_KEYS accepts; anything else could not even be put in a header.
    if (!/^[!-~]+$/.test(key)) {
      problem.textContent = 'An API key is letters, digits and ASCII punctuation only, without spaces.';
      return;
    }
    problem.textContent = '';
    try {
      const endpoints = await fetchCatalog(key);
      storeKey(key);
      showConsole(key, endpoints);
    } catch (error) {
      problem.textContent = refusal(error);
      input.select();
    }
  });
  replace(root, form);
  input.focus();
}

function showConsole(key: string, endpoints: CatalogEndpoint[]): void {
  const forget = h('button', { type: 'button', class: 'forget' }, 'Forget key');
  forget.addEventListener('click', () => {
    forgetKey();
    history.replaceState(null, '', location.pathname);
    askForKey();
  });
  const panel = h('section', { class: 'endpoint', 'aria-live': 'polite' });
  const list = h('ul', {});
  const hash = fromHash();
  // Values last run, by parameter name, so `project` carries from one endpoint to the next.
  const remembered = hash.params;
  const open = (endpoint: CatalogEndpoint) => {
    for (const item of list.querySelectorAll('button')) item.toggleAttribute('aria-current', item.dataset.endpoint === endpoint.name);
    showEndpoint(panel, key, endpoint, remembered);
  };
  for (const endpoint of endpoints) {
    const button = h('button', { type: 'button', 'data-endpoint': endpoint.name }, h('span', { class: 'name' }, endpoint.name), h('span', { class: 'description' }, endpoint.description));
    button.addEventListener('click', () => open(endpoint));
    list.append(h('li', {}, button));
  }
  replace(root, h('nav', { class: 'endpoints', 'aria-label': 'endpoints' }, h('div', { class: 'nav-head' }, h('h2', {}, 'Endpoints'), forget), list), panel);
  const first = endpoints.find((endpoint) => endpoint.name === hash.name) ?? endpoints[0];
  if (first) open(first);
  else replace(panel, h('p', {}, 'The service serves no endpoints: add a file to its endpoints folder.'));
}

/** `#usage.api-counts?interval=hourly&project=abc`, or `#?project=abc` for whichever endpoint has it. */
function fromHash(): { name: string; params: Map<string, string> } {
  const text = location.hash.slice(1);
  const at = text.indexOf('?');
  const name = decodeURIComponent(at === -1 ? text : text.slice(0, at));
  return { name, params: new Map(new URLSearchParams(at === -1 ? '' : text.slice(at + 1))) };
}

function showEndpoint(panel: HTMLElement, key: string, endpoint: CatalogEndpoint, remembered: Map<string, string>): void {
  const form = paramsForm(endpoint.params, remembered, endpoint.fixed);
  const result = h('section', { class: 'result', 'aria-label': 'result' });
  const editor = endpoint.sandbox ? sqlEditor(endpoint, { id: 'sql', onRun: () => void run() }) : undefined;
  const redact = h('input', { type: 'checkbox', id: 'redact', checked: endpoint.redact_pii, disabled: endpoint.redact_pii });
  const runButton = h('button', { type: 'submit', class: 'run' }, 'Run');
  const copyButton = h('button', { type: 'button', class: 'copy-curl', disabled: true, title: 'Run first: this copies the request the page sent' }, 'Copy as curl');
  const curlBox = h('div', { class: 'curl', hidden: true });
  let sent: SentRequest | undefined;

  const run = async () => {
    form.clearErrors();
    editor?.clearProblem();
    const values = form.values();
    for (const [name, value] of values) remembered.set(name, value);
    const sql = editor?.text().trim();
    if (sql) values.push(['sql', sql]);
    const request = queryRequest(key, endpoint.name, values, redact.checked && !endpoint.redact_pii);
    runButton.disabled = true;
    replace(result, h('p', { class: 'running' }, 'Running…'));
    try {
      const answer = await send(request);
      sent = request;
      copyButton.disabled = false;
      copyButton.removeAttribute('title');
      history.replaceState(null, '', `#${endpoint.name}?${new URLSearchParams(values.filter(([name]) => name !== 'sql'))}`);
      if (answer.error) {
        const { code, message, param } = answer.error;
        const placed = param === 'sql' && editor ? (editor.showProblem(message), true) : param !== undefined && form.showError(param, message);
        const text = placed ? `${answer.status} ${code}: see the message beside ${param}` : `${answer.status} ${code}: ${message}`;
        replace(result, h('p', { class: 'error', role: 'alert', 'data-code': code }, text));
      } else {
        showAnswer(result, endpoint.name, answer);
      }
    } catch (error) {
      replace(result, h('p', { class: 'error', role: 'alert' }, `The request failed: ${(error as Error).message}`));
    } finally {
      runButton.disabled = false;
    }
  };

  copyButton.addEventListener('click', async () => {
    if (!sent) return;
    const command = curlCommand(sent);
    const text = h('pre', { class: 'curl-command' }, command);
    let note = 'Copied to the clipboard.';
    try {
      await navigator.clipboard.writeText(command);
    } catch {
      note = 'The browser would not let the page write to the clipboard: select the command and copy it.';
    }
    curlBox.hidden = false;
    replace(curlBox, h('p', {}, note, ' It carries your key.'), text);
  });

  const formElement = h(
    'form',
    { class: 'params', novalidate: true },
    form.element,
    editor ? sqlSection(endpoint, editor) : null,
    h(
      'div',
      { class: 'actions' },
      runButton,
      h('label', { for: 'redact', class: 'redact' }, redact, endpoint.redact_pii ? ' PII always redacted (the endpoint’s setting)' : ' Redact PII (sends SVC-ENDPOINT-REDACT-PII: true)'),
      copyButton,
    ),
  );
  formElement.addEventListener('submit', (event) => {
    event.preventDefault();
    void run();
  });
  replace(
    panel,
    h('h2', {}, endpoint.name),
    h('p', { class: 'description' }, endpoint.description),
    h(
      'dl',
      { class: 'settings' },
      ...([
        ['id', h('code', {}, endpoint.id)],
        ['rows', rowsText(endpoint)],
        ['cache', cacheText(endpoint.cache)],
        ['sandbox', endpoint.sandbox ? 'your own SELECT over its CTEs, in sql' : 'off'],
        ['PII redaction', endpoint.redact_pii ? 'always' : 'on request'],
      ] as const).map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value))),
    ),
    formElement,
    curlBox,
    result,
  );
  document.title = `${endpoint.name} · cannery console`;
}

function sqlSection(endpoint: CatalogEndpoint, editor: NonNullable<ReturnType<typeof sqlEditor>>): HTMLElement {
  const templates = templatesFor((endpoint.ctes ?? []).map((cte) => cte.name));
  const picker = h('select', { id: 'sql-template', 'aria-label': 'templates' }, h('option', { value: '' }, 'Insert a template…'), ...templates.map((template, index) => h('option', { value: String(index) }, template.title)));
  picker.addEventListener('change', () => {
    const template = templates[Number(picker.value)];
    if (picker.value !== '' && template) editor.setText(template.sql);
    picker.value = '';
  });
  const own = h('button', { type: 'button', class: 'clear-sql' }, 'Clear (the endpoint’s own query)');
  own.addEventListener('click', () => editor.setText(''));
  const ctes = (endpoint.ctes ?? []).map((cte) => cte.name).join(', ');
  return h(
    'div',
    { class: 'field sql-field', 'data-param': 'sql' },
    h('div', { class: 'sql-head' }, h('label', { for: 'sql' }, 'sql'), picker, own),
    h('p', { class: 'help' }, `Optional: your own SELECT, replacing the endpoint’s final one. It may read ${ctes}.`),
    editor.element,
  );
}

function cacheText(cache: CatalogEndpoint['cache']): string {
  if (cache === false) return 'off';
  return `${cache.ttl_seconds} s${cache.warm_every_seconds ? `, warmed every ${cache.warm_every_seconds} s` : ''}`;
}
