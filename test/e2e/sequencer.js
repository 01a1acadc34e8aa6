// The real-engine files run in a fixed order, coverage.test.mts last: it checks what the others deployed.
const Sequencer = require("@jest/test-sequencer").default;

class E2eSequencer extends Sequencer {
  sort(tests) {
    const last = (t) => (t.path.endsWith("coverage.test.mts") ? 1 : 0);
    return [...tests].sort((a, b) => last(a) - last(b) || a.path.localeCompare(b.path));
  }
}

module.exports = E2eSequencer;
