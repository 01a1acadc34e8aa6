/**
 * The shared-listing machinery (provider/resources/listings.ts) on its own: coalescing, freshness, a failed listing
 * not kept, one state per client, the rule that a caller after its own writes never takes a listing one of
 * them overlapped, and the rule that a caller of `listingBegunAfter` never takes a listing already sent.
 */
import {
  listingBegunAfter,
  sharedListing,
  trackWrites,
  trackedWrite,
  type ListingRequest,
} from "../../provider/resources/listings";
import { gate } from "../helpers/fault-proxy";

/** A listing whose answers the test releases by hand, counting how many were started. */
function controlled() {
  const pending: { resolve: (v: string[]) => void; reject: (e: Error) => void }[] = [];
  return {
    started: () => pending.length,
    list: () => new Promise<string[]>((resolve, reject) => pending.push({ resolve, reject })),
    answer: (i: number, v: string[]) => pending[i].resolve(v),
    fail: (i: number) => pending[i].reject(new Error("listing failed")),
  };
}

const always = () => true;
const inFlightOnly = (l: { settledAt: number | undefined }) => l.settledAt === undefined;

function request(
  list: () => Promise<string[]>,
  more: Partial<ListingRequest<string[]>> = {},
): ListingRequest<string[]> {
  return { kind: "Monitor", key: "", list, fresh: always, afterOwnWrites: true, ...more };
}

describe("sharedListing", () => {
  it("coalesces: callers that arrive while a listing is in flight share it", async () => {
    const client = {};
    const l = controlled();
    const a = sharedListing(client, request(l.list));
    const b = sharedListing(client, request(l.list));
    expect(l.started()).toBe(1);
    l.answer(0, ["x"]);
    expect(await a).toEqual(["x"]);
    expect(await b).toBe(await a);
  });

  it("records when a caller last took a listing (takenAt), so a freshness rule can follow a burst of calls", async () => {
    const client = {};
    const l = controlled();
    const seen: number[] = [];
    const fresh = (listing: { takenAt: number }) => (seen.push(listing.takenAt), true);
    // The listings' clock (performance.now) moved by hand.
    let now = 1_000;
    const clock = jest.spyOn(performance, "now").mockImplementation(() => now);
    try {
      const first = sharedListing(client, request(l.list, { fresh }));
      l.answer(0, ["x"]);
      await first;
      now += 20;
      await sharedListing(client, request(l.list, { fresh }));
      now += 20;
      await sharedListing(client, request(l.list, { fresh }));
      expect(l.started()).toBe(1);
      // The second call saw the start; the third saw the second's take, 20 ms later.
      expect(seen).toEqual([1_000, 1_020]);
    } finally {
      clock.mockRestore();
    }
  });

  it("reuses a settled listing while the caller's freshness holds, and lists again when it does not", async () => {
    const client = {};
    const l = controlled();
    const first = sharedListing(client, request(l.list));
    l.answer(0, ["x"]);
    await first;
    expect(await sharedListing(client, request(l.list))).toEqual(["x"]);
    expect(l.started()).toBe(1);
    const stale = sharedListing(client, request(l.list, { fresh: inFlightOnly }));
    expect(l.started()).toBe(2);
    l.answer(1, ["y"]);
    expect(await stale).toEqual(["y"]);
  });

  it("keeps no failed listing: its callers reject, and the next caller lists again", async () => {
    const client = {};
    const l = controlled();
    const a = sharedListing(client, request(l.list));
    const b = sharedListing(client, request(l.list));
    l.fail(0);
    await expect(a).rejects.toThrow("listing failed");
    await expect(b).rejects.toThrow("listing failed");
    const c = sharedListing(client, request(l.list));
    expect(l.started()).toBe(2);
    l.answer(1, ["x"]);
    expect(await c).toEqual(["x"]);
  });

  it("shares nothing between clients, kinds or keys", async () => {
    const [one, two] = [{}, {}];
    const l = controlled();
    const calls = [
      sharedListing(one, request(l.list)),
      sharedListing(two, request(l.list)),
      sharedListing(one, request(l.list, { kind: "Notifier" })),
      sharedListing(one, request(l.list, { key: "logs" })),
    ];
    expect(l.started()).toBe(4);
    [0, 1, 2, 3].forEach((i) => l.answer(i, [String(i)]));
    expect(await Promise.all(calls)).toEqual([["0"], ["1"], ["2"], ["3"]]);
  });
});

