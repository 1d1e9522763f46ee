/**
 * Instruction-data decoders that only tests need (the facilitator builds these instructions but never reads
 * them back). Each layout is written here from the ABI documents (docs/sla-escrow-abi.md,
 * docs/universal-settle-abi.md), independently of the program clients' tables; the framing (discriminator
 * byte, exact length, ProgramDataError) is the clients' shared `instructionDataCodec`.
 */
import {
  getAddressCodec,
  getBooleanCodec,
  getBytesCodec,
  getI64Codec,
  getStructCodec,
  getU16Codec,
  getU64Codec,
  fixCodecSize,
  padRightCodec,
} from "@solana/kit";
import { instructionDataCodec } from "../../src/programs/instruction-table";

const bytes32 = fixCodecSize(getBytesCodec(), 32);

/** SLA-Escrow FundPaymentV2 (8): FundPayment's fields, then four i64 overrides/windows and min_oracle_tip u64. */
export const fundPaymentV2Data = instructionDataCodec(
  "FundPaymentV2 instruction data",
  8,
  getStructCodec([
    ["seller", getAddressCodec()],
    ["mint", getAddressCodec()],
    ["oracleAuthority", getAddressCodec()],
    ["paymentUid", bytes32],
    ["slaHash", bytes32],
    ["amount", getU64Codec()],
    ["ttlSeconds", getI64Codec()],
    ["closureDelayOverrideSeconds", getI64Codec()],
    ["refundCooldownOverrideSeconds", getI64Codec()],
    ["deliveryCutoffOverrideSeconds", getI64Codec()],
    ["arbitrationWindowSeconds", getI64Codec()],
    ["minOracleTip", getU64Codec()],
  ]),
);

/** SLA-Escrow ResolveWithSplit (12): seller_bps u16, reason u16 + 2 pad, resolution hash, expected delivery hash. */
export const resolveWithSplitData = instructionDataCodec(
  "ResolveWithSplit instruction data",
  12,
  getStructCodec([
    ["sellerBps", getU16Codec()],
    ["reason", padRightCodec(getU16Codec(), 4)],
    ["resolutionHash", bytes32],
    ["expectedDeliveryHash", bytes32],
  ]),
);

/** UniversalSettle CreateVault (1): seller. */
export const createVaultData = instructionDataCodec("CreateVault instruction data", 1, getStructCodec([["seller", getAddressCodec()]]));

/** UniversalSettle Sweep (0): mint (zero for SOL), amount u64 (0 = everything), is_sol u8 + 7 zero bytes. */
export const sweepData = instructionDataCodec(
  "Sweep instruction data",
  0,
  getStructCodec([
    ["mint", getAddressCodec()],
    ["amount", getU64Codec()],
    ["isSol", padRightCodec(getBooleanCodec(), 7)],
  ]),
);
