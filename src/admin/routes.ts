import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { auditMade } from '../audit/plugin';
import { SCOPES } from '../auth/access';
import type { AuthService } from '../auth/service';
import type { CustomerService } from '../customers/service';
import { DEFAULT_PAGE, linkNext, PageQuery } from '../http/paging';
import { authErrors, Nullable, problemResponses, STRICT } from '../http/schemas';
import { ValidationFailed, Violations } from '../lib/errors';
import { formatOslo } from '../lib/oslo-time';
import type { PostalCodeService } from '../reference-data/postal-codes';

const CustomerNr = Type.String({
  pattern: '^[0-9]{1,10}$',
  'x-error': 'A customer number is 1 to 10 digits.',
});

const Address = Type.Object(
  {
    Address: Type.Optional(Type.String({ maxLength: 100 })),
    Address2: Type.Optional(Type.String({ maxLength: 100 })),
    Zip: Type.Optional(Type.String({ maxLength: 10 })),
    Place: Type.Optional(Type.String({ maxLength: 100 })),
    Country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  },
  STRICT,
);

const Agreement = Type.Object(
  {
    FreightDiscountPercent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    SpecialUnitCodes: Type.Optional(
      Type.Array(
        Type.String({ pattern: '^(5[1-9]|[6-9][0-9])$', 'x-error': 'Special unit codes are 51 to 99.' }),
        {
          maxItems: 49,
        },
      ),
    ),
  },
  STRICT,
);

/** A response timestamp in the form of CONTRACT §2: Oslo local time, no zone, whole seconds. */
const LocalDateTime = Type.String({
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$',
  description: 'YYYY-MM-DDTHH:mm:ss, Europe/Oslo local time.',
  examples: ['2026-11-23T10:15:00'],
});

/** A customer as the admin API shows it, its creation time in the §2 form. */
const customerView = <T extends { CreatedAt: string }>(c: T): T => ({
  ...c,
  CreatedAt: formatOslo(new Date(c.CreatedAt)),
});

/** What an admin gives of a customer besides its number, at creation and when correcting it. */
const CustomerBody = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 200 }),
    OrgNr: Type.Optional(
      Type.String({ pattern: '^[0-9]{9}$', 'x-error': 'An organisation number is 9 digits.' }),
    ),
    Address: Type.Optional(Address),
    Agreement: Type.Optional(Agreement),
  },
  STRICT,
);

const Customer = Type.Object({
  CustomerNr: Type.String(),
  Name: Type.String(),
  OrgNr: Nullable(Type.String()),
  Address: Nullable(Address),
  Agreement,
  PriceServiceId: Type.String({
    description: 'The `CustomerId` of `GET /v2/europe/price` for this customer.',
  }),
  CreatedAt: LocalDateTime,
});

const ApiKey = Type.Object({
  Id: Type.String(),
  Name: Type.String(),
  CustomerNrs: Type.Array(Type.String()),
  Scopes: Type.Array(Type.String()),
  CreatedAt: LocalDateTime,
  RevokedAt: Nullable(LocalDateTime),
});

const PostalCodeImport = Type.Object(
  {
    PostalCode: Type.String({ pattern: '^[0-9]{4}$' }),
    Place: Type.String({ minLength: 1, maxLength: 100 }),
    MunicipalityCode: Type.String({ pattern: '^[0-9]{4}$' }),
    Municipality: Type.String({ minLength: 1, maxLength: 100 }),
    CountyCode: Type.String({ pattern: '^[0-9]{2}$' }),
    County: Type.String({ minLength: 1, maxLength: 100 }),
    Category: Type.Union(['G', 'P', 'B', 'S', 'F'].map((c) => Type.Literal(c))),
    Latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    Longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  },
  STRICT,
);

