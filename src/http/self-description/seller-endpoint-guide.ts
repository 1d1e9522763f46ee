import { type EndpointInfo, publicPath } from "../route-def";

/**
 * `/seller-endpoint-guide.json` and `/capabilities.sellerEndpointGuide`: the seller's calls in order, each with its
 * side effect, in the array shape pr402 publishes (goal, method, path, sideEffect, returns, when; optional query,
 * body). Paths come from the route table, so a route that is not mounted is not listed.
 */
interface GuideStep {
  key: string;
  goal: string;
  sideEffect: string;
  returns: string;
  when: string;
  query?: string;
  body?: string;
}

const STEPS: readonly GuideStep[] = [
  {
    key: "sellerPreview",
    goal: "See every payTo of the wallet and the next onboarding step",
    sideEffect: "read-only",
    returns: "preview: schemes (exact, sla-escrow) and lifecycle",
    when: "First call; read lifecycle.nextStep",
  },
  {
    key: "sellerRails",
    goal: "Look up the payTo of one rail",
    query: "asset (sla-escrow: which asset's escrow; USDC by default)",
    sideEffect: "read-only",
    returns: "one rail of the preview",
    when: "Filling one accepts[] line",
  },
  {
    key: "sellerProvisionTx",
    goal: "Activate the vault (and its token account) yourself",
    body: "{ wallet, asset }",
    sideEffect: "returns an unsigned transaction you sign and send",
    returns: "provision transaction and addresses",
    when: "lifecycle.nextStep is activate",
  },
  {
    key: "paymentRequiredEnrich",
    goal: "Turn a draft 402 body into one that pays through this facilitator",
    body: "PaymentRequired with your wallet as payTo",
    sideEffect: "read-only transform",
    returns: "PaymentRequired with vault/escrow payTo and extra",
    when: "Publishing or changing prices",
  },
  {
    key: "sellerChallenge",
    goal: "Get a one-time message to sign",
    query: "action (optional; seller:any when omitted)",
    sideEffect: "read-only",
    returns: "challenge message",
    when: "Right before register, retire or payment history",
  },
  {
    key: "sellerRegisterChallenge",
    goal: "Get the registration's message to sign, naming what you register",
    body: "{ asset?, discovery?, payToForm?, ttlSeconds? }",
    sideEffect: "read-only",
    returns: "challenge message and the terms it binds",
    when: "Right before register (needed for a payToForm other than the default)",
  },
  {
    key: "sellerRegister",
    goal: "Become a verified provider",
    body: "{ message, signature, asset?, discovery?, payToForm? } (the terms the challenge was issued for)",
    sideEffect: "writes the provider registry",
    returns: "preview body plus the provider entry",
    when: "After activation has landed (wallet payTo form: once the wallet's token account exists)",
  },
  {
    key: "sellerRetire",
    goal: "Leave the registry",
    body: "{ message, signature }",
    sideEffect: "marks the registration retired (the vault stays)",
    returns: "{ wallet, retiredRowCount, note }",
    when: "Opting out",
  },
  {
    key: "resourceRegister",
    goal: "List one paid resource",
    body: "{ wallet, message, signature, resource }",
    sideEffect: "writes the resource directory, probes the URL",
    returns: "resource id and probe result",
    when: "After registering as a provider",
  },
];

export function buildSellerEndpointGuide(endpoints: readonly EndpointInfo[]) {
  return STEPS.flatMap(({ key, ...step }) => {
    const endpoint = endpoints.find((e) => e.key === key);
    return endpoint
      ? [
          {
            goal: step.goal,
            method: endpoint.method,
            path: publicPath(endpoint.path),
            ...(step.query ? { query: step.query } : {}),
            ...(step.body ? { body: step.body } : {}),
            sideEffect: step.sideEffect,
            returns: step.returns,
            when: step.when,
          },
        ]
      : [];
  });
}
