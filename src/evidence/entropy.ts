// Shannon entropy and the small value checks shared by the pattern detectors.

export function shannonBitsPerChar(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<number, number>();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** `$VAR`, `${VAR}`, `$(cmd)`, `${{ expr }}`, `%VAR%`, `<placeholder>`, `{{ template }}`: references, not values. */
export function isReference(value: string): boolean {
  return /^(?:\$|%[A-Za-z_]|<[A-Za-z_%]|\{\{)/.test(value);
}
