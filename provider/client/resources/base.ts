/** What every resource family shares: the transport it sends through. */
import type { Transport } from "../transport";

/** Base of the resource families: a thin class over the client's one transport. */
export abstract class ApiResource {
  constructor(protected readonly transport: Transport) {}
}
