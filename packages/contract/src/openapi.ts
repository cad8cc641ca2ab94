import { z } from 'zod';
import { errorEnvelopeSchema } from './errors.js';
import { endpoints } from './endpoints.js';
import type { RouteSpec } from './route.js';

function jsonSchema(schema: z.ZodType): unknown {
  try {
    return z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' });
  } catch {
    return {};
  }
}

/** OpenAPI 3.1 description generated from the endpoint table; served at /api-docs. */
export function buildOpenApiDocument(serverUrl = '/'): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const route of Object.values(endpoints) as RouteSpec[]) {
    const path = route.kind === 'instance' ? `/{${route.entityClass}Id}/${route.method}` : `/${route.path}`;
    const uniquePath = route.kind === 'instance' ? `/${route.entityClass}-{id}/${route.method}` : path;
    paths[uniquePath] = {
      post: {
        operationId: route.path.replace('-xxxx', '').replace('/', '_'),
        summary: route.summary,
        description: route.extension ? `Panx extension: ${route.extension}` : undefined,
        tags: [route.entityClass ?? 'system'],
        parameters:
          route.kind === 'instance'
            ? [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: `the ${route.entityClass} id suffix` }]
            : [],
        requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.input) } } },
        responses: {
          '200': { description: 'Success', content: { 'application/json': { schema: jsonSchema(route.output) } } },
          default: { description: 'DNAnexus error envelope', content: { 'application/json': { schema: jsonSchema(errorEnvelopeSchema) } } },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Panx API (DNAnexus API v1 compatible)', version: '1.0.0' },
    servers: [{ url: serverUrl }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
