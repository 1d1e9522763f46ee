/**
 * sendTransaction and simulateTransaction as an Agave node runs them:
 *
 *   sanitise (caller) → resolve lookup tables → [verify signatures → preflight simulation] →
 *   blockhash age → status cache (AlreadyProcessed) → execute → record in the ledger.
 *
 * Without preflight (skipPreflight) a transaction that cannot land (bad signature, unknown or
 * expired blockhash, fee payer without funds, …) is silently dropped: the caller still gets the
 * signature and getSignatureStatuses keeps answering null, exactly like a cluster. A transaction
 * that fails while executing lands with its error and pays its fee.
 */

import { FailedTransactionMetadata, type SimulatedTransactionInfo, type TransactionMetadata } from "litesvm";
import { type AccountEncoding, encodeAccount } from "./account-encoding";
import { snapshotAccounts } from "./account-snapshot";
import { computeTransactionFee } from "./fees";
import type { LocalChain } from "./local-chain";
import { resolveLookupTables } from "./lookup-tables";
import { jsonParsedInstruction } from "./parsed-instructions";
import { confirmationDelayMs } from "./real-timing";
import { invalidParams, RPC_ERROR_CODE, RpcError } from "./rpc-errors";
import { describeTransactionError, type RpcTransactionError, toRpcTransactionError } from "./transaction-errors";
import type { InnerInstructionRecord, LedgerEntry, LoadedAddresses } from "./transaction-ledger";
import {
  decodeBase58,
  signatureVerificationFailure,
  toBase58,
  verifySignatures,
  type WireTransaction,
} from "./wire-transaction";

const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";
const ADVANCE_NONCE_ACCOUNT_INSTRUCTION = 4;
/** Versions::Current ‖ State::Initialized ‖ authority ‖ durable nonce ‖ fee calculator. */
const NONCE_ACCOUNT_SIZE = 80;

/** What executing (or simulating) produced, in RPC terms. */
interface ExecutionOutcome {
  err: RpcTransactionError | null;
  logs: string[];
  unitsConsumed: bigint;
  innerInstructions: InnerInstructionRecord[];
  returnData: { programId: string; data: Uint8Array } | null;
}

interface ResolvedKeys {
  accountKeys: string[];
  loadedAddresses: LoadedAddresses;
}

// -------------------------------------------------------------------------------------------------
// sendTransaction

export interface SubmitOptions {
  skipPreflight: boolean;
}

export function submitTransaction(chain: LocalChain, wire: WireTransaction, options: SubmitOptions): string {
  const { blockHeight } = chain.sync();
  const keys = resolveKeysOrThrow(chain, wire);

  if (!options.skipPreflight) {
    if (!verifySignatures(wire)) throw signatureVerificationFailure();
    const lifetimeErr = lifetimeError(chain, wire, blockHeight);
    if (lifetimeErr !== null) throw preflightFailure(emptyOutcome(lifetimeErr));
    const simulated = chain.simulateWireBytes(wire.bytes, wire.messageBytes);
    const preflight = outcomeOf(simulated instanceof FailedTransactionMetadata ? simulated : simulated.meta());
    if (preflight.err !== null) throw preflightFailure(preflight);
  } else {
    const dropReason = verifySignatures(wire) ? lifetimeError(chain, wire, blockHeight) : "SignatureFailure";
    if (dropReason !== null) {
      chain.log(`dropped transaction ${wire.signature}: ${describeTransactionError(dropReason)}`);
      return wire.signature;
    }
  }

  const programIndexes = new Set(wire.message.instructions.map((instruction) => instruction.programIdIndex));
  const before = snapshotAccounts(chain, keys.accountKeys, programIndexes);
  const result = chain.sendWireBytes(wire.bytes, wire.messageBytes);
  const after = snapshotAccounts(chain, keys.accountKeys, programIndexes);
  const outcome = outcomeOf(result);
  const feePaid = (before.balances[0] ?? 0n) - (after.balances[0] ?? 0n);
  if (outcome.err !== null && feePaid <= 0n) {
    // Failed before execution (e.g. fee payer cannot pay): nothing landed, nothing is charged.
    chain.log(`dropped transaction ${wire.signature}: ${describeTransactionError(outcome.err)}`);
    return wire.signature;
  }

  const { slot } = chain.sync();
  const landedAtMs = Date.now();
  const entry: LedgerEntry = {
    signature: wire.signature,
    slot,
    blockTime: chain.clock.unixTimestamp(),
    landedAtMs,
    confirmedAtMs: landedAtMs + confirmationDelayMs(chain.realTiming),
    transaction: wire,
    loadedAddresses: keys.loadedAddresses,
    accountKeys: keys.accountKeys,
    err: outcome.err,
    fee: outcome.err === null ? computeTransactionFee(wire.message) : feePaid,
    preBalances: before.balances,
    postBalances: after.balances,
    preTokenBalances: before.tokenBalances,
    postTokenBalances: after.tokenBalances,
    logMessages: outcome.logs,
    innerInstructions: outcome.innerInstructions,
    computeUnitsConsumed: outcome.unitsConsumed,
    returnData: outcome.returnData,
    lastValidBlockHeight:
      chain.blockhashes.lookup(wire.message.recentBlockhash)?.lastValidBlockHeight ?? blockHeight + 150n,
  };
  chain.recordTransaction(entry);
  return wire.signature;
}

