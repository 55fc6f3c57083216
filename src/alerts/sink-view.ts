import type { SinkSettings } from '../config/alerts/settings';
import type { SinkView } from './routes';

/** A URL's scheme and host: its path may be its credential (a Slack incoming webhook's is). */
const origin = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
};

/** A sink as the API and the admin show it. */
export const sinkViewOf = (s: SinkSettings): SinkView => ({
  name: s.name,
  type: s.type,
  target: s.type === 'email' ? `smtp://${s.smtp.host}:${s.smtp.port}` : origin(s.url),
  ...(s.type === 'email' ? { to: s.to } : {}),
  events: [...s.events],
  max_per_minute: s.maxPerMinute,
});
