/**
 * Jest runs its files longest first only when its cache holds their times, which a fresh clone
 * (CI) lacks: then it goes by file size, and a short file that runs for minutes (the bench
 * smoke) starts last and leaves the other worker idle. These files start first, longest first.
 */
const Sequencer = require('@jest/test-sequencer').default;

/** Each minutes long on two cores (the load tests, schemathesis, the bench smoke, a test command in a clone). */
const LONGEST_FIRST = [
  'test/integration/signals/intake.test.ts',
  'test/integration/http/schemathesis.test.ts',
  'test/integration/processes/bench-smoke.test.ts',
  'test/integration/delivery/ordering.test.ts',
  'test/integration/processes/two-hosts.test.ts',
  'test/integration/processes/two-hosts-pacing.test.ts',
  'test/integration/processes/alerts-restart.test.ts',
  'test/integration/processes/pacing-restart.test.ts',
  'test/integration/alerts/alert-storm.test.ts',
  'test/integration/brokers/celery-worker.test.ts',
  'test/integration/processes/test-command.test.ts',
];

class LongestFirst extends Sequencer {
  sort(tests) {
    const rank = (test) => {
      const i = LONGEST_FIRST.findIndex((file) => test.path.endsWith(file));
      return i === -1 ? LONGEST_FIRST.length : i;
    };
    const byJest = super.sort([...tests]);
    return byJest
      .map((test, order) => ({ test, order }))
      .sort((a, b) => rank(a.test) - rank(b.test) || a.order - b.order)
      .map((e) => e.test);
  }
}

module.exports = LongestFirst;
module.exports.LONGEST_FIRST = LONGEST_FIRST;
