import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findTemporalCli } from '../../src/temporal/cli';
import { testServers } from './servers';

export const HISTORY_DIR = join(__dirname, '..', 'fixtures', 'histories');

const fileNameOf = (testName: string) =>
  `${testName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80)}.json`;

/** A workflow run to record under a test's name; without a run id, the workflow's latest run. */
export interface RecordedRun {
  name: string;
  workflowId: string;
  runId?: string;
}

/** Writes finished dispatches' histories as fixtures (the CLI's JSON, the format replay reads). */
export const saveHistories = (address: string, runs: RecordedRun[]) => {
  const cli = findTemporalCli(process.env.TEMPORAL_CLI_PATH);
  if (!cli) throw new Error('no Temporal CLI to export histories with');
  mkdirSync(HISTORY_DIR, { recursive: true });
  for (const run of runs) {
    let json: string;
    try {
      json = execFileSync(
        cli,
        [
          'workflow',
          'show',
          '--address',
          address,
          '--workflow-id',
          run.workflowId,
          ...(run.runId ? ['--run-id', run.runId] : []),
          '--output',
          'json',
        ],
        { encoding: 'utf8', stdio: 'pipe' },
      );
    } catch (e) {
      // A signal that matched no trigger starts no workflow: nothing to record.
      if (/workflow not found/.test(String((e as { stderr?: unknown }).stderr))) continue;
      throw e;
    }
    writeFileSync(join(HISTORY_DIR, fileNameOf(run.name)), json);
  }
};

/** `RECORD_HISTORIES=1` (re-)records the runs a test file collected, for the replay test. */
export const saveHistoriesIfAsked = (runs: RecordedRun[]) => {
  if (process.env.RECORD_HISTORIES === '1') saveHistories(testServers().temporalAddress, runs);
};

/** Today's recordings, and older ones kept in subfolders named after the change that followed them. */
export const loadHistories = () =>
  readdirSync(HISTORY_DIR, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f, history: JSON.parse(readFileSync(join(HISTORY_DIR, f), 'utf8')) as unknown }));

/** A history as text, its payloads decoded (fetchHistory gives their bytes as base64, where a leak would hide). */
export const historyText = (history: unknown) => {
  const decoded: string[] = [];
  const json = JSON.stringify(history, (key, value: unknown) => {
    if (key === 'data' && typeof value === 'string') decoded.push(Buffer.from(value, 'base64').toString('utf8'));
    return value;
  });
  return [json, ...decoded].join('\n');
};
