/** Notifier through the provider's lifecycle: credentials stay secret, out of errors and logs. */
import { Notifier } from "../../provider/resources/notifier";

const notifierSecretStrings = Notifier.declaration.rules.secretStrings!;
import { engineError } from "../../provider/resources/lifecycle";
import { checked, created, messageOf, useProvider } from "./support";

const p = useProvider();
const impl = () => p.impl("Notifier");

const SLACK = "https://hooks.slack.test/services/T000/B000/XXXXSECRETXXXX";
const slack = { name: "alerts", properties: { slack: { slackUrl: SLACK } } };

describe("Notifier lifecycle", () => {
  it("creates, diffs none after create and after read", async () => {
    const { id, outs, inputs } = await created(impl(), slack);
    expect(id).toMatch(/^notify_/);
    expect(outs).toMatchObject({ ...slack, createdAt: expect.any(String) });
    expect(await impl().diff(id, outs, inputs)).toMatchObject({ changes: false });
    const read = await impl().read(id, outs);
    expect(await impl().diff(id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it("compares email lists without regard to order", async () => {
    const emails = { name: "mail", properties: { email: { emails: ["a@x.test", "b@x.test"] } } };
    const { id, outs } = await created(impl(), emails);
    const news = await checked(impl(), {
      name: "mail",
      properties: { email: { emails: ["b@x.test", "a@x.test"] } },
    });
    expect(await impl().diff(id, outs, news)).toMatchObject({ changes: false });
  });

  it("switches channel in place and shows out-of-band drift and deletion", async () => {
    const { id, outs, inputs } = await created(impl(), slack);
    const news = await checked(impl(), {
      name: "alerts",
      properties: { webhook: { url: "https://hook.test/x" } },
    });
    expect(await impl().diff(id, outs, news)).toMatchObject({
      changes: true,
      replaces: [],
      diffs: ["properties"],
    });
    const updated = await impl().update(id, outs, news);
    expect((await p.client().notifiers.get(id)).properties).toEqual({
      webhook: { url: "https://hook.test/x" },
    });

    await p.client().notifiers.update(id, { name: "alerts", properties: { slack: { slackUrl: SLACK } } });
    const read = await impl().read(id, updated.outs);
    expect(await impl().diff(id, read.props!, news)).toMatchObject({ changes: true, diffs: ["properties"] });
    void inputs;
    await p.client().notifiers.delete(id);
    expect(await impl().read(id, read.props)).toEqual({ id: "" });
  });

  it("adopts an existing notifier and fails clearly on a missing one", async () => {
    const existing = await p
      .client()
      .notifiers.create({ name: "old", properties: { email: { emails: ["a@x.test"] } } });
    const { id, outs } = await created(impl(), { ...slack, adopt: existing.id });
    expect(id).toBe(existing.id);
    expect(outs.properties).toEqual(slack.properties);
    const inputs = await checked(impl(), { ...slack, adopt: "notify_missing" });
    expect(await messageOf(impl().create(inputs))).toBe(
      "observability Notifier adopt failed: no object with id notify_missing exists (the id in `adopt`)",
    );
  });
});

describe("Notifier secrets", () => {
  it("declares every credential's top-level output secret", () => {
    expect(Notifier.secretKeys.outputs).toEqual(["properties"]);
  });

  it.each([
    ["slack slackUrl", { slack: { slackUrl: SLACK } }, [SLACK]],
    [
      "microsoftTeams URL",
      { microsoftTeams: { microsoftTeamsUrl: "https://teams.test/k" } },
      ["https://teams.test/k"],
    ],
    [
      "discordWebhook URL",
      { discordWebhook: { discordWebhookUrl: "https://discord.test/k" } },
      ["https://discord.test/k"],
    ],
    ["discord token", { discord: { discordChannel: "c", discordToken: "dtok" } }, ["dtok"]],
    ["opsgenie apiKey", { opsgenie: { apiKey: "ogkey", isEU: true } }, ["ogkey"]],
    ["pagerduty routingKey and token", { pagerduty: { routingKey: "rk", token: "pdt" } }, ["rk", "pdt"]],
    ["webhook url", { webhook: { url: "https://w.test/k" } }, ["https://w.test/k"]],
    [
      "customWebhook url, headers and secretHeaders",
      {
        customWebhook: {
          url: "https://c.test/k",
          body: "{}",
          headers: { a: "h1" },
          secretHeaders: { b: "h2" },
        },
      },
      ["https://c.test/k", "h1", "h2"],
    ],
    ["email has no credential", { email: { emails: ["a@x.test"] } }, []],
  ])("treats the %s as a credential", (_name, properties, secrets) => {
    expect(notifierSecretStrings({ properties }).sort()).toEqual([...secrets].sort());
  });

  it("keeps credentials and the token out of error messages", async () => {
    const { id, outs } = await created(impl(), slack);
    await p.client().notifiers.delete(id);
    const message = await messageOf(impl().update(id, outs, await checked(impl(), slack)));
    expect(message).toMatch(/Notifier update failed: PUT \/v2\/notifiers\/notify_\S+ failed with 404/);
    expect(message).not.toContain(SLACK);
    expect(message).not.toContain(p.em.current.token);
  });

  it("scrubs credentials and the token from any error text", () => {
    const e = engineError("Notifier", "update", new Error(`bad url ${SLACK} with token xaat-123456`), [
      "xaat-123456",
      ...notifierSecretStrings(slack),
    ]);
    expect(e.message).toBe("observability Notifier update failed: bad url [REDACTED] with token [REDACTED]");
    expect(Object.getPrototypeOf(e)).toBe(Error.prototype);
  });
});
