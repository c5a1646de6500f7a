// Public face of the Dockerfile engine: parse, resolve and plan are pure; apply and persist do the I/O.
export {
  type EscapeCharacter,
  ExpansionError,
  environmentFromList,
  processWord,
  type WordResult,
} from "./lexer.js";
export {
  type Directive,
  type Heredoc,
  type Instruction,
  type ParsedDockerfile,
  parseDockerfile,
} from "./parse.js";
export { planDockerfile, planResolved } from "./plan.js";
export { type ResolvedDockerfile, type ResolveOptions, resolveDockerfile } from "./resolve.js";
export * from "./types.js";
