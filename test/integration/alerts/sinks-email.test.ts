import { AddressInfo } from 'node:net';
import { simpleParser, ParsedMail } from 'mailparser';
import { SMTPServer, SMTPServerOptions } from 'smtp-server';
import { createEmailSink } from '../../../src/alerts/sinks/email';
import { createDynamicValues, DynamicValueSource } from '../../../src/delivery/dynamic-values';
import type { SinkError } from '../../../src/model/alerts/alert';
import type { EmailSinkSettings, SmtpSettings } from '../../../src/config/alerts/settings';
import { freePort } from '../../support/free-port';
import { asMessage, EVERY_TYPE, manyAlerts, rejectionOf, sampleAlert, sampleDigest } from '../../support/alerts';

/**
 * The email sink against a real SMTP server on loopback (smtp-server) that requires a login:
 * a readable message arrives; the server's 4xx is retryable, its 5xx is not; with `starttls`
 * the sink never sends in clear, nor over TLS it cannot verify. Delivery over STARTTLS itself is
 * not tested: it needs a certificate the client trusts, and making one needs a package this
 * project does not have (node:crypto makes keys, not certificates).
 */
const USER = 'alerts';
const PASS = 'correct horse battery staple';
const mails: ParsedMail[] = [];
let dataReply: { code: number; message: string } | undefined;
const never = new AbortController().signal;

const startSmtp = async (options: SMTPServerOptions) => {
  const server = new SMTPServer({ logger: false, allowInsecureAuth: true, authMethods: ['PLAIN', 'LOGIN'], ...options });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.server.address() as AddressInfo).port, close: () => new Promise<void>((r) => server.close(() => r())) };
};

let plain: Awaited<ReturnType<typeof startSmtp>>;
let withTls: Awaited<ReturnType<typeof startSmtp>>;
beforeAll(async () => {
  plain = await startSmtp({
    // This server offers no STARTTLS: the plain sink sends in clear, a `starttls` one must refuse.
    disabledCommands: ['STARTTLS'],
    onAuth: (auth, _session, done) =>
      auth.username === USER && auth.password === PASS
        ? done(null, { user: auth.username })
        : done(new Error('Invalid username or password')),
    onData: (stream, session, done) => {
      simpleParser(stream).then((mail) => {
        if (session.user !== USER) return done(new Error('not logged in'));
        const reply = dataReply;
        dataReply = undefined;
        if (reply) return done(Object.assign(new Error(reply.message), { responseCode: reply.code }));
        mails.push(mail);
        done();
      }, done);
    },
  });
  // Offers STARTTLS with smtp-server's built-in certificate, which no client trusts.
  withTls = await startSmtp({ authOptional: true, onData: (stream, _s, done) => stream.resume().on('end', () => done()) });
});
afterAll(async () => {
  await plain?.close();
  await withTls?.close();
});

const sinkWith = (smtp: Partial<SmtpSettings> & { port: number }, values?: DynamicValueSource): ReturnType<typeof createEmailSink> => {
  const settings: EmailSinkSettings = {
    name: 'oncall-mail',
    type: 'email',
    events: EVERY_TYPE,
    maxPerMinute: 6,
    smtp: { host: '127.0.0.1', secure: false, starttls: false, auth: { user: USER, pass: PASS }, ...smtp },
    from: 'action-triggers <alerts@example.com>',
    to: ['oncall@example.com', 'backup@example.com'],
  };
  return createEmailSink(settings, values);
};

test('an alert arrives as a readable plain-text message, after the login', async () => {
  const sink = sinkWith({ port: plain.port });
  const alert = sampleAlert();
  await sink.send(asMessage(alert), never);
  await sink.close?.();
  const mail = mails.at(-1)!;
  expect(mail.subject).toBe(`[action-triggers] ${alert.summary}`);
  expect(mail.from?.value).toEqual([{ name: 'action-triggers', address: 'alerts@example.com' }]);
  expect(mail.html).toBe(false);
  const lines = mail.text!.split('\n');
  expect(lines[0]).toBe(alert.summary);
  expect(lines).toEqual(
    expect.arrayContaining([
      'Trigger: t-orders',
      'Action: webhook 0 (https://crm.example.com/hooks)',
      'Failed dispatches: 50 of 100 (50%)',
      'First failure: 2026-03-01T09:15:00.000Z',
      'Open in admin: https://at.example.com/admin/triggers/t-orders',
      `action-triggers alert ${alert.id} (action.failing)`,
    ]),
  );
});

