/**
 * The API key, kept for this tab only (sessionStorage): gone when the tab closes, never in a URL,
 * never sent anywhere but in the X-API-KEY header of this page's own calls.
 */
const STORAGE_KEY = 'cannery.apiKey';

export function storedKey(): string | undefined {
  return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