function preflightFailure(outcome: ExecutionOutcome): RpcError {
  const err = outcome.err ?? "GenericError";
  return new RpcError(
    RPC_ERROR_CODE.SEND_TRANSACTION_PREFLIGHT_FAILURE,
    `Transaction simulation failed: ${describeTransactionError(err)}`,
    {
      accounts: null,
      err,
      innerInstructions: null,
      loadedAccountsDataSize: 0,
      logs: outcome.logs,
      replacementBlockhash: null,
      returnData: encodeReturnData(outcome.returnData),
      unitsConsumed: outcome.unitsConsumed,
    },
  );
}

// -------------------------------------------------------------------------------------------------
// simulateTransaction

export interface SimulateOptions {
  sigVerify: boolean;
  replaceRecentBlockhash: boolean;
  innerInstructions: boolean;
  accounts?: { addresses: string[]; encoding: AccountEncoding };
}

export function simulateTransaction(chain: LocalChain, wire: WireTransaction, options: SimulateOptions) {
  if (options.sigVerify && options.replaceRecentBlockhash) {
    throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
  }
  const { blockHeight } = chain.sync();
  const keys = resolveKeysOrThrow(chain, wire);
  if (options.sigVerify && !verifySignatures(wire)) throw signatureVerificationFailure();
  if (options.accounts && options.accounts.addresses.length > keys.accountKeys.length) {
    throw invalidParams(`Too many accounts provided; max ${keys.accountKeys.length}`);
  }

  let wireBytes = wire.bytes;
  let replacementBlockhash: { blockhash: string; lastValidBlockHeight: bigint } | null = null;
  let outcome: ExecutionOutcome;
  let simulated: SimulatedTransactionInfo | null = null;
  if (options.replaceRecentBlockhash) {
    const latest = chain.latestBlockhash();
    // The message is the tail of the wire bytes; the blockhash sits at a known offset inside it.
    wireBytes = new Uint8Array(wire.bytes);
    wireBytes.set(
      decodeBase58(latest.blockhash),
      wire.bytes.length - wire.messageBytes.length + wire.message.recentBlockhashOffset,
    );
    replacementBlockhash = { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight };
  }
  const lifetimeErr = options.replaceRecentBlockhash ? null : lifetimeError(chain, wire, blockHeight);
  if (lifetimeErr !== null) {
    outcome = emptyOutcome(lifetimeErr);
  } else {
    const result = chain.simulateWireBytes(wireBytes, wire.messageBytes);
    if (result instanceof FailedTransactionMetadata) {
      outcome = outcomeOf(result);
    } else {
      outcome = outcomeOf(result.meta());
      simulated = result;
    }
  }

  let accounts: unknown[] | null = null;
  if (options.accounts) {
    const { addresses, encoding } = options.accounts;
    // Post-simulation accounts are converted only when asked for (each costs a base58 encoding of its address).
    const postAccounts = new Map<string, ReturnType<LocalChain["getAccount"]>>(
      (simulated?.postAccounts() ?? []).map((account) => [
        account.address as string,
        {
          lamports: account.lamports,
          data: account.data as Uint8Array,
          owner: account.programAddress,
          executable: account.executable,
        },
      ]),
    );
    accounts =
      outcome.err !== null
        ? addresses.map(() => null)
        : addresses.map((pubkey) => {
            const account = postAccounts.has(pubkey) ? postAccounts.get(pubkey) : chain.getAccount(pubkey);
            return account ? encodeAccount(account, encoding, undefined, (mint) => chain.mintDecimals(mint)) : null;
          });
  }

  return {
    err: outcome.err,
    logs: outcome.logs,
    accounts,
    unitsConsumed: outcome.unitsConsumed,
    loadedAccountsDataSize: loadedAccountsDataSize(chain, keys.accountKeys),
    returnData: encodeReturnData(outcome.returnData),
    innerInstructions: options.innerInstructions
      ? jsonParsedInnerInstructions(outcome.innerInstructions, keys.accountKeys)
      : null,
    replacementBlockhash,
    fee: computeTransactionFee(wire.message),
  };
}

// -------------------------------------------------------------------------------------------------
// shared steps