describe("a caller after its own writes", () => {
  it("starts no listing while a write of the family is in flight, and goes without", async () => {
    const client = {};
    const l = controlled();
    const write = gate();
    const writing = trackedWrite(client, "Monitor", () => write.done);
    expect(await sharedListing(client, request(l.list))).toBeUndefined();
    expect(l.started()).toBe(0);
    // A write of another family, or through another client, does not count.
    const other = sharedListing(client, request(l.list, { kind: "Notifier" }));
    const elsewhere = sharedListing({}, request(l.list));
    expect(l.started()).toBe(2);
    write.open();
    await writing;
    l.answer(0, ["n"]);
    l.answer(1, ["m"]);
    expect(await other).toEqual(["n"]);
    expect(await elsewhere).toEqual(["m"]);
  });

  it("does not take a listing that a write started during", async () => {
    const client = {};
    const l = controlled();
    const reading = sharedListing(client, request(l.list));
    const write = gate();
    const writing = trackedWrite(client, "Monitor", () => write.done);
    l.answer(0, ["stale"]);
    expect(await reading).toBeUndefined();
    write.open();
    await writing;
  });

  it("does not take a listing older than a write that finished since, and lists anew after it", async () => {
    const client = {};
    const l = controlled();
    const first = sharedListing(client, request(l.list));
    l.answer(0, ["before"]);
    expect(await first).toEqual(["before"]);
    await trackedWrite(client, "Monitor", async () => undefined);
    const after = sharedListing(client, request(l.list));
    expect(l.started()).toBe(2);
    l.answer(1, ["after"]);
    expect(await after).toEqual(["after"]);
  });

  it("counts a failed write as a write", async () => {
    const client = {};
    const l = controlled();
    const first = sharedListing(client, request(l.list));
    l.answer(0, ["before"]);
    await first;
    await expect(
      trackedWrite(client, "Monitor", async () => {
        throw new Error("500");
      }),
    ).rejects.toThrow("500");
    void sharedListing(client, request(l.list));
    expect(l.started()).toBe(2);
  });

  it("a caller that need not see its writes (afterOwnWrites false) takes the listing all the same", async () => {
    const client = {};
    const l = controlled();
    const first = sharedListing(client, request(l.list, { afterOwnWrites: false }));
    await trackedWrite(client, "Monitor", async () => undefined);
    l.answer(0, ["x"]);
    expect(await first).toEqual(["x"]);
    expect(await sharedListing(client, request(l.list, { afterOwnWrites: false }))).toEqual(["x"]);
    expect(l.started()).toBe(1);
  });
});

describe("trackWrites", () => {
  it("counts create, update and delete as writes of the kind, and passes get through uncounted", async () => {
    const client = {};
    const calls: string[] = [];
    const family = trackWrites(client, "Monitor", {
      get: async (id: string) => (calls.push(`get ${id}`), { id }),
      create: async (body: { id: string }) => (calls.push("create"), body),
      update: async (id: string, body: { id: string }) => (calls.push(`update ${id}`), body),
      delete: async (id: string) => void calls.push(`delete ${id}`),
    });
    const outdatedBy = async (step: () => Promise<unknown>) => {
      const l = controlled();
      const listing = sharedListing(client, request(l.list, { key: String(Math.random()) }));
      await step();
      l.answer(0, ["x"]);
      return (await listing) === undefined;
    };
    expect(await outdatedBy(() => family.get("a"))).toBe(false);
    expect(await outdatedBy(() => family.create({ id: "b" }))).toBe(true);
    expect(await outdatedBy(() => family.update("b", { id: "b" }))).toBe(true);
    expect(await outdatedBy(() => family.delete("b"))).toBe(true);
    expect(calls).toEqual(["get a", "create", "update b", "delete b"]);
  });
});

/** One turn of the event loop: a begun-after listing waits one before it starts. */
const turn = () => new Promise((r) => setImmediate(r));

describe("listingBegunAfter: never a listing whose request was sent before the call", () => {
  const begun = (client: object, list: () => Promise<string[]>, key = "") =>
    listingBegunAfter(client, { kind: "Monitor", key, list });

  it("callers of the same turn share one listing, started on the next turn", async () => {
    const client = {};
    const l = controlled();
    const a = begun(client, l.list);
    const b = begun(client, l.list);
    expect(l.started()).toBe(0);
    await turn();
    expect(l.started()).toBe(1);
    l.answer(0, ["x"]);
    expect(await a).toEqual(["x"]);
    expect(await b).toBe(await a);
  });

  it("a caller that comes while one runs waits for the next, which starts when it settles, shared by all who came", async () => {
    const client = {};
    const l = controlled();
    const first = begun(client, l.list);
    await turn();
    expect(l.started()).toBe(1);
    const second = begun(client, l.list);
    const third = begun(client, l.list);
    await turn();
    // Not joined to the running one, and not started beside it either.
    expect(l.started()).toBe(1);
    l.answer(0, ["old"]);
    expect(await first).toEqual(["old"]);
    await turn();
    expect(l.started()).toBe(2);
    l.answer(1, ["old", "new"]);
    expect(await second).toEqual(["old", "new"]);
    expect(await third).toBe(await second);
  });

  it("an answered listing is never reused: a later caller lists again", async () => {
    const client = {};
    const l = controlled();
    const first = begun(client, l.list);
    await turn();
    l.answer(0, ["x"]);
    await first;
    const later = begun(client, l.list);
    await turn();
    expect(l.started()).toBe(2);
    l.answer(1, ["x", "y"]);
    expect(await later).toEqual(["x", "y"]);
  });

  it("a failed listing rejects its callers, and the next caller lists again; the one waiting still starts", async () => {
    const client = {};
    const l = controlled();
    const first = begun(client, l.list);
    await turn();
    const waiting = begun(client, l.list);
    l.fail(0);
    await expect(first).rejects.toThrow("listing failed");
    await turn();
    expect(l.started()).toBe(2);
    l.answer(1, ["x"]);
    expect(await waiting).toEqual(["x"]);
  });

  it("is kept per client, kind and key", async () => {
    const l = controlled();
    const one = {};
    void begun(one, l.list);
    void begun({}, l.list);
    void begun(one, l.list, "logs");
    void listingBegunAfter(one, { kind: "Notifier", key: "", list: l.list });
    await turn();
    expect(l.started()).toBe(4);
    for (let i = 0; i < 4; i++) l.answer(i, []);
  });
});
