import { LRUCache } from 'lru-cache';

/**
 * An LRU cache that loads a missing key with its `fetchMethod` (customers, the terminals of postal
 * codes). A `delete` or `clear` after a change, an eviction or a `set` while a key is being fetched
 * makes lru-cache reject that fetch (`Error('deleted')`), and the requests waiting on it answered
 * 500. Here they get what the fetch read (it began before the change, as they did), and that value
 * is not kept: the next caller fetches afresh.
 */
export function readThroughCache<K extends {}, V extends {}, FC = unknown>(
  options: LRUCache.Options<K, V, FC>,
): LRUCache<K, V, FC> {
  return new LRUCache<K, V, FC>({ ...options, ignoreFetchAbort: true });
}
