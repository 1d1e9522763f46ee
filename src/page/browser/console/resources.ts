/** Step 5: the seller's resources, the listing gates each must pass, and the manifest that proves the origin. */
import { byId, el } from "../dom";
import { formatTime } from "../time-format";
import { call, guarded, say } from "./calls";
import { state, walletAddress } from "./state";
import { resourceChallenge, sellerChallenge } from "./wallet";

/** A resource as the console keeps it: the owner's list entry, or what registering and probing answered. */
interface ResourceEntry {
  id: number;
  resourceUrl: string;
  httpMethod: string;
  title?: string;
  scheme: string;
  listingOptIn?: boolean;
  retired?: boolean;
  listed?: boolean;
  lastProbeOk?: boolean;
  lastProbeAt?: string;
  lastProbeStatus?: number;
  lastProbeError?: string;
  [key: string]: unknown;
}
interface ProbeAnswer {
  ok?: boolean;
  httpStatus?: number;
  error?: string;
  listed?: boolean;
}

/**
 * The Seller Resource Manifest that proves the origin belongs to this wallet (onboarding guide, "prove your origin").
 */
export function showManifest(): void {
  let origin = "https://your-api.example";
  try {
    origin = new URL(byId<HTMLInputElement>("service-url").value.trim()).origin;
  } catch {
    // not yet a URL
  }
  byId("manifest-url").textContent = origin + "/.well-known/x402-resources.json";
  byId("manifest-snippet").textContent = state.account
    ? JSON.stringify({ x402ResourceManifest: 1, merchantWallet: walletAddress(), resources: [] }, null, 2)
    : "Connect a wallet to see it.";
}

interface Gate {
  ok: boolean;
  name: string;
  fix: string;
}

function gatesOf(entry: ResourceEntry): Gate[] {
  const lifecycle = state.preview?.lifecycle ?? {};
  const gates: Gate[] = [
    { ok: lifecycle.verified !== false, name: "Seller verified", fix: "register this wallet (step 4)" },
    {
      ok: entry.listingOptIn !== false && !entry.retired,
      name: "Resource opted in and not retired",
      fix: entry.retired ? "register the resource again" : "register it again with listing on",
    },
  ];
  for (const [key, value] of Object.entries(entry)) {
    if (/^origin(Proof|Verified|Proven)/i.test(key) && typeof value !== "object") {
      gates.push({
        ok: value === true || value === "ok" || value === "verified",
        name: "Origin proven (" + key + ": " + String(value) + ")",
        fix: "publish the wallet-bound document on your origin (see the onboarding guide), then probe",
      });
    }
  }
  const probe = entry.lastProbeAt
    ? "last probe " +
      formatTime(entry.lastProbeAt) +
      (entry.lastProbeStatus ? ", HTTP " + entry.lastProbeStatus : "") +
      (entry.lastProbeError ? ": " + entry.lastProbeError : "")
    : "never probed";
  gates.push({
    ok: entry.lastProbeOk === true,
    name: "Answers a valid 402 (" + probe + ")",
    fix:
      "make " +
      entry.httpMethod +
      " " +
      entry.resourceUrl +
      " answer HTTP 402 with a payment request naming that URL, then Probe now",
  });
  return gates;
}

function resourceCard(entry: ResourceEntry): HTMLElement {
  const gates = gatesOf(entry);
  const failing = gates.find((g) => !g.ok);
  const verified = state.preview?.lifecycle?.verified !== false;
  const verdict =
    entry.listed === true && verified
      ? el("p", { class: "ok", text: "Listed in the public directory." })
      : failing
        ? el("p", { class: "bad", text: "Not listed. Failing gate: " + failing.name + ". To do: " + failing.fix + "." })
        : el("p", {
            class: entry.listed === false ? "bad" : "muted",
            text:
              entry.listed === false
                ? "Not listed yet: the listing follows the next probe."
                : "Every gate holds: it is listed (sign and list to confirm).",
          });
  const probeButton = el("button", { type: "button", class: "needs-wallet", text: "Probe now" });
  const retireButton = el("button", { type: "button", class: "needs-wallet secondary", text: "Retire" });
  probeButton.addEventListener("click", () => guarded("resources-status", () => probeResource(entry)));
  retireButton.addEventListener("click", () => guarded("resources-status", () => retireResource(entry)));
  if (entry.retired) {
    probeButton.hidden = true;
    retireButton.hidden = true;
  }
  return el(
    "li",
    { "data-resource-id": String(entry.id) },
    el("strong", { text: "#" + entry.id + " " + (entry.title || entry.resourceUrl) }),
    el("div", {
      class: "muted",
      text: entry.httpMethod + " " + entry.resourceUrl + " · " + entry.scheme + (entry.retired ? " · retired" : ""),
    }),
    el(
      "ul",
      { class: "gates", "aria-label": "Listing gates" },
      ...gates.map((g) => el("li", { class: g.ok ? "ok" : "bad", text: (g.ok ? "✓ " : "✗ ") + g.name })),
    ),
    verdict,
    el("p", { class: "buttons" }, probeButton, retireButton),
  );
}

