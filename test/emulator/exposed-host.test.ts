/**
 * The emulator is not a door to the network. Its development tokens are published (in this package and its
 * docs), so they guard nothing: it takes them on a loopback interface only. On any interface other machines can
 * reach, `0.0.0.0` and `::` (every interface) included, it starts only with an API token of the caller's own,
 * and accepts a personal token only when one of the caller's own is given.
 */
import { createServer } from "node:net";
import { request } from "undici";
import {
  DEFAULT_PERSONAL_TOKEN,
  DEFAULT_TOKEN,
  exposedHostProblem,
  isLoopbackHost,
  startEmulator,
  type RunningEmulator,
} from "../../emulator";

describe("isLoopbackHost: what no other machine can reach", () => {
  it.each([
    "127.0.0.1",
    "127.0.0.2",
    "127.255.255.254",
    "::1",
    "[::1]",
    "0:0:0:0:0:0:0:1",
    "::ffff:127.0.0.1",
    "localhost",
    "LOCALHOST",
  ])("%s is loopback", (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each([
    "0.0.0.0",
    "::",
    "[::]",
    "192.168.1.10",
    "10.0.0.1",
    "128.0.0.1",
    "126.255.255.255",
    "::ffff:10.0.0.1",
    "fe80::1",
    "example.com",
    "localhost.example.com",
    "",
  ])("%s is reachable from elsewhere", (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe("exposedHostProblem: the rule, worded for the caller", () => {
  it("a loopback host takes the development tokens", () => {
    for (const host of ["127.0.0.1", "127.9.9.9", "::1", "localhost"])
      expect(exposedHostProblem(host, {})).toBeUndefined();
  });

  it.each([
    ["no token at all", {}],
    ["the development API token, given", { token: DEFAULT_TOKEN }],
    [
      "a token of one's own, with the development personal token",
      { token: "xaat-mine", personalToken: DEFAULT_PERSONAL_TOKEN },
    ],
  ])("0.0.0.0 and :: refuse %s, saying why and what to give", (_what, tokens) => {
    for (const host of ["0.0.0.0", "::"]) {
      const problem = exposedHostProblem(host, tokens, {
        token: "--token",
        personalToken: "--personal-token",
      });
      expect(problem).toContain(`refusing to listen on ${host} with the public development tokens`);
      expect(problem).toContain("other machines can reach that interface");
      expect(problem).toContain("--token");
      expect(problem).toContain("--personal-token");
    }
  });

  it("a token of one's own opens any host; a personal token of one's own too", () => {
    expect(exposedHostProblem("0.0.0.0", { token: "xaat-mine" })).toBeUndefined();
    expect(exposedHostProblem("::", { token: "xaat-mine", personalToken: "xapt-mine" })).toBeUndefined();
  });
});

describe("startEmulator", () => {
  const running: RunningEmulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((em) => em.close()));
  });
  const start = async (options: Parameters<typeof startEmulator>[0]) => {
    const em = await startEmulator({ port: 0, ...options });
    running.push(em);
    return em;
  };
  const status = async (em: RunningEmulator, authorization: string, orgId?: string) => {
    const headers: Record<string, string> = { authorization };
    if (orgId) headers["x-service-org-id"] = orgId;
    const res = await request(`${em.url}/v2/orgs`, { headers });
    await res.body.dump();
    return res.statusCode;
  };

  it.each(["0.0.0.0", "::"])(
    "on %s, refuses to start with the development tokens, naming the options",
    async (host) => {
      await expect(startEmulator({ port: 0, host })).rejects.toThrow(
        `refusing to listen on ${host} with the public development tokens`,
      );
      await expect(startEmulator({ port: 0, host, token: DEFAULT_TOKEN })).rejects.toThrow("`token`");
      await expect(
        startEmulator({ port: 0, host, token: "xaat-mine", personalToken: DEFAULT_PERSONAL_TOKEN }),
      ).rejects.toThrow("`personalToken`");
    },
  );

  it("on 0.0.0.0 with a token of one's own: that token works, the published ones do not, personal tokens are off", async () => {
    const em = await start({ host: "0.0.0.0", token: "xaat-mine" });
    expect(em.personalToken).toBeUndefined();
    expect(await status(em, "Bearer xaat-mine")).toBe(200);
    expect(await status(em, `Bearer ${DEFAULT_TOKEN}`)).toBe(403);
    expect(await status(em, `Bearer ${DEFAULT_PERSONAL_TOKEN}`, em.orgId)).toBe(403);
  });

  it("on 0.0.0.0 with a personal token of one's own as well, that one works", async () => {
    const em = await start({ host: "0.0.0.0", token: "xaat-mine", personalToken: "xapt-mine" });
    expect(await status(em, "Bearer xapt-mine", em.orgId)).toBe(200);
    expect(await status(em, `Bearer ${DEFAULT_PERSONAL_TOKEN}`, em.orgId)).toBe(403);
  });

  it("on 127.x other than 127.0.0.1, the development tokens work as on 127.0.0.1", async () => {
    const em = await start({ host: "127.0.0.2" });
    expect(em.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    expect(await status(em, `Bearer ${DEFAULT_TOKEN}`)).toBe(200);
    expect(await status(em, `Bearer ${DEFAULT_PERSONAL_TOKEN}`, em.orgId)).toBe(200);
  });

  it("on localhost, the development tokens work", async () => {
    const em = await start({ host: "localhost" });
    expect(await status(em, `Bearer ${DEFAULT_TOKEN}`)).toBe(200);
  });

  it("on ::1, the development tokens work (where this machine has IPv6 loopback)", async () => {
    const ipv6 = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once("error", () => resolve(false));
      probe.listen(0, "::1", () => probe.close(() => resolve(true)));
    });
    if (!ipv6) {
      console.warn("no IPv6 loopback on this machine: the ::1 start is not tried (the rule is, above)");
      return;
    }
    const em = await start({ host: "::1" });
    expect(em.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect(await status(em, `Bearer ${DEFAULT_TOKEN}`)).toBe(200);
  });
});
