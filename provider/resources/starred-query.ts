/** Starred query: a saved APL query. POST/GET/PUT/DELETE `/v2/apl-starred-queries[/{id}]`. */
import * as pulumi from "@pulumi/pulumi";
import { StarredQueryInputSchema } from "../schemas";
import { adoptableOptions, resourceProps, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, declaration } from "./starred-query-kind";

/** Query options saved with a starred query. */
export interface StarredQueryOptionsArgs {
  /** Bypass the cache. */
  disableCache?: pulumi.Input<boolean>;
  /** Skip statistics. */
  disableStats?: pulumi.Input<boolean>;
  /** Skip tracing. */
  disableTrace?: pulumi.Input<boolean>;
  /** Return rows without aggregation. */
  noAggregation?: pulumi.Input<boolean>;
  /** Do not fill empty buckets. */
  noFill?: pulumi.Input<boolean>;
  /** Do not interpolate. */
  noInterpolation?: pulumi.Input<boolean>;
  /** Integer: most data points per series. */
  maxDataPoints?: pulumi.Input<number>;
  /** Integer: most series. */
  maxSeries?: pulumi.Input<number>;
  /** Query priority, e.g. `low`. */
  priority?: pulumi.Input<string>;
  /** Bucket resolution, e.g. `auto`. */
  resolution?: pulumi.Input<string>;
}

/** The saved APL request. */
export interface StarredQueryRequestArgs {
  /** Required: the APL text, non-empty. */
  apl: pulumi.Input<string>;
  /** Cursor to start from. */
  cursor?: pulumi.Input<string>;
  /** Integer, at least 1: default page size. */
  defaultLimit?: pulumi.Input<number>;
  /** Default order: `{field, desc}` entries, field non-empty. */
  defaultOrder?: pulumi.Input<pulumi.Input<{ field: pulumi.Input<string>; desc: pulumi.Input<boolean> }>[]>;
  /** RFC 3339 or relative (`now-1h`) start time. */
  startTime?: pulumi.Input<string>;
  /** RFC 3339 or relative (`now`) end time. */
  endTime?: pulumi.Input<string>;
  /** Include the row the cursor names. */
  includeCursor?: pulumi.Input<boolean>;
  /** Include the cursor field in results. */
  includeCursorField?: pulumi.Input<boolean>;
  /** APL libraries to load. */
  libraries?: pulumi.Input<pulumi.Input<string>[]>;
  /** Query variables. */
  variables?: pulumi.Input<Record<string, unknown>>;
  /** Query options. */
  queryOptions?: pulumi.Input<StarredQueryOptionsArgs>;
}

/** Inputs of a {@link StarredQuery}. */
export interface StarredQueryArgs {
  /** Required: always `apl`. */
  kind: pulumi.Input<"apl">;
  /** Required: non-empty name. */
  name: pulumi.Input<string>;
  /** Required: the owner, a user id, or `team` for a query shared with everyone. */
  who: pulumi.Input<string>;
  /** Required: the APL request saved. */
  query: pulumi.Input<StarredQueryRequestArgs>;
  /** Required: string-to-string map (may be empty). */
  metadata: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** Dataset the query belongs to. Defaults to none. */
  dataset?: pulumi.Input<string>;
  /** Id of an existing starred query to take under management instead of creating one; changing it replaces. */
  adopt?: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<StarredQueryArgs, typeof StarredQueryInputSchema>>;

/** Query options saved with a starred query, as outputs. */
export interface StarredQueryOptionsOutput {
  disableCache?: boolean;
  disableStats?: boolean;
  disableTrace?: boolean;
  noAggregation?: boolean;
  noFill?: boolean;
  noInterpolation?: boolean;
  maxDataPoints?: number;
  maxSeries?: number;
  priority?: string;
  resolution?: string;
}

/** The saved APL request, as outputs; see {@link StarredQueryRequestArgs} for each field. */
export interface StarredQueryRequestOutput {
  apl: string;
  cursor?: string;
  defaultLimit?: number;
  defaultOrder?: { field: string; desc: boolean }[];
  startTime?: string;
  endTime?: string;
  includeCursor?: boolean;
  includeCursorField?: boolean;
  libraries?: string[];
  variables?: Record<string, unknown>;
  queryOptions?: StarredQueryOptionsOutput;
}

/** A saved (starred) APL query. */
export class StarredQuery extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** Always `apl`. */
  declare readonly kind: pulumi.Output<"apl">;
  /** Name. */
  declare readonly name: pulumi.Output<string>;
  /** Owner: a user id, or `team`. */
  declare readonly who: pulumi.Output<string>;
  /** The saved APL request. */
  declare readonly query: pulumi.Output<StarredQueryRequestOutput>;
  /** String-to-string metadata. */
  declare readonly metadata: pulumi.Output<Record<string, string>>;
  /** Dataset, when set. */
  declare readonly dataset: pulumi.Output<string | undefined>;
  /** The adopted id, when the query was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /** Declares a starred query. */
  constructor(name: string, args: StarredQueryArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link StarredQuery.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: StarredQueryArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    super(
      declaration,
      name,
      resourceProps(args, OUTPUT_KEYS),
      adoptableOptions(declaration.kind, name, args, opts),
    );
  }

  /** Looks up an existing starred query by id without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): StarredQuery {
    return new StarredQuery(name, undefined, { ...opts, id });
  }
}
