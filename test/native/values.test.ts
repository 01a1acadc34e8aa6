/**
 * Secrets on the wire of a provider that accepts them (pulumi/pulumi sdk/go/common/resource/plugin/rpc.go,
 * MarshalPropertyValue): a request's properties lose their markers at any depth, and the top-level keys that held
 * one are remembered, so the answer marks them secret again as a whole.
 */
import { SECRET_SIG, SIG_KEY, secret, unwrapProps, wrapProps } from "../../provider/native/values";

const marked = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, value });

test("unwrapProps removes secret markers at any depth and names the top-level keys that held one", () => {
  const { plain, secretKeys } = unwrapProps({
    name: "m",
    properties: { slack: { url: marked("https://hooks.example/T0") } },
    emails: [marked("a@example.com"), "b@example.com"],
    token: marked(marked("xaat-1")),
    plain: { list: [1, { deep: true }] },
  });
  expect(plain).toEqual({
    name: "m",
    properties: { slack: { url: "https://hooks.example/T0" } },
    emails: ["a@example.com", "b@example.com"],
    token: "xaat-1",
    plain: { list: [1, { deep: true }] },
  });
  expect([...secretKeys].sort()).toEqual(["emails", "properties", "token"]);
});

test("unwrapProps copies: the request's objects are not the ones handed on", () => {
  const nested = { list: [1, 2] };
  const { plain } = unwrapProps({ nested });
  expect(plain.nested).toEqual(nested);
  expect(plain.nested).not.toBe(nested);
});

test("wrapProps marks each named key once, leaves absent keys out and drops undefined values", () => {
  const out = wrapProps({ token: "xaat-1", already: secret("s"), gone: undefined, name: "t" }, [
    "token",
    "already",
    "missing",
  ]);
  expect(out).toEqual({ token: marked("xaat-1"), already: marked("s"), name: "t" });
  expect("gone" in out).toBe(false);
});
