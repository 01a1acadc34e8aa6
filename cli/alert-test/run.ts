/**
 * One alert test, run: an emulator in this process on a manual clock starting at the test's `start`, its datasets,
 * virtual fields, notifiers (pointed at a local receiver) and monitors created through the API as a program would,
 * every event ingested at once with its own `_time`, then the clock moved to `start + until`, which makes every
 * monitor run that falls due, in time order. What the monitors sent (the outbox) is then compared with what the
 * file expects.
 */
import { startEmulator, type MonitorRun, type OutboxEntry } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import type { NotifierCreate } from "../../provider/schemas/notifier";
import { compare, type Comparison, type MonitorFacts, type RunFacts } from "./compare";
export type { RunWarning } from "./check";
export type { RunFailure } from "./compare";
import type { RunWarning } from "./check";
import type { LoadedTest } from "./load";
import { URL_FIELDS } from "./model";
import { startReceiver, type ReceivedRequest } from "./receiver";

/** What a run did and found. */
export interface RunOutcome {
  test: LoadedTest;
  /** Whether the file passes: `comparison.ok` (every row met, nothing unexpected, no failed run or send). */
  ok: boolean;
  comparison: Comparison;
  /**
   * What the reader should know that fails nothing, in the order found: notifiers that run as stand-ins, threshold
   * monitors binned by `bin_auto`, failures the file's `allow:` lets pass. Each names what it is about.
   */
  warnings: RunWarning[];
  runs: MonitorRun[];
  outbox: OutboxEntry[];
  facts: RunFacts;
  /** What the local receiver got. */
  received: ReceivedRequest[];
}

/** A failure while setting the test up in the emulator, naming what was being created. */
export class SetupError extends Error {
  override readonly name = "SetupError";
}

/** Events per ingest call; the client splits them into gzip batches of 10,000 itself. */
const INGEST_CHUNK = 50_000;

/** A notifier's inputs with its URL pointed at the receiver (when the test delivers there, or the URL was hidden). */
function pointedAtReceiver(inputs: NotifierCreate, url: string): NotifierCreate {
  const properties = { ...inputs.properties } as Record<string, Record<string, unknown> | null | undefined>;
  for (const [channel, field] of Object.entries(URL_FIELDS)) {
    const config = properties[channel];
    if (config) properties[channel] = { ...config, [field]: url };
  }
  return { ...inputs, properties: properties as NotifierCreate["properties"] };
}

async function step<T>(what: string, go: () => Promise<T>): Promise<T> {
  try {
    return await go();
  } catch (err) {
    throw new SetupError(`${what}: ${(err as Error).message}`);
  }
}

/** Runs one loaded test and compares. */
export async function runAlertTest(test: LoadedTest): Promise<RunOutcome> {
  const { model } = test;
  const receiver = await startReceiver();
  const emulator = await startEmulator({
    clock: "manual",
    now: new Date(test.startMs),
    port: 0,
    host: "127.0.0.1",
    datasets: model.datasets.map((d) => d.name),
  });
  const client = new ObservabilityClient({ url: emulator.url, token: emulator.token });
  try {
    for (const d of model.datasets) {
      if (d.mapFields.length > 0)
        await step(`dataset ${d.name}: map fields`, () => client.datasets.putMapFields(d.name, d.mapFields));
    }
    for (const vf of model.virtualFields)
      await step(`virtual field ${vf.dataset}.${vf.name}`, () => client.virtualFields.create(vf));

    const notifierIds = new Map<string, string>();
    const notifierKeyOfId = new Map<string, string>();
    for (const n of model.notifiers) {
      const inputs =
        test.deliver === "receiver" || n.urlHidden
          ? pointedAtReceiver(n.inputs, receiver.urlFor(n.key))
          : n.inputs;
      const created = await step(`notifier ${n.key} (${n.origin})`, () => client.notifiers.create(inputs));
      notifierIds.set(n.key, created.id);
      notifierKeyOfId.set(created.id, n.key);
    }

    const byDataset = new Map<string, Record<string, unknown>[]>();
    for (const e of test.events) {
      let list = byDataset.get(e.dataset);
      if (!list) byDataset.set(e.dataset, (list = []));
      list.push(e.data);
    }
    for (const [dataset, events] of byDataset) {
      for (let i = 0; i < events.length; i += INGEST_CHUNK) {
        const chunk = events.slice(i, i + INGEST_CHUNK);
        const summary = await step(`ingest into ${dataset}`, () => client.ingest(dataset, chunk));
        if (summary.failed > 0)
          throw new SetupError(
            `ingest into ${dataset}: the emulator refused ${summary.failed} of ${chunk.length} events (${JSON.stringify(summary.failures?.[0] ?? {})})`,
          );
      }
    }

    const monitorKeyOfId = new Map<string, string>();
    const monitors = new Map<string, MonitorFacts>();
    for (const m of model.monitors) {
      const ids = (m.inputs.notifierIds ?? []).map((key) => notifierIds.get(key)!);
      const created = await step(`monitor ${m.key} (${m.origin})`, () =>
        client.monitors.create({ ...m.inputs, notifierIds: ids }),
      );
      monitorKeyOfId.set(created.id, m.key);
      monitors.set(m.key, {
        intervalMs: Number(m.inputs.intervalMinutes ?? 1) * 60_000,
        notifierKeys: m.inputs.notifierIds ?? [],
        name: m.inputs.name,
        operator: m.inputs.operator,
        threshold: m.inputs.threshold === undefined ? undefined : Number(m.inputs.threshold),
        query: {
          file: m.place.doc.file,
          ...m.place.doc.positionOf([...m.place.path, "aplQuery"]),
        },
      });
    }

    const runs = await emulator.clock.to(new Date(test.startMs + test.untilMs));
    const outbox = [...emulator.notifications()];
    const facts: RunFacts = {
      startMs: test.startMs,
      monitorKeyOfId,
      notifierKeyOfId,
      monitors,
      notifierNames: new Map(model.notifiers.map((n) => [n.key, n.inputs.name])),
      runs,
      unexpected: test.unexpected,
      allow: test.allow,
    };
    const comparison = compare(test.expectations, outbox, facts);
    return {
      test,
      ok: comparison.ok,
      comparison,
      warnings: [...test.warnings, ...comparison.allowed],
      runs,
      outbox,
      facts,
      received: receiver.received,
    };
  } finally {
    await client.close();
    await emulator.close();
    await receiver.close();
  }
}
