// Capability requests: the pure core (kinds, targets, matcher, state machine). I/O lives in src/server.
export * from "./authorise.js";
export * from "./explain.js";
export * from "./http-matcher.js";
export * from "./kinds.js";
export * from "./matcher.js";
export * from "./target.js";
export * from "./transitions.js";
