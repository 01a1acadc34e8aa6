/** `Resource.get` of an id that does not exist, for every kind: the preview fails naming the kind and the id. */
import { STEP_TIMEOUT_MS, enginePath } from "../harness.mts";
import { obs, type Obs } from "./common.mts";

/** Each kind's `get` of an id that does not exist. */
const MISSING: [keyof typeof Obs & string, string][] = [
  ["Monitor", "mon_missing"],
  ["Annotation", "ann_missing"],
  ["Notifier", "notify_missing"],
  ["Role", "role_missing"],
  ["StarredQuery", "sq_missing"],
  ["OrganizationName", "org_missing"],
  ["Dataset", "missing-dataset"],
  ["ApiToken", "tok_missing"],
  ["User", "usr_missing"],
  ["VirtualField", "vfield_missing"],
  ["View", "missing-view"],
  ["Group", "grp_missing"],
  ["Dashboard", "missing-dashboard"],
];

enginePath("Resource.get of a missing id", "get-missing", (ctx) => {
  it.each(MISSING)(
    "%s.get fails naming the kind and the id",
    async (kind, missingId) => {
      const stack = await ctx.stack(`get-${kind}`, async () => {
        const cls = (await obs())[kind] as unknown as { get(name: string, id: string): unknown };
        cls.get(`missing-${kind}`, missingId);
      });
      await expect(stack.stack.preview(ctx.out)).rejects.toThrow(
        `observability ${kind} get failed: no object with id ${missingId} exists`,
      );
    },
    STEP_TIMEOUT_MS,
  );
});
