import { type Address, address, generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { UPTO_CLUSTER_DEFAULTS } from "../../../../src/rails/upto/cluster-defaults";
import { fundedBuyer, lamportsOf, tokenBalance } from "../../../support/workerd/chain";
import { TOKEN_2022_PROGRAM } from "../../../support/workerd/craft-payment";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import {
  createToken2022Mint,
  type MintExtension,
  permanentDelegate,
  transferFee,
  transferHook,
} from "../../../support/workerd/token-2022-mints";
import { channelAccount, uptoBody, uptoClaimBody, uptoDeposit, uptoLine } from "../../../support/workerd/upto-fixtures";

/**
 * upto deposits in Token-2022 mints, each a real mint made by the Token-2022 program on the local chain. The
 * payment-channels program opens channels only in mints whose extensions are on its allow-list (metadata and group
 * pointers); anything else — a transfer fee that would leave the escrow short of the deposit, a permanent delegate
 * that could empty it, a transfer hook that could refuse every payout — is refused by name before the fee payer
 * signs anything or fronts the channel's rent. A plain Token-2022 mint opens, claims and pays out like USDC.
 */

const TREASURY_OWNER = address(UPTO_CLUSTER_DEFAULTS.devnet.treasuryOwner);
const DEPOSIT = 2_000_000n;

async function world(label: string, extensions: MintExtension[]) {
  const facilitator = await isolatedFacilitator(label);
  const authorizer = await generateKeyPairSigner();
  const buyer = await fundedBuyer(0);
  const token = await createToken2022Mint(extensions);
  const buyerAccount = await token.fund(buyer.address, 5_000_000n);
  // Everything the deposit needs besides the mint exists: the treasury's and the seller's token accounts.
  await token.tokenAccount(TREASURY_OWNER);
  const seller = (await generateKeyPairSigner()).address;
  const sellerAccount = await token.tokenAccount(seller);
  const line = await uptoLine({
    feePayer: facilitator.feePayer,
    authorizer: authorizer.address,
    asset: token.mint,
    payTo: seller,
    amount: DEPOSIT.toString(),
    extra: { tokenProgram: TOKEN_2022_PROGRAM },
  });
  return { facilitator, authorizer, buyer, buyerAccount, sellerAccount, line, mint: token.mint };
}

describe(
  "upto in Token-2022 mints: the payment-channels program's allow-list, screened before the fee payer " + "signs",
  () => {
    const refused: [string, () => Promise<MintExtension>][] = [
      ["a transfer fee (1%)", async () => transferFee(100, 1_000_000n)],
      ["a permanent delegate", async () => permanentDelegate((await generateKeyPairSigner()).address)],
      ["a transfer hook", async () => transferHook((await generateKeyPairSigner()).address)],
    ];

    it.each(refused)(
      "a mint with %s: build, verify and settle refuse it by name; no channel, no lamport moves",
      async (label, extension) => {
        const ext = await extension();
        const w = await world(`upto-t22-${ext.name}`, [ext]);
        const reason = "invalid_upto_svm_payload_mint_extension_not_allowed";
        const named = new RegExp(`${ext.name} extension`);
        const before = await lamportsOf(w.facilitator.feePayer);

        const built = await w.facilitator.post("/build-upto-deposit-tx", { payer: w.buyer.address, accepted: w.line });
        expect(built.status, JSON.stringify(built.body)).toBe(400);
        expect(JSON.stringify(built.body)).toMatch(named);
        // The builder names upto's own reason, the one /verify gives below (not the exact rail's).
        expect(built.body).toMatchObject({ code: "BAD_REQUEST", reason });

        const deposit = await uptoDeposit(w.buyer, w.line);
        const verified = await w.facilitator.post("/verify", uptoBody(w.line, deposit));
        expect(verified.body, `${label}: ${JSON.stringify(verified.body)}`).toMatchObject({
          isValid: false,
          invalidReason: reason,
        });
        expect(verified.body.invalidMessage).toMatch(named);
        const settled = await w.facilitator.post("/settle", uptoBody(w.line, { ...deposit, type: "deposit" }));
        expect(settled.status, JSON.stringify(settled.body)).toBe(400);
        expect(settled.body).toMatchObject({ success: false, errorReason: reason, transaction: "" });
        expect(settled.body.errorMessage).toMatch(named);

        expect(await channelAccount(deposit.channelId as Address)).toBeNull();
        expect(await lamportsOf(w.facilitator.feePayer)).toBe(before);
        expect(await tokenBalance(w.buyerAccount)).toBe(5_000_000n);
      },
    );

    it(
      "a plain Token-2022 mint: verified, opened, claimed; the seller gets the claim, the buyer the " + "rest",
      async () => {
        const w = await world("upto-t22-plain", []);
        const deposit = await uptoDeposit(w.buyer, w.line);
        const verified = await w.facilitator.post("/verify", uptoBody(w.line, deposit));
        expect(verified.body, JSON.stringify(verified.body)).toMatchObject({ isValid: true, payer: w.buyer.address });
        const opened = await w.facilitator.post("/settle", uptoBody(w.line, { ...deposit, type: "deposit" }));
        expect(opened.body, JSON.stringify(opened.body)).toMatchObject({ success: true });
        expect(await tokenBalance(w.buyerAccount)).toBe(5_000_000n - DEPOSIT);

        const claimed = await w.facilitator.post(
          "/settle",
          await uptoClaimBody(w.line, deposit, 750_000n, w.authorizer),
        );
        expect(claimed.body, JSON.stringify(claimed.body)).toMatchObject({ success: true });
        expect(await tokenBalance(w.sellerAccount)).toBe(750_000n);
        expect(await tokenBalance(w.buyerAccount)).toBe(5_000_000n - 750_000n);
      },
    );
  },
);
