import { SignJWT } from 'jose';
import { describe, expect, test, vi } from 'vitest';
import { loadConfig } from '../config';
import type { Db } from '../db/client';
import { hashKey } from './keys';
import { createAuthService } from './service';

const KEY = 'k'.repeat(43);
const row = {
  id: 'key-1',
  name: 'Test',
  keyHash: hashKey(KEY),
  scopes: ['price'],
  customerNrs: ['1000'],
  createdAt: new Date(),
  revokedAt: null,
};
// The token secret lives in the database; the first read of it meets an outage.
const tokenSecret = vi.fn<() => Promise<string>>();
vi.mock('./store', () => ({
  createAuthStore: () => ({
    tokenSecret,
    activeKeyByHash: async (hash: string) => (hash === row.keyHash ? row : null),
    activeKeyById: async (id: string) => (id === row.id ? row : null),
  }),
}));

describe('the token signing secret', () => {
  test('a read that failed while the database was down is asked again, not kept', async () => {
    // Once kept: every token was refused (500) until a restart, though the database was back.
    tokenSecret.mockRejectedValueOnce(new Error('connect ECONNREFUSED')).mockResolvedValue('s'.repeat(48));
    const auth = createAuthService({ db: {} as Db, config: loadConfig({}) });
    await expect(auth.issueToken(row.id, KEY)).rejects.toThrow(/ECONNREFUSED/);
    const { access_token } = await auth.issueToken(row.id, KEY);
    expect((await auth.authenticate(access_token))?.keyId).toBe(row.id);
    expect(tokenSecret).toHaveBeenCalledTimes(2);
  });
});

describe('access tokens', () => {
  test("a token carries its key's rights, whatever its claims say", async () => {
    // Signed with the real secret (as one that leaked would be), claiming admin and another customer.
    tokenSecret.mockResolvedValue('s'.repeat(48));
    const auth = createAuthService({ db: {} as Db, config: loadConfig({}) });
    const forged = await new SignJWT({ scope: 'admin price', cns: ['1000', '2000'], name: 'Test' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(row.id)
      .setIssuer('kolli')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('s'.repeat(48)));
    const account = await auth.authenticate(forged);
    expect([...(account?.scopes ?? [])]).toEqual(['price']);
    expect([...(account?.customerNrs ?? [])]).toEqual(['1000']);
    // And a token for a key that is not (or no longer) stored is nothing.
    const orphan = await new SignJWT({ scope: 'admin' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('key-gone')
      .setIssuer('kolli')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('s'.repeat(48)));
    expect(await auth.authenticate(orphan)).toBeNull();
  });
});
