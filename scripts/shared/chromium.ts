/**
 * Headless Chromium for the pages we serve or write (the alert-test report, the emulator's console), for their tests
 * and for the script that takes the console's screenshots (scripts/console-screenshots.mts):
 * Debian's package, installed by scripts/install-chromium.sh when absent, driven over the DevTools protocol with
 * undici's WebSocket. One page per browser; what the page logs as an error is collected, so a test can require none.
 * It imports nothing of the repository's, so Node's type stripping and ts-jest both load it.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebSocket } from "undici";

/** The browser's path: the installed one, or the one the project's script installs. */
export function chromiumPath(root: string): string {
  if (process.env.CHROMIUM === undefined && existsSync("/usr/bin/chromium")) return "/usr/bin/chromium";
  const r = spawnSync("bash", [join(root, "scripts", "install-chromium.sh")], {
    encoding: "utf8",
    timeout: 15 * 60_000,
  });
  const path = r.stdout.trim().split("\n").pop();
  if (r.status !== 0 || !path) {
    throw new Error(
      `scripts/install-chromium.sh failed (${r.status}): ${r.stderr.trim().split("\n").slice(-3).join(" | ")}`,
    );
  }
  return path;
}

/** A browser and one page, spoken to over the DevTools protocol. */
export class Browser {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly listeners: ((method: string, params: Record<string, unknown>) => void)[] = [];
  private sessionId: string | undefined;

  private readonly child: ChildProcess;
  private readonly socket: WebSocket;
  private readonly profile: string;

