import { describe, expect, it } from "vitest";
import {
  sellerOrigin,
  setSellerBehaviour,
  signedResourceChallenge,
  verifiedMerchant,
} from "../../../support/workerd/directory-fixtures";
import { call } from "../../../support/workerd/worker-http";

/**
 * Issue 22 §2, docs/facilitator-spec.md §3.3 gate 4: a resource is listed only while `lastProbeOk` holds. A probe that
 * reaches the seller and hears anything but a valid 402 unlists at once; only transport failures (timeout, refused,
 * 5xx) count toward SVC_PROBE_MAX_FAILURES (3 here); the served `lastProbeOk` is always what the listing uses. Real
 * loopback seller.
 */
describe("listing gate 4", () => {
  async function listedResource() {
    const merchant = await verifiedMerchant(sellerOrigin());
    const path = `/gate4-${crypto.randomUUID().slice(0, 8)}`;
    const registered = await call("/resources/register", {
      method: "POST",
      json: {
        ...(await signedResourceChallenge(merchant, "resource:register")),
        resource: { resourceUrl: `${sellerOrigin()}${path}`, title: "Gate four", scheme: "exact" },
      },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body.probe.ok).toBe(true);
    const id = registered.body.id as number;
    const probe = async () =>
      (
        await call("/resources/probe", {
          method: "POST",
          json: { ...(await signedResourceChallenge(merchant, "resource:probe")), id },
        })
      ).body;
    const ownerView = async () => {
      const owner = await call(`/sellers/${merchant.address}/resources`, {
        method: "POST",
        json: await signedResourceChallenge(merchant, "resource:list"),
      });
      return owner.body.entries.find((e: { id: number }) => e.id === id);
    };
    return { path, id, probe, ownerView };
  }

  it.each(["200", "404", "wrong-url", "redirect"])(
    "a definite answer (%s) unlists at once, and lastProbeOk says so",
    async (mode) => {
      const { path, id, probe, ownerView } = await listedResource();
      await setSellerBehaviour({ path, mode });
      expect(await probe()).toMatchObject({ ok: false, listed: false });
      expect((await call(`/resources/${id}`)).status).toBe(404);
      expect(await ownerView()).toMatchObject({ lastProbeOk: false, listed: false });
    },
  );

  it(
    "transport failures (5xx) are tolerated up to the maximum, with lastProbeOk true while the resource is " + "listed",
    async () => {
      const { path, id, probe, ownerView } = await listedResource();
      await setSellerBehaviour({ path, mode: "500" });
      for (let failure = 1; failure <= 2; failure++) {
        expect(await probe()).toMatchObject({ ok: false, httpStatus: 500, listed: true });
        const served = await call(`/resources/${id}`);
        expect(served.status).toBe(200);
        expect(served.body.lastProbeOk).toBe(true); // what the listing uses, not the last raw result
        expect(await ownerView()).toMatchObject({
          lastProbeOk: true,
          listed: true,
          consecutiveProbeFailures: failure,
          lastProbeStatus: 500,
        });
      }
      expect(await probe()).toMatchObject({ ok: false, listed: false });
      expect((await call(`/resources/${id}`)).status).toBe(404);
      expect(await ownerView()).toMatchObject({ lastProbeOk: false, listed: false, consecutiveProbeFailures: 3 });

      // A pass lists it again.
      await setSellerBehaviour({ path, mode: "402" });
      expect(await probe()).toMatchObject({ ok: true, listed: true });
      expect(await ownerView()).toMatchObject({ lastProbeOk: true, listed: true, consecutiveProbeFailures: 0 });
    },
  );

  it("a definite answer after tolerated transport failures unlists at once", async () => {
    const { path, id, probe } = await listedResource();
    await setSellerBehaviour({ path, mode: "500" });
    expect(await probe()).toMatchObject({ listed: true });
    await setSellerBehaviour({ path, mode: "200" });
    expect(await probe()).toMatchObject({ ok: false, listed: false });
    expect((await call(`/resources/${id}`)).status).toBe(404);
  });
});
