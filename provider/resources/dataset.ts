/** Dataset: where events are ingested and queried. POST/GET/PUT/DELETE `/v2/datasets[/{id}]`, plus `/mapfields`. */
import * as pulumi from "@pulumi/pulumi";
import { DatasetInputSchema } from "../schemas";
import { resourceProps, uniqueIdentityOptions, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, declaration } from "./dataset-kind";

/** The kind of a dataset. */
export type DatasetKindArg = "axiom:events:v1" | "otel:logs:v1" | "otel:metrics:v1" | "otel:traces:v1";

/** Inputs of a {@link Dataset}. */
export interface DatasetArgs {
  /**
   * Required: unique in the organization, and the dataset's id. At most 80 characters of letters, digits, `.`,
   * `_` and `-`, not starting or ending with `.`, `_` or `-`, not starting with `axiom-`. Changing it replaces.
   */
  name: pulumi.Input<string>;
  /** `axiom:events:v1` (default), `otel:logs:v1`, `otel:metrics:v1` or `otel:traces:v1`. Changing it replaces. */
  kind?: pulumi.Input<DatasetKindArg>;
  /** Free text. Defaults to "". */
  description?: pulumi.Input<string>;
  /** Days of data kept when `useRetentionPeriod` is true; an integer ≥ 0. Defaults to 0. */
  retentionDays?: pulumi.Input<number>;
  /** Whether `retentionDays` applies. Defaults to false. */
  useRetentionPeriod?: pulumi.Input<boolean>;
  /** Map-field names, no duplicates; order does not matter. Defaults to none. */
  mapFields?: pulumi.Input<pulumi.Input<string>[]>;
  /** Edge deployment id; the organization license's default when left out. Changing it replaces. */
  edgeDeployment?: pulumi.Input<string>;
  /**
   * Allow deleting the dataset (on destroy or replacement) while it holds data, and its data with it. Defaults
   * to false: such a delete fails, naming this input. Never sent to the service.
   */
  forceDestroy?: pulumi.Input<boolean>;
  /** Name (id) of an existing dataset to take under management instead of creating one; changing it replaces. */
  adopt?: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<DatasetArgs, typeof DatasetInputSchema>>;

/** A dataset: the place events are ingested into and queried from. Its id is its name. */
export class Dataset extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** Unique name, and the id. */
  declare readonly name: pulumi.Output<string>;
  /** The dataset's kind. */
  declare readonly kind: pulumi.Output<DatasetKindArg | undefined>;
  /** Free text. */
  declare readonly description: pulumi.Output<string | undefined>;
  /** Days of data kept when `useRetentionPeriod` is true. */
  declare readonly retentionDays: pulumi.Output<number | undefined>;
  /** Whether the retention period applies. */
  declare readonly useRetentionPeriod: pulumi.Output<boolean | undefined>;
  /** Map-field names. */
  declare readonly mapFields: pulumi.Output<string[] | undefined>;
  /** The edge deployment (the license's default when undeclared). */
  declare readonly edgeDeployment: pulumi.Output<string | undefined>;
  /** URL of the edge deployment, as the service reports it. */
  declare readonly edgeDeploymentUrl: pulumi.Output<string | undefined>;
  /** Whether deleting a dataset that holds data is allowed. */
  declare readonly forceDestroy: pulumi.Output<boolean | undefined>;
  /** When the service created it (RFC 3339). */
  declare readonly created: pulumi.Output<string | undefined>;
  /** When it last changed (RFC 3339). */
  declare readonly updatedAt: pulumi.Output<string | undefined>;
  /** The creator's user id. */
  declare readonly who: pulumi.Output<string | undefined>;
  /** Whether the token may write to it. */
  declare readonly canWrite: pulumi.Output<boolean | undefined>;
  /** The adopted id, when the dataset was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /**
   * Declares a dataset. Replacements (a change of `name`, `kind` or `edgeDeployment`) delete first
   * (`deleteBeforeReplace` defaults to true; yours wins): the name is unique, so a replacement created first
   * would fail with 409. A delete of a dataset that holds data fails unless `forceDestroy` is true. An adopted
   * dataset keeps create-before-delete, as an adopted Role does.
   */
  constructor(name: string, args: DatasetArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link Dataset.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: DatasetArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const options = uniqueIdentityOptions(declaration.kind, name, args, opts);
    super(declaration, name, resourceProps(args, OUTPUT_KEYS), options);
  }

  /** Looks up an existing dataset by name (its id) without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Dataset {
    return new Dataset(name, undefined, { ...opts, id });
  }
}
