// Admin API for webhooks (docs/admin-api.md): subscriptions (POST/GET /admin/webhooks, GET/PATCH/DELETE
// /admin/webhooks/:id), their delivery records (GET …/:id/deliveries, …/deliveries/:deliveryId), manual
// redelivery (POST …/deliveries/:deliveryId/retry) and a test ping (POST …/:id/test). Admin token only.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { optionalQueryString, parseAdminPage } from './parse-admin-page.ts';
import { ApiError } from '../../errors/api-error.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../webhooks/delivery/webhook-delivery.ts';
import { deliveryObject, pageLinks, webhookObject, WEBHOOKS_PATH } from '../../webhooks/webhook-documents.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { requireAdmin } from '../guards/require-admin.ts';
import { refuseModifiedJsonApiAccept } from '../documents/json-api-negotiation.ts';
import { webhookCreateBody, webhookUpdateBody } from '../bodies/webhook-bodies.ts';

type WebhookParams = { id: string };
type DeliveryParams = { id: string; deliveryId: string };

const PAGE_PARAMETERS = ['_limit', '_offset', 'page[limit]', 'page[offset]'];

/** Refuses query parameters the endpoint does not know, rather than silently ignoring a typo. */
function queryOf(request: FastifyRequest, allowed: readonly string[]): Record<string, unknown> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(query)) {
    if (!allowed.includes(name))
      throw new ApiError('INVALID_QUERY_PARAMS', { detail: `Unknown query parameter '${name}'`, parameter: name });
  }
  return query;
}

function statusFilter(query: Record<string, unknown>): DeliveryStatus | undefined {
  const status = optionalQueryString(query, 'status');
  if (status === undefined) return undefined;
  if (!(DELIVERY_STATUSES as readonly string[]).includes(status)) {
    throw new ApiError('INVALID_QUERY_PARAMS', {
      detail: `status must be one of ${DELIVERY_STATUSES.join(', ')}`,
      parameter: 'status',
    });
  }
  return status as DeliveryStatus;
}

export async function registerAdminWebhookRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'auth' | 'webhooks'>,
): Promise<void> {
  const { admin } = ctx.webhooks;
  const createBody = webhookCreateBody();
  const updateBody = webhookUpdateBody();
  const problems = admin.bodyProblems.bind(admin);

  await app.register(async (scope) => {
    scope.addHook('onRequest', requireAdmin(ctx));
    scope.addHook('preParsing', refuseModifiedJsonApiAccept);

    scope.post(WEBHOOKS_PATH, { config: { requestBody: createBody } }, async (request, reply) => {
      const { subscription, secret } = await admin.create(createBody.read(request.body, problems));
      const data = webhookObject(subscription, secret);
      reply.header('Location', data.links.self);
      return jsonApiAnswer(reply, 201, { data, links: { self: data.links.self } });
    });

    scope.get(WEBHOOKS_PATH, async (request, reply) => {
      const page = parseAdminPage(queryOf(request, PAGE_PARAMETERS));
      const { items, total } = await admin.list(page);
      return jsonApiAnswer(reply, 200, {
        data: items.map((s) => webhookObject(s)),
        meta: { total },
        links: pageLinks(WEBHOOKS_PATH, [], page.offset, page.limit, total),
      });
    });

    scope.get<{ Params: WebhookParams }>(`${WEBHOOKS_PATH}/:id`, async (request, reply) => {
      const data = webhookObject(await admin.get(request.params.id));
      return jsonApiAnswer(reply, 200, { data, links: { self: data.links.self } });
    });

    scope.patch<{ Params: WebhookParams }>(
      `${WEBHOOKS_PATH}/:id`,
      { config: { requestBody: updateBody } },
      async (request, reply) => {
        const data = webhookObject(await admin.update(request.params.id, updateBody.read(request.body, problems)));
        return jsonApiAnswer(reply, 200, { data, links: { self: data.links.self } });
      },
    );

    scope.delete<{ Params: WebhookParams }>(`${WEBHOOKS_PATH}/:id`, async (request, reply) => {
      await admin.remove(request.params.id);
      return reply.code(204).send();
    });

    scope.get<{ Params: WebhookParams }>(`${WEBHOOKS_PATH}/:id/deliveries`, async (request, reply) => {
      const query = queryOf(request, [...PAGE_PARAMETERS, 'status', 'eventId']);
      const page = parseAdminPage(query);
      const status = statusFilter(query);
      const eventId = optionalQueryString(query, 'eventId');
      const { items, total } = await admin.listDeliveries(request.params.id, {
        ...page,
        ...(status ? { status } : {}),
        ...(eventId ? { eventId } : {}),
      });
      const carried: [string, string][] = [];
      if (status) carried.push(['status', status]);
      if (eventId) carried.push(['eventId', eventId]);
      return jsonApiAnswer(reply, 200, {
        data: items.map(deliveryObject),
        meta: { total },
        links: pageLinks(`${WEBHOOKS_PATH}/${request.params.id}/deliveries`, carried, page.offset, page.limit, total),
      });
    });

    scope.get<{ Params: DeliveryParams }>(`${WEBHOOKS_PATH}/:id/deliveries/:deliveryId`, async (request, reply) => {
      const data = deliveryObject(await admin.getDelivery(request.params.id, request.params.deliveryId));
      return jsonApiAnswer(reply, 200, { data, links: { self: data.links.self } });
    });

    // 202: the new attempt is queued; its record shows the outcome once the worker has sent it.
    scope.post<{ Params: DeliveryParams }>(
      `${WEBHOOKS_PATH}/:id/deliveries/:deliveryId/retry`,
      { config: { requestBody: 'none' } },
      async (request, reply) => {
        const data = deliveryObject(await admin.redeliver(request.params.id, request.params.deliveryId));
        return jsonApiAnswer(reply, 202, { data, links: { self: data.links.self } });
      },
    );

    scope.post<{ Params: WebhookParams }>(
      `${WEBHOOKS_PATH}/:id/test`,
      { config: { requestBody: 'none' } },
      async (request, reply) => {
        const data = deliveryObject(await admin.sendTest(request.params.id, { requestId: request.id }));
        return jsonApiAnswer(reply, 202, { data, links: { self: data.links.self } });
      },
    );
  });
}
