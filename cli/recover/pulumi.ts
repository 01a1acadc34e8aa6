/**
 * The Pulumi CLI as recover drives it: `pulumi` from PATH (or `$PULUMI_COMMAND`), in the project's folder, for
 * one stack, never interactive. Secrets never reach argv: a deployment that holds them goes through a file
 * readable by this user alone, removed after.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** A failed `pulumi` command: its arguments and the end of what it printed on stderr. */
export class PulumiError extends Error {
  override readonly name = "PulumiError";
}

/** Runs `pulumi` commands for one stack. */
export class PulumiCli {
  constructor(
    readonly cwd: string,
    readonly stack: string | undefined,
    readonly env: NodeJS.ProcessEnv = process.env,
    readonly command = env.PULUMI_COMMAND || "pulumi",
  ) {}

  /** `pulumi <args> [--stack <stack>] --non-interactive`; resolves with stdout, rejects with stderr's end. */
  run(args: string[], options: { stream?: boolean; stackless?: boolean } = {}): Promise<string> {
    const stack = this.stack && !options.stackless ? ["--stack", this.stack] : [];
    const full = [...args, ...stack, "--non-interactive"];
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, full, {
        cwd: this.cwd,
        env: { ...this.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        stdout += c;
        if (options.stream) process.stdout.write(c);
      });
      child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
      child.once("error", (e) => reject(new PulumiError(`cannot run ${this.command}: ${e.message}`)));
      child.once("close", (code) => {
        if (code === 0) return resolve(stdout);
        const said = (stderr.trim() || stdout.trim()).split("\n").slice(-6).join(" ").trim();
        reject(new PulumiError(`\`pulumi ${args.join(" ")}\` failed (exit ${code}): ${said}`));
      });
    });
  }

  /** The stack's configuration, secrets decrypted: key to value. Never printed. */
  async config(): Promise<Record<string, string>> {
    const parsed = JSON.parse(await this.run(["config", "--show-secrets", "--json"])) as Record<
      string,
      { value?: unknown; objectValue?: unknown }
    >;
    const out: Record<string, string> = {};
    for (const [key, entry] of Object.entries(parsed))
      if (typeof entry?.value === "string") out[key] = entry.value;
    return out;
  }

  /** `pulumi stack export --show-secrets`, parsed. */
  async exportStack<T>(): Promise<T> {
    return JSON.parse(await this.run(["stack", "export", "--show-secrets"])) as T;
  }

  /** `pulumi stack import` of `deployment`, through a private file. */
  async importStack(deployment: unknown): Promise<void> {
    const dir = mkdtempSync(path.join(os.tmpdir(), "observability-recover-"));
    try {
      const file = path.join(dir, "deployment.json");
      writeFileSync(file, JSON.stringify(deployment), { mode: 0o600 });
      await this.run(["stack", "import", "--file", file]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** The backend's URL: `$PULUMI_BACKEND_URL`, else what `pulumi whoami` reports. */
  async backendUrl(): Promise<string> {
    if (this.env.PULUMI_BACKEND_URL) return this.env.PULUMI_BACKEND_URL;
    const who = JSON.parse(await this.run(["whoami", "--json"], { stackless: true })) as { url?: string };
    if (!who.url) throw new PulumiError("`pulumi whoami --json` named no backend URL");
    return who.url;
  }
}
