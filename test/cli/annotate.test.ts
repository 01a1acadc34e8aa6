/** `observability annotate`, run from the build output against an emulator. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { api, useEmulator } from "../helpers/emulator";
import { emulatorEnv, oneLine, runCli, useTempDir } from "../helpers/cli";

const em = useEmulator();
const tmp = useTempDir();
const env = () => emulatorEnv(em.current);

async function annotationCount(): Promise<number> {
  return ((await api(em.current, "GET", "/v2/annotations")).body as unknown[]).length;
}

it("creates the annotation and prints its id; --dataset repeats and joins with commas", async () => {
  const r = await runCli(
    [
      "annotate",
      "--dataset",
      "http-logs,traces",
      "--dataset",
      "jobs",
      "--type",
      "production-deploy",
      "--title",
      "Deploy 2024.06.1",
      "--description",
      "by CI",
      "--url",
      "https://ci.example/runs/42",
      "--time",
      "2024-06-01T10:00:00Z",
      "--end-time",
      "2024-06-01T10:05:00Z",
    ],
    { env: env() },
  );
  expect(r).toMatchObject({ code: 0, stderr: "" });
  const id = r.stdout.trim();
  expect(id).toMatch(/^ann_\S+$/);
  const stored = await api(em.current, "GET", `/v2/annotations/${id}`);
  expect(stored.body).toMatchObject({
    datasets: ["http-logs", "traces", "jobs"],
    type: "production-deploy",
    title: "Deploy 2024.06.1",
    description: "by CI",
    url: "https://ci.example/runs/42",
    time: "2024-06-01T10:00:00Z",
    endTime: "2024-06-01T10:05:00Z",
  });
});

it("--json prints the whole annotation, with the time the service set", async () => {
  const r = await runCli(["annotate", "--dataset", "web", "--type", "deploy", "--json"], { env: env() });
  expect(r.code).toBe(0);
  const body = JSON.parse(r.stdout) as { id: string; time: string };
  expect(body).toMatchObject({ id: expect.stringMatching(/^ann_/), datasets: ["web"], type: "deploy" });
  expect(Math.abs(Date.parse(body.time) - Date.now())).toBeLessThan(60_000);
});

it("--api-url is the service, --url the annotation's link", async () => {
  const r = await runCli(
    [
      "annotate",
      "--dataset",
      "web",
      "--type",
      "deploy",
      "--url",
      "https://example.com/x",
      "--api-url",
      em.current.url,
    ],
    { env: { OBSERVABILITY_URL: "http://127.0.0.1:1", OBSERVABILITY_TOKEN: em.current.token } },
  );
  expect(r.code).toBe(0);
  const stored = await api(em.current, "GET", `/v2/annotations/${r.stdout.trim()}`);
  expect(stored.body.url).toBe("https://example.com/x");
});

describe("the Annotation resource's validation, naming the flag (exit 2, nothing created)", () => {
  it.each([
    ["no dataset", ["--type", "deploy"], "--dataset: must contain at least 1 dataset"],
    ["an empty dataset name", ["--dataset", "a,,b", "--type", "deploy"], "--dataset[1]: "],
    ["no type", ["--dataset", "web"], "--type: is required"],
    ["a type with capitals", ["--dataset", "web", "--type", "Deploy"], "--type: must match ^[a-z0-9-]+$"],
    [
      "a title over 256 characters",
      ["--dataset", "web", "--type", "d", "--title", "x".repeat(257)],
      "--title: must be at most 256 characters",
    ],
    ["a time that is not RFC 3339", ["--dataset", "web", "--type", "d", "--time", "yesterday"], "--time: "],
    [
      "an end time that is not RFC 3339",
      ["--dataset", "web", "--type", "d", "--end-time", "later"],
      "--end-time: ",
    ],
  ])("%s", async (_name, flags, message) => {
    const before = await annotationCount();
    const r = await runCli(["annotate", ...flags], { env: env() });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toContain(`observability annotate: invalid annotation: ${message}`);
    expect(await annotationCount()).toBe(before);
  });

  it("every failing field at once", async () => {
    const r = await runCli(["annotate", "--type", "NO"], { env: env() });
    expect(oneLine(r.stderr)).toMatch(/--dataset: .*; --type: must match/);
  });
});

describe("connection errors (one line, the token shown nowhere)", () => {
  it("a missing token (exit 2)", async () => {
    const r = await runCli(["annotate", "--dataset", "web", "--type", "deploy"], {
      env: { OBSERVABILITY_URL: em.current.url },
    });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/^observability annotate: no token: /);
  });

  it("an empty token file (exit 2)", async () => {
    const path = join(tmp.path, "empty-token");
    writeFileSync(path, "\n");
    const r = await runCli(["annotate", "--dataset", "web", "--type", "deploy", "--token-file", path], {
      env: { OBSERVABILITY_URL: em.current.url },
    });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(`observability annotate: no token: the token file ${path} is empty`);
  });

  it("a 403 (exit 1)", async () => {
    const token = "xaat-refused-annotate-token-5d0b";
    const path = join(tmp.path, "bad-token");
    writeFileSync(path, token);
    const r = await runCli(["annotate", "--dataset", "web", "--type", "deploy", "--token-file", path], {
      env: { OBSERVABILITY_URL: em.current.url },
    });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/^observability annotate: the service refused the token \(403/);
    expect(r.stdout + r.stderr).not.toContain(token);
  });

  it("a service that is not there (exit 1)", async () => {
    const r = await runCli(
      ["annotate", "--dataset", "web", "--type", "deploy", "--api-url", "http://127.0.0.1:1"],
      {
        env: { OBSERVABILITY_TOKEN: em.current.token },
      },
    );
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/ECONNREFUSED/);
    expect(r.stderr).not.toContain(em.current.token);
  });
});

it("--help shows an example", async () => {
  const r = await runCli(["annotate", "--help"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("$ observability annotate --dataset http-logs,traces --type production-deploy");
});
