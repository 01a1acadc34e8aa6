/**
 * Construct: the plugin making a component (`observability:index:Slo`) for a program in any language. The engine
 * asks for it through `Construct` (pulumi/pulumi proto/pulumi/provider.proto); the plugin then registers the
 * component and its children with the engine's resource monitor, as a program would, using @pulumi/pulumi's runtime,
 * and answers with the component's URN and outputs.
 *
 * The steps are those of @pulumi/pulumi's own provider server (provider/server.ts `construct`), whose server this
 * plugin does not use (server.ts says why): the runtime's globals set from the request (`resetOptions`, the
 * config), the inputs deserialized with their dependencies (`deserializeInputs`: an input that came from another
 * resource is an Output carrying it), the component made in a fresh async store, its outputs serialized, and
 * every registration awaited (`waitForRPCs`) before the answer.
 */
// The SDK's modules by subpath, not its root: the released plugin bundles these, and leaves the root out
// (scripts/release-plugin.mts), so an import of the root would fail there.
import { Output, all, type Input, type Inputs } from "@pulumi/pulumi/output";
import {
  ComponentResource,
  CustomResource,
  DependencyProviderResource,
  DependencyResource,
  type ComponentResourceOptions,
  type CustomResourceOptions,
  type ProviderResource,
  type Resource,
} from "@pulumi/pulumi/resource";
import { SloArgsError, planSlo, type SloPlan } from "../slo/plan";
import { typeToken } from "./tokens";

/* eslint-disable @typescript-eslint/no-explicit-any */
const settings = require("@pulumi/pulumi/runtime/settings");
const runtimeConfig = require("@pulumi/pulumi/runtime/config");
const localState = require("@pulumi/pulumi/runtime/state");
const rpc = require("@pulumi/pulumi/runtime/rpc");
const { deserializeInputs } = require("@pulumi/pulumi/provider/server");
const providerPb = require("@pulumi/pulumi/proto/provider_pb");
const { Struct } = require("google-protobuf/google/protobuf/struct_pb");

/** The inputs an Slo passes through to its children as they come (Outputs of the notifiers' ids). */
const PASSED_THROUGH = ["pageNotifierIds", "ticketNotifierIds"];

/** A failure of the inputs, which the engine shows as the component's error. */
export class ConstructInputError extends Error {}

/** One of this provider's own resources, registered by type token (a kind's `observability:index:<Kind>`). */
class KindResource extends CustomResource {
  constructor(kind: string, name: string, props: Inputs, opts: CustomResourceOptions) {
    super(typeToken(kind), name, props, opts);
  }
}

/** The component `Slo`, as the plugin makes it: its children are the native provider's own Monitor and Dashboard. */
class NativeSlo extends ComponentResource {
  constructor(name: string, plan: SloPlan, passed: Record<string, unknown>, opts: ComponentResourceOptions) {
    super(typeToken("Slo"), name, {}, opts);
    // What the component's inputs came from (a dataset's name from a Dataset), its children wait for too.
    const children: CustomResourceOptions = { parent: this, dependsOn: opts.dependsOn };
    const monitors = plan.monitors.map((m) => {
      const ids = passed[m.severity === "page" ? "pageNotifierIds" : "ticketNotifierIds"] ?? [];
      const monitor = new KindResource(
        "Monitor",
        `${name}-${m.key}`,
        { ...m.monitor, notifierIds: ids },
        children,
      );
      return [m.key, monitor] as const;
    });
    const board = plan.dashboard
      ? new KindResource(
          "Dashboard",
          `${name}-dashboard`,
          plan.dashboard(monitors.map(([, m]) => m.id)),
          children,
        )
      : undefined;
    const outputs: Record<string, Input<unknown>> = {
      monitorIds: all(Object.fromEntries(monitors.map(([key, m]) => [key, m.id]))),
      queries: plan.queries,
      burnRates: Object.fromEntries(plan.monitors.map((m) => [m.key, m.burnRate])),
      ...(board ? { dashboardId: board.id } : {}),
    };
    this.registerOutputs(outputs);
    Object.assign(this, { outputs });
  }
}

/**
 * An input's value when the plan needs it now: known (an Output's value awaited), or a failure naming the input.
 * A value that is unknown at preview (a resource's output not made yet) cannot decide how many monitors there are.
 */
