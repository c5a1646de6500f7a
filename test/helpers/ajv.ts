// The one JSON Schema validator the tests use: Ajv for draft 2020-12 with every standard format (ajv-formats), so
// `format: "date-time"`, `email` and `uri` are checked rather than ignored with a warning.
import { Ajv2020, type Options } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export function createSchemaValidator(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, ...options });
  addFormats.default(ajv);
  return ajv;
}
