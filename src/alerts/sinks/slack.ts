/** The Slack sink: an incoming webhook's `text` (notifications, old clients) and Block Kit `blocks` (what people see). */
import type { Alert, AlertMessage, Sink } from '../../model/alerts/alert';
import { andMore, digestItems, factLines, isAbsoluteLink, oneLine } from './alert-text';
import { openHttp, postJson } from './post';
import type { SlackSinkSettings } from '../../config/alerts/settings';
import { identityOf } from './identity';

/** Slack's bounds: a section's text, and blocks per message. */
export const MAX_SECTION_TEXT = 3000;
export const MAX_BLOCKS = 50;

/** Slack's control characters in text from an alert: `&`, `<` and `>` would start an entity, a link or a mention. */
export const escapeSlack = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A link's URL may not hold `<`, `>` or `|` (they end it) and its `&` is an entity, as in any text. */
const linkTo = (link: string, label: string): string =>
  isAbsoluteLink(link)
    ? `<${link.replace(/&/g, '&amp;').replace(/</g, '%3C').replace(/>/g, '%3E').replace(/\|/g, '%7C')}|${label}>`
    : `Admin page: ${escapeSlack(link)}`;

/** Lines (already mrkdwn) joined up to `max` characters; a cut line ends in `…`, never inside an entity. */
const fit = (lines: readonly string[], max = MAX_SECTION_TEXT): string => {
  const text = lines.join('\n');
  if (text.length <= max) return text;
  return `${text.slice(0, max - 1).replace(/&[a-z]{0,4}$/, '')}…`;
};

type Block = { type: 'section'; text: { type: 'mrkdwn'; text: string } };
const section = (lines: readonly string[]): Block => ({ type: 'section', text: { type: 'mrkdwn', text: fit(lines) } });

const alertBody = (a: Alert) => {
  const summary = escapeSlack(oneLine(a.summary));
  const facts = factLines(a).map(escapeSlack);
  const link = linkTo(a.link, 'Open in admin');
  return {
    // The facts give way before the link does.
    text: `${fit([summary, ...facts], MAX_SECTION_TEXT - link.length - 1)}\n${link}`,
    blocks: [section([`*${summary}*`]), ...(facts.length > 0 ? [section(facts)] : []), section([link])],
  };
};

const digestBody = (summary: string, alerts: readonly Alert[]) => {
  const { shown, more } = digestItems(alerts);
  const lines = shown.map((a) => escapeSlack(oneLine(a.summary)));
  const tail = more > 0 ? [andMore(more)] : [];
  return {
    text: fit([escapeSlack(oneLine(summary)), ...lines, ...tail]),
    // One block per alert, with its link: at most MAX_DIGEST_LINES + 2 blocks.
    blocks: [
      section([`*${escapeSlack(oneLine(summary))}*`]),
      ...shown.map((a, i) => section([`• ${lines[i]}  ${linkTo(a.link, 'Open in admin')}`])),
      ...(more > 0 ? [section(tail)] : []),
    ].slice(0, MAX_BLOCKS),
  };
};

/** The body Slack takes: `{ text, blocks }`. */
export const slackBodyOf = (message: AlertMessage): { text: string; blocks: Block[] } =>
  message.kind === 'alert' ? alertBody(message.alert) : digestBody(message.summary, message.alerts);

export const createSlackSink = (settings: SlackSinkSettings): Sink => {
  const http = openHttp();
  return {
    ...identityOf(settings),
    send: (message, signal) =>
      postJson(http.dispatcher, { url: settings.url, headers: {}, body: JSON.stringify(slackBodyOf(message)) }, signal),
    close: http.close,
  };
};
