/**
 * The arguments of the native provider's functions (functions.ts), as zod schemas: what a call is validated
 * against and what the package schema (schema.ts) declares each function's inputs from. Apart from the table of
 * functions, so that the plugin loads zod at the first function called rather than at start.
 */
import { z } from "zod";

const idArg = z.string().optional().meta({ description: "The id to look up; give this or `name`." });
const nameArg = z
  .string()
  .optional()
  .meta({ description: "The name to look up (exactly one must match); give this or `id`." });
const byIdOrName = z.object({ id: idArg, name: nameArg });
const noFilters = z.object({});

/** Each function's arguments, by its noun: `get<Noun>`'s, and `get<Plural>`'s filters. */
export const FUNCTION_ARGS: Record<string, { oneArgs: z.ZodObject; manyArgs: z.ZodObject }> = {
  Monitor: {
    oneArgs: byIdOrName,
    manyArgs: noFilters,
  },
  Notifier: {
    oneArgs: byIdOrName,
    manyArgs: noFilters,
  },
  Annotation: {
    oneArgs: z.object({
      id: idArg,
      name: nameArg.meta({
        description: "The title to look up (exactly one must match); give this or `id`.",
      }),
    }),
    manyArgs: z.object({
      datasets: z.array(z.string()).optional().meta({ description: "Only annotations on these datasets." }),
      start: z.string().optional().meta({ description: "RFC 3339; only annotations at or after this time." }),
      end: z.string().optional().meta({ description: "RFC 3339; only annotations at or before this time." }),
    }),
  },
  Role: {
    oneArgs: byIdOrName,
    manyArgs: noFilters,
  },
  StarredQuery: {
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
  Organization: {
    oneArgs: byIdOrName,
    manyArgs: noFilters,
  },
  View: {
    oneArgs: byIdOrName,
    manyArgs: noFilters,
  },
  Group: {
    oneArgs: byIdOrName,
    manyArgs: noFilters,
  },
  User: {
    oneArgs: byIdOrName,
    manyArgs: noFilters,
  },
  VirtualField: {
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
  ApiToken: {
    oneArgs: byIdOrName,
    manyArgs: noFilters,
  },
  Dashboard: {
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
  Dataset: {
    oneArgs: byIdOrName,
    manyArgs: noFilters,
  },
};
