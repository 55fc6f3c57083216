/** `npm run bench -- <suite>`: api | restart | dispatch | fan-out | ordering | brokers | intake | observability | paced | long-history | django | conditions | pacing | outbox | all. Never part of `npm test`. */
import { buildService } from '../test/support/build';
import { suites } from './suites';

const main = async () => {
  // The suites start the compiled service, as production runs it: compiled from the code as it is now.
  if (process.env.BENCH_SKIP_BUILD !== '1') await buildService();
  const names = process.argv.slice(2);
  const chosen = names.length === 0 || names.includes('all') ? Object.keys(suites) : names;
  for (const name of chosen) {
    const suite = suites[name];
    if (!suite) throw new Error(`unknown bench suite ${name}; choose from ${Object.keys(suites).join(', ')}`);
    await suite();
  }
};
// An event loop that drains before the suites finish means a bench hung on something that died.
process.on('beforeExit', () => {
  console.error('bench ended before finishing');
  process.exit(1);
});
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
