/** Authentication as the spec states it: Bearer token on every request, PATs also need x-service-org-id. */
import { api, useEmulator } from "../helpers/emulator";

const em = useEmulator({
  token: "xaat-test-secret-api-token",
  personalToken: "xapt-test-secret-personal",
  orgId: "org-auth",
});

describe("authentication", () => {
  const cases: [string, () => Record<string, string>, number][] = [
    ["no Authorization header", () => ({ authorization: "" }), 403],
    ["not a Bearer header", () => ({ authorization: `Basic ${em.current.token}` }), 403],
    ["wrong token", () => ({ authorization: "Bearer xaat-wrong-token-value" }), 403],
    ["API token alone", () => ({}), 200],
    ["API token, any org header", () => ({ "x-service-org-id": "someone-else" }), 200],
    [
      "personal token without org header",
      () => ({ authorization: `Bearer ${em.current.personalToken}` }),
      403,
    ],
    [
      "personal token with wrong org header",
      () => ({ authorization: `Bearer ${em.current.personalToken}`, "x-service-org-id": "other-org" }),
      403,
    ],
    [
      "personal token with the org header",
      () => ({ authorization: `Bearer ${em.current.personalToken}`, "x-service-org-id": em.current.orgId }),
      200,
    ],
  ];

  it.each(cases)("%s", async (_name, headers, status) => {
    const res = await api(em.current, "GET", "/v2/monitors", undefined, headers());
    expect(res.status).toBe(status);
    expect(res.headers["x-trace-id"]).toMatch(/^[0-9a-f]{32}$/);
    if (status === 403) {
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      expect(res.body).toEqual({ code: 403, message: expect.any(String) });
      expect(res.text).not.toContain(em.current.token);
      expect(res.text).not.toContain(em.current.personalToken);
      expect(res.text).not.toContain("wrong-token-value");
    }
  });

  it("guards every family, writes included, and a refused write has no effect", async () => {
    const bad = { authorization: "Bearer nope" };
    for (const [method, path] of [
      ["POST", "/v2/annotations"],
      ["POST", "/v1/datasets/authz/ingest"],
      ["POST", "/v1/datasets/_apl"],
      ["GET", "/v2/orgs"],
      ["GET", "/v2/no-such-route"],
    ]) {
      expect((await api(em.current, method, path, { datasets: ["x"], type: "t" }, bad)).status).toBe(403);
    }
    const list = await api(em.current, "GET", "/v2/annotations");
    expect(list.body).toEqual([]);
  });

  it("the personal token acts with the rate-limit scope user; the API token with organization", async () => {
    const pat = await api(em.current, "GET", "/v2/orgs", undefined, {
      authorization: `Bearer ${em.current.personalToken}`,
      "x-service-org-id": em.current.orgId,
    });
    expect(pat.headers["x-ratelimit-scope"]).toBe("user");
    expect((await api(em.current, "GET", "/v2/orgs")).headers["x-ratelimit-scope"]).toBe("organization");
  });
});

describe("logging never shows the token", () => {
  const lines: string[] = [];
  const logged = useEmulator({ token: "xaat-logged-secret", logger: (l) => lines.push(l), record: true });
  it("logs one line per request without the token, and redacts it in recorded requests", async () => {
    await api(logged.current, "GET", "/v2/monitors");
    await api(logged.current, "GET", "/v2/monitors", undefined, {
      authorization: "Bearer xaat-wrong-secret",
    });
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.join("\n")).not.toMatch(/secret/);
    expect(logged.current.received.map((r) => r.headers.authorization)).toEqual(["[redacted]", "[redacted]"]);
  });
});
