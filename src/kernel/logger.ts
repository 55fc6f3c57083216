import { logFields } from './log-context';

/**
 * JSON lines on stderr. Callers pass only safe fields: never resolved dynamic values. Each line
 * also carries the ids of the work it belongs to (log-context.ts).
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export const createLogger = (level: Level = 'info', write: (line: string) => void = (l) => process.stderr.write(l)): Logger => {
  const at =
    (lvl: Level) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[lvl] < ORDER[level]) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...logFields(), ...fields })}\n`);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
};

export const silentLogger: Logger = createLogger('error', () => undefined);
