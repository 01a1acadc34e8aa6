/**
 * How the lifecycle engine handles StarredQuery (its declaration), apart from the Resource class in starred-query.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import { StarredQueryInputSchema, fieldNames, type StarredQuery as ApiStarredQuery } from "../schemas";
import { declareKind, fromSchema, plainFamily } from "./lifecycle";

const INPUT_KEYS = fieldNames(StarredQueryInputSchema);
export const OUTPUT_KEYS = [...INPUT_KEYS, "adopt"] as const;

/** How the lifecycle engine handles starred queries. */
export const declaration = declareKind<ApiStarredQuery, "StarredQuery">({
  kind: "StarredQuery",
  ...fromSchema(StarredQueryInputSchema),
  setPaths: [],
  timePaths: ["query.startTime", "query.endTime"],
  adoptable: true,
  ...plainFamily((client) => client.starredQueries, INPUT_KEYS),
  // No creation time and no unique field: the baseline decides, listed by name with `qs`.
  reconcile: {
    list: (client, declared) =>
      client.starredQueries.list({ who: "all", qs: String(declared.name), limit: 1000 }),
    listedBy: (declared) => String(declared.name),
    timed: () => false,
  },
  // Everyone's queries (`who=all`, as a GET reads any of them), every page, each as its GET returns it.
  readAll: { listedBy: () => "", list: (client) => client.starredQueries.listAll({ who: "all" }) },
});
