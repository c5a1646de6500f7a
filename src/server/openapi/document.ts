// Placeholder until the OpenAPI document lands in this file.
export function buildOpenApiDocument(): Record<string, unknown> {
  return { openapi: "3.1.0", info: { title: "baton serve", version: "1" }, paths: {} };
}
