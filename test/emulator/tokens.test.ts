/**
 * API tokens in the emulator: every operation of the OpenAPI v2 document's `tokens` tag (getAPITokens,
 * createAPIToken, getAPIToken, deleteAPIToken, regenerateAPIToken), the bodies official clients send, and the
 * enforcement of a minted token's capabilities (each may do only what its capabilities grant).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../../emulator";
import { OPEN, authorize, datasetNeed, orgNeed, type Need } from "../../emulator/auth";
import { api, createDatasets, useEmulator, type ApiResponse } from "../helpers/emulator";

const em = useEmulator();
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Creates a token with the development token; returns the answer (with the value). */
async function mint(
  body: Record<string, unknown>,
): Promise<Record<string, unknown> & { id: string; token: string }> {
  const res = await api(em.current, "POST", "/v2/tokens", body);
  expect(res.status).toBe(200);
  return res.body;
}

/** The answer minus the value: what GET must echo. */
const withoutValue = (t: Record<string, unknown>) => {
  const out = { ...t };
  delete out.token;
  return out;
};

const expect403 = (res: ApiResponse, words: string | RegExp) => {
  expect(res.status).toBe(403);
  expect(res.body).toEqual({ code: 403, message: expect.stringMatching(words) });
};

describe("the tokens family", () => {
  it("create answers the value once (xaat-); GET and list echo exactly the rest (axiom-go tokens_integration_test.go:55-68)", async () => {
    const created = await mint({
      name: "Test token",
      expiresAt: "2099-01-01T00:00:00Z",
      datasetCapabilities: { "*": { ingest: ["create"] } },
      orgCapabilities: { users: ["create", "read", "update", "delete"] },
    });
    expect(created.token).toMatch(/^xaat-[0-9a-f-]{36}$/);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^tok_/),
      name: "Test token",
      description: "",
      expiresAt: "2099-01-01T00:00:00Z",
      datasetCapabilities: { "*": { ingest: ["create"] } },
      orgCapabilities: { users: ["create", "read", "update", "delete"] },
      viewCapabilities: {},
      samlAuthenticated: false,
    });
    const got = await api(em.current, "GET", `/v2/tokens/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(withoutValue(created));
    expect(got.text).not.toContain(created.token);
    const list = await api(em.current, "GET", "/v2/tokens");
    expect(list.body).toContainEqual(withoutValue(created));
    expect(list.text).not.toContain(created.token);
    expect(list.text).not.toContain("tokenHash");
  });

  it("takes what official clients send: the zero time for no expiry and null members (axiom-go tokens.go:91-116, 170-183; axiom-py asdict)", async () => {
    const goBody = {
      name: "go",
      description: "",
      expiresAt: "0001-01-01T00:00:00Z",
      datasetCapabilities: {
        logs: {
          ingest: ["create"],
          query: null,
          starredQueries: null,
          virtualFields: null,
          trim: null,
          vacuum: null,
          data: null,
          share: null,
        },
      },
      orgCapabilities: { apiTokens: ["read"] },
    };
    const go = await mint(goBody);
    expect(go).toMatchObject({ expiresAt: null, datasetCapabilities: { logs: { ingest: ["create"] } } });
    const py = await mint({
      name: "py",
      description: null,
      expiresAt: null,
      datasetCapabilities: null,
      orgCapabilities: { apiTokens: ["read"], users: null },
      viewCapabilities: null,
    });
    expect(py).toMatchObject({
      description: "",
      expiresAt: null,
      datasetCapabilities: {},
      orgCapabilities: { apiTokens: ["read"] },
    });
  });

  it.each([
    ["name is required", {}, "name"],
    [
      "an unknown org capability is refused",
      { name: "t", orgCapabilities: { everything: ["read"] } },
      "orgCapabilities.everything",
    ],
    [
      "dataset ingest allows only create",
      { name: "t", datasetCapabilities: { l: { ingest: ["read"] } } },
      "datasetCapabilities.l.ingest[0]",
    ],
    [
      "view query allows only read",
      { name: "t", viewCapabilities: { v: { query: ["create"] } } },
      "viewCapabilities.v.query[0]",
    ],
    ["expiresAt is RFC 3339", { name: "t", expiresAt: "tomorrow" }, "expiresAt"],
  ])("create: %s (422 naming the field)", async (_rule, body, field) => {
    const res = await api(em.current, "POST", "/v2/tokens", body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, message: expect.stringContaining(field) });
  });

  it("has no PUT (405), and a missing id is a 404 for GET, DELETE and regenerate", async () => {
    const t = await mint({ name: "no-put" });
    expect((await api(em.current, "PUT", `/v2/tokens/${t.id}`, { name: "x" })).status).toBe(405);
    expect((await api(em.current, "GET", "/v2/tokens/tok_missing")).status).toBe(404);
    expect((await api(em.current, "DELETE", "/v2/tokens/tok_missing")).status).toBe(404);
    const regen = await api(em.current, "POST", "/v2/tokens/tok_missing/regenerate", {
      existingTokenExpiresAt: "2099-01-01T00:00:00Z",
    });
    expect(regen.status).toBe(404);
  });

  it("regenerate without newToken clones the old one under a new id; the old one is listed with existingTokenExpiresAt (axiom-go tokens_integration_test.go:70-88)", async () => {
    const old = await mint({ name: "cloned", description: "d", orgCapabilities: { monitors: ["read"] } });
    const res = await api(em.current, "POST", `/v2/tokens/${old.id}/regenerate`, {
      existingTokenExpiresAt: "2099-06-01T00:00:00Z",
      newTokenExpiresAt: "2099-12-01T00:00:00Z",
    });
    expect(res.status).toBe(200);
    expect(res.body.id).not.toBe(old.id);
    expect(res.body.token).toMatch(/^xaat-/);
    expect(res.body.token).not.toBe(old.token);
    expect(res.body).toMatchObject({
      name: "cloned",
      description: "d",
      orgCapabilities: { monitors: ["read"] },
      expiresAt: "2099-12-01T00:00:00Z",
    });
    const list = (await api(em.current, "GET", "/v2/tokens")).body as Record<string, unknown>[];
    expect(list).not.toContainEqual(withoutValue(old));
    expect(list).toContainEqual({ ...withoutValue(old), expiresAt: "2099-06-01T00:00:00Z" });
    expect(list).toContainEqual(withoutValue(res.body));
  });

  it("regenerate with newToken takes its name, description, expiry and capabilities (axiom-go tokens_integration_test.go:99-122)", async () => {
    const old = await mint({ name: "before", datasetCapabilities: { "*": { ingest: ["create"] } } });
    const res = await api(em.current, "POST", `/v2/tokens/${old.id}/regenerate`, {
      existingTokenExpiresAt: new Date(Date.now() + 60_000).toISOString(),
      newToken: {
        name: "Test replacement token",
        description: "replacement token description",
        expiresAt: "2099-01-03T00:00:00Z",
        datasetCapabilities: { "*": { query: ["read"], ingest: null } },
        orgCapabilities: { users: ["read"] },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "Test replacement token",
      description: "replacement token description",
      expiresAt: "2099-01-03T00:00:00Z",
      datasetCapabilities: { "*": { query: ["read"] } },
      orgCapabilities: { users: ["read"] },
    });
  });

  it.each([
    ["existingTokenExpiresAt is required", {}, "existingTokenExpiresAt"],
    [
      "newToken is checked as a create body",
      { existingTokenExpiresAt: "2099-01-01T00:00:00Z", newToken: {} },
      "newToken.name",
    ],
  ])("regenerate: %s (422)", async (_rule, body, field) => {
    const t = await mint({ name: "r" });
    const res = await api(em.current, "POST", `/v2/tokens/${t.id}/regenerate`, body);
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(field);
  });
});

describe("a minted token is allowed exactly what its capabilities grant", () => {
  /** Events into `dataset` with `token`. */
  const ingest = (token: string, dataset: string) =>
    api(em.current, "POST", `/v1/datasets/${dataset}/ingest`, [{ msg: "hi" }], bearer(token));
  const apl = (token: string, query: string) =>
    api(
      em.current,
      "POST",
      "/v1/datasets/_apl?format=legacy",
      { apl: query, startTime: "now-1h", endTime: "now" },
      bearer(token),
    );

  it("least privilege: an ingest-only token ingests into its dataset and is refused a query, a monitors list and another dataset", async () => {
    await createDatasets(em.current, "svc-logs");
    const { token } = await mint({
      name: "svc ingest",
      datasetCapabilities: { "svc-logs": { ingest: ["create"] } },
    });
    const ok = await ingest(token, "svc-logs");
    expect(ok.status).toBe(200);
    expect(ok.body.ingested).toBe(1);
    expect403(await apl(token, "['svc-logs'] | count"), /datasetCapabilities\["svc-logs"\]\.query/);
    expect403(
      await api(em.current, "GET", "/v2/monitors", undefined, bearer(token)),
      /orgCapabilities\.monitors \["read"\]/,
    );
    expect403(await ingest(token, "other-logs"), /datasetCapabilities\["other-logs"\]\.ingest/);
    expect403(
      await api(
        em.current,
        "POST",
        "/v1/datasets/svc-logs/query",
        { startTime: "2020-01-01T00:00:00Z", endTime: "2099-01-01T00:00:00Z" },
        bearer(token),
      ),
      /query/,
    );
    // The refused requests had no effect: the other dataset got nothing.
    const other = await api(em.current, "POST", "/v1/datasets/_apl", { apl: "['other-logs'] | count" });
    expect(other.status).not.toBe(200);
  });

  it.each([
    ["union", "['svc-logs'] | union ['other-logs'] | count"],
    ["join", "['svc-logs'] | join kind=inner (['other-logs']) on msg | count"],
    ["lookup", "['svc-logs'] | lookup (['other-logs']) on msg"],
    ["a union at the start", "union ['svc-logs'], ['other-logs'] | count"],
    ["a wildcard union", "union svc* | count"],
    ["a leading search", 'search "hi" | count'],
  ])("a token scoped to one dataset cannot read another through %s: 403 naming it", async (_how, query) => {
    await createDatasets(em.current, "svc-logs", "other-logs");
    const { token } = await mint({
      name: "svc reader",
      datasetCapabilities: { "svc-logs": { query: ["read"] } },
    });
    expect((await apl(token, "['svc-logs'] | count")).status).toBe(200);
    expect403(await apl(token, query), /datasetCapabilities\["(other-logs|\*)"\]\.query/);
    const both = await mint({
      name: "both",
      datasetCapabilities: { "svc-logs": { query: ["read"] }, "other-logs": { query: ["read"] } },
    });
    // Named datasets are granted one by one; a wildcard needs the "*" key.
    expect((await apl(both.token, query)).status).toBe(
      query.includes("*") || query.startsWith("search") ? 403 : 200,
    );
  });

  it('the "*" dataset key grants every dataset; query rights let an APL query through', async () => {
    await createDatasets(em.current, "svc-logs");
    const { token } = await mint({ name: "reader", datasetCapabilities: { "*": { query: ["read"] } } });
    const res = await apl(token, "['svc-logs'] | count");
    expect(res.status).toBe(200);
    expect403(await ingest(token, "svc-logs"), /ingest/);
  });

  it.each([
    ["monitors", "GET", "/v2/monitors", { monitors: ["read"] }, { monitors: ["create"] }],
    ["notifiers", "GET", "/v2/notifiers", { notifiers: ["read"] }, { monitors: ["read"] }],
    ["annotations", "GET", "/v2/annotations", { annotations: ["read"] }, { annotations: ["create"] }],
    ["rbac", "GET", "/v2/rbac/roles", { rbac: ["read"] }, { users: ["read"] }],
    ["apiTokens", "GET", "/v2/tokens", { apiTokens: ["read"] }, { apiTokens: ["create"] }],
  ])("orgCapabilities.%s: %s %s needs its action", async (_cap, method, path, grants, lacks) => {
    const yes = await mint({ name: "yes", orgCapabilities: grants });
    const no = await mint({ name: "no", orgCapabilities: lacks });
    expect((await api(em.current, method, path, undefined, bearer(yes.token))).status).toBe(200);
    expect403(await api(em.current, method, path, undefined, bearer(no.token)), /^forbidden: API token tok_/);
  });

  it("the method decides the action: read-only monitors may list but not create", async () => {
    const { token } = await mint({ name: "ro", orgCapabilities: { monitors: ["read"] } });
    const body = { name: "m", aplQuery: "['x'] | count", type: "MatchEvent" };
    expect403(await api(em.current, "POST", "/v2/monitors", body, bearer(token)), /monitors \["create"\]/);
    const writer = await mint({ name: "rw", orgCapabilities: { monitors: ["read", "create", "delete"] } });
    const made = await api(em.current, "POST", "/v2/monitors", body, bearer(writer.token));
    expect(made.status).toBe(200);
    expect(
      (
        await api(
          em.current,
          "GET",
          `/v2/monitors/${made.body.id}/history?startTime=now-1h&endTime=now`,
          undefined,
          bearer(token),
        )
      ).status,
    ).toBe(200);
    expect403(
      await api(em.current, "DELETE", `/v2/monitors/${made.body.id}`, undefined, bearer(token)),
      /delete/,
    );
    expect(
      (await api(em.current, "DELETE", `/v2/monitors/${made.body.id}`, undefined, bearer(writer.token)))
        .status,
    ).toBe(204);
  });

  it("a token with apiTokens create may mint, and one without may not; orgs are readable by any token, renamed by none", async () => {
    const admin = await mint({ name: "admin", orgCapabilities: { apiTokens: ["create"] } });
    expect((await api(em.current, "POST", "/v2/tokens", { name: "child" }, bearer(admin.token))).status).toBe(
      200,
    );
    const plain = await mint({ name: "plain" });
    expect403(
      await api(em.current, "POST", "/v2/tokens", { name: "child" }, bearer(plain.token)),
      /apiTokens \["create"\]/,
    );
    expect((await api(em.current, "GET", "/v2/orgs", undefined, bearer(plain.token))).status).toBe(200);
    expect403(
      await api(em.current, "PUT", "/v2/orgs/local-org", { name: "hijack" }, bearer(admin.token)),
      /renaming/,
    );
  });

  it("starred queries need the dataset's starredQueries capability", async () => {
    const { token } = await mint({
      name: "sq",
      datasetCapabilities: { logs: { starredQueries: ["create", "read"] } },
    });
    const body = {
      kind: "apl",
      name: "q",
      who: "team",
      dataset: "logs",
      query: { apl: "['logs']" },
      metadata: {},
    };
    expect((await api(em.current, "POST", "/v2/apl-starred-queries", body, bearer(token))).status).toBe(200);
    expect403(
      await api(em.current, "POST", "/v2/apl-starred-queries", { ...body, dataset: "other" }, bearer(token)),
      /starredQueries/,
    );
  });

  it("an expired token is refused, saying it expired", async () => {
    const { token, id } = await mint({
      name: "old",
      expiresAt: "2001-01-01T00:00:00Z",
      orgCapabilities: { monitors: ["read"] },
    });
    expect403(
      await api(em.current, "GET", "/v2/monitors", undefined, bearer(token)),
      new RegExp(`API token ${id} expired`),
    );
  });

  it("after a regenerate the old value works until existingTokenExpiresAt, then is refused; the new one works", async () => {
    // On a clock the test moves, so the old value's last moment is exact whatever the pace of the machine.
    let now = Date.UTC(2030, 0, 1);
    const timed = await startEmulator({ port: 0, clock: () => now });
    try {
      const mintTimed = async () => {
        const made = await api(timed, "POST", "/v2/tokens", {
          name: "rotating",
          orgCapabilities: { monitors: ["read"] },
        });
        expect(made.status).toBe(200);
        return { id: made.body.id as string, token: made.body.token as string };
      };
      const old = await mintTimed();
      const until = now + 1_500;
      const res = await api(timed, "POST", `/v2/tokens/${old.id}/regenerate`, {
        existingTokenExpiresAt: new Date(until).toISOString(),
      });
      const fresh = res.body.token as string;
      const monitorsWith = (token: string) => api(timed, "GET", "/v2/monitors", undefined, bearer(token));
      expect((await monitorsWith(old.token)).status).toBe(200);
      expect((await monitorsWith(fresh)).status).toBe(200);
      now = until - 1;
      expect((await monitorsWith(old.token)).status).toBe(200);
      now = until;
      expect403(await monitorsWith(old.token), /expired/);
      expect((await monitorsWith(fresh)).status).toBe(200);
    } finally {
      await timed.close();
    }
  });

  it("a deleted token is refused; the development tokens keep full access", async () => {
    const t = await mint({ name: "gone", orgCapabilities: { monitors: ["read"] } });
    expect((await api(em.current, "DELETE", `/v2/tokens/${t.id}`)).status).toBe(204);
    expect403(await api(em.current, "GET", "/v2/monitors", undefined, bearer(t.token)), /invalid token/);
    expect((await api(em.current, "PUT", "/v2/orgs/local-org", { name: "Local Development" })).status).toBe(
      200,
    );
    const pat = { authorization: `Bearer ${em.current.personalToken}`, "x-service-org-id": em.current.orgId };
    await createDatasets(em.current, "svc-logs");
    expect((await api(em.current, "POST", "/v1/datasets/svc-logs/ingest", [{ a: 1 }], pat)).status).toBe(200);
  });
});

describe("with --data", () => {
  it("stores a hash, not the value, and still authenticates the value after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tokens-data-"));
    const dataFile = join(dir, "state.json");
    try {
      const first = await startEmulator({ port: 0, dataFile });
      const made = await api(first, "POST", "/v2/tokens", {
        name: "kept",
        orgCapabilities: { monitors: ["read"] },
      });
      const value = made.body.token as string;
      await first.close();
      const files = readdirSync(dir)
        .map((f) => readFileSync(join(dir, f), "utf8"))
        .join("\n");
      expect(files).toContain(made.body.id);
      expect(files).not.toContain(value);
      const second = await startEmulator({ port: 0, dataFile });
      try {
        expect((await api(second, "GET", "/v2/monitors", undefined, bearer(value))).status).toBe(200);
        expect((await api(second, "GET", "/v2/notifiers", undefined, bearer(value))).status).toBe(403);
        expect((await api(second, "GET", `/v2/tokens/${made.body.id}`)).body).toEqual(
          withoutValue(made.body),
        );
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("never logs a minted value", async () => {
    const lines: string[] = [];
    const logged = await startEmulator({ port: 0, logger: (l) => lines.push(l) });
    try {
      const made = await api(logged, "POST", "/v2/tokens", { name: "quiet" });
      await api(logged, "GET", "/v2/monitors", undefined, bearer(made.body.token));
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join("\n")).not.toContain(made.body.token);
    } finally {
      await logged.close();
    }
  });
});

describe("the decision (emulator/auth.ts), for every capability kind", () => {
  // Routes that declare these needs (trim, vacuum, virtual fields, …) come with their families; the rule is here.
  const token = {
    id: "tok_unit",
    datasetCapabilities: {
      logs: {
        trim: ["update"],
        vacuum: ["update"],
        virtualFields: ["read"],
        data: ["delete"],
        share: ["read"],
      },
      "*": { starredQueries: ["read"] },
    },
    orgCapabilities: { dashboards: ["read"], views: ["update"] },
  };
  const principal = { kind: "apiToken" as const, token };
  const cases: [string, Need, boolean][] = [
    ["trim update on its dataset", datasetNeed("trim", "update", ["logs"]), true],
    ["trim update elsewhere", datasetNeed("trim", "update", ["traces"]), false],
    ["vacuum update", datasetNeed("vacuum", "update", ["logs"]), true],
    ["virtualFields read", datasetNeed("virtualFields", "read", ["logs"]), true],
    ["virtualFields create", datasetNeed("virtualFields", "create", ["logs"]), false],
    ["data delete", datasetNeed("data", "delete", ["logs"]), true],
    ["share read", datasetNeed("share", "read", ["logs"]), true],
    ["share create", datasetNeed("share", "create", ["logs"]), false],
    ['starredQueries read through "*"', datasetNeed("starredQueries", "read", ["anything"]), true],
    ["ingest on any dataset", datasetNeed("ingest", "create", []), false],
    ["trim on some dataset", datasetNeed("trim", "update", []), true],
    ["dashboards read", orgNeed("dashboards", "read"), true],
    ["views update", orgNeed("views", "update"), true],
    ["views delete", orgNeed("views", "delete"), false],
    ["an open route", OPEN, true],
    ["a developer-only route", { kind: "developer", why: "x" }, false],
    ["a route that declares nothing", undefined as unknown as Need, false],
  ];
  it.each(cases)("%s", (_case, need, allowed) => {
    const run = () => authorize(principal, need);
    if (allowed) expect(run).not.toThrow();
    else expect(run).toThrow(/^forbidden: API token tok_unit/);
    expect(() => authorize({ kind: "development", scope: "organization" }, need)).not.toThrow();
  });
});
