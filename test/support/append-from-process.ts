/**
 * Run as a child process: appends `count` events to one shared stream, re-reading and retrying
 * on a revision conflict, as the API does. Used to prove two processes can share one SQLite file.
 */
import { openSqliteStore } from '../../src/event-store/sqlite';
import { WrongExpectedRevision } from '../../src/event-store/port';

const [file, stream, countText, tag] = process.argv.slice(2);
const main = async () => {
  const store = openSqliteStore(file!);
  for (let i = 0; i < Number(countText); i++) {
    for (;;) {
      const events = await store.read(stream!);
      const expected = events.length === 0 ? 'no_stream' : BigInt(events.length - 1);
      try {
        await store.append(stream!, [{ type: 'TriggerActivated', data: { tag, i }, metadata: {} }], expected);
        break;
      } catch (e) {
        if (!(e instanceof WrongExpectedRevision)) throw e;
      }
    }
  }
  await store.close();
};
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
