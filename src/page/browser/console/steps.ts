/** Puts the step states on the page's buttons (step-states.ts decides them). */
import { byId } from "../dom";
import { chosenPayToForm, state } from "./state";
import { stepStates } from "./step-states";

export function applyStepStates(): void {
  const connected = state.account !== null;
  document.querySelectorAll<HTMLButtonElement>(".needs-wallet").forEach((b) => {
    b.disabled = !connected;
  });
  const steps = stepStates(state.preview?.lifecycle, chosenPayToForm());
  showDone("activate-status", connected ? steps.activateDone : null);
  showDone("register-status", connected ? steps.registerDone : null);
  const register = byId<HTMLButtonElement>("register");
  register.textContent = steps.registerLabel;
  if (!connected) return;
  byId<HTMLButtonElement>("activate").disabled = steps.activateDisabled;
  register.disabled = steps.registerDisabled;
  byId<HTMLButtonElement>("retire").disabled = steps.retireDisabled;
}

/**
 * A done step's note, unless the line reports something else (what was just done there, or a failure); a note of a
 * step no longer done (another wallet, a retired registration) is taken away.
 */
function showDone(id: string, text: string | null): void {
  const node = byId(id);
  const showsNote = node.dataset.doneNote === "true";
  if (text !== null && (node.textContent === "" || showsNote)) {
    node.textContent = text;
    node.className = "ok";
    node.dataset.doneNote = "true";
  } else if (text === null && showsNote) {
    node.textContent = "";
    node.className = "";
    delete node.dataset.doneNote;
  }
}
