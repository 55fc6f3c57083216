import request from 'supertest';
import { buildOpenApiDocument } from '../../src/http/openapi';
import { configFrom, policyOf } from '../../src/config';
import { startTestApp } from '../support/test-app';

type Layer = { route?: { path: string; methods: Record<string, boolean> } };

test('every route the app serves is in the OpenAPI document, and every documented operation is served', async () => {
  const t = await startTestApp();
  try {
    const stack = (t.app as unknown as { router: { stack: Layer[] } }).router.stack;
    const served = new Set<string>();
    for (const layer of stack) {
      if (!layer.route) continue;
      const path = layer.route.path.replace(/:(\w+)/g, '{$1}');
      for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') served.add(`${method} ${path}`);
    }
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(buildOpenApiDocument(policyOf(configFrom({}))).paths)) {
      for (const method of Object.keys(item)) if (method !== 'parameters') documented.add(`${method} ${path}`);
    }
    expect([...served].sort()).toEqual([...documented].sort());
    const doc = await request(t.app).get('/api/openapi.json').expect(200);
    expect(doc.body.openapi).toBe('3.1.0');
  } finally {
    await t.close();
  }
});
