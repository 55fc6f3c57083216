/** The email sink: one plain-text message over SMTP per alert or digest, for the people on call. */
import { createTransport } from 'nodemailer';
import type { DynamicValueSource } from '../../delivery/dynamic-values';
import type { NodemailerError } from 'nodemailer/lib/errors';
import { Alert, AlertMessage, Sink, SinkError } from '../../model/alerts/alert';
import { andMore, digestItems, factLines, isAbsoluteLink, oneLine } from './alert-text';
import type { EmailSinkSettings } from '../../config/alerts/settings';
import { identityOf } from './identity';

/** For the connection and the server's greeting each: a server that does not answer is tried again later. */
export const SMTP_TIMEOUT_MS = 10_000;
const SUBJECT_PREFIX = '[action-triggers]';
/** A subject longer than this is cut: mail clients show the start only. */
const MAX_SUBJECT_SUMMARY = 200;

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
const linkLine = (link: string) => (isAbsoluteLink(link) ? `Open in admin: ${link}` : `Admin page: ${link}`);

/** Subject and plain-text body: the facts one per line, as Slack shows them. */
export const emailOf = (message: AlertMessage): { subject: string; text: string } => {
  if (message.kind === 'alert') {
    const a: Alert = message.alert;
    const summary = oneLine(a.summary);
    return {
      subject: `${SUBJECT_PREFIX} ${cut(summary, MAX_SUBJECT_SUMMARY)}`,
      text: [summary, '', ...factLines(a), '', linkLine(a.link), '', '-- ', `action-triggers alert ${a.id} (${a.type})`, ''].join('\n'),
    };
  }
  const { shown, more } = digestItems(message.alerts);
  const first = oneLine(message.alerts[0]?.summary ?? message.summary);
  return {
    subject: `${SUBJECT_PREFIX} ${message.alerts.length} alerts: ${cut(first, MAX_SUBJECT_SUMMARY)}…`,
    text: [
      oneLine(message.summary),
      '',
      ...shown.flatMap((a) => [`- ${oneLine(a.summary)}`, `  ${linkLine(a.link)}`]),
      ...(more > 0 ? [andMore(more)] : []),
      '',
      '-- ',
      `action-triggers digest ${message.id}`,
      '',
    ].join('\n'),
  };
};

/**
 * An SMTP reply decides: 4xx is the server's "not now", 5xx its "never" (a refused recipient, a
 * bad login). No reply (connection, TLS, time-out, cancel) may work later; missing credentials never.
 */
export const smtpError = (e: unknown): SinkError => {
  const err = e as NodemailerError;
  if (typeof err.responseCode === 'number') {
    const reply = oneLine(err.response ?? err.message);
    const said = reply.startsWith(String(err.responseCode)) ? reply : `${err.responseCode} ${reply}`;
    // The command's verb alone: its arguments may hold an address, or credentials.
    const to = err.command ? ` (to ${err.command.split(/\s/)[0]})` : '';
    return new SinkError(`SMTP ${said}${to}`, err.responseCode < 500);
  }
  const never = err.code === 'ENOAUTH' || err.code === 'ECONFIG';
  return new SinkError(`${err.code ?? 'error'}: ${oneLine(err.message ?? String(e))}`, !never);
};

/** A password given as a dynamic value, resolved at each send (never logged or shown: an error names its path). */
const passwordOf = async (path: string, values: DynamicValueSource | undefined): Promise<string> => {
  const value =
    values &&
    (await values
      .resolve([path])
      .then((m) => m.get(path))
      .catch(() => undefined));
  if (typeof value !== 'string') throw new SinkError(`the SMTP password's dynamic value ${path} did not resolve to a string`, false);
  return value;
};

export const createEmailSink = (settings: EmailSinkSettings, values?: DynamicValueSource): Sink => {
  const { smtp } = settings;
  const transportWith = (pass: string | undefined) =>
    createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      // `starttls`: send only once the session is encrypted; off, never upgrade (a relay whose TLS is broken).
      requireTLS: smtp.starttls,
      ignoreTLS: !smtp.secure && !smtp.starttls,
      ...(smtp.auth ? { auth: { user: smtp.auth.user, pass } } : {}),
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: 3 * SMTP_TIMEOUT_MS,
    });
  // A password given outright keeps one transport; one from a dynamic value gets a transport per send (it may change).
  const fixed = smtp.auth?.passFrom === undefined ? transportWith(smtp.auth?.pass) : undefined;
  return {
    ...identityOf(settings),
    send: async (message, signal) => {
      const { subject, text } = emailOf(message);
      const transport = fixed ?? transportWith(await passwordOf(smtp.auth!.passFrom!, values));
      try {
        await transport.sendMail({ from: settings.from, to: [...settings.to], subject, text, signal });
      } catch (e) {
        throw smtpError(e);
      } finally {
        if (transport !== fixed) transport.close();
      }
    },
    close: async () => fixed?.close(),
  };
};
