// The destination policy's public face: parse the target, decide before and after resolution. All pure.
export { type AddressClass, classifyAddress, lockedNameOf } from "./classify-address.js";
export { DEFAULT_PROXY_CONFIG, type ProxyConfig, ProxyConfigSchema, type Rule } from "./config.js";
export {
  type AddressCheck,
  type DestinationFacts,
  decideAddress,
  decideAddresses,
  decideBeforeResolution,
  type Verdict,
} from "./decide.js";
export {
  type AbsoluteTarget,
  formatTarget,
  parseAbsoluteTarget,
  parseAuthority,
  parseTargetHost,
  type Target,
  type TargetHost,
} from "./parse-target.js";
export { type CompiledPolicy, compilePolicy, hostGlobMatches } from "./rules.js";
export { LOCKED_NAMES, SPECIAL_RANGES_V4, SPECIAL_RANGES_V6 } from "./special-ranges.js";
