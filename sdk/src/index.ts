import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

/**
 * Kolli's TypeScript SDK: the generated types (`./schema`, from the OpenAPI document) used by
 * openapi-fetch, plus what a generator cannot know — authentication (an API key, or an OAuth client
 * credentials token fetched and refreshed), an `Idempotency-Key` on every POST, retries with backoff
 * on 429 and 503 honouring `Retry-After`, and problem details as a typed error.
 */
export type { components, operations, paths };
export type Problem = components['schemas']['Problem'];
/** The spec's resources by name, as the OpenAPI document's components have them. */
type Schemas = components['schemas'];
export type ShipmentUpdateRequest = Schemas['ShipmentUpdateRequest'];
export type ShipmentUpdateRequestV2 = Schemas['ShipmentUpdateRequestV2'];
export type ShipmentUpdateResult = Schemas['ShipmentUpdateResult'];
export type ShipmentRecord = Schemas['ShipmentRecord'];
export type ShipmentPrice = Schemas['ShipmentPrice'];
export type ShipmentEvents = Schemas['ShipmentEvents'];
export type ShipmentListRecord = Schemas['ShipmentListRecord'];
export type PriceRequestV2 = Schemas['PriceRequestV2'];
export type PriceResultV2 = Schemas['PriceResultV2'];
export type PriceResultV3 = Schemas['PriceResultV3'];
export type EuropePriceResult = Schemas['EuropePriceResult'];
export type InvoiceReportV1 = Schemas['InvoiceReportV1'];
export type InvoiceReportV2 = Schemas['InvoiceReportV2'];
export type InvoiceReportV3 = Schemas['InvoiceReportV3'];
export type InvoiceSummary = Schemas['InvoiceSummary'];
export type InvoiceLine = Schemas['InvoiceLine'];
export type WebhookRecord = Schemas['WebhookRecord'];
export type WebhookRequest = Schemas['WebhookRequest'];
export type Product = Schemas['Product'];
export type Service = Schemas['Service'];
export type DeliveryDates = Schemas['DeliveryDates'];
export type PickupPoint = Schemas['PickupPoint'];
export type PostalCode = Schemas['PostalCode'];
export type KolliClient = Client<paths>;

export interface KolliClientOptions {
  /** The server's base address, e.g. `https://api.kolli.example`. */
  baseUrl: string;
  /** An API key, sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** OAuth client credentials (API key id and key): a token is fetched, and refreshed before it expires. */
  clientCredentials?: { clientId: string; clientSecret: string };
  /** Attempts after the first on 429 or 503 (default 3). */
  retries?: number;
  /** The first backoff in ms when no `Retry-After` is given (default 500; doubled per attempt). */
  backoffMs?: number;
  /**
   * The longest wait in ms the client accepts from `Retry-After` (default 60 000: the rate limit
   * counts a minute, so a 429 can ask for up to 60 s).
   */
  maxWaitMs?: number;
  /** A fetch implementation (default the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** Makes idempotency keys (default `crypto.randomUUID`). */
  idempotencyKey?: () => string;
  /** Waits (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
}

/** An answer that is not a success: the problem details (or the plain text of a 401/403). */
export class KolliError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | null,
    readonly text: string | null,
  ) {
    const fields = Object.entries(problem?.errors ?? {}).map(
      ([field, messages]) => `${field}: ${messages.join(' ')}`,
    );
    // The token endpoint answers as OAuth does (RFC 6749 §5.2), not as a problem document.
    const oauth = problem as { error?: string; error_description?: string } | null;
    const message = problem?.detail ?? problem?.title ?? oauth?.error_description ?? oauth?.error ?? text;
    super([message ?? `HTTP ${status}`, ...fields].join(' '));
    this.name = 'KolliError';
  }

  /** The messages per field of a 400 (`{ "Parcels[0].Weight": ["…"] }`). */
  get fieldErrors(): Record<string, string[]> {
    return this.problem?.errors ?? {};
  }
}

const RETRYABLE = new Set([429, 503]);

