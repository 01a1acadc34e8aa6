/**
 * Fault runs, small and seeded: mixed operations, 16 at a time, through the real dynamic-provider
 * host, under each fault kind alone at 5%. Every operation succeeds, nothing is made twice, nothing is left
 * behind, and listing every family shows exactly the objects the host reported. `bench/fault-runs.ts` runs the
 * same at full size (500 operations).
 */
import { faultMixes, faultRun, providerTexts } from "../helpers/fault-run";

const OPERATIONS = 120;
let texts: Awaited<ReturnType<typeof providerTexts>>;

beforeAll(async () => {
  texts = await providerTexts();
});

describe("fault runs through the dynamic-provider host", () => {
  it.each(faultMixes(0.05, 12))(
    `${OPERATIONS} operations, 16 at a time, under %s: 0 failures, 0 duplicates, 0 orphans`,
    async (faults) => {
      const result = await faultRun(texts, { faults, operations: OPERATIONS, concurrency: 16, seed: 12 });
      const kind = faults.split("=")[0];
      expect(result.injected[kind] ?? 0).toBeGreaterThan(0);
      expect(result).toMatchObject({
        operations: OPERATIONS,
        failures: [],
        duplicates: 0,
        orphans: 0,
        missing: 0,
      });
    },
    60_000,
  );
});
