/**
 * Which console steps can be taken, from the seller preview's lifecycle. Pure, so the unit tests hold it.
 * - Activate is done once the vault exists: the button is disabled (activating again would only say so).
 * - Registering needs an activated vault (the API answers 409 before), and a verified seller registers again only to
 *   update its details; retiring needs a registration.
 * Without a preview yet, every step stays available: the API then says what is missing.
 * - Registering the wallet `payTo` form needs no vault (the lifecycle is the vault's where both forms run): it stays
 *   open, and the API answers 409 until the wallet's token account exists.
 */

/** The preview's `lifecycle`: how far the seller is. */
export interface Lifecycle {
  activated?: boolean;
  verified?: boolean;
  nextStep?: string;
  sellerTokenAccount?: string;
}

export interface StepStates {
  activateDisabled: boolean;
  registerDisabled: boolean;
  registerLabel: string;
  retireDisabled: boolean;
  /** Said under a step that is done and not being acted on. */
  activateDone: string | null;
  registerDone: string | null;
}

export const REGISTER_LABEL = "Sign and register";
export const UPDATE_REGISTRATION_LABEL = "Sign and update registration";

export function stepStates(lifecycle: Lifecycle | undefined, payToForm?: "vault" | "wallet"): StepStates {
  if (!lifecycle) {
    return {
      activateDisabled: false,
      registerDisabled: false,
      registerLabel: REGISTER_LABEL,
      retireDisabled: false,
      activateDone: null,
      registerDone: null,
    };
  }
  const activated = lifecycle.activated === true;
  const verified = lifecycle.verified === true;
  return {
    activateDisabled: activated,
    registerDisabled: !activated && payToForm !== "wallet",
    registerLabel: verified ? UPDATE_REGISTRATION_LABEL : REGISTER_LABEL,
    retireDisabled: !verified,
    activateDone: activated ? "Done: this wallet's vault exists." : null,
    registerDone: verified ? "Done: this wallet is a verified provider. Sign again to update its details." : null,
  };
}