function upsertCard(entry: ResourceEntry): void {
  const list = byId("resources");
  const card = resourceCard(entry);
  const old = list.querySelector('[data-resource-id="' + entry.id + '"]');
  if (old) old.replaceWith(card);
  else list.prepend(card);
  card.querySelectorAll<HTMLButtonElement>(".needs-wallet").forEach((b) => {
    b.disabled = !state.account;
  });
}

export async function listResources(): Promise<void> {
  say("resources-status", "Sign the listing request in your wallet…");
  const signed = await sellerChallenge("resources", "resource:list");
  const body = await call<{ entries?: ResourceEntry[] }>(
    "resources",
    "POST",
    "/sellers/" + walletAddress() + "/resources",
    { ...signed, limit: 50 },
  );
  const entries = body.entries ?? [];
  byId("resources").replaceChildren();
  for (const entry of entries.slice().reverse()) upsertCard(entry);
  say(
    "resources-status",
    entries.length === 0
      ? "No resources registered by this wallet yet."
      : entries.length + " resource(s); " + entries.filter((e) => e.listed).length + " listed.",
    "ok",
  );
}

export async function registerResource(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const resource: Record<string, string> = {
    resourceUrl: byId<HTMLInputElement>("resource-url").value.trim(),
    httpMethod: byId<HTMLSelectElement>("resource-method").value,
    title: byId<HTMLInputElement>("resource-title").value.trim(),
    scheme: byId<HTMLSelectElement>("resource-scheme").value,
  };
  const description = byId<HTMLInputElement>("resource-description").value.trim();
  if (description) resource.description = description;
  say("resources-status", "Sign the resource registration in your wallet…");
  const signed = await resourceChallenge("resources", "resource:register");
  const body = await call<{
    id: number;
    resourceUrl?: string;
    listingOptIn?: boolean;
    probe?: ProbeAnswer;
    note?: string;
  }>("resources", "POST", "/resources/register", {
    wallet: walletAddress(),
    ...signed,
    resource,
  });
  const probe = body.probe ?? {};
  const entry: ResourceEntry = {
    id: body.id,
    resourceUrl: body.resourceUrl || resource.resourceUrl!,
    httpMethod: resource.httpMethod!,
    title: resource.title!,
    scheme: resource.scheme!,
    listingOptIn: body.listingOptIn !== false,
    retired: false,
    lastProbeOk: probe.ok === true,
    lastProbeAt: new Date().toISOString(),
    ...(probe.httpStatus !== undefined ? { lastProbeStatus: probe.httpStatus } : {}),
    ...(probe.error !== undefined ? { lastProbeError: probe.error } : {}),
  };
  upsertCard(entry);
  say("resources-status", body.note || "Registered resource #" + body.id + ".", probe.ok ? "ok" : "bad");
}

async function probeResource(entry: ResourceEntry): Promise<void> {
  say("resources-status", "Sign the probe request in your wallet…");
  const signed = await resourceChallenge("resources", "resource:probe");
  const body = await call<ProbeAnswer>("resources", "POST", "/resources/probe", {
    wallet: walletAddress(),
    ...signed,
    id: entry.id,
  });
  const updated: ResourceEntry = {
    ...entry,
    lastProbeOk: body.ok === true,
    lastProbeAt: new Date().toISOString(),
    listed: body.listed === true,
  };
  delete updated.lastProbeStatus;
  delete updated.lastProbeError;
  if (body.httpStatus !== undefined) updated.lastProbeStatus = body.httpStatus;
  if (body.error !== undefined) updated.lastProbeError = body.error;
  upsertCard(updated);
  say(
    "resources-status",
    "Probe of #" +
      entry.id +
      ": " +
      (body.ok ? "HTTP 402, valid" : "failed (" + (body.error || "HTTP " + body.httpStatus) + ")") +
      (body.listed ? "; listed." : "; not listed."),
    body.ok ? "ok" : "bad",
  );
}

async function retireResource(entry: ResourceEntry): Promise<void> {
  say("resources-status", "Sign the retirement in your wallet…");
  const signed = await resourceChallenge("resources", "resource:retire");
  const body = await call<{ note?: string }>("resources", "POST", "/resources/retire", {
    wallet: walletAddress(),
    ...signed,
    id: entry.id,
  });
  upsertCard({ ...entry, retired: true, listed: false });
  say("resources-status", body.note || "Retired.", "ok");
}
