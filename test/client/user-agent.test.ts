/**
 * The User-Agent a server receives: the product token `pulumi-observability/<version>` exactly once, then what the
 * caller adds. The provider once passed the product token as its `userAgent` and every request carried it twice;
 * a real server on port 0 records the header, for the client's options and for the provider's own client.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ObservabilityClient } from "../../provider/client";
import { VERSION } from "../../provider/client/version";
import * as dynamic from "../../provider/resources/dynamic";
import { configureProvider } from "../provider/support";

const PRODUCT = `pulumi-observability/${VERSION}`;

let server: Server;
let url: string;
/** The user-agent header of each request, as the server received it. */
const received: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(req.headers["user-agent"]);
    res.writeHead(200, { "content-type": "application/json" });
    // A listing of roles answers the provider's read (reads share a listing of the family): the role in a list.
    const role = { id: "rol_1", name: "readers" };
    const listings: Record<string, unknown> = { "/v2/monitors": [], "/v2/rbac/roles": [role] };
    res.end(JSON.stringify(listings[req.url ?? ""] ?? role));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await dynamic.reset();
  await new Promise((resolve) => server.close(resolve));
});

it.each<[string, string | undefined, string]>([
  ["no userAgent: the product token alone", undefined, PRODUCT],
  ["a userAgent equal to the product token: sent once", PRODUCT, PRODUCT],
  ["an extra product: appended after the product token", "extra/1", `${PRODUCT} extra/1`],
  ["the product token and an extra one: the product once", `${PRODUCT} extra/1`, `${PRODUCT} extra/1`],
])("%s", async (_rule, userAgent, expected) => {
  const client = new ObservabilityClient({ url, token: "xaat-ua", userAgent, maxRetries: 0 });
  const before = received.length;
  try {
    await client.monitors.list();
  } finally {
    await client.close();
  }
  expect(received.slice(before)).toEqual([expected]);
});

it("the provider's requests carry the product token once", async () => {
  await configureProvider(url, "xaat-ua");
  const before = received.length;
  const read = await dynamic.implementation("Role").read("rol_1", { name: "readers" });
  expect(read.id).toBe("rol_1");
  expect(received.slice(before)).toEqual([PRODUCT]);
});
