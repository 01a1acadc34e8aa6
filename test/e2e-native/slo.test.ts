/**
 * The `Slo` component in a YAML program, under the real engine and the released plugin (its bundle, installed from
 * the release's server): the YAML host registers it as a remote component
 * (its schema says `isComponent`), the engine asks the plugin to make it through Construct, and the plugin makes
 * its children (the native Monitors of its window pairs, its Dashboard) through the engine's resource monitor. Up,
 * the outputs, an alert test of its monitors read from the stack's preview, a preview with no change, a refusal at
 * preview naming the input, and destroy.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { testAlerts } from "../../cli/commands/test-alerts";
import { exec, mustExec } from "../../scripts/shared/commands";
import { changesOf, demoFolder, NODE, noChanges, openHarnessIn, toolPath, type Harness } from "./flagship";
import {
  ensureRelease,
  freshPulumiEnv,
  installPlugin,
  serveRelease,
  type ReleaseServer,
} from "./release-support";

const cli = toolPath("pulumi-path.mts");
const host = toolPath("pulumi-yaml.mts");
const missing = !cli.path
  ? `no Pulumi CLI: ${cli.reason}`
  : !host.path
    ? `no YAML host: ${host.reason}`
    : undefined;
if (missing) console.warn(`Slo component: skipped: ${missing}`);
const maybe = missing ? describe.skip : describe;

/** The program: a dataset, a page and a ticket notifier, and an SLO wired to them by id. */
const program = (objective: string) => `name: slo-yaml
runtime: yaml
resources:
  requests:
    type: observability:Dataset
    properties:
      name: slo-requests
  pager:
    type: observability:Notifier
    properties:
      name: SLO pager
      properties:
        email:
          emails: [pager@example.com]
  tickets:
    type: observability:Notifier
    properties:
      name: SLO tickets
      properties:
        email:
          emails: [tickets@example.com]
  availability:
    type: observability:Slo
    properties:
      displayName: Checkout availability
      dataset: \${requests.name}
      events:
        bad: "status >= 500"
      objective: ${objective}
      pageNotifierIds:
        - \${pager.id}
      ticketNotifierIds:
        - \${tickets.id}
outputs:
  monitorIds: \${availability.monitorIds}
  burnRates: \${availability.burnRates}
  dashboardId: \${availability.dashboardId}
  pagerId: \${pager.id}
  ticketsId: \${tickets.id}
`;

