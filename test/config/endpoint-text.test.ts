import { describe, expect, test } from 'vitest';
import { readEndpointText } from '../../src/config/endpoint-text.js';

describe('readEndpointText', () => {
  test('an unreadable file is a problem, not an exception', async () => {
    const result = await readEndpointText('no/such/endpoint.yaml');
    expect(result.text).toBeUndefined();
    expect(result.problem).toEqual({ file: 'no/such/endpoint.yaml', line: 1, message: expect.stringContaining('cannot read the file') });
  });
});
