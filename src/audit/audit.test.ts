import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osloBergenBooking } from '../../test/factories';
import { ADMIN_KEY, bearer, buildTestApp, json, type TestContext } from '../../test/helpers';
import type { AuditEntry } from './service';

let now = new Date('2026-11-23T09:00:00Z');
let ctx: TestContext;
beforeAll(async () => {
  ctx = await buildTestApp({ clock: () => now });
});
afterAll(() => ctx.close());

const admin = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, key = ADMIN_KEY) =>
  ctx.app.inject({ method, url, headers: bearer(key), ...(payload === undefined ? {} : { payload }) });
const trail = async (query = '') =>
  json<{ Entries: AuditEntry[]; NextBefore: number | null }>(await admin('GET', `/admin/audit${query}`));

describe('the admin audit trail', () => {
  test('each change through the admin API: who, when, which operation and target, the outcome', async () => {
    const created = await admin('POST', '/admin/customers', { CustomerNr: '7000', Name: 'Revisjon AS' });
    expect(created.statusCode).toBe(201);
    const taken = await admin('POST', '/admin/customers', { CustomerNr: '7000', Name: 'Igjen AS' });
    expect(taken.statusCode).toBe(409);
    const corrected = await admin('PUT', '/admin/customers/7000', { Name: 'Revisjon og Regnskap AS' });
    expect(corrected.statusCode).toBe(200);

    const [put, refused, post] = (await trail()).Entries;
    expect(post).toMatchObject({
      Time: '2026-11-23T10:00:00',
      KeyName: expect.any(String),
      Method: 'POST',
      Route: '/admin/customers',
      Path: '/admin/customers',
      Params: {},
      RequestId: created.headers['x-request-id'],
      Status: 201,
      SettledTime: '2026-11-23T10:00:00',
    });
    expect(refused).toMatchObject({ Method: 'POST', Status: 409, RequestId: taken.headers['x-request-id'] });
    expect(put).toMatchObject({
      Method: 'PUT',
      Route: '/admin/customers/:customerNr',
      Path: '/admin/customers/7000',
      Params: { customerNr: '7000' },
      Status: 200,
    });
  });

  test('a key made through the admin API is named in its row, with what it may do, never the key', async () => {
    // Once `Params: {}`: the trail could not say which key an administrator had created.
    const made = await admin('POST', '/admin/api-keys', {
      Name: 'Revisor',
      CustomerNrs: ['7000'],
      Scopes: ['invoice', 'shipments'],
    });
    expect(made.statusCode).toBe(201);
    const { Id, Key } = json<{ Id: string; Key: string }>(made);
    const [row] = (await trail()).Entries;
    expect(row).toMatchObject({
      Route: '/admin/api-keys',
      Status: 201,
      Params: { KeyId: Id, Scopes: 'invoice shipments', CustomerNrs: '7000' },
    });
    expect(JSON.stringify(row)).not.toContain(Key);
  });

  test('reads, refused requests and other scopes change nothing and are not audited', async () => {
    const before = (await trail()).Entries.length;
    expect((await admin('GET', '/admin/customers')).statusCode).toBe(200);
    // Refused by validation before the handler: nothing was changed.
    expect((await admin('POST', '/admin/customers', { CustomerNr: 'x' })).statusCode).toBe(400);
    const booker = await ctx.keyFor({ customerNrs: ['1000'], scopes: ['booking'] });
    const booked = await ctx.app.inject({
      method: 'POST',
      url: '/Shipment/Update',
      headers: bearer(booker),
      payload: osloBergenBooking(),
    });
    expect(booked.statusCode).toBe(201);
    expect(
      (await admin('POST', '/admin/customers', { CustomerNr: '7001', Name: 'X' }, booker)).statusCode,
    ).toBe(403);
    expect((await trail()).Entries.length).toBe(before);
    expect((await admin('GET', '/admin/audit', undefined, booker)).statusCode).toBe(403);
  });

  test('a change that cannot be recorded is not made', async () => {
    await ctx.database.db.execute(sql`alter table admin_audit rename to admin_audit_away`);
    try {
      const res = await admin('POST', '/admin/customers', { CustomerNr: '7002', Name: 'Uten Spor AS' });
      expect(res.statusCode).toBeGreaterThanOrEqual(500);
    } finally {
      await ctx.database.db.execute(sql`alter table admin_audit_away rename to admin_audit`);
    }
    expect((await admin('GET', '/admin/customers')).body).not.toContain('7002');
  });

  test('paged newest first, by key, and pruned past its retention', async () => {
    const all = (await trail()).Entries;
    const first = await trail('?Limit=2');
    expect(first.Entries.map((e) => e.Id)).toEqual(all.slice(0, 2).map((e) => e.Id));
    expect(first.NextBefore).toBe(all[1]?.Id);
    const rest = await trail(`?Limit=2&Before=${first.NextBefore}`);
    expect(rest.Entries.map((e) => e.Id)).toEqual(all.slice(2, 4).map((e) => e.Id));
    const keyId = all[0]?.KeyId ?? '';
    expect((await trail(`?KeyId=${encodeURIComponent(keyId)}`)).Entries.length).toBe(all.length);
    expect((await trail('?KeyId=key_nobody')).Entries).toEqual([]);

    now = new Date('2027-11-24T09:00:00Z');
    expect(await admin('DELETE', '/admin/api-keys/key_nobody').then((r) => r.statusCode)).toBe(404);
    expect(await ctx.services.audit.prune()).toEqual({ aged: all.length });
    expect((await trail()).Entries.map((e) => e.Route)).toEqual(['/admin/api-keys/:id']);
  });
});
