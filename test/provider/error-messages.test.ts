/**
 * Error messages name the kind once. The lifecycle engine wraps every failure as
 * `observability <Kind> <action> failed: <cause>`, so a cause that named the kind again read
 * "observability Monitor adopt failed: adopt: no Monitor with id … exists". Every cause says "the object"
 * instead; this walks every kind of the registry through the paths whose causes the provider writes itself.
 */
import { uncertainCreateAdvice } from "../../provider/resources/lifecycle";
import { KINDS } from "../../provider/resources/registry";
import { SAMPLES } from "../helpers/samples";
import { checked, messageOf, useProvider } from "./support";

const p = useProvider();
const ALL = [...KINDS.keys()];
const ADOPTABLE = ALL.filter((kind) => KINDS.get(kind)!.rules.adoptable);

/** How many times `message` names `kind` (its plural included), as a word. */
const namings = (message: string, kind: string) =>
  message.match(new RegExp(`\\b${kind}s?\\b`, "g"))?.length ?? 0;

it.each(ALL)("%s: a get of a missing id names the kind once", async (kind) => {
  const message = await messageOf(p.impl(kind).read("missing-1", {}));
  expect(message).toBe(`observability ${kind} get failed: no object with id missing-1 exists`);
  expect(namings(message, kind)).toBe(1);
});

it.each(ADOPTABLE)("%s: an adopt of a missing id names the kind once, and the field", async (kind) => {
  const inputs = await checked(p.impl(kind), { ...SAMPLES[kind].minimal, adopt: "missing-1" });
  const message = await messageOf(p.impl(kind).create(inputs));
  expect(message).toBe(
    `observability ${kind} adopt failed: no object with id missing-1 exists (the id in \`adopt\`)`,
  );
  expect(namings(message, kind)).toBe(1);
});

/** A dashboard's PUT of a uid that does not exist creates it (the API's PUT answers "201 Created dashboard"). */
const UPDATE_FAILS_WHEN_MISSING = ALL.filter((kind) => kind !== "Dashboard");

it.each(UPDATE_FAILS_WHEN_MISSING)(
  "%s: an update of a missing id names the kind once, with the service's answer",
  async (kind) => {
    const inputs = await checked(p.impl(kind), SAMPLES[kind].change);
    const message = await messageOf(p.impl(kind).update("missing-1", inputs, inputs));
    expect(message).toMatch(new RegExp(`^observability ${kind} update failed: `));
    expect(namings(message, kind)).toBe(1);
  },
);

it.each(ADOPTABLE)(
  "%s: check's reason for a bad adopt does not name the kind (the engine prints the type)",
  async (kind) => {
    const { failures } = await p.impl(kind).check({}, { ...SAMPLES[kind].minimal, adopt: "" });
    expect(failures).toEqual([{ property: "adopt", reason: "must be the id of an existing object" }]);
  },
);

it.each(ALL.filter((kind) => !ADOPTABLE.includes(kind)))(
  "%s: the reason adopt is refused does not name the kind (the import refusal quotes it after naming it)",
  (kind) => {
    expect(namings(KINDS.get(kind)!.rules.adoptRefusal!, kind)).toBe(0);
  },
);

it("the advice after an uncertain create names no kind: the message it ends already did", () => {
  for (const adoptable of [true, false]) {
    const advice = uncertainCreateAdvice(adoptable);
    for (const kind of ALL) expect(namings(advice, kind)).toBe(0);
  }
});
