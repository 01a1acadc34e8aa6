/**
 * How the lifecycle engine handles Annotation (its declaration), apart from the Resource class in annotation.ts, which
 * imports @pulumi/pulumi: the native provider plugin loads this file and not that one (kinds.ts).
 */
import { AnnotationInputSchema, fieldNames, type Annotation as ApiAnnotation } from "../schemas";
import { declareKind, fromSchema, plainFamily } from "./lifecycle";

const INPUT_KEYS = fieldNames(AnnotationInputSchema);
export const OUTPUT_KEYS = [...INPUT_KEYS, "adopt"] as const;

/** How the lifecycle engine handles annotations. */
export const declaration = declareKind<ApiAnnotation, "Annotation">({
  kind: "Annotation",
  ...fromSchema(AnnotationInputSchema),
  serverSet: ["time"],
  setPaths: ["datasets"],
  timePaths: ["time", "endTime"],
  adoptable: true,
  // PUT is partial: the body carries every declared field, and "" / null to clear the optional ones.
  ...plainFamily((client) => client.annotations, INPUT_KEYS),
  reconcile: {
    list: (client, declared, since) =>
      client.annotations.list({
        datasets: declared.datasets as string[],
        start: declared.time === undefined ? since.toISOString() : undefined,
      }),
    // With `time` declared the listing is not bounded by time, so it holds more than one bounded by it.
    listedBy: (declared) => JSON.stringify([declared.datasets, declared.time === undefined]),
    // The service sets `time` to the request's time only when it is not declared.
    timed: (declared) => declared.time === undefined,
    createdAt: (obj) => obj.time,
  },
  // Listed by the datasets the prior outputs name (any of them: every annotation of a busy dataset over all time
  // would be far more than a stack holds); one moved to other datasets out of band is read by its GET, and so is
  // a `Resource.get`, which names none.
  readAll: {
    listedBy: (props) =>
      Array.isArray(props.datasets) ? JSON.stringify([...(props.datasets as string[])].sort()) : undefined,
    list: (client, props) => client.annotations.list({ datasets: props.datasets as string[] }),
  },
});
