/**
 * test/helpers/stack-config.ts, which the real-engine tests and the examples' drivers set their stacks' config
 * with: no secret on a command line. A stand-in CLI records each command line and what came on its stdin; under
 * the real engine the flagship of each language checks the same of the real CLI (test/e2e-native/flagship.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { setStackConfig, type ConfigValue, type ConfigurableStack } from "./stack-config";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "stack-config-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stack whose CLI is a stand-in that records argv, stdin, cwd and one variable of its env; fails when told. */
function fakeStack(failWith?: number) {
  const log = path.join(dir, `calls-${Math.random().toString(36).slice(2)}`);
  const cli = path.join(dir, `pulumi-${Math.random().toString(36).slice(2)}`);
  writeFileSync(
    cli,
    [
      "#!/bin/sh",
      `printf 'argv:%s\\n' "$*" >> '${log}'`,
      `printf 'stdin:%s\\n' "$(cat)" >> '${log}'`,
      `printf 'cwd:%s env:%s\\n' "$PWD" "$STACK_CONFIG_TEST" >> '${log}'`,
      failWith ? `echo 'error: no such stack' >&2; exit ${failWith}` : "exit 0",
    ].join("\n"),
    { mode: 0o755 },
  );
  const viaAutomation: Record<string, ConfigValue>[] = [];
  const stack: ConfigurableStack = {
    name: "dev",
    workspace: {
      workDir: dir,
      pulumiCommand: { command: cli },
      envVars: { STACK_CONFIG_TEST: "from-workspace" },
    },
    setAllConfig: async (config) => {
      viaAutomation.push(config);
    },
  };
  return { stack, viaAutomation, calls: () => readFileSync(log, "utf8") };
}

test("plain values go through the Automation API; each secret on the CLI's stdin, never in its arguments", async () => {
  const { stack, viaAutomation, calls } = fakeStack();
  await setStackConfig(stack, {
    "observability:url": { value: "http://127.0.0.1:8787" },
    "observability:token": { value: "xaat-secret-token", secret: true },
    slackWebhookUrl: { value: "https://hooks.slack.test/T0/SECRET-PATH", secret: true },
  });
  expect(viaAutomation).toEqual([{ "observability:url": { value: "http://127.0.0.1:8787" } }]);
  expect(calls()).toBe(
    [
      "argv:config set --secret observability:token --stack dev --non-interactive",
      "stdin:xaat-secret-token",
      `cwd:${dir} env:from-workspace`,
      "argv:config set --secret slackWebhookUrl --stack dev --non-interactive",
      "stdin:https://hooks.slack.test/T0/SECRET-PATH",
      `cwd:${dir} env:from-workspace`,
      "",
    ].join("\n"),
  );
});

test("only secrets: the Automation API is not called with nothing", async () => {
  const { stack, viaAutomation, calls } = fakeStack();
  await setStackConfig(stack, { token: { value: "s3cret", secret: true } });
  expect(viaAutomation).toEqual([]);
  expect(calls()).toContain("stdin:s3cret\n");
});

test("a failed `config set` rejects with the command and the CLI's error, not the value", async () => {
  const { stack } = fakeStack(255);
  const failed = setStackConfig(stack, {
    "observability:token": { value: "xaat-do-not-show", secret: true },
  });
  await expect(failed).rejects.toThrow(
    "pulumi config set --secret observability:token --stack dev --non-interactive failed (exit code 255): error: no such stack",
  );
  await expect(failed).rejects.not.toThrow(/xaat-do-not-show/);
});
