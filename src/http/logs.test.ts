import { connect } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { measuredParcels, osloBergenBooking } from '../../test/factories';
import { ADMIN_KEY, bearer, buildTestApp, logCapture, type TestContext, waitFor } from '../../test/helpers';
import { hashKey } from '../auth/keys';

// CONTRACT §4: logs never carry SQL parameters, key hashes, tokens or request bodies, including the
// error logs of failed queries.

let ctx: TestContext;
const captured = logCapture();

beforeAll(async () => {
  ctx = await buildTestApp({
    env: { LOG_LEVEL: 'debug' },
    logStream: captured.stream,
  });
});
afterAll(() => ctx.close());

let address: Promise<string> | null = null;
/** The app's address on loopback, listening from the first test that needs a real socket. */
const listening = () => {
  address ??= ctx.app.listen({ port: 0, host: '127.0.0.1' });
  return address;
};

test('the log of a run whose queries fail holds no key, key hash, token, body or query parameter', async () => {
  const tokenKey = await ctx.keyFor({ scopes: ['webhooks'] });
  const token = await ctx.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `grant_type=client_credentials&client_id=${(await ctx.services.auth.listKeys())?.find((k) => k.Scopes.includes('webhooks'))?.Id}&client_secret=${tokenKey}`,
  });
  const accessToken = (token.json() as { access_token: string }).access_token;
  expect(accessToken).toBeTruthy();
  // A key never used yet: its lookup goes to the database.
  const key = await ctx.keyFor({ scopes: ['booking'] });

  // From now on every lookup of a key fails in the database, with the key's hash as its parameter.
  await ctx.database.db.execute(sql`alter table api_keys rename to api_keys_gone`);
  try {
    const secretReference = 'BODY-SECRET-4f1c9a';
    const failed = await ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: bearer(key),
      payload: osloBergenBooking({ SenderReference: secretReference }),
    });
    expect(failed.statusCode).toBe(500);
    const webhook = await ctx.app.inject({
      method: 'POST',
      url: '/v1/Webhooks',
      headers: bearer(accessToken),
      payload: {
        eventValue: '1000',
        eventValueType: 3,
        url: 'https://h.example/x',
        secret: 'WEBHOOK-SECRET-77',
      },
    });
    expect(webhook.statusCode).toBeGreaterThanOrEqual(400);
    await ctx.app.inject({ method: 'GET', url: '/admin/api-keys', headers: bearer(ADMIN_KEY) });

    const log = captured.text();
    expect(log).toContain('request failed');
    expect(log).toMatch(/api_keys/); // the failing query is logged, as SQL text
    for (const secret of [
      key,
      hashKey(key),
      tokenKey,
      hashKey(tokenKey),
      accessToken,
      secretReference,
      'WEBHOOK-SECRET-77',
      ADMIN_KEY,
    ]) {
      expect(log.includes(secret), `the log holds ${secret.slice(0, 12)}…`).toBe(false);
    }
  } finally {
    await ctx.database.db.execute(sql`alter table api_keys_gone rename to api_keys`);
  }
});

test('a client that hangs up mid-body is logged as its own doing, not as a database outage', async () => {
  const key = await ctx.keyFor({ scopes: ['booking'] });
  const { port } = new URL(await listening());
  const before = captured.text().length;
  await new Promise<void>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `POST /Shipment/Update HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"Ship',
      );
      setTimeout(() => socket.destroy(), 100);
    });
    socket.on('close', () => resolve());
  });
  await waitFor(async () => captured.text().slice(before).includes('mid-request') || undefined);
  const log = captured.text().slice(before);
  expect(log).toContain('client closed the connection mid-request');
  expect(log).not.toContain('database unavailable');
});

test('a client that hangs up mid-download of its labels is logged as its own doing, not as a failure', async () => {
  const key = await ctx.keyFor({ scopes: ['booking', 'labels'] });
  const booked = await ctx.app.inject({
    method: 'POST',
    url: '/Shipment/Update',
    headers: bearer(key),
    payload: osloBergenBooking({ Parcels: measuredParcels(300) }),
  });
  expect(booked.statusCode, booked.body).toBe(201);
  const { ShipmentId } = booked.json() as { ShipmentId: string };
  const { port } = new URL(await listening());
  const before = captured.text().length;
  // Hangs up at the first bytes of the PDF, long before its 300 pages are drawn.
  await new Promise<void>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `GET /v1/labels/${ShipmentId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`,
      );
    });
    socket.once('data', () => socket.destroy());
    socket.on('close', () => resolve());
  });
  await waitFor(async () => captured.text().slice(before).includes('mid-download') || undefined);
  const log = captured.text().slice(before);
  expect(log).toContain('client closed the connection mid-download');
  expect(log).not.toContain('rendering failed');
});