function resolveKeysOrThrow(chain: LocalChain, wire: WireTransaction): ResolvedKeys {
  const resolution = resolveLookupTables(wire.message, (pubkey) => chain.getAccount(pubkey));
  if (!resolution.ok) throw invalidParams(`invalid transaction: ${describeTransactionError(resolution.err)}`);
  const { writable, readonly } = resolution.loaded;
  return {
    accountKeys: [...wire.message.staticAccountKeys, ...writable, ...readonly],
    loadedAddresses: resolution.loaded,
  };
}

/** The bank's check_age + check_status_cache, in that order (an expired duplicate is "not found"). */
function lifetimeError(chain: LocalChain, wire: WireTransaction, blockHeight: bigint): RpcTransactionError | null {
  const { recentBlockhash } = wire.message;
  if (!chain.blockhashes.isValid(recentBlockhash, blockHeight) && !isDurableNonceValid(chain, wire)) {
    return "BlockhashNotFound";
  }
  // Keyed by message hash, as Agave's status cache is: the same message under other signatures (e.g. a payer's copy
  // without the fee payer's signature) is a duplicate as well.
  if (chain.ledger.getByMessage(wire.messageBytes) !== undefined) return "AlreadyProcessed";
  return null;
}

/** A durable-nonce transaction: first instruction AdvanceNonceAccount, blockhash = the stored nonce. */
function isDurableNonceValid(chain: LocalChain, wire: WireTransaction): boolean {
  const { message } = wire;
  const first = message.instructions[0];
  if (first === undefined || message.staticAccountKeys[first.programIdIndex] !== SYSTEM_PROGRAM_ID) return false;
  if (
    first.data.length < 4 ||
    new DataView(first.data.buffer, first.data.byteOffset).getUint32(0, true) !== ADVANCE_NONCE_ACCOUNT_INSTRUCTION
  ) {
    return false;
  }
  const nonceIndex = first.accountIndexes[0];
  const noncePubkey = nonceIndex === undefined ? undefined : message.staticAccountKeys[nonceIndex];
  if (noncePubkey === undefined) return false;
  const nonceAccount = chain.getAccount(noncePubkey);
  if (!nonceAccount || nonceAccount.owner !== SYSTEM_PROGRAM_ID || nonceAccount.data.length !== NONCE_ACCOUNT_SIZE)
    return false;
  return toBase58(nonceAccount.data.subarray(40, 72)) === message.recentBlockhash;
}

function emptyOutcome(err: RpcTransactionError): ExecutionOutcome {
  return { err, logs: [], unitsConsumed: 0n, innerInstructions: [], returnData: null };
}

function outcomeOf(result: TransactionMetadata | FailedTransactionMetadata): ExecutionOutcome {
  const failed = result instanceof FailedTransactionMetadata;
  const meta = failed ? result.meta() : result;
  const returnData = meta.returnData();
  const returnBytes = returnData.data();
  const innerInstructions: InnerInstructionRecord[] = [];
  meta.innerInstructions().forEach((inner, index) => {
    if (inner.length === 0) return;
    innerInstructions.push({
      index,
      instructions: inner.map((instruction) => {
        const compiled = instruction.instruction();
        return {
          programIdIndex: compiled.programIdIndex(),
          accounts: Array.from(compiled.accounts()),
          data: compiled.data(),
          stackHeight: instruction.stackHeight(),
        };
      }),
    });
  });
  return {
    err: failed ? toRpcTransactionError(result.err()) : null,
    logs: meta.logs(),
    unitsConsumed: meta.computeUnitsConsumed(),
    innerInstructions,
    returnData: returnBytes.length > 0 ? { programId: toBase58(returnData.programId()), data: returnBytes } : null,
  };
}

export function encodeReturnData(returnData: { programId: string; data: Uint8Array } | null) {
  return returnData === null
    ? null
    : { programId: returnData.programId, data: [Buffer.from(returnData.data).toString("base64"), "base64"] };
}

/**
 * Inner instructions as an Agave node reports them for simulateTransaction (always parsed) and for getTransaction
 * with `jsonParsed`: known programs parsed, the rest partially decoded (./parsed-instructions.ts).
 */
export function jsonParsedInnerInstructions(records: InnerInstructionRecord[], accountKeys: readonly string[]) {
  return records.map((record) => ({
    index: record.index,
    instructions: record.instructions.map((instruction) =>
      jsonParsedInstruction({
        programId: accountKeys[instruction.programIdIndex] ?? "",
        accounts: instruction.accounts.map((index) => accountKeys[index] ?? ""),
        data: instruction.data,
        stackHeight: instruction.stackHeight,
      }),
    ),
  }));
}

/** Approximation of the runtime's loaded-accounts data size: the sum of the accounts' data lengths. */
function loadedAccountsDataSize(chain: LocalChain, accountKeys: readonly string[]): number {
  return accountKeys.reduce((sum, key) => sum + (chain.getAccount(key)?.data.length ?? 0), 0);
}