  private constructor(child: ChildProcess, socket: WebSocket, profile: string) {
    this.child = child;
    this.socket = socket;
    this.profile = profile;
    socket.addEventListener("message", (event) => {
      const msg = JSON.parse(String(event.data)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
        method?: string;
        params?: Record<string, unknown>;
      };
      if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p?.reject(new Error(msg.error.message));
        else p?.resolve(msg.result);
      } else if (msg.method) {
        // A copy: a waitFor listener removes itself while the event is handed round, which would skip the next
        // listener in the live array. A listener that throws is recorded as an error of the run instead of ending
        // the hand-round, so a page's load event can never be lost behind it (a lost one hung open() until its
        // hook's timeout, on a loaded machine).
        for (const l of [...this.listeners]) {
          try {
            l(msg.method, msg.params ?? {});
          } catch (e) {
            this.errors.push(`listener of ${msg.method}: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
      }
    });
  }

  /** Starts headless Chromium on a free DevTools port and opens a blank page. */
  static async launch(executable: string): Promise<Browser> {
    const profile = mkdtempSync(join(tmpdir(), "test-chromium-"));
    const child = spawn(
      executable,
      [
        "--headless",
        // Root in a container has no user namespace for the sandbox.
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--remote-debugging-port=0",
        `--user-data-dir=${profile}`,
        "--window-size=1200,900",
        "about:blank",
      ],
      { stdio: ["ignore", "ignore", "pipe"], detached: true },
    );
    const wsUrl = await new Promise<string>((resolve, reject) => {
      let err = "";
      const timer = setTimeout(() => reject(new Error(`chromium did not start: ${err.slice(-500)}`)), 60_000);
      child.stderr!.setEncoding("utf8").on("data", (d: string) => {
        err += d;
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`chromium exited (${code}): ${err.slice(-500)}`));
      });
    });
    const socket = new WebSocket(wsUrl);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve());
      socket.addEventListener("error", () => reject(new Error(`cannot connect to ${wsUrl}`)));
    });
    const browser = new Browser(child, socket, profile);
    const { targetId } = (await browser.send("Target.createTarget", { url: "about:blank" })) as {
      targetId: string;
    };
    const { sessionId } = (await browser.send("Target.attachToTarget", { targetId, flatten: true })) as {
      sessionId: string;
    };
    browser.sessionId = sessionId;
    return browser;
  }

  /** Sends a command (to the page once attached) and resolves with its result. */
  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(
        JSON.stringify({ id, method, params, ...(this.sessionId ? { sessionId: this.sessionId } : {}) }),
      );
    });
  }

  /** Resolves with the first event named `method` whose params pass `when`. */
  waitFor(method: string): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      const l = (m: string, p: Record<string, unknown>) => {
        if (m !== method) return;
        this.listeners.splice(this.listeners.indexOf(l), 1);
        resolve(p);
      };
      this.listeners.push(l);
    });
  }

  on(listener: (method: string, params: Record<string, unknown>) => void): void {
    this.listeners.push(listener);
  }

  /** Evaluates `expression` in the page; answers its value. */
  async evaluate<T>(expression: string): Promise<T> {
    const r = (await this.send("Runtime.evaluate", { expression, returnByValue: true })) as {
      result: { value: T };
      exceptionDetails?: { text: string };
    };
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.text}`);
    return r.result.value;
  }

  /**
   * Like {@link evaluate}, for an expression whose value is a promise: answers what it resolves to. The page's own
   * events resolve it (a mutation, a poll counted), so a test waits for them without sleeping.
   */
  async evaluateAsync<T>(expression: string): Promise<T> {
    const r = (await this.send("Runtime.evaluate", {
      expression,
      returnByValue: true,
      awaitPromise: true,
    })) as {
      result: { value: T };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (r.exceptionDetails)
      throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
  }

  /** Every error the page reports from now on: uncaught exceptions, console.error, and the browser's own log
   * entries of level error (a refused Content-Security-Policy, a failed load). */
  readonly errors: string[] = [];
  async collectErrors(): Promise<void> {
    this.on((method, params) => {
      if (method === "Runtime.exceptionThrown") {
        const d = params.exceptionDetails as { text: string; exception?: { description?: string } };
        this.errors.push(`exception: ${d.exception?.description ?? d.text}`);
      } else if (method === "Runtime.consoleAPICalled" && params.type === "error") {
        this.errors.push(`console.error: ${JSON.stringify(params.args)}`);
      } else if (method === "Log.entryAdded") {
        const e = params.entry as { level: string; text: string; url?: string };
        if (e.level === "error") this.errors.push(`log: ${e.text} ${e.url ?? ""}`);
      }
    });
    await this.send("Runtime.enable");
    await this.send("Log.enable");
  }

  /** Navigates and resolves once the page's load event fired. */
  async open(url: string): Promise<void> {
    await this.send("Page.enable");
    const loaded = this.waitFor("Page.loadEventFired");
    await this.send("Page.navigate", { url });
    await loaded;
  }

  /** Presses a key (`Tab`, `Enter`, ` `) as a keyboard would, with `shift` for Shift+Tab. */
  async press(key: "Tab" | "Enter" | " ", shift = false): Promise<void> {
    const code = key === " " ? "Space" : key;
    const keyCode = key === "Tab" ? 9 : key === "Enter" ? 13 : 32;
    const base = { key, code, windowsVirtualKeyCode: keyCode, modifiers: shift ? 8 : 0 };
    const text = key === "Enter" ? "\r" : key === " " ? " " : undefined;
    await this.send("Input.dispatchKeyEvent", { type: "keyDown", ...base, ...(text ? { text } : {}) });
    await this.send("Input.dispatchKeyEvent", { type: "keyUp", ...base });
  }

  /** A PNG of the page as laid out, its whole height, written to `file`. */
  async screenshot(file: string): Promise<void> {
    const { data } = (await this.send("Page.captureScreenshot", {
      format: "png",
      captureBeyondViewport: true,
    })) as { data: string };
    writeFileSync(file, Buffer.from(data, "base64"));
  }

  /** Closes the browser, and ends its process group if it lingers. */
  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null) resolve();
      else this.child.once("exit", () => resolve());
    });
    this.sessionId = undefined;
    await Promise.race([this.send("Browser.close").catch(() => undefined), exited]);
    this.socket.close();
    const timer = setTimeout(() => {
      try {
        process.kill(-this.child.pid!, "SIGKILL");
      } catch {
        // Already gone.
      }
    }, 5_000);
    await exited;
    clearTimeout(timer);
    rmSync(this.profile, { recursive: true, force: true });
  }
}
