/** A word that cannot be expanded; the message is BuildKit's, prefixed with the input. */
export class ExpansionError extends Error {
  override readonly name = "ExpansionError";
}
