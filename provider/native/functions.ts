/**
 * The lookups (provider/lookups.ts) as the native provider's functions: `observability:index:get<Noun>` and
 * `get<Plural>` for every kind. Each function's arguments are a zod schema (function-args.ts), which validates a
 * call and which the package schema (schema.ts) declares the function's inputs from.
 *
 * The lookups module is loaded at the first call of `lookup`, not with this one: it imports @pulumi/pulumi's
 * index (for the programs' promise and Output forms), which takes most of a second, and the plugin starts once
 * per operation, most of which call no function. The arguments are loaded at their first use too: they load zod.
 */
import type { z } from "zod";
import type { LOOKUPS as LookupsTable, Lookup } from "../lookups";
import type { FUNCTION_ARGS as ArgsTable } from "./function-args";

/** One kind's lookups as functions of the native provider: `get<Noun>` and `get<Plural>`. */
export interface LookupFunction {
  /** The resource kind whose outputs describe what the lookup returns. */
  kind: string;
  /** `Monitor`: the function `getMonitor`. */
  noun: string;
  /** `Monitors`: the function `getMonitors`. */
  plural: string;
  /** The arguments of `get<Noun>`, which the function's call is validated against. */
  readonly oneArgs: z.ZodObject;
  /** The arguments (filters) of `get<Plural>`. */
  readonly manyArgs: z.ZodObject;
  /** The lookup itself (provider/lookups.ts), loaded at first use. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly lookup: Lookup<any, any, any>;
}

/** The table of lookups, loaded once, at the first function called. */
function lookups(): typeof LookupsTable {
  return (require("../lookups") as { LOOKUPS: typeof LookupsTable }).LOOKUPS;
}

/** The functions' arguments, loaded once, at the first read of one. */
function args(): typeof ArgsTable {
  return (require("./function-args") as { FUNCTION_ARGS: typeof ArgsTable }).FUNCTION_ARGS;
}

/** A function entry whose lookup and arguments are its noun's in their tables, read when asked for. */
function fn(
  entry: Omit<LookupFunction, "lookup" | "oneArgs" | "manyArgs"> & { noun: keyof typeof LookupsTable },
): LookupFunction {
  return Object.defineProperties(
    { ...entry },
    {
      lookup: { enumerable: true, get: () => lookups()[entry.noun] },
      oneArgs: { enumerable: true, get: () => args()[entry.noun].oneArgs },
      manyArgs: { enumerable: true, get: () => args()[entry.noun].manyArgs },
    },
  ) as LookupFunction;
}

/** Every lookup, as the native provider serves it and its schema declares it. */
export const LOOKUP_FUNCTIONS: readonly LookupFunction[] = [
  fn({ kind: "Monitor", noun: "Monitor", plural: "Monitors" }),
  fn({ kind: "Notifier", noun: "Notifier", plural: "Notifiers" }),
  fn({ kind: "Annotation", noun: "Annotation", plural: "Annotations" }),
  fn({ kind: "Role", noun: "Role", plural: "Roles" }),
  fn({ kind: "StarredQuery", noun: "StarredQuery", plural: "StarredQueries" }),
  fn({ kind: "OrganizationName", noun: "Organization", plural: "Organizations" }),
  fn({ kind: "View", noun: "View", plural: "Views" }),
  fn({ kind: "Group", noun: "Group", plural: "Groups" }),
  fn({ kind: "User", noun: "User", plural: "Users" }),
  fn({ kind: "VirtualField", noun: "VirtualField", plural: "VirtualFields" }),
  fn({ kind: "ApiToken", noun: "ApiToken", plural: "ApiTokens" }),
  fn({ kind: "Dashboard", noun: "Dashboard", plural: "Dashboards" }),
  fn({ kind: "Dataset", noun: "Dataset", plural: "Datasets" }),
];
