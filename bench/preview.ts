/**
 * Preview through the real dynamic-provider host: check then diff of 1,000 resources already
 * in the state, unchanged, as `pulumi preview` sends them, with this package's provider (its real `__provider`
 * shims in the installed form, a require of each kind's shim module in dist/) against a no-op provider (check returns the inputs, diff reports no changes) in a
 * second host, side by side, rounds interleaved A B A B. The no-op is a dynamic provider as a program would
 * write one, serialized by @pulumi/pulumi as ours is, so both `__provider` texts have the serializer's form. Two cases: 1,000 monitors; and 1,000 of a mix in
 * which every tenth is a dashboard of fourteen charts, the rest monitors and notifiers.
 *
 * The state each resource starts from (inputs and outputs) is what a real create through our host made of the
 * same args, against an emulator in a child process; preview itself sends no request.
 *
 *   npm run build && node_modules/.bin/node bench/preview.ts [resources=1000] [rounds=7] [concurrency=16]
 *
 * `concurrency` is how many resources are in flight at once (the engine's `--parallel`).
 */
// A block, not a module: `export {}` would make Node parse this file as ESM, where `require` is absent.
{
  const path = require("node:path") as typeof import("node:path");
  const harness = require("./host-harness.ts") as typeof import("./host-harness");
  harness.requireTypeScriptAsCommonJs();
  const { spawnEmulator, stats } = require("./client-harness.ts") as typeof import("./client-harness");
  const { startProviderHost, urnOf } =
    require("../test/helpers/host.ts") as typeof import("../test/helpers/host");
  const { recordRegistrations, registered } =
    require("../test/helpers/provider-text.ts") as typeof import("../test/helpers/provider-text");
  const { EXPORTED } =
    require("../test/helpers/dashboard-export.ts") as typeof import("../test/helpers/dashboard-export");
  const obs = require("../dist/provider") as typeof import("../provider");
  const pulumi = require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");

  type Props = Record<string, unknown>;
  type ProviderHost = import("../test/helpers/host").ProviderHost;

  const RESOURCES = Number(process.argv[2] ?? 1000);
  const ROUNDS = Number(process.argv[3] ?? 7);
  const CONCURRENCY = Number(process.argv[4] ?? 16);

  type Kind = "Monitor" | "Notifier" | "Dashboard";
  /** What a program declares for resource `i` of `kind`. */
  const ARGS: Record<Kind, (i: number) => Props> = {
    Monitor: (i) => ({
      name: `checkout 5xx ${i}`,
      aplQuery: "['http-logs'] | where status >= 500 | summarize count() by bin(_time, 1m)",
      type: "Threshold",
      operator: "Above",
      threshold: 50,
      rangeMinutes: 5,
      notifierIds: ["not_b", "not_a"],
      description: `monitor ${i}`,
    }),
    Notifier: (i) => ({
      name: `on-call ${i}`,
      properties: { webhook: { url: `https://hooks.example.com/${i}` } },
    }),
    Dashboard: (i) => {
      const { id: _id, uid: _uid, version: _v, createdAt: _c, updatedAt: _u, ...document } = EXPORTED;
      void [_id, _uid, _v, _c, _u];
      return { uid: `bench-dashboard-${i}`, dashboard: { ...document, name: `dashboard ${i}` } };
    },
  };

  /** The outputs of resource `i` of a kind: another's with resource `i`'s name put in. */
  const NAMED: Record<Kind, (outputs: Props, i: number) => Props> = {
    Monitor: (outputs, i) => ({ ...outputs, name: ARGS.Monitor(i).name, description: `monitor ${i}` }),
    Notifier: (outputs, i) => ({ ...outputs, ...ARGS.Notifier(i) }),
    Dashboard: (outputs, i) => ({
      ...outputs,
      uid: `bench-dashboard-${i}`,
      dashboard: { ...(outputs.dashboard as Props), name: `dashboard ${i}` },
    }),
  };

  /** The other side: check returns the inputs, diff reports no changes. */
  const noopProvider: import("@pulumi/pulumi").dynamic.ResourceProvider = {
    async check(_olds: Props, news: Props) {
      return { inputs: news };
    },
    async diff() {
      return { changes: false };
    },
    async create() {
      throw new Error("preview creates nothing");
    },
  };

  /** One resource as preview sends it: its urn, state and declared args. */
  interface Resource {
    kind: Kind;
    urn: string;
    id: string;
    state: { inputs: Props; outputs: Props };
    news: Props;
  }

  /** Runs `n` jobs, `limit` at a time. */
  async function pool(n: number, limit: number, job: (i: number) => Promise<void>): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(limit, n) }, async () => {
        while (next < n) await job(next++);
      }),
    );
  }

  /** The preview of every resource through `host`, each with `text` as its `__provider`; wall time in ms. */
  async function preview(
    host: ProviderHost,
    resources: Resource[],
    textOf: (kind: Kind) => string,
  ): Promise<number> {
    const started = performance.now();
    await pool(resources.length, CONCURRENCY, async (i) => {
      const r = resources[i];
      const text = textOf(r.kind);
      const olds = { ...r.state.inputs, __provider: text };
      const checked = await host.check(r.urn, olds, { ...r.news, __provider: text });
      if (checked.failures.length > 0) throw new Error(`${r.urn}: ${JSON.stringify(checked.failures)}`);
      const diff = await host.diff(r.urn, r.id, { ...r.state.outputs, __provider: text }, checked.inputs);
      if (diff.changes === "some") throw new Error(`${r.urn} differs from its state`);
    });
    return performance.now() - started;
  }

  (async () => {
    const em = await spawnEmulator(path.resolve(__dirname, ".."));
    const config = { "observability:url": em.url, "observability:token": em.token };
    const seen = await recordRegistrations();
    const classes = { Monitor: obs.Monitor, Notifier: obs.Notifier, Dashboard: obs.Dashboard };
    for (const kind of Object.keys(classes) as Kind[])
      await registered(new classes[kind](`text-${kind}`, ARGS[kind](0) as never));
    class NoOp extends pulumi.dynamic.Resource {
      constructor() {
        super(noopProvider, "noop", {}, undefined, "bench", "NoOp");
      }
    }
    await registered(new NoOp());
    const texts = Object.fromEntries(
      seen.map((r) => {
        const kind = r.type.split(":").pop()!;
        return [
          kind,
          kind === "NoOp"
            ? r.providerText
            : harness.installedShimText(path.resolve(__dirname, ".."), kind, r.providerText),
        ];
      }),
    ) as Record<Kind | "NoOp", string>;
    const hosts: ProviderHost[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const host = await startProviderHost({ config, secretKeys: ["observability:token"] });
        await host.configure();
        hosts.push(host);
      }
      const [ours, noop] = hosts;

      // The state of each resource: what `pulumi up` of its args through our host left (Check, then Create),
      // taken from one create per kind with the name put in (a create per resource would take minutes).
      const made: Partial<Record<Kind, { id: string; outputs: Props }>> = {};
      const resources = async (kindOf: (i: number) => Kind): Promise<Resource[]> => {
        const out: Resource[] = [];
        for (let i = 0; i < RESOURCES; i++) {
          const kind = kindOf(i);
          const urn = urnOf(kind, `r${i}`);
          const news = ARGS[kind](i);
          const checked = await ours.check(urn, {}, { ...news, __provider: texts[kind] });
          delete checked.inputs.__provider;
          if (!made[kind]) {
            const created = await ours.create(urn, { ...checked.inputs, __provider: texts[kind] });
            delete created.properties.__provider;
            made[kind] = { id: created.id, outputs: created.properties };
          }
          const outputs = NAMED[kind](structuredClone(made[kind].outputs), i);
          out.push({ kind, urn, id: made[kind].id, state: { inputs: checked.inputs, outputs }, news });
        }
        return out;
      };
      const cases: [string, Resource[]][] = [
        [`${RESOURCES} monitors`, await resources(() => "Monitor")],
        [
          `${RESOURCES} mixed (every tenth a dashboard of 14 charts; monitors, notifiers)`,
          await resources((i) => (i % 10 === 9 ? "Dashboard" : i % 2 === 0 ? "Monitor" : "Notifier")),
        ],
      ];
      console.log(
        `__provider text: A ${Buffer.byteLength(texts.Monitor)} B, B ${Buffer.byteLength(texts.NoOp)} B; ` +
          `${CONCURRENCY} resources at a time, ${ROUNDS} rounds interleaved A B A B; each resource check then diff`,
      );
      for (const [title, list] of cases) {
        const ourText = (kind: Kind) => texts[kind];
        const noopText = () => texts.NoOp;
        // Warm-up: each host loads its provider and compiles its hot paths.
        await preview(ours, list, ourText);
        await preview(noop, list, noopText);
        const times = { a: [] as number[], b: [] as number[], cpuA: [] as number[], cpuB: [] as number[] };
        for (let r = 0; r < ROUNDS; r++) {
          for (const [host, textOf, wall, cpu] of [
            [ours, ourText, times.a, times.cpuA],
            [noop, noopText, times.b, times.cpuB],
          ] as const) {
            const before = harness.processCpuMs(host.pid) ?? NaN;
            wall.push(await preview(host, list, textOf));
            cpu.push((harness.processCpuMs(host.pid) ?? NaN) - before);
          }
        }
        const [a, b] = [stats(times.a), stats(times.b)];
        const [ca, cb] = [stats(times.cpuA), stats(times.cpuB)];
        const ratio = a.median / b.median;
        console.log(title);
        console.log(
          `  A ours   median ${a.median.toFixed(0)} ms  min ${a.min.toFixed(0)}  max ${a.max.toFixed(0)}  host CPU ${ca.median.toFixed(0)} ms`,
        );
        console.log(
          `  B no-op  median ${b.median.toFixed(0)} ms  min ${b.min.toFixed(0)}  max ${b.max.toFixed(0)}  host CPU ${cb.median.toFixed(0)} ms`,
        );
        console.log(
          `  ratio A/B of medians ${ratio.toFixed(3)} (goal <= 1.20: ${ratio <= 1.2 ? "met" : "NOT met"}); ` +
            `host CPU ratio ${(ca.median / cb.median).toFixed(3)}`,
        );
      }
    } finally {
      for (const host of hosts) await host.close();
      await em.close();
    }
  })().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
