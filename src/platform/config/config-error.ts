import { FacilitatorError } from "../errors/catalogue";

/** A configuration problem: every route answers 500 naming the key (docs/facilitator-spec.md §4.1). */
export class ConfigError extends FacilitatorError {
  constructor(
    readonly key: string,
    problem: string,
  ) {
    super("CONFIG_INVALID", `Invalid configuration: ${key} ${problem}`);
  }
}
