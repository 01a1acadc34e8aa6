/**
 * The lookups (provider/lookups.ts) as the native provider's functions: `observability:index:get<Noun>` and
 * `get<Plural>` for every kind. Each function's arguments are a zod schema, which validates a call and which the
 * package schema (schema.ts) declares the function's inputs from.
 *
 * The lookups module is loaded at the first call of `lookup`, not with this one: it imports @pulumi/pulumi's
 * index (for the programs' promise and Output forms), which takes most of a second, and the plugin starts once
 * per operation, most of which call no function.
 */
import { z } from "zod";
import type { LOOKUPS as LookupsTable, Lookup } from "../lookups";

const idArg = z.string().optional().meta({ description: "The id to look up; give this or `name`." });
const nameArg = z
  .string()
  .optional()
  .meta({ description: "The name to look up (exactly one must match); give this or `id`." });
const byIdOrName = z.object({ id: idArg, name: nameArg });
const noFilters = z.object({});

/** One kind's lookups as functions of the native provider: `get<Noun>` and `get<Plural>`. */
export interface LookupFunction {
  /** The resource kind whose outputs describe what the lookup returns. */
  kind: string;
  /** `Monitor`: the function `getMonitor`. */
  noun: string;
  /** `Monitors`: the function `getMonitors`. */
  plural: string;
  /** The arguments of `get<Noun>`, which the function's call is validated against. */
  oneArgs: z.ZodObject;
  /** The arguments (filters) of `get<Plural>`. */
  manyArgs: z.ZodObject;
  /** The lookup itself (provider/lookups.ts), loaded at first use. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly lookup: Lookup<any, any, any>;
}

/** The table of lookups, loaded once, at the first function called. */
function lookups(): typeof LookupsTable {
  return (require("../lookups") as { LOOKUPS: typeof LookupsTable }).LOOKUPS;
}

/** A function entry whose `lookup` is the table's `key`, read when first asked for. */
function fn(entry: Omit<LookupFunction, "lookup">, key: keyof typeof LookupsTable): LookupFunction {
  return Object.defineProperty({ ...entry }, "lookup", {
    enumerable: true,
    get: () => lookups()[key],
  }) as LookupFunction;
}

/** Every lookup, as the native provider serves it and its schema declares it. */
export const LOOKUP_FUNCTIONS: readonly LookupFunction[] = [
  fn(
    {
      kind: "Monitor",
      noun: "Monitor",
      plural: "Monitors",
      oneArgs: byIdOrName,
      manyArgs: noFilters,
    },
    "Monitor",
  ),
  fn(
    {
      kind: "Notifier",
      noun: "Notifier",
      plural: "Notifiers",
      oneArgs: byIdOrName,
      manyArgs: noFilters,
    },
    "Notifier",
  ),
  fn(
    {
      kind: "Annotation",
      noun: "Annotation",
      plural: "Annotations",
      oneArgs: z.object({
        id: idArg,
        name: nameArg.meta({
          description: "The title to look up (exactly one must match); give this or `id`.",
        }),
      }),
      manyArgs: z.object({
        datasets: z.array(z.string()).optional().meta({ description: "Only annotations on these datasets." }),
        start: z
          .string()
          .optional()
          .meta({ description: "RFC 3339; only annotations at or after this time." }),
        end: z
          .string()
          .optional()
          .meta({ description: "RFC 3339; only annotations at or before this time." }),
      }),
    },
    "Annotation",
  ),
  fn(
    {
      kind: "Role",
      noun: "Role",
      plural: "Roles",
      oneArgs: byIdOrName,
      manyArgs: noFilters,
    },
    "Role",
  ),
  fn(
    {
      kind: "StarredQuery",
      noun: "StarredQuery",
      plural: "StarredQueries",
      oneArgs: byIdOrName,
      manyArgs: z.object({
        limit: z
          .number()
          .int()
          .optional()
          .meta({ description: "At most this many (1 to 1000); defaults to 1000." }),
        offset: z.number().int().optional().meta({ description: "Skip this many." }),
        dataset: z.string().optional().meta({ description: "Only queries of this dataset." }),
        who: z.string().optional().meta({ description: "Whose queries: `all` (the default) or a user's." }),
        qs: z.string().optional().meta({ description: "Only queries whose text contains this." }),
      }),
    },
    "StarredQuery",
  ),
  fn(
    {
      kind: "OrganizationName",
      noun: "Organization",
      plural: "Organizations",
      oneArgs: byIdOrName,
      manyArgs: noFilters,
    },
    "Organization",
  ),
  fn(
    {
      kind: "View",
      noun: "View",
      plural: "Views",
      oneArgs: byIdOrName,
      manyArgs: noFilters,
    },
    "View",
  ),
  fn(
    {
      kind: "Group",
      noun: "Group",
      plural: "Groups",
      oneArgs: byIdOrName,
      manyArgs: noFilters,
    },
    "Group",
  ),
  fn(
    {
      kind: "User",
      noun: "User",
      plural: "Users",
      oneArgs: byIdOrName,
      manyArgs: noFilters,
    },
    "User",
  ),
  fn(
    {
      kind: "VirtualField",
      noun: "VirtualField",
      plural: "VirtualFields",
      oneArgs: byIdOrName.extend({
        dataset: z
          .string()
          .optional()
          .meta({ description: "The dataset the virtual field belongs to; needed with `name`." }),
      }),
      manyArgs: z.object({
        dataset: z.string().meta({ description: "The dataset whose virtual fields are listed." }),
      }),
    },
    "VirtualField",
  ),
  fn(
    {
      kind: "ApiToken",
      noun: "ApiToken",
      plural: "ApiTokens",
      oneArgs: byIdOrName,
      manyArgs: noFilters,
    },
    "ApiToken",
  ),
  fn(
    {
      kind: "Dashboard",
      noun: "Dashboard",
      plural: "Dashboards",
      oneArgs: z.object({
        id: idArg.meta({ description: "The dashboard's uid; give this or `name`." }),
        name: nameArg,
      }),
      manyArgs: z.object({
        limit: z
          .number()
          .int()
          .optional()
          .meta({ description: "One page of at most this many; every one when absent." }),
        offset: z.number().int().optional().meta({ description: "The page's start." }),
      }),
    },
    "Dashboard",
  ),
  fn(
    {
      kind: "Dataset",
      noun: "Dataset",
      plural: "Datasets",
      oneArgs: byIdOrName,
      manyArgs: noFilters,
    },
    "Dataset",
  ),
];
