// `/openapi.json`: the service describes itself with the document generated from the composed app's routes.
import { createRoute, z } from "@hono/zod-openapi";
import { createSurface } from "../http/surface.js";
import { jsonContent } from "./schemas.js";

export function createOpenApiApp(describe: () => Record<string, unknown>) {
  const app = createSurface();
  app.openapi(
    createRoute({
      method: "get",
      path: "/openapi.json",
      summary: "this document (OpenAPI 3.1)",
      responses: {
        200: jsonContent(z.record(z.string(), z.unknown()), "the OpenAPI 3.1 document of every route"),
      },
    }),
    (c) => c.json(describe(), 200),
  );
  return app;
}
