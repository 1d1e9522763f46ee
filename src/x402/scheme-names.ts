/**
 * Scheme names on the wire (docs/facilitator-spec.md §1, §9): a rail's own name, or the alias `v2:solana:<name>`
 * accepted on requests. Which names are served is the rail registry's to say (rails/registry.ts).
 */
export type SchemeName = string;

const ALIAS_PREFIX = "v2:solana:";

/** The name with its alias prefix removed: what a rail compares with its own scheme. */
export function bareScheme(name: string): string {
  return name.startsWith(ALIAS_PREFIX) ? name.slice(ALIAS_PREFIX.length) : name;
}

/**
 * The canonical wire name when `schemes` serves it (a Map or Set: a caller's `constructor` resolves to nothing), else
 * null.
 */
export function normalizeSchemeAmong(name: string, schemes: { has(scheme: string): boolean }): SchemeName | null {
  const bare = bareScheme(name);
  return schemes.has(bare) ? bare : null;
}

/** "a", "b" or "c": scheme names quoted for an error message. */
export function quotedSchemeList(schemes: readonly string[]): string {
  const quoted = schemes.map((scheme) => `"${scheme}"`);
  return quoted.length <= 1 ? quoted.join("") : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}
