/**
 * The `import` resource option, refused for every kind with a message that says what works instead: the `adopt`
 * to write, or, for a kind that takes no `adopt` (ApiToken, OrganizationName), why not. The engine imports with
 * a Read that carries no properties (pulumi/pulumi pkg/resource/deploy/step.go, `ImportStep.Apply`), so a dynamic
 * resource's host would never find its provider; the refusal comes first, when the program declares it.
 */
import * as pulumi from "@pulumi/pulumi";
import { KIND_CLASSES } from "../../provider/resources/registry";
import { SAMPLES } from "../helpers/samples";

type AnyClass = new (name: string, args: unknown, opts?: pulumi.CustomResourceOptions) => unknown;
const KINDS = [...KIND_CLASSES.keys()];

/** The error `new <kind>(name, sample, opts)` throws, or undefined. */
function declared(kind: (typeof KINDS)[number], opts: pulumi.CustomResourceOptions): Error | undefined {
  const Resource = KIND_CLASSES.get(kind) as unknown as AnyClass;
  try {
    new Resource(`imported-${kind}`, SAMPLES[kind].minimal, opts);
  } catch (e) {
    return e as Error;
  }
  return undefined;
}

it("the registry's kinds are the ones walked here, the two that take no adopt among them", () => {
  expect(KINDS.length).toBe(Object.keys(SAMPLES).length);
  expect(KINDS).toEqual(expect.arrayContaining(["ApiToken", "OrganizationName"]));
});

describe.each(KINDS)("%s", (kind) => {
  const rules = KIND_CLASSES.get(kind)!.declaration.rules;

  it("refuses the import option with a ResourceError naming the resource, the option and `adopt`", () => {
    const err = declared(kind, { import: "existing-1" });
    expect(err).toBeInstanceOf(pulumi.ResourceError);
    expect(err!.message).toContain(`${kind} "imported-${kind}": the \`import\` option cannot work`);
    expect(err!.message).toContain("`adopt`");
    expect(err!.message).not.toContain("undefined");
  });

  if (rules.adoptable) {
    it("names the adopt to write, with the id given to import", () => {
      expect(declared(kind, { import: "existing-1" })!.message).toContain('adopt: "existing-1"');
    });
  } else {
    it("says why adopt cannot take its place either: the reason check gives for adopt", () => {
      expect(rules.adoptRefusal).toEqual(expect.any(String));
      expect(declared(kind, { import: "existing-1" })!.message).toContain(
        `Nor can \`adopt\` take its place: ${rules.adoptRefusal}.`,
      );
    });
  }
});
