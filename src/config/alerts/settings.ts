/** The `alerts` section as the service uses it: defaults filled in, the files it names read once at start. */
import type { FieldError } from '../../kernel/field-errors';
import { ALERT_TYPES, AlertType } from '../../model/alerts/alert';
import type { AlertsConfig } from './config';
import type { EmailSinkConfig, SinkConfig, WebhookSinkConfig } from './sink-config';
import { signingSecretProblem } from '../../destinations/registry';

export const DEFAULT_FAILING_AT_PERCENT = [50, 90] as const;
export const DEFAULT_BACKLOG_THRESHOLD = 1000;
export const DEFAULT_MAX_PER_MINUTE = 6;
/** Submission with STARTTLS (RFC 6409), or implicit TLS (RFC 8314) with `secure`. */
const SMTP_PORT = { starttls: 587, secure: 465 } as const;

interface SinkCommon {
  readonly name: string;
  readonly events: ReadonlySet<AlertType>;
  readonly maxPerMinute: number;
}

export interface WebhookSinkSettings extends SinkCommon {
  readonly type: 'webhook';
  readonly url: string;
  /** `whsec_…`, checked as a webhook signing secret is. */
  readonly secret: string;
}

export interface SlackSinkSettings extends SinkCommon {
  readonly type: 'slack';
  readonly url: string;
}

export interface SmtpSettings {
  readonly host: string;
  readonly port: number;
  /** TLS from the first byte (port 465). */
  readonly secure: boolean;
  /** Refuse to send unless the server upgrades the session with STARTTLS. */
  readonly starttls: boolean;
  /** The password as given (or read from its file), or `passFrom`: a dynamic value's path, resolved at each send. */
  readonly auth?: { readonly user: string; readonly pass?: string; readonly passFrom?: string };
}

export interface EmailSinkSettings extends SinkCommon {
  readonly type: 'email';
  readonly smtp: SmtpSettings;
  readonly from: string;
  readonly to: readonly string[];
}

export type SinkSettings = WebhookSinkSettings | SlackSinkSettings | EmailSinkSettings;

export interface AlertsSettings {
  /** Without it, links are paths of the admin. */
  readonly adminUrl?: string;
  readonly failingAtPercent: readonly number[];
  readonly backlogThreshold: number;
  readonly sinks: readonly SinkSettings[];
}

/** Reads one file the config names: a file that cannot be read, or is empty, is an error at `path` naming the file. */
const fileReader = (readFile: (file: string) => string, errors: FieldError[]) => (path: string, file: string) => {
  let text: string;
  try {
    text = readFile(file).replace(/\r?\n$/, '');
  } catch (err) {
    errors.push({ path, message: `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
    return undefined;
  }
  if (text === '') errors.push({ path, message: `${file} is empty` });
  return text === '' ? undefined : text;
};
type ReadAt = ReturnType<typeof fileReader>;

const webhookSecret = (s: WebhookSinkConfig, at: string, read: ReadAt, errors: FieldError[]): string => {
  // The codec checked an inline secret; one from a file is checked once it is read.
  if (s.secret_file === undefined) return s.secret ?? '';
  const secret = read(`${at}.secret_file`, s.secret_file);
  const problem = secret === undefined ? undefined : signingSecretProblem(secret);
  if (problem) errors.push({ path: `${at}.secret_file`, message: `holds a secret that ${problem}` });
  return secret ?? '';
};

/** `{{ env.SMTP_PASSWORD }}`: a password given as a dynamic value, by its path. */
const TEMPLATE = /^\{\{\s*([A-Za-z0-9_.]+)\s*\}\}$/;

const smtpOf = (smtp: EmailSinkConfig['smtp'], at: string, read: ReadAt, dynamic: DynamicPaths, errors: FieldError[]): SmtpSettings => {
  const secure = smtp.secure ?? false;
  const pass = smtp.password_file === undefined ? smtp.password : read(`${at}.smtp.password_file`, smtp.password_file);
  const passFrom = smtp.password_file === undefined ? TEMPLATE.exec(smtp.password ?? '')?.[1] : undefined;
  if (passFrom !== undefined && !dynamic.has(passFrom))
    errors.push({
      path: `${at}.smtp.password`,
      message: `names the dynamic value ${passFrom}, which is not on dynamic_values.allowed_paths`,
    });
  const auth = passFrom === undefined ? { pass: pass ?? '' } : { passFrom };
  return {
    host: smtp.host,
    port: smtp.port ?? (secure ? SMTP_PORT.secure : SMTP_PORT.starttls),
    secure,
    starttls: !secure && (smtp.starttls ?? true),
    ...(smtp.username !== undefined ? { auth: { user: smtp.username, ...auth } } : {}),
  };
};

type DynamicPaths = ReadonlySet<string>;

const sinkOf = (s: SinkConfig, at: string, read: ReadAt, dynamic: DynamicPaths, errors: FieldError[]): SinkSettings => {
  const common = { name: s.name, events: new Set(s.events ?? ALERT_TYPES), maxPerMinute: s.max_per_minute ?? DEFAULT_MAX_PER_MINUTE };
  switch (s.type) {
    case 'webhook':
      return { ...common, type: 'webhook', url: s.url, secret: webhookSecret(s, at, read, errors) };
    case 'slack':
      return { ...common, type: 'slack', url: s.url };
    case 'email':
      return { ...common, type: 'email', smtp: smtpOf(s.smtp, at, read, dynamic, errors), from: s.from, to: s.to };
  }
};

/** The settings, and every problem of the files the section names (each by its path in the config). */
export const alertsSettingsOf = (
  config: AlertsConfig | undefined,
  readFile: (file: string) => string,
  allowedDynamicPaths: readonly string[] = [],
): { settings: AlertsSettings; errors: FieldError[] } => {
  const errors: FieldError[] = [];
  const read = fileReader(readFile, errors);
  const dynamic = new Set(allowedDynamicPaths);
  const sinks = (config?.sinks ?? []).map((s, i) => sinkOf(s, `alerts.sinks[${i}]`, read, dynamic, errors));
  return {
    settings: {
      ...(config?.admin_url !== undefined ? { adminUrl: config.admin_url } : {}),
      failingAtPercent: config?.failing_at_percent ?? DEFAULT_FAILING_AT_PERCENT,
      backlogThreshold: config?.backlog_threshold ?? DEFAULT_BACKLOG_THRESHOLD,
      sinks,
    },
    errors,
  };
};
