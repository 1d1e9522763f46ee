/**
 * The script of the home page (GET /), served as /assets/home.js: live status, each scheme's fees, the directory
 * listing and a search over it.
 */

import { formatUnits } from "./amounts";
import { getJson } from "./api";
import { byId, errorMessage, text } from "./dom";
import { feeLine, type SupportedKind } from "./fee-lines";
import { findAsset, type KnownAsset, loadKnownAssets } from "./known-assets";
import { formatTime } from "./time-format";

interface Health {
  status: string;
  solanaNetwork: string;
  solanaSlot?: number | null;
  solanaRpc: string;
}
interface PaymentLine {
  scheme: string;
  asset: string;
  amount?: string;
  maxAmountRequired?: string;
}
interface DiscoveryItem {
  resource: string;
  accepts?: PaymentLine[];
  lastUpdated?: string;
  metadata?: { title?: string; description?: string; httpMethod?: string; category?: string };
}
interface DiscoveryPage {
  items: DiscoveryItem[];
  pagination?: { total?: number };
}
interface SearchEntry {
  title: string;
  resourceUrl: string;
  httpMethod: string;
  scheme: string;
  category?: string;
  description?: string;
  /** The first line of its last passing probe's 402. */
  price?: { scheme: string; asset: string; amount: string };
}

const PAGE_SIZE = 10;
let assets: KnownAsset[] = [];
let listingOffset = 0;

async function showStatus(): Promise<void> {
  const status = byId("status");
  try {
    const health = await getJson<Health>("/health");
    status.className = health.status;
    status.textContent =
      (health.status === "ok" ? "Operational" : "Degraded") +
      " · " +
      health.solanaNetwork +
      " · slot " +
      (health.solanaSlot ?? "unknown") +
      " · RPC " +
      health.solanaRpc;
  } catch (error) {
    status.className = "error";
    status.textContent = "Status unavailable: " + errorMessage(error);
  }
}

/** Raw base units in the asset's units ("10000" of USDC → "0.01 USDC"); an unknown asset stays in base units. */
function inUnits(raw: string, mintOrSymbol: string): string {
  const asset = findAsset(assets, mintOrSymbol);
  return asset && /^[0-9]+$/.test(raw)
    ? formatUnits(raw, asset.decimals, asset.symbol)
    : raw + " base units" + (asset ? " of " + asset.symbol : "");
}

async function showSchemes(): Promise<void> {
  const list = byId("schemes");
  try {
    const supported = await getJson<{ kinds: SupportedKind[] }>("/supported");
    list.replaceChildren(
      ...supported.kinds.map((kind) => {
        const item = text("li", "");
        item.dataset.scheme = kind.scheme;
        item.append(
          text("code", kind.scheme),
          document.createTextNode(" on " + kind.network + ": " + feeLine(kind, assets)),
        );
        return item;
      }),
    );
  } catch (error) {
    list.replaceChildren(text("li", "Schemes unavailable: " + errorMessage(error)));
  }
}

async function showStats(): Promise<void> {
  const stats = byId("stats");
  try {
    const body = await getJson<{
      providers: { total: number };
      resources: { total: number; byScheme?: Record<string, number> };
    }>("/directory/stats");
    const byScheme = Object.entries(body.resources.byScheme ?? {})
      .map(([scheme, n]) => n + " " + scheme)
      .join(", ");
    const plural = (n: number, noun: string) => n + " " + noun + (n === 1 ? "" : "s");
    stats.textContent =
      plural(body.providers.total, "listed provider") +
      " · " +
      plural(body.resources.total, "listed resource") +
      (byScheme ? " (" + byScheme + ")" : "");
  } catch (error) {
    stats.textContent = "Directory stats unavailable: " + errorMessage(error);
  }
}

/** The live price of a listed resource: the first line of the 402 its last passing probe saw. */
function priceOf(line: PaymentLine | undefined): string {
  if (!line) return "price unknown";
  const amount = line.amount ?? line.maxAmountRequired;
  return amount === undefined ? line.scheme : inUnits(amount, line.asset) + " (" + line.scheme + ")";
}

/** A message in a numbered list (nothing found, loading, a failure): one line without a number. */
const note = (message: string) => text("li", message, "note");

async function showListing(offset: number): Promise<void> {
  const list = byId<HTMLOListElement>("listing");
  try {
    const page = await getJson<DiscoveryPage>(
      "/discovery/resources?" + new URLSearchParams({ type: "http", limit: String(PAGE_SIZE), offset: String(offset) }),
    );
    listingOffset = offset;
    const total = page.pagination?.total ?? 0;
    if (page.items.length === 0)
      list.replaceChildren(note("Nothing listed yet. Sellers: list your API from the seller console."));
    else
      list.replaceChildren(
        ...page.items.map((item) => {
          const meta = item.metadata ?? {};
          const li = text("li", "");
          const link = text("a", meta.title || item.resource) as HTMLAnchorElement;
          link.href = item.resource;
          link.rel = "nofollow noopener";
          li.append(link, document.createTextNode(" · "), text("span", priceOf((item.accepts ?? [])[0]), "price"));
          li.append(
            text(
              "div",
              (meta.httpMethod || "GET") +
                " " +
                item.resource +
                (meta.category ? " · " + meta.category : "") +
                " · probed " +
                formatTime(item.lastUpdated),
              "meta",
            ),
          );
          if (meta.description) li.append(text("div", meta.description));
          return li;
        }),
      );
    list.start = offset + 1;
    byId("listing-page").textContent =
      total === 0 ? "" : offset + 1 + "–" + (offset + page.items.length) + " of " + total;
    byId<HTMLButtonElement>("listing-prev").disabled = offset === 0;
    byId<HTMLButtonElement>("listing-next").disabled = offset + page.items.length >= total;
  } catch (error) {
    list.replaceChildren(note("Listing unavailable: " + errorMessage(error)));
  }
}

async function search(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const results = byId("results");
  const q = byId<HTMLInputElement>("q").value.trim();
  if (!q) return;
  results.replaceChildren(note("Searching…"));
  try {
    const page = await getJson<{ entries: SearchEntry[] }>("/resources?" + new URLSearchParams({ q, limit: "20" }));
    if (page.entries.length === 0) {
      results.replaceChildren(note("No listed resource matches “" + q + "”."));
      return;
    }
    results.replaceChildren(
      ...page.entries.map((entry) => {
        const item = text("li", "");
        const link = text("a", entry.title) as HTMLAnchorElement;
        link.href = entry.resourceUrl;
        link.rel = "nofollow noopener";
        item.append(
          link,
          document.createTextNode(" · "),
          text("span", priceOf(entry.price), "price"),
          text(
            "div",
            entry.httpMethod +
              " " +
              entry.resourceUrl +
              " · " +
              entry.scheme +
              (entry.category ? " · " + entry.category : ""),
            "meta",
          ),
        );
        if (entry.description) item.append(text("div", entry.description));
        return item;
      }),
    );
  } catch (error) {
    results.replaceChildren(note("Search failed: " + errorMessage(error)));
  }
}

document.addEventListener("DOMContentLoaded", () => {
  byId<HTMLFormElement>("search").addEventListener("submit", search);
  byId("listing-prev").addEventListener("click", () => showListing(Math.max(0, listingOffset - PAGE_SIZE)));
  byId("listing-next").addEventListener("click", () => showListing(listingOffset + PAGE_SIZE));
  void showStatus();
  void showStats();
  void loadKnownAssets().then((known) => {
    assets = known;
    void showSchemes();
    void showListing(0);
  });
});
