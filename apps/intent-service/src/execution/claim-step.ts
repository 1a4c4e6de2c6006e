import { randomUUID } from 'node:crypto';
import { type IntentsRepository } from '../intents/intents.repository.js';
import { type ClaimedIntent } from './execution.types.js';

/** A round's claim on a token's waiting intents: the lease token and the intents it holds. */
export interface Claim {
  claimToken: string;
  intents: ClaimedIntent[];
}

/** A claim started before the round found its launch (a pending launch, claimed while it is stored). */
export interface EarlyClaim {
  claimToken: string;
  intents: Promise<ClaimedIntent[]>;
}

/**
 * Step 1 of a round, claim: leases a launched token's waiting intents (highest bribe first, at
 * most `batch`), and gives them back untouched or released with a reason when the round cannot
 * act on them. A claim is a row lease: replicas share the work, a dead replica's claims lapse.
 */
export class ClaimStep {
  constructor(
    private readonly intents: Pick<IntentsRepository, 'claim' | 'handBack' | 'release'>,
    private readonly batch: number,
    private readonly newToken: () => string = randomUUID,
  ) {}

  /** Claims now for each token recognised pending (the round takes each once; see EarlyClaims). */
  early(chainId: number, tokens: string[]): EarlyClaims {
    const claims = new Map<string, EarlyClaim>();
    for (const token of tokens) {
      const claimToken = this.newToken();
      const intents = this.intents.claim(chainId, token, claimToken, this.batch);
      intents.catch(() => undefined); // the round that takes it sees the error
      claims.set(token.toLowerCase(), { claimToken, intents });
    }
    return new EarlyClaims(claims, (claim) => this.handBack(claim));
  }

  /** The token's claim: the early one when the round made it, else a claim made now. */
  async claim(chainId: number, token: string, early?: EarlyClaim): Promise<Claim> {
    const claimToken = early?.claimToken ?? this.newToken();
    const intents = await (early?.intents ?? this.intents.claim(chainId, token, claimToken, this.batch));
    return { claimToken, intents };
  }

  /** Back to the queue untouched: another round decides. */
  async handBack(claim: Claim): Promise<void> {
    const ids = claim.intents.map((i) => i.id);
    if (ids.length > 0) await this.intents.handBack(claim.claimToken, ids);
  }

  /** Back to the queue with `reason` as the intents' statusReason (a transient failure: nothing was decided). */
  async release(claim: Claim, reason: string): Promise<void> {
    await this.intents.release(
      claim.claimToken,
      claim.intents.map((i) => i.id),
      reason,
    );
  }
}

/** The early claims of one round, by token: each taken at most once; the rest handed back at the round's end. */
export class EarlyClaims {
  constructor(
    private readonly claims: Map<string, EarlyClaim>,
    private readonly giveBack: (claim: Claim) => Promise<void>,
  ) {}

  /** The token's early claim, once (undefined: none, or taken already). */
  take(token: string): EarlyClaim | undefined {
    const claim = this.claims.get(token.toLowerCase());
    this.claims.delete(token.toLowerCase());
    return claim;
  }

  /** Hands back every claim no launch took (a failed claim holds nothing). */
  async handBackRest(): Promise<void> {
    for (const { claimToken, intents } of this.claims.values()) {
      await this.giveBack({ claimToken, intents: await intents.catch(() => []) });
    }
    this.claims.clear();
  }
}
