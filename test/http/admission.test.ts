/**
 * Admission in turns: a few requests are handled per turn of the event loop, the rest in the
 * turns after, in the order they came, so every turn also accepts a connection; /health never
 * waits; an idle server handles a request in the turn it arrives.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { admitInTurns, PER_TURN } from '../../src/http/admission.js';

/** The end of this turn: what was deferred to the next one has run by then. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function recording(): { handled: string[]; admit: ReturnType<typeof admitInTurns> } {
  const handled: string[] = [];
  const admit = admitInTurns((request) => handled.push(request.url!));
  return { handled, admit };
}

const request = (url: string) => [{ url } as IncomingMessage, {} as ServerResponse] as const;

describe('admitInTurns', () => {
  it(`handles ${PER_TURN} requests in the turn they arrive, the rest ${PER_TURN} a turn, in order`, async () => {
    const { handled, admit } = recording();
    const urls = Array.from({ length: 3 * PER_TURN + 1 }, (_, index) => `/api/endpoints/query/q${index}`);
    for (const url of urls) admit(...request(url));
    expect(handled).toEqual(urls.slice(0, PER_TURN));
    for (let turn = 1; turn <= 3; turn++) {
      await nextTurn();
      expect(handled).toEqual(urls.slice(0, Math.min(urls.length, (turn + 1) * PER_TURN)));
    }
  });

  it('answers /health at once, however many wait', async () => {
    const { handled, admit } = recording();
    for (let index = 0; index < 3 * PER_TURN; index++) admit(...request(`/q${index}`));
    admit(...request('/health'));
    admit(...request('/health?probe=1'));
    expect(handled.slice(PER_TURN)).toEqual(['/health', '/health?probe=1']);
    await nextTurn();
    await nextTurn();
    expect(handled.filter((url) => url.startsWith('/q'))).toHaveLength(3 * PER_TURN);
  });

  it('handles a request at once again after a quiet turn', async () => {
    const { handled, admit } = recording();
    for (let index = 0; index < PER_TURN; index++) admit(...request(`/q${index}`));
    await nextTurn();
    await nextTurn();
    admit(...request('/later'));
    expect(handled.at(-1)).toBe('/later');
  });
});
