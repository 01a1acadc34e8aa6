/**
 * What the whole real-engine run must have covered; it runs last (sequencer.js). A run filtered to some files
 * (`npm run test:e2e -- <name>`) leaves this file out unless the name matches it.
 */
import { readdirSync } from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../scripts/lib.mts";
import { deployedInThisRun, describeEngine } from "./harness.mts";

describeEngine("what the real-engine run covered", () => {
  it("every folder in examples/ has its test: test/e2e/examples/, or a language's flagship in test/e2e-native/", () => {
    const folders = (dir: string) =>
      readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    const tested = readdirSync(path.join(REPO_ROOT, "test", "e2e", "examples"))
      .filter((f) => f.endsWith(".test.mts"))
      .map((f) => f.slice(0, -".test.mts".length));
    // `<language>-flagship` is the native provider's flagship in that language: test/e2e-native/<language>.test.ts.
    const native = readdirSync(path.join(REPO_ROOT, "test", "e2e-native"))
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => `${f.slice(0, -".test.ts".length)}-flagship`);
    expect(
      folders(path.join(REPO_ROOT, "examples")).filter((e) => !tested.includes(e) && !native.includes(e)),
    ).toEqual([]);
  });

  it("every resource class of the package was deployed by the real engine in this run", async () => {
    const obs = (await import("pulumi-observability")) as Record<string, unknown>;
    const { dynamic } = await import("@pulumi/pulumi");
    const kinds = Object.entries(obs)
      .filter(
        ([, v]) =>
          typeof v === "function" && (v as { prototype: unknown }).prototype instanceof dynamic.Resource,
      )
      .map(([name]) => name);
    expect(kinds.length).toBeGreaterThan(0);
    const { types } = deployedInThisRun();
    // A kind missing here wants a place in an example or in an engine path (test/e2e/paths/).
    expect(kinds.filter((k) => ![...types].some((t) => t.endsWith(`:${k}`)))).toEqual([]);
  });
});
