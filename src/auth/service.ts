import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config';
import type { Db } from '../db/client';
import { DomainError, notFound } from '../lib/errors';
import { formatOslo } from '../lib/oslo-time';
import { type Account, SCOPES, type Scope } from './access';
import { equalHashes, generateApiKey, hashKey } from './keys';
import { type ApiKeyRow, createAuthStore } from './store';

/**
 * How long a key lookup is reused. A revoked key stops working on every instance within this time
 * (the contract allows 5 s).
 */
export const KEY_CACHE_MS = 4000;

const ADMIN_BOOTSTRAP: Account = {
  keyId: 'admin-bootstrap',
  name: 'KOLLI_ADMIN_KEY',
  scopes: new Set<Scope>(['admin']),
  customerNrs: new Set(),
};

const toAccount = (row: ApiKeyRow): Account => ({
  keyId: row.id,
  name: row.name,
  scopes: new Set(row.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s))),
  customerNrs: new Set(row.customerNrs),
});

export interface ApiKeyView {
  Id: string;
  Name: string;
  CustomerNrs: string[];
  Scopes: string[];
  CreatedAt: string;
  RevokedAt: string | null;
}

const view = (row: ApiKeyRow): ApiKeyView => ({
  Id: row.id,
  Name: row.name,
  CustomerNrs: row.customerNrs,
  Scopes: row.scopes,
  // CONTRACT §2: Oslo local time without zone, like every timestamp the API answers with.
  CreatedAt: formatOslo(row.createdAt),
  RevokedAt: row.revokedAt ? formatOslo(row.revokedAt) : null,
});

export type AuthService = ReturnType<typeof createAuthService>;

/** Access tokens are JWTs (three dot-separated parts); API keys hold no dot. */
const isAccessToken = (credential: string) => credential.includes('.');

export function createAuthService(deps: { db: Db; config: Config }) {
  const store = createAuthStore(deps.db);
  // `null` caches "unknown or revoked" too, so a flood of bad keys does not reach the database.
  const byHash = new LRUCache<string, Account | 'none'>({ max: 10_000, ttl: KEY_CACHE_MS });
  const byId = new LRUCache<string, Account | 'none'>({ max: 10_000, ttl: KEY_CACHE_MS });
  let secret: Promise<Uint8Array> | undefined;
  /** Counts revocations through this process, so what was cached before one is not trusted after it. */
  let revocations = 0;
  const adminKeyHash = deps.config.adminKey ? hashKey(deps.config.adminKey) : null;

  /** The admin key's account, or what the cache knows of a key hash (`undefined`: ask the database). */
  function cachedByHash(hash: string): Account | null | undefined {
    if (adminKeyHash && equalHashes(hash, adminKeyHash)) return ADMIN_BOOTSTRAP;
    const cached = byHash.get(hash);
    return cached === undefined ? undefined : cached === 'none' ? null : cached;
  }

  const signingKey = () => {
    if (!secret) {
      const reading = (
        deps.config.tokenSecret ? Promise.resolve(deps.config.tokenSecret) : store.tokenSecret()
      ).then((s) => new TextEncoder().encode(s));
      // A read that failed (the database was down) is not kept: the next token asks again.
      reading.catch(() => {
        if (secret === reading) secret = undefined;
      });
      secret = reading;
    }
    return secret;
  };

  /** The account of the unrevoked key `id`, or null. */
  async function keyAccount(id: string): Promise<Account | null> {
    const cached = byId.get(id);
    if (cached !== undefined) return cached === 'none' ? null : cached;
    const row = await store.activeKeyById(id);
    const account = row ? toAccount(row) : null;
    byId.set(id, account ?? 'none');
    return account;
  }

  async function accountFromToken(token: string): Promise<Account | null> {
    try {
      const { payload } = await jwtVerify(token, await signingKey(), {
        issuer: 'kolli',
        algorithms: ['HS256'],
      });
      // The key's own scopes and customers, not the token's claims (which say the same when the token
      // was issued): a signing secret that leaked cannot mint rights no key holds.
      return payload.sub ? await keyAccount(payload.sub) : null;
    } catch (e) {
      if (e instanceof joseErrors.JOSEError) return null;
      throw e;
    }
  }

  return {
    /**
     * The account of an API key from the cache, without waiting: `null` for a known bad key,
     * `undefined` when the cache cannot tell (an access token, or a key not seen for a while), and
     * `authenticate` must decide. Most requests end here, so it neither allocates a promise nor
     * hashes twice.
     */
    cachedAccount(credential: string): Account | null | undefined {
      return isAccessToken(credential) ? undefined : cachedByHash(hashKey(credential));
    },

    /** Resolves a bearer credential (API key or access token) to an account; null when it is not valid. */
    async authenticate(credential: string): Promise<Account | null> {
      if (isAccessToken(credential)) return accountFromToken(credential);
      const hash = hashKey(credential);
      const cached = cachedByHash(hash);
      if (cached !== undefined) return cached;
      const row = await store.activeKeyByHash(hash);
      const account = row ? toAccount(row) : null;
      byHash.set(hash, account ?? 'none');
      return account;
    },

    /** Creates a key; the secret is in the answer and nowhere else. */
    async createKey(input: { name: string; customerNrs: string[]; scopes: Scope[] }) {
      const { id, key } = generateApiKey();
      const row = await store.insertKey({
        id,
        name: input.name,
        keyHash: hashKey(key),
        scopes: [...new Set(input.scopes)],
        customerNrs: [...new Set(input.customerNrs)],
      });
      return { ...view(row), Key: key };
    },

    /** A page of keys, newest first: at most `limit` (default 100) after key `after`; null when it names none. */
    async listKeys(q: { after?: string | undefined; limit?: number } = {}) {
      const rows = await store.listKeys({ after: q.after, limit: q.limit ?? 100 });
      return rows?.map(view) ?? null;
    },

    /** True when a stored, unrevoked key has the `admin` scope (KOLLI_ADMIN_KEY aside). */
    hasStoredAdminKey: () => store.hasActiveAdminKey(),

    async revokeKey(id: string): Promise<void> {
      if (!(await store.revokeKey(id))) throw notFound(`API key ${id}`);
      byHash.clear();
      byId.delete(id);
      revocations++;
    },

    /** Changes with every revocation through this process: a memo of an account made before is stale. */
    revision: () => revocations,

    countKeys: () => store.countKeys(),

    /**
     * OAuth2 token grant: exchanges an API key id and secret for a short-lived signed access token
     * that carries the key's scopes and customer numbers.
     */
    async issueToken(keyId: string, key: string) {
      const row = await store.activeKeyByHash(hashKey(key));
      if (!row || row.id !== keyId) {
        throw new DomainError('unauthorized', 'invalid_credentials', 'Unknown key id or key.');
      }
      const ttl = deps.config.tokenTtlSeconds;
      const token = await new SignJWT({ scope: row.scopes.join(' '), cns: row.customerNrs, name: row.name })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(row.id)
        .setIssuer('kolli')
        .setIssuedAt()
        .setExpirationTime(`${ttl}s`)
        .sign(await signingKey());
      return { access_token: token, token_type: 'Bearer' as const, expires_in: ttl };
    },
  };
}
