// Checks a response against the service's OpenAPI 3.1 document (generated from the route definitions): the
// method, path and status must be declared, every header the document marks required must be there (so every 429
// is held to its Retry-After), and a JSON body must validate against the declared schema. Every request the API
// suites make goes through it (harness.ts, socket-client.ts), so the document is held to every response they see.
import { Ajv2020 } from "ajv/dist/2020.js";
import { buildOpenApiDocument } from "../../../src/server/openapi-document.js";

interface Operation {
  responses: Record<
    string,
    {
      content?: Record<string, { schema: unknown }>;
      headers?: Record<string, { required?: boolean; schema?: { type?: string } }>;
    }
  >;
}
type Document = { paths: Record<string, Record<string, Operation>> };

let compiled: { document: Document; ajv: Ajv2020; routes: { regex: RegExp; path: string }[] } | undefined;

function load() {
  if (compiled) return compiled;
  const document = buildOpenApiDocument() as unknown as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat("email", /^[^\s@]+@[^\s@]+$/);
  ajv.addFormat("uri", (value: string) => URL.canParse(value));
  ajv.addSchema(document, "doc");
  const routes = Object.keys(document.paths).map((path) => ({
    path,
    regex: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
  }));
  compiled = { document, ajv, routes };
  return compiled;
}

/** Returns a list of problems (empty when the response is what the document says). */
export function checkResponse(
  method: string,
  url: string,
  status: number,
  header: (name: string) => string | null | undefined,
  text: string,
): string[] {
  const { document, ajv, routes } = load();
  const pathname = new URL(url, "http://x").pathname;
  const route = routes.find((r) => r.regex.test(pathname));
  if (!route) return [`${method} ${pathname}: no path in the document`];
  const operation = document.paths[route.path]![method.toLowerCase()];
  if (!operation) return [`${method} ${route.path}: no such operation in the document`];
  const declared = operation.responses[String(status)];
  if (!declared) return [`${method} ${route.path} ${status}: status not declared`];
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(declared.headers ?? {})) {
    const value = header(name.toLowerCase());
    if (spec.required && (value === null || value === undefined))
      problems.push(`${method} ${route.path} ${status}: required header ${name} missing`);
    else if (value && spec.schema?.type === "integer" && !/^[0-9]+$/.test(value))
      problems.push(`${method} ${route.path} ${status}: header ${name} is not an integer: ${value}`);
  }
  if (problems.length > 0) return problems;
  const contentType = header("content-type");
  if (!declared.content)
    return text === "" ? [] : [`${method} ${route.path} ${status}: a body where none is declared`];
  if (!contentType?.startsWith("application/json")) return [`${method} ${route.path} ${status}: not JSON`];
  const pointer = `doc#/paths/${encodeURIComponent(route.path.replaceAll("~", "~0").replaceAll("/", "~1"))}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
  const validate = ajv.getSchema(pointer);
  if (!validate) return [`${method} ${route.path} ${status}: schema not found`];
  const body: unknown = JSON.parse(text);
  return validate(body) ? [] : [`${method} ${route.path} ${status}: ${ajv.errorsText(validate.errors)}`];
}
