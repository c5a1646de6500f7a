// Shannon entropy and the small value checks shared by the pattern detectors.

const asciiCounts = new Uint32Array(128);

export function shannonBitsPerChar(text: string): number {
  if (text.length === 0) return 0;
  let other: Map<number, number> | undefined;
  asciiCounts.fill(0);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) asciiCounts[c] = (asciiCounts[c] as number) + 1;
    else {
      other ??= new Map();
      other.set(c, (other.get(c) ?? 0) + 1);
    }
  }
  let bits = 0;
  const add = (n: number) => {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  };
  for (let c = 0; c < 128; c++) if ((asciiCounts[c] as number) > 0) add(asciiCounts[c] as number);
  if (other !== undefined) for (const n of other.values()) add(n);
  return bits;
}

/** `$VAR`, `${VAR}`, `$(cmd)`, `${{ expr }}`, `%VAR%`, `<placeholder>`, `{{ template }}`: references, not values. */
export function isReference(value: string): boolean {
  return /^(?:\$|%[A-Za-z_]|<[A-Za-z_%]|\{\{)/.test(value);
}

/**
 * A value that looks generated (a token, key or password) rather than chosen: at least 8 characters, not a
 * reference, URL or word like `true`, and random enough (3.5 bits per character, or 3 with a digit).
 */
export function looksGeneratedValue(value: string): boolean {
  if (value.length < 8 || isReference(value) || value.includes("://")) return false;
  if (/^(?:true|false|null|none|undefined|required|optional|redacted)$/i.test(value)) return false;
  const bits = shannonBitsPerChar(value);
  return bits >= 3.5 || (bits >= 3 && /[0-9]/.test(value));
}
