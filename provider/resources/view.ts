/**
 * View: a named, saved APL query over datasets. POST/GET/PUT/DELETE `/v2/views[/{id}]`.
 *
 * A view's id is its name. The OpenAPI document's View has no id field while its paths take an id, and
 * Alchemy uses the name as that id (alchemy-run/alchemy `packages/alchemy/src/Axiom/View.ts`:
 * the name is the path identifier, and a rename replaces the view); provider/schemas/view.ts cites the rest.
 * Followed throughout: the resource's id is the name, `name` is a replace key (a rename is a new view, the old
 * one deleted first), `adopt` and `View.get` take a name, and a name already taken is the service's 409.
 */
import * as pulumi from "@pulumi/pulumi";
import { ViewInputSchema } from "../schemas";
import { resourceProps, uniqueIdentityOptions, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, declaration } from "./view-kind";

/** Inputs of a {@link View}. */
export interface ViewArgs {
  /** Required: the view's name, which is also its id; unique in the organization. Changing it replaces the view. */
  name: pulumi.Input<string>;
  /** Required: the APL query the view saves. */
  aplQuery: pulumi.Input<string>;
  /** Names of the datasets the view reads, no duplicates; order does not matter. Defaults to none. */
  datasets?: pulumi.Input<pulumi.Input<string>[]>;
  /** Free text. Defaults to "". */
  description?: pulumi.Input<string>;
  /** Name of an existing view to take under management instead of creating one (it must equal `name`). */
  adopt?: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<ViewArgs, typeof ViewInputSchema>>;

/** A view: a saved APL query, shared with the organization under its name. */
export class View extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** The view's name, also its id. */
  declare readonly name: pulumi.Output<string>;
  /** The saved APL query. */
  declare readonly aplQuery: pulumi.Output<string>;
  /** The datasets the view reads. */
  declare readonly datasets: pulumi.Output<string[] | undefined>;
  /** Free text. */
  declare readonly description: pulumi.Output<string | undefined>;
  /** Id of the organization that shared the view, when it is shared (empty otherwise). */
  declare readonly sharedByOrg: pulumi.Output<string | undefined>;
  /** Name of the organization that shared the view, when it is shared (empty otherwise). */
  declare readonly sharedByOrgName: pulumi.Output<string | undefined>;
  /** The adopted view's name, when the view was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /**
   * Declares a view. Its id is its name. Replacements delete first (`deleteBeforeReplace` defaults to true; yours
   * wins): a replacement under the same name created first would fail with 409. An adopted view keeps
   * create-before-delete, since deleting first would destroy the object its replacement adopts, and `adopt` with
   * an explicit `deleteBeforeReplace: true` is refused.
   */
  constructor(name: string, args: ViewArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link View.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: ViewArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const options = uniqueIdentityOptions(declaration.kind, name, args, opts);
    super(declaration, name, resourceProps(args, OUTPUT_KEYS), options);
  }

  /** Looks up an existing view by its name (its id) without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): View {
    return new View(name, undefined, { ...opts, id });
  }
}
