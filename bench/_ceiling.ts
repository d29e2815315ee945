// The ceiling of bench/price.ts: GET /v3/Calculate/ with every layer Kolli's route has, and nothing
// else, each done as cheaply as we know how. One Fastify route, one hook for the request id, the
// security and rate-limit headers, the key (remembered per connection) and the limit (counted in
// memory); Kolli's binder, text check, validator and response schema; the real quote on the bench
// database; the request histogram, the price counter and the access line. What it leaves out is what
// Kolli has besides: plugins and hooks for every other route, overload protection, conditional GET,
// the request log, the answer cache and the shared rate-limit store. Its ratio to the bare route is
// how far any design of the route itself could go on this machine.
//
// CEILING_LAYERS (comma-separated; default all of bench/_ceiling-layers.ts) keeps only the layers
// named, for bench/layers.ts, which adds them one at a time: without `quote` the route answers
// CEILING_BODY (the whole route's answer to a price question) and prices nothing; without `auth`
// the quote is for the account of CEILING_KEY, looked up once at start; without `schema` Fastify
// answers with JSON.stringify.
//
// Started by bench/price.ts and bench/layers.ts with the prepared database's environment and PORT.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { createServices } from '../src/app';
import { bearerCredential, connectionAccounts, NO_CREDENTIAL } from '../src/auth/plugin';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/client';
import { loggingOptions } from '../src/http/logging';
import { PriceRequestCounter, RequestHistogram } from '../src/http/metrics';
import { createGrantLimiter, rateLimitHeaders } from '../src/http/rate-limit';
import { requestId } from '../src/http/request-id';
import { bindRouteInput } from '../src/http/route-input';
import { API_HEADERS } from '../src/http/security-headers';
import { textAjv } from '../src/http/validation';
import { createCalculator } from '../src/pricing/calculator';
import { type PriceRequestV3, PriceRequestV3Schema, PriceResultV3Schema } from '../src/pricing/schemas';
import { CEILING_LAYERS } from './_ceiling-layers';

const kept = new Set<string>(process.env.CEILING_LAYERS?.split(',').filter(Boolean) ?? CEILING_LAYERS);
const unknown = [...kept].filter((name) => !(CEILING_LAYERS as readonly string[]).includes(name));
if (unknown.length > 0) throw new Error(`CEILING_LAYERS names no layer ${unknown.join(', ')}`);
const has = (layer: (typeof CEILING_LAYERS)[number]) => kept.has(layer);
if (has('quote') && !has('validation')) throw new Error('the quote layer needs the validation layer');

const config = loadConfig(process.env);
const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
const services = createServices(database, config);
const calculator = createCalculator(services.pricing);
const limiter = createGrantLimiter({
  perMinute: config.rateLimitPerMinute,
  store: new RateLimiterMemory({ points: config.rateLimitPerMinute, duration: 60 }),
});
const limit = String(config.rateLimitPerMinute);
const durations = new RequestHistogram();
const prices = new PriceRequestCounter();
type Account = FastifyRequest['account'];
const accountOf = connectionAccounts(services.auth);
const fixedAccount = has('auth')
  ? null
  : await services.auth.authenticate(bearerCredential(`Bearer ${process.env.CEILING_KEY}`) ?? '');
if (!has('auth') && !fixedAccount) throw new Error('CEILING_KEY is not a key of the database');
const fixedAnswer = has('quote') ? null : JSON.parse(process.env.CEILING_BODY ?? 'null');
if (!has('quote') && !fixedAnswer) throw new Error('without the quote layer CEILING_BODY is the answer');

const app = Fastify({
  ...loggingOptions(has('log') ? config.logLevel : 'silent'),
  ...(has('headers') ? { genReqId: requestId } : {}),
  // Paths are case-insensitive (CONTRACT §2), as Kolli's router is told.
  routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
}).withTypeProvider<TypeBoxTypeProvider>();
app.setValidatorCompiler(({ schema }) => textAjv.compile(schema as object));
if (has('validation')) app.addHook('onRoute', bindRouteInput);

/** The rate limit, then on: the request's account is known. */
function admit(
  request: FastifyRequest,
  reply: FastifyReply,
  done: () => void,
  account: Account | null,
): void {
  if (!account) {
    reply.code(401).send('The API key is not valid.');
    return;
  }
  request.account = account;
  const decision = limiter.take(`key:${account.keyId}`);
  if (decision instanceof Promise) {
    decision.then(() => done());
    return;
  }
  rateLimitHeaders(reply, limit, decision);
  done();
}

const withHeaders = has('headers');
const setHeaders = (request: FastifyRequest, reply: FastifyReply) =>
  reply.headers(API_HEADERS).header('x-request-id', request.id);
const authenticated = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
  if (withHeaders) setHeaders(request, reply);
  const account = accountOf(request);
  if (account === NO_CREDENTIAL) return admit(request, reply, done, null);
  if (!(account instanceof Promise)) return admit(request, reply, done, account);
  account.then((found) => admit(request, reply, done, found), done);
};
const headed = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
  setHeaders(request, reply);
  done();
};
const counted = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
  durations.observe(request.method, '/v3/Calculate/', reply.statusCode, reply.elapsedTime / 1000);
  prices.inc('getPriceV3', reply.statusCode);
  done();
};
const onRequest = has('auth') ? authenticated : withHeaders ? headed : undefined;
app.get(
  '/v3/Calculate/',
  {
    ...(onRequest ? { onRequest } : {}),
    ...(has('metrics') ? { onResponse: counted } : {}),
    schema: {
      ...(has('validation') ? { querystring: PriceRequestV3Schema } : {}),
      ...(has('schema') ? { response: { 200: PriceResultV3Schema } } : {}),
    },
  },
  fixedAnswer
    ? () => fixedAnswer
    : // The validation layer is on whenever the quote is (checked above).
      (request) => calculator.v3(fixedAccount ?? request.account, request.query as PriceRequestV3),
);
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
// Stop as the server does, so `--cpu-prof` (BENCH_PROFILE) gets to write its profile.
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
