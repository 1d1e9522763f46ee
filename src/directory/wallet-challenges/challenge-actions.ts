/**
 * What a wallet-signed challenge may authorize (docs/wire-notes.md "Sellers"). A challenge names exactly one action;
 * the family wildcards `seller:any` / `resource:any` cover every action of their family, nothing more.
 */
export const CHALLENGE_ACTIONS = [
  "seller:register",
  "seller:retire",
  "seller:payments",
  "seller:any",
  "resource:list",
  "resource:register",
  "resource:retire",
  "resource:probe",
  "resource:any",
] as const;

export type ChallengeAction = (typeof CHALLENGE_ACTIONS)[number];

/**
 * pr402's default when `action` is omitted (public/openapi.json, facilitatorSellerChallenge): still one-time and
 * wallet-bound.
 */
export const DEFAULT_CHALLENGE_ACTION: ChallengeAction = "seller:any";
/** The same for GET /resources/register/challenge (pr402: facilitatorResourceChallenge). */
export const DEFAULT_RESOURCE_CHALLENGE_ACTION = "resource:any" satisfies ChallengeAction;

export function isChallengeAction(value: string): value is ChallengeAction {
  return (CHALLENGE_ACTIONS as readonly string[]).includes(value);
}

/** True when a challenge issued for `signed` may authorize the route's `required` action. */
export function actionCovers(signed: ChallengeAction, required: ChallengeAction): boolean {
  if (signed === required) return true;
  const [family, verb] = signed.split(":");
  return verb === "any" && required.startsWith(`${family}:`);
}
