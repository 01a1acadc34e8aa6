/**
 * A fault run: mixed operations (create, update, read, delete) on every family that creates with a POST,
 * `concurrency` at a time, through the real dynamic-provider host against an emulator injecting one fault mix,
 * then every family listed and compared with what the host reported. Shared by the jest fault runs (small, fixed seed) and
 * `bench/fault-runs.ts` (full size).
 */
import { startEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import { KINDS, type ResourceKind } from "../../provider/resources/registry";
import { declareSample } from "./samples";
import { startProviderHost, urnOf, type ProviderHost } from "./host";
import { recordRegistrations, registered } from "./provider-text";
import type { InitFailure } from "./init-failure";

type Props = Record<string, unknown>;

/** The families a run exercises: every kind but OrganizationName, which never POSTs (nothing to reconcile). A
 * kind added to the registry joins the runs, and `argsOf` and `listAll` do not compile until they cover it. */
type RunKind = Exclude<ResourceKind, "OrganizationName">;
export const RUN_KINDS = [...KINDS.keys()].filter((k): k is RunKind => k !== "OrganizationName");

/** The dataset every run's annotations are on, so listing them is listing the run's. */
export const DATASET = "fault-run";

/** What one run measured. */
export interface FaultRunResult {
  /** The `--faults` spec the emulator ran with. */
  faults: string;
  operations: number;
  /** Messages of the operations that failed. */
  failures: string[];
  /** Objects beyond the first with one resource's name, or left behind by a resource deleted. */
  duplicates: number;
  /** Objects in the service that the host never reported (or reported deleted). */
  orphans: number;
  /** Objects the host reported alive that the service does not have. */
  missing: number;
  /** Faults the emulator injected, by kind. */
  injected: Record<string, number>;
}

/** Options of {@link faultRun}. */
export interface FaultRunOptions {
  /** Emulator fault spec, e.g. `500after=0.05,seed=7`. */
  faults: string;
  operations: number;
  concurrency: number;
  /** Seed of the operation mix (the fault seed is in `faults`). */
  seed: number;
}

/** The real `__provider` text of each run kind, as `pulumi up` would produce it. */
export async function providerTexts(): Promise<Record<RunKind, string>> {
  const seen = await recordRegistrations();
  await Promise.all(RUN_KINDS.map((kind) => registered(declareSample(kind, kind))));
  return Object.fromEntries(seen.map((r) => [r.type.split(":").pop()!, r.providerText])) as Record<
    RunKind,
    string
  >;
}

/** The args of resource `n` of `kind`, and a change to them (`v` > 0). */
export function argsOf(kind: RunKind, n: number, v = 0): Props {
  const name = `fr-${n}`;
  switch (kind) {
    case "Monitor":
      return { name, aplQuery: "['logs'] | count", type: "MatchEvent", description: `v${v}` };
    case "Notifier":
      return { name, properties: { webhook: { url: `https://hooks.test/${n}/${v}` } } };
    case "Annotation":
      return { datasets: [DATASET], type: "deploy", title: name, description: `v${v}` };
    case "Role":
      return { name, description: `v${v}` };
    case "StarredQuery":
      return { kind: "apl", name, who: "team", query: { apl: "['logs']" }, metadata: { v: String(v) } };
    case "View":
      return { name, aplQuery: "['logs']", description: `v${v}` };
    case "Group":
      return { name, description: `v${v}` };
    case "User":
      // Only the role changes in place (name and email replace).
      return { name, email: `${name}@example.com`, role: ["user", "admin", "read-only"][v % 3] };
    case "VirtualField":
      return { dataset: DATASET, name, expression: `a + ${v}` };
    case "ApiToken":
      // No grace period: a rotation's old token stops working, and so leaves the listing below, at once.
      return { name, description: `v${v}`, rotationGracePeriod: "0s" };
    case "Dashboard":
      return {
        dashboard: {
          name,
          charts: [{ id: "n", type: "Note", text: `v${v}` }],
          layout: [{ i: "n", x: 0, y: 0, w: 4, h: 4 }],
          refreshTime: 60,
          schemaVersion: 2,
          timeWindowStart: "qr-now-1h",
          timeWindowEnd: "qr-now",
        },
      };
    case "Dataset":
      return { name, description: `v${v}` };
  }
}

/** The name an object of a run carries (`title` for annotations). */
const nameOf = (obj: Props) => String(obj.name ?? obj.title);

/** mulberry32: the operation mix is reproducible from the seed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    let t = (s = (s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Live {
  kind: RunKind;
  n: number;
  id: string;
  inputs: Props;
  outs: Props;
  version: number;
}

/** Every object of the run's families, by kind. */
async function listAll(client: ObservabilityClient): Promise<Record<RunKind, Props[]>> {
  return {
    Monitor: (await client.monitors.list()) as Props[],
    Notifier: (await client.notifiers.list()) as Props[],
    Annotation: (await client.annotations.list({ datasets: [DATASET] })) as Props[],
    Role: (await client.roles.list()) as Props[],
    StarredQuery: (await client.starredQueries.list({ who: "all", limit: 1000 })) as Props[],
    View: (await client.views.list()) as Props[],
    Group: (await client.groups.list()) as Props[],
    // The organization's own users (the caller) are not the run's.
    User: (await client.users.list()).filter((u) => String(u.name).startsWith("fr-")) as Props[],
    VirtualField: (await client.virtualFields.list({ dataset: DATASET })) as Props[],
    // A token that no longer works is not one the run holds (a rotation leaves the old one listed, expired).
    ApiToken: (await client.tokens.list()).filter(
      (t) => typeof t.expiresAt !== "string" || Date.parse(t.expiresAt) > Date.now(),
    ) as Props[],
    // A dashboard's resource id is its uid.
    Dashboard: (await client.dashboards.listAll()).map((d) => ({ id: d.uid, name: d.dashboard.name })),
    // The dataset the run's annotations and virtual fields live on is not one of its resources.
    Dataset: (await client.datasets.list()).filter((d) => d.name !== DATASET) as Props[],
  };
}

/** Runs `options.operations` mixed operations through a fresh host against a fresh faulty emulator. */
export async function faultRun(
  texts: Record<RunKind, string>,
  options: FaultRunOptions,
): Promise<FaultRunResult> {
  // The run's annotations and virtual fields live on DATASET, which must exist.
  const em = await startEmulator({ port: 0, host: "127.0.0.1", faults: options.faults, datasets: [DATASET] });
  let host: ProviderHost | undefined;
  try {
    host = await startProviderHost({
      config: { "observability:token": em.token, "observability:url": em.url },
      secretKeys: ["observability:token"],
    });
    await host.configure();
    const h = host;
    const random = prng(options.seed);
    const idle: Live[] = [];
    const deletedNames = new Set<string>();
    const failures: string[] = [];
    let started = 0;
    let made = 0;

    const withProvider = (kind: RunKind, p: Props) => ({ ...p, __provider: texts[kind] });
    const checked = async (kind: RunKind, urn: string, olds: Props, news: Props) => {
      const c = await h.check(urn, olds, withProvider(kind, news));
      if (c.failures.length > 0) throw new Error(`check failed: ${JSON.stringify(c.failures)}`);
      return c.inputs;
    };

    async function operate(): Promise<void> {
      const pickCreate = idle.length === 0 || random() < 0.4;
      if (pickCreate) {
        const kind = RUN_KINDS[Math.floor(random() * RUN_KINDS.length)];
        const n = made++;
        const urn = urnOf(kind, `fr-${n}`);
        const inputs = await checked(kind, urn, {}, argsOf(kind, n));
        let answer: { id: string; properties: Props };
        try {
          answer = await h.create(urn, inputs);
        } catch (e) {
          // A partial create: the engine records the object it names, with the failure (lifecycle.ts).
          const partial = (e as { initFailure?: InitFailure }).initFailure;
          if (partial) idle.push({ kind, n, id: partial.id, inputs, outs: partial.properties, version: 0 });
          throw e;
        }
        idle.push({ kind, n, id: answer.id, inputs, outs: answer.properties, version: 0 });
        return;
      }
      const live = idle.splice(Math.floor(random() * idle.length), 1)[0];
      const urn = urnOf(live.kind, `fr-${live.n}`);
      const r = random();
      try {
        if (r < 0.4) {
          const news = await checked(
            live.kind,
            urn,
            live.inputs,
            argsOf(live.kind, live.n, live.version + 1),
          );
          const { properties } = await h.update(urn, live.id, live.outs, news);
          Object.assign(live, { inputs: news, outs: properties, version: live.version + 1 });
        } else if (r < 0.7) {
          const read = await h.read(urn, live.id, live.outs, live.inputs);
          if (read.id !== live.id) throw new Error(`read ${live.kind} ${live.id}: gone`);
          live.outs = read.properties;
        } else {
          await h.delete(urn, live.id, live.outs);
          deletedNames.add(`${live.kind}:fr-${live.n}`);
          return;
        }
      } finally {
        if (!deletedNames.has(`${live.kind}:fr-${live.n}`)) idle.push(live);
      }
    }

    async function worker(): Promise<void> {
      while (started < options.operations) {
        started++;
        try {
          await operate();
        } catch (e) {
          failures.push((e as Error).message);
        }
      }
    }
    await Promise.all(Array.from({ length: options.concurrency }, worker));

    // Compare with a client that sees no faults: the emulator's faults apply to every request it serves.
    const clean = new ObservabilityClient({ url: em.url, token: em.token, maxRetries: 20 });
    const listed = await listAll(clean);
    await clean.close();
    let duplicates = 0;
    let orphans = 0;
    let missing = 0;
    for (const kind of RUN_KINDS) {
      // An ApiToken's object is its current token (`tokenId`), which a rotation changes (api-token.ts).
      const idOf = (l: Live) => (typeof l.outs.tokenId === "string" ? l.outs.tokenId : l.id);
      const alive = new Map(idle.filter((l) => l.kind === kind).map((l) => [idOf(l), `fr-${l.n}`]));
      for (const obj of listed[kind]) {
        const name = nameOf(obj);
        if (!alive.has(String(obj.id))) {
          orphans++;
          // Same name as a live resource's object, or the name of a resource deleted: made twice.
          if ([...alive.values()].includes(name) || deletedNames.has(`${kind}:${name}`)) duplicates++;
        }
      }
      const ids = new Set(listed[kind].map((o) => String(o.id)));
      for (const id of alive.keys()) if (!ids.has(id)) missing++;
    }
    return {
      faults: options.faults,
      operations: started,
      failures,
      duplicates,
      orphans,
      missing,
      injected: { ...em.stats.faults },
    };
  } finally {
    await host?.close();
    await em.close();
  }
}

/** The fault mixes: each kind alone at `rate`, with a fixed seed. */
export function faultMixes(rate: number, seed: number): string[] {
  return ["429", "500", "502", "503", "drop", "500after", "latency"].map((kind) =>
    kind === "latency" ? `latency=${rate}:200,seed=${seed}` : `${kind}=${rate},seed=${seed}`,
  );
}
