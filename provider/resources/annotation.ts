/** Annotation: a marker on dataset charts. POST/GET/PUT (partial)/DELETE `/v2/annotations[/{id}]`. */
import * as pulumi from "@pulumi/pulumi";
import { AnnotationInputSchema } from "../schemas";
import { adoptableOptions, resourceProps, type ArgsMatchSchema, type Assert } from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, declaration } from "./annotation-kind";

/** Inputs of an {@link Annotation}. */
export interface AnnotationArgs {
  /** Required: dataset names on whose charts it appears; at least 1, each non-empty. Order does not matter. */
  datasets: pulumi.Input<pulumi.Input<string>[]>;
  /** Required: at most 256 characters matching `^[a-z0-9-]+$`, e.g. `deploy`. */
  type: pulumi.Input<string>;
  /** At most 512 characters. Defaults to "". */
  description?: pulumi.Input<string>;
  /** RFC 3339 end of the annotated span. Defaults to none (a point in time). */
  endTime?: pulumi.Input<string>;
  /** RFC 3339 time of the annotation. Defaults to the time of the request (kept by the service once set). */
  time?: pulumi.Input<string>;
  /** At most 256 characters. Defaults to "". */
  title?: pulumi.Input<string>;
  /** At most 512 characters. Defaults to "". */
  url?: pulumi.Input<string>;
  /** Id (`ann_…`) of an existing annotation to take under management instead of creating one; changing it replaces. */
  adopt?: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<AnnotationArgs, typeof AnnotationInputSchema>>;

/** An annotation on dataset charts (a deploy, an incident). */
export class Annotation extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;

  /** Dataset names on whose charts it appears. */
  declare readonly datasets: pulumi.Output<string[]>;
  /** Annotation type, e.g. `deploy`. */
  declare readonly type: pulumi.Output<string>;
  /** Description ("" when unset). */
  declare readonly description: pulumi.Output<string | undefined>;
  /** End of the annotated span, or null. */
  declare readonly endTime: pulumi.Output<string | null | undefined>;
  /** Time of the annotation (set by the service when not declared). */
  declare readonly time: pulumi.Output<string>;
  /** Title ("" when unset). */
  declare readonly title: pulumi.Output<string | undefined>;
  /** Link ("" when unset). */
  declare readonly url: pulumi.Output<string | undefined>;
  /** The adopted id, when the annotation was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /** Declares an annotation. */
  constructor(name: string, args: AnnotationArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link Annotation.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: AnnotationArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    const options = adoptableOptions(declaration.kind, name, args, opts);
    super(declaration, name, resourceProps(args, OUTPUT_KEYS), options);
  }

  /** Looks up an existing annotation by id (`ann_…`) without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Annotation {
    return new Annotation(name, undefined, { ...opts, id });
  }
}
