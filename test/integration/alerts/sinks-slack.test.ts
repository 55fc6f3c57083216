import { Sink } from '../../../src/model/alerts/alert';
import { createSlackSink, MAX_BLOCKS, MAX_SECTION_TEXT } from '../../../src/alerts/sinks/slack';
import { startReceiver, Receiver } from '../../support/receiver';
import { asMessage, EVERY_TYPE, manyAlerts, rejectionOf, sampleAlert, sampleDigest } from '../../support/alerts';

/**
 * The Slack sink against a real loopback receiver: a body Slack takes (`text` and Block Kit
 * sections within Slack's bounds), text from alerts escaped so it cannot mention or link, and
 * the same answer rules as the webhook sink.
 */
const PATH = '/services/T000/B000/XXXX';
let rx: Receiver;
let sink: Sink;
const never = new AbortController().signal;

beforeAll(async () => {
  rx = await startReceiver();
  sink = createSlackSink({ name: 'team-slack', type: 'slack', url: rx.url(PATH), events: EVERY_TYPE, maxPerMinute: 6 });
});
afterAll(async () => {
  await sink?.close?.();
  await rx?.close();
});

interface SlackBody {
  text: string;
  blocks: Array<{ type: string; text: { type: string; text: string } }>;
}

/** The body the receiver got, checked against Block Kit's rules for what the sink sends. */
const received = (): SlackBody => {
  const body = JSON.parse(rx.on(PATH).at(-1)!.body) as SlackBody;
  expect(Object.keys(body).sort()).toEqual(['blocks', 'text']);
  expect(body.blocks.length).toBeGreaterThan(0);
  expect(body.blocks.length).toBeLessThanOrEqual(MAX_BLOCKS);
  for (const block of body.blocks) {
    expect(Object.keys(block).sort()).toEqual(['text', 'type']);
    expect(block.type).toBe('section');
    expect(block.text.type).toBe('mrkdwn');
    expect(block.text.text.length).toBeGreaterThan(0);
    expect(block.text.text.length).toBeLessThanOrEqual(MAX_SECTION_TEXT);
  }
  return body;
};

test('an alert: its summary, facts and admin link, in text and blocks', async () => {
  const alert = sampleAlert();
  await sink.send(asMessage(alert), never);
  const body = received();
  const lines = body.text.split('\n');
  expect(lines[0]).toBe(alert.summary);
  expect(lines).toEqual(
    expect.arrayContaining([
      'Trigger: t-orders',
      'Action: webhook 0 (https://crm.example.com/hooks)',
      'Failed dispatches: 50 of 100 (50%)',
      'First failure: 2026-03-01T09:15:00.000Z',
      'Last failure: 2026-03-01T11:59:30.000Z',
    ]),
  );
  expect(lines.at(-1)).toBe('<https://at.example.com/admin/triggers/t-orders|Open in admin>');
  expect(body.blocks[0]!.text.text).toBe(`*${alert.summary}*`);
  expect(body.blocks.at(-1)!.text.text).toBe('<https://at.example.com/admin/triggers/t-orders|Open in admin>');
});

test('text from an alert is escaped: it cannot mention, link or inject an entity', async () => {
  const alert = sampleAlert({
    type: 'trigger.deactivated',
    summary: 'a<b> & <!channel>',
    reason: 'HTTP 500 from <https://evil.example.com|click> & more',
    link: 'https://at.example.com/admin/triggers/x?a=1&b=<2>|3',
  });
  await sink.send(asMessage(alert), never);
  const body = received();
  expect(body.text).toContain('a&lt;b&gt; &amp; &lt;!channel&gt;');
  expect(body.text).toContain('Reason: HTTP 500 from &lt;https://evil.example.com|click&gt; &amp; more');
  expect(body.text).toContain('<https://at.example.com/admin/triggers/x?a=1&amp;b=%3C2%3E%7C3|Open in admin>');
  expect(body.text).not.toContain('<!channel>');
});

test('a long reason is cut to fit a section, never inside an entity', async () => {
  await sink.send(asMessage(sampleAlert({ reason: '&'.repeat(5000) })), never);
  const body = received();
  const facts = body.blocks[1]!.text.text;
  expect(facts.endsWith('&amp;…')).toBe(true);
  expect(body.text.endsWith('<https://at.example.com/admin/triggers/t-orders|Open in admin>')).toBe(true);
});

test('a digest lists 20 summaries, then how many more', async () => {
  const digest = sampleDigest(manyAlerts(25));
  await sink.send(digest, never);
  const body = received();
  expect(body.text.split('\n')).toEqual([digest.summary, ...digest.alerts.slice(0, 20).map((a) => a.summary), 'and 5 more']);
  expect(body.blocks).toHaveLength(22);
  expect(body.blocks[1]!.text.text).toBe(`• ${digest.alerts[0]!.summary}  <${digest.alerts[0]!.link}|Open in admin>`);
  expect(body.blocks.at(-1)!.text.text).toBe('and 5 more');
});

test('a path link (no admin_url) is shown, not linked', async () => {
  await sink.send(asMessage(sampleAlert({ link: '/admin/triggers/t-orders' })), never);
  expect(received().text.split('\n').at(-1)).toBe('Admin page: /admin/triggers/t-orders');
});

test('Slack refusing the body is not retryable; its being down is', async () => {
  rx.script(PATH, [{ status: 404 }, { status: 503 }]);
  expect(await rejectionOf(sink.send(asMessage(sampleAlert()), never))).toMatchObject({ retryable: false, message: 'HTTP 404: ok' });
  expect(await rejectionOf(sink.send(asMessage(sampleAlert()), never))).toMatchObject({ retryable: true });
});
