/** Each resource's input keys and defaults, now read from its schema, are what they were written as before. */
import type { z } from "zod";
import type { ArgsMatchSchema, Assert } from "../../provider/resources/common";
import {
  Annotation,
  Monitor,
  Notifier,
  OrganizationName,
  Role,
  StarredQuery,
} from "../../provider/resources";

describe.each([
  [
    "Annotation",
    Annotation.declaration.rules,
    ["datasets", "type", "description", "endTime", "time", "title", "url"],
    { description: "", title: "", url: "", endTime: null },
  ],
  [
    "Monitor",
    Monitor.declaration.rules,
    [
      "name",
      "aplQuery",
      "type",
      "alertOnNoData",
      "columnName",
      "compareDays",
      "description",
      "disabled",
      "disabledUntil",
      "intervalMinutes",
      "notifierIds",
      "notifyByGroup",
      "notifyEveryRun",
      "operator",
      "rangeMinutes",
      "resolvable",
      "secondDelay",
      "skipResolved",
      "threshold",
      "tolerance",
      "triggerAfterNPositiveResults",
      "triggerFromNRuns",
    ],
    {
      alertOnNoData: false,
      columnName: "",
      compareDays: 0,
      description: "",
      disabled: false,
      disabledUntil: null,
      intervalMinutes: 1,
      notifierIds: [],
      notifyByGroup: false,
      notifyEveryRun: false,
      rangeMinutes: 1,
      resolvable: false,
      secondDelay: 0,
      skipResolved: false,
      tolerance: 0,
      triggerAfterNPositiveResults: 0,
      triggerFromNRuns: 1,
    },
  ],
  ["Notifier", Notifier.declaration.rules, ["name", "properties", "disabledUntil"], { disabledUntil: null }],
  ["OrganizationName", OrganizationName.declaration.rules, ["organizationId", "name"], {}],
  [
    "Role",
    Role.declaration.rules,
    ["name", "description", "members", "orgCapabilities", "datasetCapabilities", "viewCapabilities"],
    { description: "", members: [], orgCapabilities: {}, datasetCapabilities: {}, viewCapabilities: {} },
  ],
  [
    "StarredQuery",
    StarredQuery.declaration.rules,
    ["kind", "name", "who", "query", "metadata", "dataset"],
    {},
  ],
])("%s", (_kind, descriptor, keys, defaults) => {
  it("takes its input keys from the schema, in the schema's order", () => {
    expect(descriptor.inputKeys).toEqual(keys);
  });
  it("takes its defaults from the schema", () => {
    expect(descriptor.defaults).toStrictEqual(defaults);
  });
});

describe("ArgsMatchSchema", () => {
  type Schema = z.ZodObject<{ a: z.ZodString; b: z.ZodOptional<z.ZodNumber> }>;
  it("holds when the Args name the schema's fields, plus adopt", () => {
    const ok: Assert<ArgsMatchSchema<{ a: string; b?: number; adopt?: string }, Schema>> = true;
    expect(ok).toBe(true);
  });
  it("fails the build when a key is on one side only", () => {
    // @ts-expect-error `c` is only in the Args.
    const extra: Assert<ArgsMatchSchema<{ a: string; b?: number; c?: string }, Schema>> = true;
    // @ts-expect-error `b` is only in the schema.
    const missing: Assert<ArgsMatchSchema<{ a: string }, Schema>> = true;
    expect([extra, missing]).toEqual([true, true]);
  });
});
