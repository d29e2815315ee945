import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

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
export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

export function equalSecrets(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
