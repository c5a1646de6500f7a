// `/healthz`: the liveness probe. It touches nothing, so it answers while the store is busy.
import { createRoute } from "@hono/zod-openapi";
import { createSurface } from "../http/surface.js";
import { jsonContent, Schemas as S } from "../openapi/schemas.js";

export function createHealthApp() {
  const app = createSurface();
  app.openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      summary: "liveness probe",
      responses: { 200: jsonContent(S.Ok, "alive") },
    }),
    (c) => c.json({ ok: true as const }, 200),
  );
  return app;
}
