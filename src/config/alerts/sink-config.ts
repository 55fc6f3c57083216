/** One entry of `alerts.sinks`, by its `type`: the fields every sink has, and each type's own. */
import * as t from 'io-ts';
import { arrayOf, checked, closed, described, hasField, NonEmptyString, withFieldRules } from '../../kernel/closed';
import { aBoolean, aString, AlertTypes, HttpUrl, Mailbox, SinkName, wholeFrom } from './fields';
import { signingSecretProblem } from '../../destinations/registry';

/**
 * `base`, plus: never both of the fields `a` and `b` (a secret given, or read from a file), and
 * one of them when `required`. The rule reads which fields are there, so a bad value and a
 * missing partner are named together.
 */
const atMostOne = <A>(base: t.Type<A, A, unknown>, a: string, b: string, required: boolean) =>
  withFieldRules(base, (fields) => {
    if (hasField(fields, a) && hasField(fields, b)) return [{ field: b, message: `is not allowed with ${a}: give one of them` }];
    return required && !hasField(fields, a) && !hasField(fields, b) ? [{ message: `needs ${a} or ${b}` }] : [];
  });

const common = { name: SinkName };
const optional = { events: AlertTypes, max_per_minute: wholeFrom('MaxPerMinute', 1) };
const typed = <T extends string>(type: T) => ({ ...common, type: described(t.literal(type), `must be ${type}`) });

/** The webhook destination's rules for a signing secret: receivers verify both the same way. */
const SigningSecret = checked(aString, 'SigningSecret', signingSecretProblem);

/** Signed as a webhook action is (Standard Webhooks), with the sink's own secret. */
export const WebhookSinkConfig = atMostOne(
  closed('WebhookSink', { ...typed('webhook'), url: HttpUrl }, { ...optional, secret: SigningSecret, secret_file: NonEmptyString }),
  'secret',
  'secret_file',
  true,
);

/** A Slack incoming webhook, or any service that takes Slack's body (Mattermost, Rocket.Chat). */
export const SlackSinkConfig = closed('SlackSink', { ...typed('slack'), url: HttpUrl }, optional);

const SmtpFields = closed(
  'Smtp',
  { host: NonEmptyString },
  {
    port: wholeFrom('Port', 1, 65535),
    starttls: aBoolean,
    secure: aBoolean,
    username: NonEmptyString,
    password: NonEmptyString,
    password_file: NonEmptyString,
  },
);

/** The SMTP server; `username` goes with one of `password` and `password_file`. */
const SmtpConfig = withFieldRules(atMostOne(SmtpFields, 'password', 'password_file', false), (fields) => {
  const password = hasField(fields, 'password') || hasField(fields, 'password_file');
  return [
    ...(hasField(fields, 'username') && !password ? [{ message: 'needs password or password_file with username' }] : []),
    ...(!hasField(fields, 'username') && password ? [{ message: 'needs username with password or password_file' }] : []),
    // Implicit TLS already encrypts the whole session: there is nothing to upgrade.
    ...(fields.secure === true && fields.starttls === true ? [{ field: 'starttls', message: 'is not allowed with secure: true' }] : []),
  ];
});

export const EmailSinkConfig = closed(
  'EmailSink',
  { ...typed('email'), smtp: SmtpConfig, from: Mailbox, to: arrayOf(Mailbox, 1) },
  optional,
);

export type WebhookSinkConfig = t.TypeOf<typeof WebhookSinkConfig>;
export type SlackSinkConfig = t.TypeOf<typeof SlackSinkConfig>;
export type EmailSinkConfig = t.TypeOf<typeof EmailSinkConfig>;

/** Each sink type's codec: a new type is one row here, one in settings.ts and one in src/alerts/sinks/index.ts. */
export const SINK_CONFIGS = { webhook: WebhookSinkConfig, slack: SlackSinkConfig, email: EmailSinkConfig } as const;
export type SinkType = keyof typeof SINK_CONFIGS;
export type SinkConfig = WebhookSinkConfig | SlackSinkConfig | EmailSinkConfig;