export const adminRoutes: FastifyPluginAsyncTypebox<{
  auth: AuthService;
  customers: CustomerService;
  postalCodes: PostalCodeService;
}> = async (app, { auth, customers, postalCodes }) => {
  const config = { scope: 'admin' as const };
  const tags = ['Administration'];

  app.post(
    '/admin/customers',
    {
      config,
      schema: {
        tags,
        summary: 'Create a customer',
        body: Type.Object({ CustomerNr, ...CustomerBody.properties }, STRICT),
        response: { 201: Customer, ...problemResponses(400, 409), ...authErrors },
      },
    },
    async (request, reply) => reply.code(201).send(customerView(await customers.create(request.body))),
  );

  app.put(
    '/admin/customers/:customerNr',
    {
      config,
      schema: {
        tags,
        summary: 'Correct a customer',
        description:
          'Replaces the name, organisation number, address and agreement (a field left out is cleared); the customer number and price-service id stay. Issued invoices keep the buyer they were issued to and booked shipments their price; prices and bookings from now on use the new agreement (other processes within 10 s).',
        params: Type.Object({ customerNr: CustomerNr }),
        body: CustomerBody,
        response: { 200: Customer, ...problemResponses(400, 404), ...authErrors },
      },
    },
    async (request) => customerView(await customers.update(request.params.customerNr, request.body)),
  );

  app.get(
    '/admin/customers',
    {
      config,
      schema: {
        tags,
        summary: 'List customers',
        description:
          'By customer number (as text), a page at a time: `Limit` (100, at most 1 000) after customer `After`; a `Link: <…>; rel="next"` header gives the next page while there is one.',
        querystring: PageQuery('A customer number'),
        response: { 200: Type.Array(Customer), ...problemResponses(400), ...authErrors },
      },
    },
    async (request, reply) => {
      const limit = request.query.Limit ?? DEFAULT_PAGE;
      const rows = await customers.list({ after: request.query.After, limit: limit + 1 });
      return linkNext(request, reply, rows, limit, (c) => c.CustomerNr).map(customerView);
    },
  );

  app.post(
    '/admin/api-keys',
    {
      config,
      schema: {
        tags,
        summary: 'Create an API key',
        description: 'The key is in this answer only; it is stored as a hash.',
        body: Type.Object(
          {
            Name: Type.String({ minLength: 1, maxLength: 200 }),
            CustomerNrs: Type.Array(CustomerNr, { maxItems: 1000 }),
            Scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { minItems: 1 }),
          },
          STRICT,
        ),
        response: {
          201: Type.Intersect([ApiKey, Type.Object({ Key: Type.String() })]),
          ...problemResponses(400),
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      const { Name, CustomerNrs, Scopes } = request.body;
      const known = await customers.existing(CustomerNrs);
      const violations = new Violations();
      CustomerNrs.forEach((nr, i) => {
        violations.check(`CustomerNrs[${i}]`, known.has(nr), `Customer number ${nr} does not exist.`);
      });
      violations.throwIfAny();
      const created = await auth.createKey({ name: Name, customerNrs: CustomerNrs, scopes: Scopes });
      // The trail names the key made and what it may do (never the key itself).
      auditMade(request, { KeyId: created.Id, Scopes: Scopes.join(' '), CustomerNrs: CustomerNrs.join(' ') });
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/admin/api-keys',
    {
      config,
      schema: {
        tags,
        summary: 'List API keys',
        description:
          'Newest first, a page at a time: `Limit` (100, at most 1 000) after key `After`; a `Link: <…>; rel="next"` header gives the next page while there is one.',
        querystring: PageQuery('A key id'),
        response: { 200: Type.Array(ApiKey), ...problemResponses(400), ...authErrors },
      },
    },
    async (request, reply) => {
      const limit = request.query.Limit ?? DEFAULT_PAGE;
      const rows = await auth.listKeys({ after: request.query.After, limit: limit + 1 });
      if (rows === null) throw new ValidationFailed({ After: [`No API key ${request.query.After}.`] });
      return linkNext(request, reply, rows, limit, (k) => k.Id);
    },
  );

  app.delete(
    '/admin/api-keys/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Revoke an API key',
        description: 'The key stops working on every instance within 5 seconds.',
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: { 204: Type.Null(), ...problemResponses(404), ...authErrors },
      },
    },
    async (request, reply) => {
      await auth.revokeKey(request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/admin/postal-codes',
    {
      config,
      schema: {
        tags,
        summary: 'Replace the postal register',
        description:
          "Replaces the whole register in one transaction: new codes are added, known ones updated, codes not in the list removed, and every code given its serving terminal from the routing data again (the nearest terminal, or its override). The register is then the operator's: a release with a changed register file no longer overwrites it. A register that withdraws codes where pickup points or terminal overrides still stand is refused (409, naming them) unless `RetireDependents` is true: then they are removed with the codes, in the same transaction, and the answer lists them.",
        body: Type.Object(
          {
            PostalCodes: Type.Array(PostalCodeImport, { minItems: 1, maxItems: 20_000 }),
            RetireDependents: Type.Optional(
              Type.Boolean({
                description:
                  'Remove the pickup points and terminal overrides at withdrawn codes along with them (default false: such an import is refused).',
              }),
            ),
          },
          STRICT,
        ),
        response: {
          200: Type.Object({
            Count: Type.Integer({ description: 'Postal codes in the register now.' }),
            Withdrawn: Type.Array(Type.String(), { description: 'The codes the import removed.' }),
            RetiredPickupPoints: Type.Array(Type.Integer(), {
              description: 'The pickup points removed with their codes.',
            }),
            RetiredTerminalOverrides: Type.Array(Type.String(), {
              description: 'The postal codes whose terminal override was removed with them.',
            }),
          }),
          ...problemResponses(400, 409),
          ...authErrors,
        },
      },
    },
    async (request) => {
      const violations = new Violations();
      const seen = new Set<string>();
      request.body.PostalCodes.forEach((p, i) => {
        violations.check(
          `PostalCodes[${i}].PostalCode`,
          !seen.has(p.PostalCode),
          `Postal code ${p.PostalCode} is listed twice.`,
        );
        seen.add(p.PostalCode);
      });
      violations.throwIfAny();
      const { count, withdrawn, retired } = await postalCodes.importRegister(
        request.body.PostalCodes.map((p) => ({
          postalCode: p.PostalCode,
          place: p.Place,
          municipalityCode: p.MunicipalityCode,
          municipality: p.Municipality,
          countyCode: p.CountyCode,
          county: p.County,
          category: p.Category,
          lat: p.Latitude ?? null,
          lon: p.Longitude ?? null,
        })),
        request.body.RetireDependents ?? false,
      );
      return {
        Count: count,
        Withdrawn: withdrawn,
        RetiredPickupPoints: (retired['pickup points'] ?? []).map(Number),
        RetiredTerminalOverrides: retired['terminal overrides'] ?? [],
      };
    },
  );
};
