/**
 * `requestBody`: how a family whose client takes a typed body (datasets, users, dashboards) turns the lifecycle's
 * props into one, by the request's own schema instead of a cast. What it sends is what was declared; a body the
 * request schema refuses fails naming each field.
 */
import {
  DashboardUpsertShapeSchema,
  DatasetCreateSchema,
  DatasetUpdateSchema,
  UserCreateSchema,
} from "../../provider/schemas";
import { requestBody } from "../../provider/resources/lifecycle";

it("a dataset's create and update bodies pass as declared", () => {
  const create = {
    name: "logs",
    kind: "axiom:events:v1",
    description: "d",
    retentionDays: 30,
    useRetentionPeriod: true,
    edgeDeployment: "cloud.us-east-1.aws",
  };
  expect(requestBody(DatasetCreateSchema, create)).toEqual(create);
  const update = { description: "", retentionDays: 0, useRetentionPeriod: false };
  expect(requestBody(DatasetUpdateSchema, update)).toEqual(update);
});

it("a user's create body passes as declared", () => {
  const body = { name: "Ada", email: "ada@example.com", role: "admin" };
  expect(requestBody(UserCreateSchema, body)).toEqual(body);
});

it("a dashboard's document is sent as given, keys the schema does not name included, at every depth", () => {
  const body = {
    uid: "u-1",
    dashboard: {
      name: "d",
      charts: [{ id: "c", type: "Note", text: "x", future: { a: [1, null] } }],
      extra: 1,
    },
    overwrite: true,
    message: "m",
  };
  expect(requestBody(DashboardUpsertShapeSchema, body)).toEqual(body);
  const update = DashboardUpsertShapeSchema.omit({ uid: true });
  expect(requestBody(update, { dashboard: body.dashboard, version: 7 })).toEqual({
    dashboard: body.dashboard,
    version: 7,
  });
});

it("a body the request schema refuses fails naming every field at fault, not only the first", () => {
  expect(() => requestBody(DatasetCreateSchema, { name: 5, retentionDays: -1 })).toThrow(
    /^name: must be a string.*; retentionDays: /,
  );
  expect(() => requestBody(UserCreateSchema, { name: "Ada", email: "not-an-email", role: "admin" })).toThrow(
    "email: must be an email address",
  );
  expect(() => requestBody(DashboardUpsertShapeSchema, { dashboard: "a string" })).toThrow(
    "dashboard: must be an object",
  );
});