test('a digest says how many alerts, and lists them', async () => {
  const sink = sinkWith({ port: plain.port });
  const digest = sampleDigest(manyAlerts(23));
  await sink.send(digest, never);
  await sink.close?.();
  const mail = mails.at(-1)!;
  expect(mail.subject).toBe(`[action-triggers] 23 alerts: ${digest.alerts[0]!.summary}…`);
  const lines = mail.text!.split('\n');
  expect(lines).toEqual(expect.arrayContaining([`- ${digest.alerts[19]!.summary}`, 'and 3 more']));
  expect(lines).not.toContain(`- ${digest.alerts[20]!.summary}`);
});

test('a password given as a dynamic value is resolved at each send; one that does not resolve fails naming its path, never a value', async () => {
  const values = (env: NodeJS.ProcessEnv) =>
    createDynamicValues({ modulePath: undefined, allowedPaths: ['env.SMTP_PASSWORD'], env, cwd: process.cwd() });
  const before = mails.length;
  const sink = sinkWith({ port: plain.port, auth: { user: USER, passFrom: 'env.SMTP_PASSWORD' } }, values({ SMTP_PASSWORD: PASS }));
  await sink.send(asMessage(sampleAlert()), never);
  expect(mails.length).toBe(before + 1);
  const unset = sinkWith({ port: plain.port, auth: { user: USER, passFrom: 'env.SMTP_PASSWORD' } }, values({}));
  const e = (await rejectionOf(unset.send(asMessage(sampleAlert()), never))) as SinkError;
  expect([e.retryable, e.message]).toEqual([false, "the SMTP password's dynamic value env.SMTP_PASSWORD did not resolve to a string"]);
});

test("the server's 451 is retryable, its 550 and a refused login are not", async () => {
  const sink = sinkWith({ port: plain.port });
  dataReply = { code: 451, message: 'Try again later' };
  expect(await rejectionOf(sink.send(asMessage(sampleAlert()), never))).toMatchObject({
    retryable: true,
    message: expect.stringMatching(/^SMTP 451/),
  });
  dataReply = { code: 550, message: 'Mailbox unavailable' };
  expect(await rejectionOf(sink.send(asMessage(sampleAlert()), never))).toMatchObject({
    retryable: false,
    message: expect.stringMatching(/^SMTP 550/),
  });
  await sink.close?.();

  const wrong = sinkWith({ port: plain.port, auth: { user: USER, pass: 'not-the-password' } });
  const refused = await rejectionOf(wrong.send(asMessage(sampleAlert()), never));
  expect(refused).toMatchObject({ retryable: false, message: expect.stringMatching(/^SMTP 535 .*\(to AUTH\)$/) });
  // The reason reaches logs: never the password, nor the AUTH PLAIN line that encodes it.
  expect(refused.message).not.toMatch(/not-the-password|AUTH PLAIN \S/);
  await wrong.close?.();
});

test('with starttls, nothing goes in clear nor over TLS the sink cannot verify', async () => {
  const before = mails.length;
  const noTls = sinkWith({ port: plain.port, starttls: true });
  // Asked for STARTTLS, the server says it does not know it: a config to fix, not a moment to wait out.
  expect(await rejectionOf(noTls.send(asMessage(sampleAlert()), never))).toMatchObject({
    retryable: false,
    message: expect.stringContaining('STARTTLS'),
  });
  await noTls.close?.();
  const untrusted = sinkWith({ port: withTls.port, starttls: true, auth: undefined });
  expect(await rejectionOf(untrusted.send(asMessage(sampleAlert()), never))).toMatchObject({
    retryable: true,
    message: expect.stringContaining('certificate'),
  });
  await untrusted.close?.();
  expect(mails.length).toBe(before);
});

test('no server is retryable', async () => {
  const gone = sinkWith({ port: await freePort() });
  expect(await rejectionOf(gone.send(asMessage(sampleAlert()), never))).toMatchObject({ retryable: true });
  await gone.close?.();
});
