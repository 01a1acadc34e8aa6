/**
 * The `Slo` component from Python and Go, each program run through the inline drivers (drivers/inline.mts) on its
 * generated SDK: the SDK registers the component as a remote one, the engine asks the plugin to make it through
 * Construct, and the plugin's children reach the emulator. Each language's project is the flagship's (its
 * Pulumi.yaml, requirements.txt or go.mod), its program file replaced by one that declares an Slo.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { mustExec } from "../../scripts/shared/commands";
import { editProgram, inlineOperation, openHarness, ROOT, toolPath, type Harness } from "./flagship";

const cli = toolPath("pulumi-path.mts");
const PYTHON = process.env.PYTHON ?? "python3";
const GO =
  process.env.GO ??
  (spawnSync("go", ["version"], { stdio: "ignore" }).status === 0 ? "go" : "/usr/local/go/bin/go");
const GO_MODULE = "github.com/pulumi-observability/pulumi-observability/sdk/go";

const PROGRAMS = {
  python: {
    example: "python-flagship",
    file: "__main__.py",
    missing:
      spawnSync(PYTHON, ["-c", "import sys, venv; assert sys.version_info >= (3, 9)"]).status === 0
        ? undefined
        : `no Python 3.9+ with venv (${PYTHON})`,
    text: `import pulumi
import pulumi_observability as obs

requests = obs.Dataset("slo-requests", name="slo-requests")
pager = obs.Notifier("pager", name="SLO pager", properties={"email": {"emails": ["pager@example.com"]}})
slo = obs.Slo(
    "availability",
    display_name="Checkout availability",
    dataset=requests.name,
    events={"bad": "status >= 500"},
    objective=99.9,
    page_notifier_ids=[pager.id],
    alert_windows={"ticket": {"enabled": False}},
)
pulumi.export("monitorIds", slo.monitor_ids)
pulumi.export("burnRates", slo.burn_rates)
pulumi.export("pagerId", pager.id)
`,
    install: async (h: Harness) => {
      editProgram(h.work, "requirements.txt", "../../sdk/python", path.join(ROOT, "sdk", "python"));
      await mustExec(PYTHON, ["-m", "venv", "venv"], { cwd: h.work, env: h.env });
      await mustExec(
        path.join(h.work, "venv", "bin", "python"),
        ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", "requirements.txt"],
        { cwd: h.work, env: h.env },
      );
    },
  },
  go: {
    example: "go-flagship",
    file: "main.go",
    missing:
      spawnSync(GO, ["version"], { stdio: "ignore" }).status === 0 ? undefined : `no Go toolchain (${GO})`,
    text: `package main

import (
	obs "github.com/pulumi-observability/pulumi-observability/sdk/go/observability"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(program)
}

func program(ctx *pulumi.Context) error {
	requests, err := obs.NewDataset(ctx, "slo-requests", &obs.DatasetArgs{Name: pulumi.String("slo-requests")})
	if err != nil {
		return err
	}
	pager, err := obs.NewNotifier(ctx, "pager", &obs.NotifierArgs{
		Name: pulumi.String("SLO pager"),
		Properties: obs.NotifierPropertiesArgs{
			Email: obs.NotifierPropertiesEmailArgs{Emails: pulumi.StringArray{pulumi.String("pager@example.com")}},
		},
	})
	if err != nil {
		return err
	}
	slo, err := obs.NewSlo(ctx, "availability", &obs.SloArgs{
		DisplayName:     pulumi.String("Checkout availability"),
		Dataset:         requests.Name,
		Events:          obs.SloEventsArgs{Bad: pulumi.String("status >= 500")},
		Objective:       pulumi.Float64(99.9),
		PageNotifierIds: pulumi.StringArray{pager.ID().ToStringOutput()},
		AlertWindows:    obs.SloAlertWindowMap{"ticket": obs.SloAlertWindowArgs{Enabled: pulumi.Bool(false)}},
	})
	if err != nil {
		return err
	}
	ctx.Export("monitorIds", slo.MonitorIds)
	ctx.Export("burnRates", slo.BurnRates)
	ctx.Export("pagerId", pager.ID())
	return nil
}
`,
    install: async (h: Harness) => {
      const env = { ...h.env, GOTOOLCHAIN: "local" };
      await mustExec(GO, ["mod", "edit", "-replace", `${GO_MODULE}=${path.join(ROOT, "sdk", "go")}`], {
        cwd: h.work,
        env,
      });
    },
  },
} as const;

describe.each(Object.entries(PROGRAMS))(
  "the Slo component in %s, through the inline driver",
  (_language, spec) => {
    const missing = !cli.path ? `no Pulumi CLI: ${cli.reason}` : spec.missing;
    if (missing) console.warn(`Slo in ${_language}: skipped: ${missing}`);
    const maybe = missing ? test.skip : test;
    let h: Harness | undefined;
    afterAll(async () => h?.close());

    maybe(
      "up makes the component's two page monitors (its ticket pair off) and dashboard, wired to the pager; destroy removes them",
      async () => {
        h = await openHarness(cli.path!, spec.example);
        writeFileSync(path.join(h.work, spec.file), spec.text);
        await spec.install(h);
        const changes = await inlineOperation(h, "up");
        // The stack, the dataset, the notifier, the Slo, its two monitors and its dashboard.
        expect(changes).toEqual({ create: 7 });
        const monitors = await h.client.monitors.list();
        const slo = monitors.filter((m) => m.name?.startsWith("Checkout availability"));
        expect(slo.map((m) => [m.threshold, m.rangeMinutes]).sort()).toEqual([
          [14.4, 60],
          [6, 360],
        ]);
        const pager = (await h.client.notifiers.list()).find((n) => n.name === "SLO pager");
        for (const m of slo) expect(m.notifierIds).toEqual([pager?.id]);
        expect((await h.client.dashboards.list()).map((d) => d.uid)).toContain("slo-checkout-availability");
        expect(await inlineOperation(h, "destroy")).toEqual({ delete: 7 });
        expect(
          (await h.client.monitors.list()).filter((m) => m.name?.startsWith("Checkout availability")),
        ).toEqual([]);
      },
      20 * 60_000,
    );
  },
);