maybe("the Slo component in YAML, made by the plugin through Construct", () => {
  let h: Harness;
  const pulumi = (args: string[], input?: string) =>
    mustExec(h.pulumi, [...args, "--stack", "dev", "--non-interactive"], { cwd: h.work, env: h.env, input });

  let server: ReleaseServer | undefined;
  let pluginHome: string | undefined;

  beforeAll(async () => {
    // The plugin as users get it: the release's bundle, installed from its server (release-support.ts), so the
    // bundled Construct path is what runs (the checkout's unbundled plugin makes an Slo in yaml.test.ts's docs).
    await ensureRelease();
    server = await serveRelease();
    const fresh = freshPulumiEnv(cli.path!, [host.path!, path.dirname(NODE)]);
    pluginHome = fresh.home;
    await installPlugin(cli.path!, fresh.env, server.url);
    const work = path.join(demoFolder("slo-yaml-"), "slo-yaml");
    mkdirSync(work, { recursive: true });
    writeFileSync(path.join(work, "Pulumi.yaml"), program("99.9"));
    h = await openHarnessIn(cli.path!, work, [host.path!], {
      pulumiHome: fresh.home,
      baseEnv: { ...fresh.env, HOME: process.env.HOME },
    });
    await mustExec(
      h.pulumi,
      ["stack", "init", "dev", "--secrets-provider", "passphrase", "--non-interactive"],
      {
        cwd: h.work,
        env: h.env,
      },
    );
    await pulumi(["config", "set", "observability:url", h.em.url]);
    await pulumi(["config", "set", "--secret", "observability:token"], h.em.token);
  }, 20 * 60_000);
  afterAll(async () => {
    await h?.close();
    await server?.close();
    if (pluginHome) rmSync(path.dirname(pluginHome), { recursive: true, force: true });
  });

  test("up makes the dataset, the notifiers, the component and its three monitors and dashboard", async () => {
    const changes = changesOf(await pulumi(["up", "--yes", "--skip-preview", "--json"]));
    // The stack, 3 resources, the Slo, its 3 monitors and its dashboard.
    expect(changes).toEqual({ create: 9 });
    const outputs = JSON.parse(await pulumi(["stack", "output", "--json"])) as {
      monitorIds: Record<string, string>;
      burnRates: Record<string, number>;
      dashboardId?: string;
      pagerId: string;
      ticketsId: string;
    };
    expect(outputs.burnRates).toEqual({ pageFast: 14.4, pageSlow: 6, ticket: 1 });
    const wiring = { pageFast: outputs.pagerId, pageSlow: outputs.pagerId, ticket: outputs.ticketsId };
    for (const [key, notifier] of Object.entries(wiring) as [keyof typeof wiring, string][]) {
      const m = await h.client.monitors.get(outputs.monitorIds[key]);
      expect({ key, threshold: m.threshold, notifierIds: m.notifierIds, query: m.aplQuery }).toMatchObject({
        key,
        threshold: outputs.burnRates[key],
        notifierIds: [notifier],
        query: expect.stringContaining("['slo-requests']"),
      });
    }
    const boards = await h.client.dashboards.list();
    expect(boards.map((b) => b.uid)).toContain("slo-checkout-availability");
    expect(outputs.dashboardId).toEqual(expect.any(String));
  });

  test("its monitors, read from the stack's pulumi preview --json, pass an alert test of an outage", async () => {
    // The component's children as the engine shows them: no monitor is written out in the test file.
    writeFileSync(path.join(h.work, "preview.json"), await pulumi(["preview", "--json", "--show-sames"]));
    writeFileSync(
      path.join(h.work, "alerts.test.yaml"),
      [
        "stack: { preview: preview.json }",
        "start: 2024-06-03T00:00:00Z",
        "until: 8h",
        "events:",
        "  - generate:",
        "      dataset: slo-requests",
        "      rate: 10/m",
        "      from: -3d",
        "      for: 80h",
        "      fields: { status: 200 }",
        "      mix: [{ share: 100%, from: 1h, for: 10m, fields: { status: 503 } }]",
        "expect:",
        "  - { monitor: availability-pageFast, action: Open, notifier: pager, after: 1h, by: 1h2m }",
        "  - { monitor: availability-pageSlow, action: Open, notifier: pager, after: 1h, by: 1h10m }",
        "  - { monitor: availability-ticket, action: Open, notifier: tickets, after: 1h, by: 2h }",
        "  - { monitor: availability-pageFast, action: Closed, notifier: pager, after: 1h10m, by: 1h16m }",
        "  - { monitor: availability-pageSlow, action: Closed, notifier: pager, after: 1h10m, by: 1h45m }",
        "  - { monitor: availability-ticket, action: Closed, notifier: tickets, after: 1h10m, by: 8h }",
        "",
      ].join("\n"),
    );
    const lines: string[] = [];
    const result = await testAlerts(["alerts.test.yaml"], {
      cwd: h.work,
      out: (l) => lines.push(l),
      err: (l) => lines.push(l),
    });
    expect({ code: result.code, table: lines }).toEqual({
      code: 0,
      table: expect.arrayContaining([
        // The preview shows both notifiers' properties as [secret]: each runs as a stand-in, and is named so.
        expect.stringMatching(/alerts\.test\.yaml: PASS, 6 of 6 expectations met; 2 warnings$/),
        expect.stringMatching(/warning: preview\.json:\d+:\d+: notifier pager runs as a stand-in/),
        expect.stringMatching(/warning: preview\.json:\d+:\d+: notifier tickets runs as a stand-in/),
      ]),
    });
  });

  test("a preview after up proposes no change", async () => {
    const changes = changesOf(await pulumi(["preview", "--json"]));
    expect(noChanges(changes)).toBe(true);
  });

  test("an objective of 100 is refused at preview, naming the input, and nothing changes", async () => {
    writeFileSync(path.join(h.work, "Pulumi.yaml"), program("100"));
    const r = await exec(h.pulumi, ["preview", "--stack", "dev", "--non-interactive"], {
      cwd: h.work,
      env: h.env,
    });
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}\n${r.stderr}`).toContain("objective: must be below 100");
    writeFileSync(path.join(h.work, "Pulumi.yaml"), program("99.9"));
  });

  test("destroy deletes every child: the service holds none of the SLO's monitors", async () => {
    const changes = changesOf(await pulumi(["destroy", "--yes", "--skip-preview", "--json"]));
    expect(changes).toEqual({ delete: 9 });
    expect(
      (await h.client.monitors.list()).filter((m) => m.name?.startsWith("Checkout availability")),
    ).toEqual([]);
  });
});
