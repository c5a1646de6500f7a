import { describe, expect, it } from "vitest";
import { matchRoute, type Route } from "../../../src/server/http/router.js";

const handle = () => new Response();
const routes: Route[] = [
  { method: "POST", pattern: "/ops/v1/operations", handle },
  { method: "GET", pattern: "/ops/v1/operations/:id", handle },
  { method: "GET", pattern: "/ops/v1/operations/:id/overlay", handle },
];

describe("matchRoute", () => {
  it.each([
    ["GET", "/ops/v1/operations/op_1", "/ops/v1/operations/:id", { id: "op_1" }],
    ["GET", "/ops/v1/operations/a%2Fb/overlay", "/ops/v1/operations/:id/overlay", { id: "a/b" }],
    ["POST", "/ops/v1/operations", "/ops/v1/operations", {}],
  ])("%s %s matches %s", (method, path, pattern, params) => {
    const match = matchRoute(routes, method, path);
    expect(match).toMatchObject({ route: { pattern }, params });
  });

  it.each([
    ["GET", "/ops/v1/operations/", 404],
    ["GET", "/ops/v1/nothing", 404],
    ["GET", "/ops/v1/operations/%E0%A4%A/overlay", 404],
    ["DELETE", "/ops/v1/operations/op_1", 405],
    ["GET", "/ops/v1/operations", 405],
  ])("%s %s is %d", (method, path, status) => {
    expect(matchRoute(routes, method, path)).toEqual({ status });
  });
});
