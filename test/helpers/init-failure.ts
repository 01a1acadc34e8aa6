/**
 * Reads the partial-create detail a provider sends with a failed Create: a `google.rpc.Status` in the
 * `grpc-status-details-bin` trailer whose detail is a `pulumirpc.ErrorResourceInitFailed` (the id, properties,
 * inputs and reasons the engine records; pulumi/pulumi proto/pulumi/provider.proto). What the engine decodes in
 * pkg/resource/plugin/provider_plugin.go `parseError`, decoded here the same way so a test sees what it sees.
 */
import type * as grpc from "@grpc/grpc-js";

const providerPb = require("@pulumi/pulumi/proto/provider_pb");
const statusPb = require("@pulumi/pulumi/proto/status_pb");

type Props = Record<string, unknown>;

/** The ErrorResourceInitFailed detail of a gRPC error. */
export interface InitFailure {
  id: string;
  properties: Props;
  inputs: Props | undefined;
  reasons: string[];
}

/** The detail of `err`, or undefined when it carries none (a plain failure: nothing was recorded). */
export function initFailureOf(err: Pick<grpc.ServiceError, "metadata"> | undefined): InitFailure | undefined {
  const raw = err?.metadata?.get("grpc-status-details-bin")[0];
  if (raw === undefined) return undefined;
  const status = statusPb.Status.deserializeBinary(new Uint8Array(raw as Buffer));
  for (const any of status.getDetailsList()) {
    if (any.getTypeName() !== "pulumirpc.ErrorResourceInitFailed") continue;
    const detail = providerPb.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
    return {
      id: detail.getId(),
      properties: detail.getProperties()?.toJavaScript() ?? {},
      inputs: detail.getInputs()?.toJavaScript(),
      reasons: detail.getReasonsList(),
    };
  }
  return undefined;
}

/** An Error with the engine's text of a gRPC failure, and its partial-create detail when it has one. */
export function grpcFailure(err: grpc.ServiceError): Error & { initFailure?: InitFailure } {
  return Object.assign(new Error(err.details || err.message), { initFailure: initFailureOf(err) });
}
