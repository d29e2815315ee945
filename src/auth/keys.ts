import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new API key: a public id and a secret with 256 bits of randomness. */
export function generateApiKey(): { id: string; key: string } {
  return {
    id: `key_${randomBytes(9).toString('base64url')}`,
    key: `kolli_${randomBytes(32).toString('base64url')}`,
  };
}

/**
 * Keys are long random secrets, so a fast hash is enough (no dictionary to guess from) and lets
 * the lookup go through a unique index.
 */
export const hashKey = (key: string): string => hash('sha256', key, 'hex');

/** Compares two key hashes (`hashKey`) in constant time. */
export const equalHashes = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1'));
