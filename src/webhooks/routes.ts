import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { rulesOf } from '../http/domain-rules';
import { authErrors, problemResponses } from '../http/schemas';
import {
  DeliveriesQuery,
  DeliveriesResponse,
  TestResult,
  WebhookIdParams,
  WebhookListQuery,
  WebhookRecord,
  WebhookRequest,
} from './schemas';
import type { WebhookService } from './service';

const tags = ['Webhooks'];
const security: Record<string, string[]>[] = [{ bearer: [] }, { oauth2: [] }];
const config = { scope: 'webhooks' as const };

export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService }> = async (
  app,
  { webhooks },
) => {
  // The delivery engine's pooled connections to targets end with the app.
  app.addHook('onClose', async () => webhooks.close());

  app.get(
    '/v1/Webhooks/:webhookId',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Read a webhook registration',
        description:
          'The spec’s operation. A webhookId that is not a UUID is a 400 naming `webhookId`; an unknown webhook, or one of a customer the key may not act for, is a 404.',
        params: WebhookIdParams,
        response: { 200: WebhookRecord, ...problemResponses(400, 404), ...authErrors },
      },
    },
    async (request) => webhooks.get(request.account, request.params.webhookId),
  );

  // Rules on what the schema accepted, so one 400 lists both (http/domain-rules.ts).
  const withRules = {
    ...config,
    // A replace names its registration, which keeps its own place among its eventValue's.
    domainRules: rulesOf<WebhookRequest>((body, request) =>
      webhooks.check(request.account, body, (request.params as { webhookId?: string }).webhookId ?? null),
    ),
  };

  app.post(
    '/v1/Webhooks',
    {
      config: withRules,
      schema: {
        tags,
        security,
        summary: 'Register a webhook (extension)',
        description:
          'Deliveries of every event of the parcel, shipment or customer named by `eventValue` are POSTed to `url`, signed per Standard Webhooks with `secret`. The key must be able to act for the customer behind the value.',
        body: WebhookRequest,
        response: { 200: WebhookRecord, ...problemResponses(400, 413, 415), ...authErrors },
      },
    },
    async (request, reply) => {
      const record = await webhooks.create(request.account, request.body);
      return reply.code(200).header('location', `/v1/Webhooks/${record.uuid}`).send(record);
    },
  );

  app.get(
    '/v1/Webhooks',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'List webhook registrations (extension)',
        description: 'The registrations of every customer the key may act for, oldest first.',
        querystring: WebhookListQuery,
        response: { 200: Type.Array(WebhookRecord), ...problemResponses(400), ...authErrors },
      },
    },
    async (request) => webhooks.list(request.account, request.query),
  );

  app.put(
    '/v1/Webhooks/:webhookId',
    {
      config: withRules,
      schema: {
        tags,
        security,
        summary: 'Replace a webhook registration (extension)',
        description:
          'Replaces every field (an absent `expires` renews the registration for two months) and enables a disabled registration again.',
        params: WebhookIdParams,
        body: WebhookRequest,
        response: { 200: WebhookRecord, ...problemResponses(400, 404, 413, 415), ...authErrors },
      },
    },
    async (request) => webhooks.replace(request.account, request.params.webhookId, request.body),
  );

  app.delete(
    '/v1/Webhooks/:webhookId',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Delete a webhook registration (extension)',
        description: 'Stops its deliveries and deletes its delivery history.',
        params: WebhookIdParams,
        response: {
          204: Type.Null({ description: 'Deleted.' }),
          ...problemResponses(400, 404),
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      await webhooks.remove(request.account, request.params.webhookId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/Webhooks/:webhookId/deliveries',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Recent deliveries of a webhook (extension)',
        description:
          'The newest deliveries, each with its attempts: status code, duration, error and the first 4 KB of the answer.',
        params: WebhookIdParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesResponse, ...problemResponses(400, 404), ...authErrors },
      },
    },
    async (request) =>
      webhooks.deliveries(request.account, request.params.webhookId, request.query.limit ?? 50),
  );

  app.post(
    '/v1/Webhooks/:webhookId/test',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Send a test message (extension)',
        description:
          "Sends a signed `webhook.test` message at once and answers with the outcome (the call waits for the target, at most 10 s). A failed test message is retried like any delivery. 409 when the registration is expired or disabled, or while an attempt to it (or its customer's share of attempts) is in flight.",
        params: WebhookIdParams,
        response: { 200: TestResult, ...problemResponses(400, 404, 409), ...authErrors },
      },
    },
    async (request) => webhooks.test(request.account, request.params.webhookId),
  );
};
