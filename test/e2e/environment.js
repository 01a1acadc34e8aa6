// The real-engine tests' jest environment: jest's node environment, where a Pulumi program's failures reach
// Pulumi as they do under plain Node.
//
// The Automation API runs an inline program in this process and collects the program's errors, some of which
// surface as unhandled rejections, through `process.on("uncaughtException" | "unhandledRejection")` for the
// length of the run (pulumi/pulumi sdk/nodejs/automation/server.ts, `LanguageServer.run`). Jest gives each test
// file a copy of `process` with listeners of its own, which Node never calls, and handles those two events on the
// real process itself, failing the running test. So a test that expects a program to fail, and gets the failure
// from the CLI as it should, would also fail on the program's own error. Here a listener the program adds for
// those two events goes on the real process, and while it is there it alone handles them, as under Node; when the
// program takes it off, jest's own handlers are put back.
//
// Both kinds of real-engine file run in this environment, in one process (jest.e2e.config.js): ES modules and
// ts-jest's CommonJS, which share modules such as scripts/shared/commands.ts. Jest decides once per run whether a file
// is an ES module (jest-resolve shouldLoadAsEsm.js caches it by path, across projects), so a shared module would
// keep the kind it had for the first file that loaded it. Each test file starts with that cache emptied, and its
// project's own rule (extensionsToTreatAsEsm) decides.
const { TestEnvironment } = require("jest-environment-node");
const Resolver = require("jest-resolve").default;

const EVENTS = new Set(["uncaughtException", "unhandledRejection"]);

class EngineEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    Resolver.clearDefaultResolverCache();
    const sandbox = this.global.process;
    /** Per event: the program's listeners now on the real process, and the ones they stand in for. */
    const held = new Map();
    const on = sandbox.on;
    const off = sandbox.removeListener;
    const add = function (event, listener) {
      if (!EVENTS.has(event)) return on.call(this, event, listener);
      let entry = held.get(event);
      if (!entry) {
        entry = { listeners: new Set(), replaced: process.listeners(event) };
        for (const l of entry.replaced) process.removeListener(event, l);
        held.set(event, entry);
      }
      entry.listeners.add(listener);
      process.on(event, listener);
      return this;
    };
    const remove = function (event, listener) {
      const entry = EVENTS.has(event) ? held.get(event) : undefined;
      if (!entry || !entry.listeners.has(listener)) return off.call(this, event, listener);
      process.removeListener(event, listener);
      entry.listeners.delete(listener);
      if (entry.listeners.size === 0) {
        held.delete(event);
        for (const l of entry.replaced) process.on(event, l);
      }
      return this;
    };
    sandbox.on = sandbox.addListener = add;
    sandbox.off = sandbox.removeListener = remove;
  }
}

module.exports = EngineEnvironment;
