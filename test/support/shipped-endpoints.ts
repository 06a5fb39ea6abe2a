/**
 * Where the suite finds the shipped endpoints: the copy the global setup made of exactly the
 * files cannery ships (shipped-copy.ts), never endpoints/ itself, which may hold a user's own.
 * Ends with a slash.
 */
import { inject } from 'vitest';

export const SHIPPED_ENDPOINTS: string = inject('shippedEndpoints');
