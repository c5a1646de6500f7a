// How strong an operator token (BATON_ADMIN_TOKEN, BATON_PROXY_TOKEN) must be before `baton serve` starts with
// it: at least 32 random bytes' worth. Each unlocks a whole surface (the admin token mints a personal token for
// any member; the proxy token reads every sandbox's secret values), so a guessable one is refused at start.
// Pure: estimates the strength of the text it is given.

/** The strength asked of an operator token, in bits (32 random bytes). */
export const MIN_TOKEN_BITS = 256;
/** How to make one, named in the refusal. */
export const MAKE_TOKEN_HINT = "make one with `openssl rand -hex 32`";

const ALPHABETS: readonly { pattern: RegExp; bitsPerChar: number }[] = [
  { pattern: /^[0-9a-fA-F]+$/, bitsPerChar: 4 },
  { pattern: /^[A-Za-z0-9_\-+/=]+$/, bitsPerChar: 6 },
  { pattern: /^[\x21-\x7e]+$/, bitsPerChar: Math.log2(94) },
];

/** The bits a token of this alphabet and length could hold at most, when every character is random. */
function capacityBits(token: string): number {
  const alphabet = ALPHABETS.find(({ pattern }) => pattern.test(token));
  return alphabet ? token.length * alphabet.bitsPerChar : 0;
}

/** The shortest p such that the token is its first p characters over and over (`abcabcabc` → 3). */
function periodOf(token: string): number {
  for (let p = 1; p <= token.length / 2; p++) {
    let repeats = true;
    for (let i = p; i < token.length && repeats; i++) repeats = token[i] === token[i - p];
    if (repeats) return p;
  }
  return token.length;
}

/**
 * Why `token` is too weak to guard an operator surface, or undefined when it will do. A random 32-byte token
 * (64 hex or 43 base64url characters) passes; short, repetitive or low-variety text does not.
 */
export function weaknessOf(token: string): string | undefined {
  if (!ALPHABETS.at(-1)!.pattern.test(token)) return "it holds spaces or characters outside printable ASCII";
  if (capacityBits(token) < MIN_TOKEN_BITS)
    return `it is ${token.length} characters long; 32 random bytes take 64 hex or 43 base64url characters`;
  if (periodOf(token) < token.length || new Set(token).size < 10)
    return "it repeats a few characters; it must be random";
  return undefined;
}
