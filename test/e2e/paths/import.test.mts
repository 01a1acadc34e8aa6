/** `pulumi import`, and the `import` resource option: both fail, and leave nothing in state. */
import { findOnPath } from "../../../scripts/lib.mts";
import { STEP_TIMEOUT_MS, cli, enginePath } from "../harness.mts";
import { exportState, packageResources, type ServiceObject } from "../support.mts";
import { TYPE, obs } from "./common.mts";

/**
 * `pulumi import` runs no program, so it cannot be handed one in process as the other commands are: the CLI
 * starts the project's language host, which the CLI built here from Go modules does not have.
 */
const languageHost = cli && findOnPath("pulumi-language-nodejs", { dirs: [cli.binDir] });

enginePath("import", "import", (ctx) => {
  let existing: ServiceObject;
  beforeAll(async () => {
    existing = await ctx.client.monitors.create({
      name: "to import",
      type: "MatchEvent",
      aplQuery: "['logs']",
    });
  });
  ctx.afterSteps(async () => {
    if (existing) await ctx.client.monitors.delete(existing.id);
  });

  it(
    "the `import` resource option fails pointing to adopt, and leaves nothing in state",
    async () => {
      const stack = await ctx.stack("import-option", async () => {
        const { Monitor } = await obs();
        new Monitor(
          "imported",
          { name: "to import", type: "MatchEvent", aplQuery: "['logs']" },
          { import: existing.id },
        );
      });
      await expect(stack.stack.up(ctx.out)).rejects.toThrow(`adopt: "${existing.id}"`);
      expect(packageResources((await exportState(stack)).resources)).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  const name = "`pulumi import` fails and leaves nothing in state";
  (languageHost ? it : it.skip)(
    languageHost
      ? name
      : `${name} (skipped: it needs the Node.js language host, pulumi-language-nodejs, beside the CLI or on PATH)`,
    async () => {
      const stack = await ctx.stack("import", async () => undefined);
      await stack.stack.up(ctx.out);
      await expect(
        stack.run(["import", `${TYPE}Monitor`, "imported", existing.id, "--yes", "--generate-code=false"]),
      ).rejects.toThrow("failed with exit code");
      expect(packageResources((await exportState(stack)).resources)).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );
});
