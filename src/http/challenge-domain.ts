import type { AppContext } from "./context";

/** The `domain` line of wallet challenges: the host this deployment was called on (a challenge is valid only there). */
export function challengeDomainOf(c: AppContext): string {
  return new URL(c.req.url).host;
}
