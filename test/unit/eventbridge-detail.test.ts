import { eventDetail } from '../../src/destinations/eventbridge/publisher';

const detailOf = (body: string, contentType: string) =>
  JSON.parse(eventDetail({ body, contentType, deliveryId: 'd1' })) as Record<string, unknown>;

test("an event's detail nests a JSON body as its value and any other body as its text", () => {
  expect(detailOf('{"n":1}', 'application/json')).toEqual({ payload: { n: 1 }, delivery_id: 'd1', content_type: 'application/json' });
  expect(detailOf('hello', 'text/plain; charset=utf-8').payload).toBe('hello');
});

test('a body typed JSON that does not parse goes as its text, never an exception', () => {
  expect(detailOf('{not json', 'application/json').payload).toBe('{not json');
});