async function knownValue(name: string, key: string, value: unknown): Promise<unknown> {
  let v = value;
  if (Output.isInstance(value)) {
    const o = value as any;
    if (!(await o.isKnown))
      throw new ConstructInputError(
        `Slo ${name}: ${key} must be known at preview: it decides the monitors and their queries, so it cannot come ` +
          "from a resource that is not made yet (write it as a value)",
      );
    v = await o.promise();
  }
  if (JSON.stringify(v ?? null).includes(rpc.unknownValue))
    throw new ConstructInputError(`Slo ${name}: ${key} must be known at preview (part of it is not)`);
  return v;
}

/** Answers a Construct request of the engine at `engineAddress`. */
export function construct(req: any, engineAddress: string | undefined): Promise<any> {
  return localState.withLocalStorage(async () => {
    const type: string = req.getType();
    const name: string = req.getName();
    if (type !== typeToken("Slo"))
      throw new ConstructInputError(`observability: no component of type ${type}`);
    if (!engineAddress)
      throw new Error("observability: Construct needs the engine's address, which the plugin was not given");
    settings.resetOptions(
      req.getProject(),
      req.getStack(),
      req.getParallel(),
      engineAddress,
      req.getMonitorendpoint(),
      req.getDryrun(),
      req.getOrganization(),
    );
    await settings.awaitFeatureSupport();
    const config: Record<string, string> = {};
    for (const [k, v] of req.getConfigMap()?.entries() ?? []) config[k] = v;
    runtimeConfig.setAllConfig(config, req.getConfigsecretkeysList());

    const inputs: Record<string, unknown> = await deserializeInputs(
      req.getInputs(),
      req.getInputdependenciesMap(),
    );
    const planned: Record<string, unknown> = {};
    const passed: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(inputs)) {
      if (PASSED_THROUGH.includes(key)) passed[key] = value;
      else planned[key] = await knownValue(name, key, value);
    }
    // The notifier ids are held to the rules where known; an unknown one (a notifier being made) waits for apply.
    for (const key of PASSED_THROUGH) {
      const v = passed[key];
      const known = Output.isInstance(v)
        ? (await (v as any).isKnown)
          ? await (v as any).promise()
          : undefined
        : v;
      if (Array.isArray(known) && !known.some((id) => id === rpc.unknownValue)) planned[key] = known;
    }
    let plan: SloPlan;
    try {
      plan = planSlo(name, planned);
    } catch (e) {
      if (e instanceof SloArgsError) throw new ConstructInputError(`Slo ${name}: ${e.message}`);
      throw e;
    }

    const dependsOn = [
      ...req.getDependenciesList(),
      // Every resource an input came from: the children read the inputs' values, not the Outputs that carried them.
      ...[...(req.getInputdependenciesMap()?.entries() ?? [])].flatMap(([, deps]: [string, any]) =>
        deps.getUrnsList(),
      ),
    ].map((urn: string) => new DependencyResource(urn));
    const providers: Record<string, ProviderResource> = {};
    // The program's explicit providers (`urn::id` references), which the children use as the component would.
    for (const [pkg, ref] of req.getProvidersMap()?.entries() ?? [])
      providers[pkg] = new DependencyProviderResource(String(ref));
    const component = new NativeSlo(name, plan, passed, {
      dependsOn,
      providers,
      parent: req.getParent() ? new DependencyResource(req.getParent()) : undefined,
      protect: req.getProtect(),
      aliases:
        req
          .getAliasesList?.()
          .filter((a: any) => a.hasUrn?.())
          .map((a: any) => a.getUrn()) ?? [],
    });
    const resp = new providerPb.ConstructResponse();
    resp.setUrn(await (component.urn as any).promise());
    const [state, stateDependencies] = await rpc.serializeResourceProperties(
      `construct(${type}, ${name})`,
      (component as any).outputs,
    );
    const dependenciesMap = resp.getStatedependenciesMap();
    for (const [key, resources] of stateDependencies as Map<string, Set<Resource>>) {
      const deps = new providerPb.ConstructResponse.PropertyDependencies();
      deps.setUrnsList(await Promise.all([...resources].map((r) => (r.urn as any).promise())));
      dependenciesMap.set(key, deps);
    }
    resp.setState(Struct.fromJavaScript(state));
    await settings.waitForRPCs();
    return resp;
  });
}
