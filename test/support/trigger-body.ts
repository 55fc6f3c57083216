import request from 'supertest';

/** Which content type a trigger watches: `app.model`, shop.order unless told. */
interface Watches {
  app?: string;
  model?: string;
}

/**
 * The body of a trigger to create: active, on post_save of `app.model`, with the actions and
 * other fields the test gives (any field given, config_signals or active too, wins).
 */
export const triggerBody = ({ app = 'shop', model = 'order', ...fields }: Watches & Record<string, unknown> = {}) => ({
  config_signals: [{ signal: 'post_save' }],
  content_types: [{ app_label: app, model_name: model }],
  active: true,
  ...fields,
});

/** Creates a trigger through the API, failing the test unless it is 201, and gives the created trigger. */
export const postTrigger = async <T = { id: string; version: number }>(app: Parameters<typeof request>[0], body: object): Promise<T> =>
  (await request(app).post('/api/action-triggers').send(body).expect(201)).body as T;
