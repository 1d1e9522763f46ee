import { isAddress } from "@solana/kit";
import * as v from "valibot";

/**
 * The validations configuration keys share. Values arrive as strings (env vars, D1 `parameters` rows) and are parsed
 * here, so the rest of the service only ever sees typed values. The core's keys use them in schema.ts, each rail's in
 * its own `rails/<scheme>/config.ts`.
 */

export const trimmed = v.pipe(v.string(), v.trim());

export const address = v.pipe(
  trimmed,
  v.check((s) => isAddress(s), "must be a base58 Solana address"),
);

export const optionalAddress = v.optional(v.union([v.literal(""), address]), "");

export const httpUrl = v.pipe(
  trimmed,
  v.url("must be an http(s) URL"),
  v.check((s) => /^https?:\/\//i.test(s), "must be an http(s) URL"),
);

export const wsOrHttpUrl = v.pipe(
  trimmed,
  v.url("must be a ws(s) or http(s) URL"),
  v.check((s) => /^(wss?|https?):\/\//i.test(s), "must be a ws(s) or http(s) URL"),
);

export function integer(min: number, max: number, fallback: number) {
  return v.optional(
    v.pipe(
      trimmed,
      v.regex(/^\d+$/, "must be a whole number"),
      v.transform(Number),
      v.minValue(min, `must be at least ${min}`),
      v.maxValue(max, `must be at most ${max}`),
    ),
    String(fallback),
  );
}

export function u64(fallback: bigint) {
  return v.optional(
    v.pipe(
      trimmed,
      v.regex(/^\d{1,20}$/, "must be a whole number"),
      v.transform((s) => BigInt(s)),
      v.check((n) => n <= 0xffff_ffff_ffff_ffffn, "must fit in u64"),
    ),
    String(fallback),
  );
}

export const boolean = (fallback: boolean) =>
  v.optional(
    v.pipe(
      trimmed,
      v.toLowerCase(),
      v.picklist(["true", "false", "1", "0", "yes", "no", ""], "must be true/false, 1/0 or yes/no"),
      v.transform((s) => s === "true" || s === "1" || s === "yes"),
    ),
    fallback ? "true" : "false",
  );

/** Mint list separated by commas or whitespace (docs/facilitator-spec.md §8 `SVC_ALLOWED_PAYMENT_MINTS`). */
export const mintList = v.optional(
  v.pipe(
    v.string(),
    v.transform((s) => s.split(/[\s,]+/).filter((m) => m.length > 0)),
    v.check((list) => list.every((m) => isAddress(m)), "every entry must be a base58 mint address"),
  ),
  "",
);

/** JSON object mapping mint → raw threshold (docs/facilitator-spec.md §8 `SVC_SWEEP_MIN_SPL_RAW_BY_MINT`). */
export const mintThresholdMap = v.optional(
  v.pipe(
    trimmed,
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      if (dataset.value === "") return {} as Record<string, bigint>;
      try {
        const parsed: unknown = JSON.parse(dataset.value);
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
        const out: Record<string, bigint> = {};
        for (const [mint, raw] of Object.entries(parsed)) {
          if (!isAddress(mint) || !/^\d{1,20}$/.test(String(raw))) throw new Error(`bad entry ${mint}`);
          out[mint] = BigInt(String(raw));
        }
        return out;
      } catch {
        addIssue({ message: 'must be a JSON object like {"<mint>": "3000000"}' });
        return NEVER;
      }
    }),
  ),
  "",
);