/** Seconds or an HTTP date, as `Retry-After` allows; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

interface Token {
  value: string;
  expiresAt: number;
}

export function createKolliClient(options: KolliClientOptions): KolliClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const retries = options.retries ?? 3;
  const backoffMs = options.backoffMs ?? 500;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const newKey = options.idempotencyKey ?? (() => crypto.randomUUID());
  const base = options.baseUrl.replace(/\/$/, '');
  let token: Token | null = null;
  let pending: Promise<Token> | null = null;

  async function fetchToken(): Promise<Token> {
    const { clientId, clientSecret } = options.clientCredentials ?? { clientId: '', clientSecret: '' };
    const res = await baseFetch(
      new Request(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: clientSecret,
        }),
      }),
    );
    if (!res.ok) throw await errorOf(res);
    const body = (await res.json()) as { access_token: string; expires_in: number };
    // Refreshed a little before it expires, so a request never leaves with a token about to lapse.
    return { value: body.access_token, expiresAt: Date.now() + (body.expires_in - 30) * 1000 };
  }

  async function credential(refresh: boolean): Promise<string | null> {
    if (options.apiKey) return options.apiKey;
    if (!options.clientCredentials) return null;
    if (refresh || !token || token.expiresAt <= Date.now()) {
      // One token request at a time, however many calls are waiting for it.
      pending ??= fetchToken().finally(() => {
        pending = null;
      });
      token = await pending;
    }
    return token.value;
  }

  async function send(request: Request): Promise<Response> {
    const template = request.clone();
    if (template.method === 'POST' && !template.headers.has('idempotency-key')) {
      template.headers.set('idempotency-key', newKey());
    }
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const attemptRequest = template.clone();
      const bearer = await credential(false);
      if (bearer && !attemptRequest.headers.has('authorization')) {
        attemptRequest.headers.set('authorization', `Bearer ${bearer}`);
      }
      const res = await baseFetch(attemptRequest);
      if (res.status === 401 && options.clientCredentials && !options.apiKey && !refreshed) {
        // The token was revoked or expired early: fetch a new one, once.
        refreshed = true;
        await credential(true);
        attempt--;
        continue;
      }
      if (!RETRYABLE.has(res.status) || attempt >= retries) return res;
      const wait = retryAfterMs(res.headers.get('retry-after')) ?? backoffMs * 2 ** attempt;
      if (wait > maxWaitMs) return res;
      await res.body?.cancel();
      await sleep(wait);
    }
  }

  return createClient<paths>({ baseUrl: base, fetch: send, querySerializer: aspNetQuery });
}

/**
 * A query string as the server reads one (ASP.NET's binding): a list of values repeats its parameter
 * (`Services=16&Services=35`), a list of objects is indexed (`Parcels[0].Weight=12&Parcels[0].Length=60`)
 * and an object's members are dotted (`Parcel.Weight=12`), at any depth; a `Date` is its ISO form.
 * openapi-fetch's own serializer refuses lists of objects. `null` and `undefined` are left out.
 */
export function aspNetQuery(query: Record<string, unknown>): string {
  const pairs: string[] = [];
  const add = (name: string, value: unknown): void => {
    if (value === null || value === undefined) return;
    if (value instanceof Date) {
      add(name, value.toISOString());
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        add(
          item !== null && typeof item === 'object' && !(item instanceof Date) ? `${name}[${i}]` : name,
          item,
        );
      });
      return;
    }
    if (typeof value === 'object') {
      for (const [member, v] of Object.entries(value)) add(`${name}.${member}`, v);
      return;
    }
    pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  };
  for (const [name, value] of Object.entries(query)) add(name, value);
  return pairs.join('&');
}

async function errorOf(res: Response): Promise<KolliError> {
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      return new KolliError(res.status, JSON.parse(text) as Problem, null);
    } catch {
      // not JSON after all: keep the text
    }
  }
  return new KolliError(res.status, null, text);
}

/**
 * The data of a success, or a thrown `KolliError` carrying the problem details:
 * `const shipment = await orThrow(kolli.GET('/v2/Shipment/{shipmentid}', …))`.
 */
export async function orThrow<D, E>(call: Promise<{ data?: D; error?: E; response: Response }>): Promise<D> {
  const { data, error, response } = await call;
  if (response.ok) return data as D;
  // Not a failure: the copy named in If-None-Match is current; said so, since the answer is empty.
  if (response.status === 304) {
    throw new KolliError(304, null, 'Not Modified: the version named in If-None-Match is current.');
  }
  if (typeof error === 'string') throw new KolliError(response.status, null, error);
  throw new KolliError(response.status, (error ?? null) as Problem | null, null);
}
