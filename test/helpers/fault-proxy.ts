/**
 * The fault proxy (fault-proxy-server.ts) and the two clients an in-process test drives through it and beside it.
 */
import { ObservabilityClient, type ClientOptions } from "../../provider/client";
import { startFaultProxy, type FaultProxy, type ProxyFault } from "./fault-proxy-server";

export { gate, startFaultProxy, type FaultProxy, type ProxyFault } from "./fault-proxy-server";

/** A client whose requests go through a fault proxy, and one beside it that sees the service as it is. */
export interface ProxiedClients {
  proxy: FaultProxy;
  /** Through the proxy: the client a lifecycle under test is given. */
  client: ObservabilityClient;
  /** Straight to the service ("out of band"): what a test looks with. */
  oob: ObservabilityClient;
}

/** Starts a proxy to `service` faulting what `plan` picks, and the two clients of {@link ProxiedClients}. */
export async function proxiedClients(
  service: { url: string; token: string },
  plan: (method: string, path: string, nth: number) => ProxyFault | Promise<ProxyFault>,
  options: Omit<ClientOptions, "url" | "token"> = {},
): Promise<ProxiedClients> {
  const proxy = await startFaultProxy(service.url, plan);
  return {
    proxy,
    client: new ObservabilityClient({ ...options, url: proxy.url, token: service.token }),
    oob: new ObservabilityClient({ url: service.url, token: service.token }),
  };
}
