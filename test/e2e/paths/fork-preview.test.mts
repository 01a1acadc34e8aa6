/** A preview with no credentials, as for a fork's pull request: of a new stack, and of a deployed one. */
import { cpSync } from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../../scripts/lib.mts";
import { STEP_TIMEOUT_MS, enginePath, programFromCopies } from "../harness.mts";

const EXAMPLE = "monitors-to-notifiers";
const PLACEHOLDERS = {
  slackWebhookUrl: "https://hooks.slack.com/services/T00000000/B00000000/fork-placeholder",
  pagerdutyRoutingKey: "fork-routing-key-0000000000000000",
  incidentWebhookUrl: "https://incident-bot.example.com/hooks/fork",
  incidentWebhookToken: "fork-bot-token",
};

enginePath("a preview with no credentials (a fork's pull request)", "fork-preview", (ctx) => {
  let workDir: string;
  beforeAll(() => {
    workDir = path.join(path.dirname(ctx.workDir), EXAMPLE);
    cpSync(path.join(REPO_ROOT, "examples", EXAMPLE), workDir, {
      recursive: true,
      filter: (src) => !/Pulumi\.[^/]+\.yaml$|node_modules/.test(src),
    });
  });

  it(
    "preview of a new stack, no token in config or environment, plans every create",
    async () => {
      const program = programFromCopies(path.join(workDir, "index.ts"));
      const stack = await ctx.stack("fork-new", program, { credentials: false, workDir });
      await stack.setSecrets(PLACEHOLDERS);
      const preview = await stack.stack.preview({ ...ctx.out, diff: true });
      expect(preview.changeSummary.create).toBeGreaterThanOrEqual(14);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "preview of a deployed stack whose token is removed plans the change",
    async () => {
      const program = programFromCopies(path.join(workDir, "index.ts"));
      const stack = await ctx.stack("fork-deployed", program, { workDir });
      await stack.setSecrets(PLACEHOLDERS);
      await stack.stack.up(ctx.out);
      await stack.run(["config", "rm", "observability:token"]);
      try {
        await stack.setConfig({ release: "fork-pr-release" });
        const preview = await stack.stack.preview({ ...ctx.out, diff: true });
        expect(preview.changeSummary.update).toBe(1);
      } finally {
        // Cleaning up needs the token again.
        await stack.setSecrets({ "observability:token": ctx.em.token });
      }
    },
    STEP_TIMEOUT_MS,
  );
});
