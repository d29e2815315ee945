import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors, problemResponses, STRICT } from '../http/schemas';
import type { TerminalService } from './terminals';

const TerminalCode = Type.String({
  pattern: '^[A-Z0-9]{2,6}$',
  'x-error': 'A terminal code is 2 to 6 capital letters or digits.',
});

const Terminal = Type.Object(
  {
    Code: TerminalCode,
    Name: Type.String({ minLength: 1, maxLength: 100 }),
    Place: Type.String({ minLength: 1, maxLength: 100 }),
    Latitude: Type.Number({ minimum: -90, maximum: 90 }),
    Longitude: Type.Number({ minimum: -180, maximum: 180 }),
  },
  {
    ...STRICT,
    examples: [
      { Code: 'OSL', Name: 'Oslo terminal Alnabru', Place: 'OSLO', Latitude: 59.93, Longitude: 10.844 },
    ],
  },
);

// STRICT: a misspelt `TransitDays` would silently mean "derive them from the distance".
const RoutingBody = Type.Object(
  {
    Terminals: Type.Array(Terminal, { minItems: 1, maxItems: 500 }),
    TransitDays: Type.Optional(
      Type.Array(
        Type.Object(
          {
            From: TerminalCode,
            To: TerminalCode,
            Days: Type.Integer({ minimum: 1, maximum: 30 }),
            Basis: Type.Optional(Type.String({ maxLength: 200 })),
          },
          STRICT,
        ),
        {
          maxItems: 250_000,
          description:
            'Working days for every ordered pair of terminals. Leave out to derive them from the distance bands and documented exceptions.',
        },
      ),
    ),
    Overrides: Type.Array(
      Type.Object(
        {
          PostalCode: Type.String({ pattern: '^[0-9]{4}$', 'x-error': 'A postal code is 4 digits.' }),
          Terminal: TerminalCode,
          Reason: Type.String({ minLength: 1, maxLength: 200 }),
        },
        STRICT,
      ),
      { maxItems: 10_000, description: 'Postal codes served by another terminal than the nearest one.' },
    ),
  },
  STRICT,
);

export const terminalRoutes: FastifyPluginAsyncTypebox<{ terminals: TerminalService }> = async (
  app,
  { terminals },
) => {
  app.get(
    '/v1/terminals',
    {
      schema: {
        tags: ['Postal codes'],
        summary: 'List the carrier terminals',
        description:
          'The terminal codes that `GET /v1/postalcodes/{postalCode}` gives as `Terminal` and that scans name.',
        response: { 200: Type.Array(Terminal), ...authErrors },
      },
    },
    () => terminals.list(),
  );

  app.put(
    '/admin/terminals',
    {
      config: { scope: 'admin' as const },
      schema: {
        tags: ['Administration'],
        summary: 'Replace terminals, transit times and postal code overrides',
        description:
          'Replaces the routing data in one go and assigns every postal code its terminal again (nearest by coordinates unless overridden). The shipped files no longer overwrite it.',
        body: RoutingBody,
        response: {
          200: Type.Object({
            Terminals: Type.Integer(),
            TransitDays: Type.Integer(),
            Overrides: Type.Integer(),
            PostalCodesChanged: Type.Integer(),
          }),
          ...problemResponses(400),
          ...authErrors,
        },
      },
    },
    async (request) => {
      const body = request.body;
      const r = await terminals.replace({
        terminals: body.Terminals.map((t) => ({
          code: t.Code,
          name: t.Name,
          place: t.Place,
          lat: t.Latitude,
          lon: t.Longitude,
        })),
        transitDays: body.TransitDays?.map((d) => ({
          fromTerminal: d.From,
          toTerminal: d.To,
          days: d.Days,
          basis: d.Basis ?? 'admin',
        })),
        overrides: body.Overrides.map((o) => ({
          postalCode: o.PostalCode,
          terminal: o.Terminal,
          reason: o.Reason,
        })),
      });
      return {
        Terminals: r.terminals,
        TransitDays: r.transitDays,
        Overrides: r.overrides,
        PostalCodesChanged: r.postalCodesChanged,
      };
    },
  );
};
