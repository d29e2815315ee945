// The reference of the price benches (started by `startBare`, bench/_prices.ts): a bare Fastify
// route answering a fixed JSON body (argv[2], a file) on PORT; nothing else (no auth, validation,
// logging or limits).
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const payload = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/bare', async () => payload);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
