// Secret values at rest: sealing, the operator's key file, and the one reader (the proxy's internal route).

export {
  createSecretBox,
  ephemeralSecretBox,
  isSealed,
  SEALED_PREFIX,
  type SecretBox,
  secretScope,
} from "../../primitives/secret-box.js";
export { loadOrCreateSecretKey } from "./key-file.js";
