import type { SignalTriggers } from './read-model';

/** Content types (with signal) whose answers are kept, and the JSON characters of their definitions. */
const MAX_KEYS = 256;
const MAX_CHARS = 32 * 1024 * 1024;

/**
 * `forSignal` answered from memory while the read model's trigger checkpoint has not moved: the
 * trigger tables are a function of that position, so an answer read at it holds until it moves
 * (in this process or, on a shared file, another). Every signal of a busy content type then
 * costs one primary-key read instead of two joins and a parse of each matched definition.
 */
export const cachedForSignal = (
  checkpoint: () => bigint | 'start',
  read: (signal: string, appLabel: string, modelName: string, othersLimit: number) => { value: SignalTriggers; chars: number },
) => {
  const kept = new Map<string, { at: bigint | 'start'; value: SignalTriggers; chars: number }>();
  let chars = 0;
  return (signal: string, appLabel: string, modelName: string, othersLimit: number): SignalTriggers => {
    const at = checkpoint();
    const key = `${signal}\u0000${appLabel}\u0000${modelName}\u0000${othersLimit}`;
    const hit = kept.get(key);
    if (hit && hit.at === at) return hit.value;
    const fresh = read(signal, appLabel, modelName, othersLimit);
    if (hit) chars -= hit.chars;
    if (kept.size >= MAX_KEYS || chars + fresh.chars > MAX_CHARS) {
      kept.clear();
      chars = 0;
    }
    kept.set(key, { at, ...fresh });
    chars += fresh.chars;
    return fresh.value;
  };
};
