/** The few DOM helpers every page script uses. */

/** The element with this id; a missing id is a bug in the page, so it throws instead of returning null. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node as T;
}

/** An element with text content and an optional class. */
export function text(tag: string, value: string, className?: string): HTMLElement {
  const node = document.createElement(tag);
  node.textContent = value;
  if (className) node.className = className;
  return node;
}

type Child = Node | string | null | undefined;

/**
 * An element from attributes (`class` and `text` are special) and children; null and undefined children are skipped.
 */
export function el(tag: string, props: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));
