// A value as one single-quoted shell word, for the `export` lines `eval "$(baton admin …)"` runs.
export const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;
