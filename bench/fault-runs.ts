/**
 * The full-size fault runs: 500 mixed operations (create, update, read, delete on monitors, notifiers,
 * annotations, roles and starred queries) through the real dynamic-provider host, 16 at a time, against an
 * emulator injecting one fault kind at 5% (429, 500, 502, 503, drop, 500after, latency). After each run every
 * family is listed and compared with what the host reported. Prints, per fault kind: operations, failures,
 * duplicates, orphans, missing; exits 1 when any of the last four is not 0.
 *
 *   npm run build && node_modules/.bin/node bench/fault-runs.ts [operations] [concurrency] [rate] [seed]
 *
 * The host runs the compiled provider from dist/, as `pulumi up` runs the installed package. The run itself is
 * the jest fault runs' own driver (test/helpers/fault-run.ts), so both measure the same thing.
 */
// A block, not a module: `export {}` would make Node parse this file as ESM, where `require` is absent.
{
  // The driver and the host helper are TypeScript written for ts-jest; the harness compiles them as jest does.
  const { requireTypeScriptAsCommonJs } = require("./host-harness.ts") as typeof import("./host-harness");
  requireTypeScriptAsCommonJs();

  const { faultMixes, faultRun, providerTexts } =
    require("../test/helpers/fault-run.ts") as typeof import("../test/helpers/fault-run");

  const OPERATIONS = Number(process.argv[2] ?? 500);
  const CONCURRENCY = Number(process.argv[3] ?? 16);
  const RATE = Number(process.argv[4] ?? 0.05);
  const SEED = Number(process.argv[5] ?? 12);

  (async () => {
    const texts = await providerTexts();
    console.log(
      `${OPERATIONS} operations, ${CONCURRENCY} at a time, each fault kind at ${RATE}, seed ${SEED}`,
    );
    console.log(
      ["faults".padEnd(28), "operations", "failures", "duplicates", "orphans", "missing", "  injected"].join(
        " ",
      ),
    );
    let bad = false;
    for (const faults of faultMixes(RATE, SEED)) {
      const started = Date.now();
      const r = await faultRun(texts, {
        faults,
        operations: OPERATIONS,
        concurrency: CONCURRENCY,
        seed: SEED,
      });
      const kind = faults.split("=")[0];
      console.log(
        [
          faults.padEnd(28),
          String(r.operations).padStart(10),
          String(r.failures.length).padStart(8),
          String(r.duplicates).padStart(10),
          String(r.orphans).padStart(7),
          String(r.missing).padStart(7),
          `  ${r.injected[kind] ?? 0} ${kind} of ${Object.values(r.injected).reduce((a, b) => a + b, 0)} faults, ` +
            `${((Date.now() - started) / 1000).toFixed(1)} s`,
        ].join(" "),
      );
      for (const f of r.failures) console.log(`  failed: ${f}`);
      bad ||= r.failures.length > 0 || r.duplicates > 0 || r.orphans > 0 || r.missing > 0;
    }
    process.exitCode = bad ? 1 : 0;
  })().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
